package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.railyard.api.MonitoringSpec;
import io.railyard.api.Names;
import io.railyard.api.TrainingJobSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * NCCL Inspector on every pod: the trainer gets the plugin's variables and a dump directory, and a native sidecar,
 * {@code railyard nccl-speed}, reads it and serves each interval's bus bandwidth on /metrics. The sidecar gets no
 * service account token. A user's own values of the plugin's variables win and are left alone.
 */
public final class InspectorSidecar {
    public static final String CONTAINER = "nccl-speed";
    static final String VOLUME = "nccl-inspector";
    static final String DUMP_DIR = "/var/run/railyard/nccl-inspector";
    /** The trainer's RAILYARD_GPU_NICS, left for the sidecar beside Inspector's files (nccl-speed skips dotfiles). */
    static final String GPU_NICS_FILE = DUMP_DIR + "/.gpu-nics";
    static final int DEFAULT_INTERVAL_SECONDS = 30;
    /** Its /metrics in the pod's network namespace. */
    static final int PORT = 9403;
    /** On the host network the job's own port, beyond nccl-watch's (master port + 100). */
    static final int HOST_NETWORK_OFFSET = 101;
    /** Where the first pod's sidecar gathers the ranks' summaries, in the pod's network namespace. */
    static final int GATHER_PORT = 9404;
    static final int DEFAULT_SLOW_PERCENT = 80;
    static final int DEFAULT_WINDOWS = 3;
    private static final Set<String> VARIABLES = Set.of("NCCL_PROFILER_PLUGIN", "NCCL_INSPECTOR_ENABLE",
            "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "NCCL_INSPECTOR_DUMP_DIR");

    private InspectorSidecar() {}

    public static boolean enabled(TrainingJobSpec spec) {
        MonitoringSpec.NcclInspector inspector = settings(spec);
        return inspector != null && Boolean.TRUE.equals(inspector.enabled);
    }

    public static int intervalSeconds(TrainingJobSpec spec) {
        MonitoringSpec.NcclInspector inspector = settings(spec);
        return inspector == null || inspector.intervalSeconds == null ? DEFAULT_INTERVAL_SECONDS : inspector.intervalSeconds;
    }

    public static int slowPercent(TrainingJobSpec spec) {
        MonitoringSpec.NcclInspector inspector = settings(spec);
        return inspector == null || inspector.slowPercent == null ? DEFAULT_SLOW_PERCENT : inspector.slowPercent;
    }

    public static int windows(TrainingJobSpec spec) {
        MonitoringSpec.NcclInspector inspector = settings(spec);
        return inspector == null || inspector.windows == null ? DEFAULT_WINDOWS : inspector.windows;
    }

    /** The profiler plugin NCCL loads: the user's, or NCCL Inspector's own. */
    public static String plugin(TrainingJobSpec spec) {
        MonitoringSpec.NcclInspector inspector = settings(spec);
        return inspector == null || inspector.plugin == null || inspector.plugin.isBlank() ? "inspector" : inspector.plugin;
    }

    /** The plugin's variables for the trainer, but those the user set. */
    static Map<String, String> trainerEnv(JobSettings settings) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("NCCL_PROFILER_PLUGIN", plugin(settings.spec()));
        env.put("NCCL_INSPECTOR_ENABLE", "1");
        env.put("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", String.valueOf(intervalSeconds(settings.spec()) * 1_000_000L));
        env.put("NCCL_INSPECTOR_DUMP_DIR", DUMP_DIR);
        env.keySet().removeAll(userSet(settings));
        return env;
    }

    /** What render says of the user's own values. */
    static List<String> warnings(JobSettings settings) {
        List<String> set = userSet(settings).stream().filter(VARIABLES::contains).sorted().toList();
        return !enabled(settings.spec()) || set.isEmpty() ? List.of() : List.of("spec.monitoring.ncclInspector: your own "
                + String.join(", ", set) + " " + (set.size() == 1 ? "is" : "are") + " left as you set "
                + (set.size() == 1 ? "it" : "them") + "; the nccl-speed sidecar reads " + DUMP_DIR);
    }

    static Volume dumpDir() {
        return new VolumeBuilder().withName(VOLUME).withNewEmptyDir().withSizeLimit(new Quantity("2Gi")).endEmptyDir().build();
    }

    static VolumeMount trainerMount() {
        return new VolumeMountBuilder().withName(VOLUME).withMountPath(DUMP_DIR).build();
    }

    static int port(JobSettings settings) {
        return settings.hostNetwork() ? settings.masterPort() + HOST_NETWORK_OFFSET : PORT;
    }

    static int gatherPort(JobSettings settings) {
        return settings.hostNetwork() ? settings.masterPort() + HOST_NETWORK_OFFSET + 1 : GATHER_PORT;
    }

    /**
     * The first pod's sidecar gathers every rank's summary and logs the job's line, which the operator reads; the
     * others send theirs to it through the headless Service.
     */
    static Container sidecar(JobSettings settings, int index, String railyardImage) {
        List<String> args = new java.util.ArrayList<>(List.of(CONTAINER, "--dir", DUMP_DIR, "--interval", String.valueOf(intervalSeconds(settings.spec())),
                "--listen", "0.0.0.0:" + port(settings), "--trainingjob", settings.name(), "--rank", "$(RAILYARD_RANK)",
                "--gpus-per-node", String.valueOf(java.util.Objects.requireNonNullElse(settings.spec().gpusPerNode, 0))));
        args.addAll(ChannelKey.args());
        if (index == 0) {
            args.addAll(List.of("--gather", "0.0.0.0:" + gatherPort(settings), "--ranks", String.valueOf(settings.spec().nodes),
                    "--slow-percent", String.valueOf(slowPercent(settings.spec())), "--windows", String.valueOf(windows(settings.spec()))));
            settings.jobInterface().ifPresent(name -> args.add("--bind-interface=" + name));
        } else {
            args.addAll(List.of("--report-to", settings.masterAddress() + ":" + gatherPort(settings)));
        }
        ContainerBuilder container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(railyardImage)
                .withRestartPolicy("Always")
                .withArgs(args)
                .addNewEnv().withName("RAILYARD_RANK").withNewValueFrom().withNewFieldRef()
                .withFieldPath("metadata.labels['" + Names.RANK_LABEL + "']").endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("JAVA_TOOL_OPTIONS").withValue("-XX:+UseSerialGC -Xmx48m -Xss256k -XX:TieredStopAtLevel=1").endEnv()
                .addNewPort().withName("nccl-speed").withContainerPort(port(settings)).endPort()
                .withNewResources().addToRequests("cpu", new Quantity("20m")).addToRequests("memory", new Quantity("128Mi"))
                .addToLimits("memory", new Quantity("192Mi")).endResources()
                .addNewVolumeMount().withName(VOLUME).withMountPath(DUMP_DIR).withReadOnly(true).endVolumeMount()
                .addToVolumeMounts(ChannelKey.mount())
                .addToEnv(ChannelKey.jobUid(settings))
                .addNewVolumeMount().withName(HangWatch.NO_TOKEN).withMountPath("/var/run/secrets/kubernetes.io/serviceaccount")
                .withReadOnly(true).endVolumeMount()
                .withSecurityContext(PodModel.helperSecurity());
        if (index == 0) {
            container.addNewPort().withName("speed-gather").withContainerPort(gatherPort(settings)).endPort();
        }
        return container.build();
    }

    private static Set<String> userSet(JobSettings settings) {
        Set<String> names = new java.util.HashSet<>();
        if (settings.rdma().env != null) {
            names.addAll(settings.rdma().env.keySet());
        }
        if (settings.podTemplate().env != null) {
            names.addAll(settings.podTemplate().env.stream().map(EnvVar::getName).collect(Collectors.toSet()));
        }
        return names;
    }

    private static MonitoringSpec.NcclInspector settings(TrainingJobSpec spec) {
        return spec.monitoring == null ? null : spec.monitoring.ncclInspector;
    }
}
