package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.railyard.api.MonitoringSpec;
import io.railyard.api.TrainingJobSpec;

/**
 * The nccl-watch sidecar: a native sidecar (an init container that keeps running) of the gang's first pod that polls
 * NCCL's RAS service, which answers for the whole job from any of its processes, and logs one JSON line per change.
 * It gets no service account token: the operator reads its log.
 */
public final class HangWatch {
    public static final String CONTAINER = "nccl-watch";
    static final int DEFAULT_INTERVAL_SECONDS = 30;
    static final int DEFAULT_STALL_AFTER_SECONDS = 300;
    /** NCCL's own default RAS port, in the pod's network namespace. */
    static final int RAS_PORT = 28028;
    /** On the host network the job's own port, beyond the preflight gate's (master port + 1 + one per HCA). */
    static final int HOST_NETWORK_OFFSET = 100;
    static final String NO_TOKEN = "no-service-account-token";
    private static final String TOKEN_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

    private HangWatch() {}

    public static boolean enabled(TrainingJobSpec spec) {
        MonitoringSpec.HangDetection hang = settings(spec);
        return hang == null || hang.enabled == null || hang.enabled;
    }

    /** Whether the job asked for a stalled or missing verdict to restart the gang. */
    public static boolean restarts(TrainingJobSpec spec) {
        MonitoringSpec.HangDetection hang = settings(spec);
        return enabled(spec) && hang != null && Boolean.TRUE.equals(hang.restart);
    }

    /** RAS's address in the pod, as NCCL_RAS_ADDR: its own port per job on the host network, where jobs share a node's. */
    static String rasAddress(JobSettings settings) {
        return "localhost:" + (settings.hostNetwork() ? settings.masterPort() + HOST_NETWORK_OFFSET : RAS_PORT);
    }

    public static int intervalSeconds(TrainingJobSpec spec) {
        MonitoringSpec.HangDetection hang = settings(spec);
        return hang == null || hang.intervalSeconds == null ? DEFAULT_INTERVAL_SECONDS : hang.intervalSeconds;
    }

    static Container sidecar(JobSettings settings, String railyardImage) {
        MonitoringSpec.HangDetection hang = settings(settings.spec());
        int interval = intervalSeconds(settings.spec());
        int stallAfter = hang == null || hang.stallAfterSeconds == null ? DEFAULT_STALL_AFTER_SECONDS : hang.stallAfterSeconds;
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(railyardImage)
                .withRestartPolicy("Always")
                .withArgs(CONTAINER, "-o", "json", "--ras", rasAddress(settings), "--interval", String.valueOf(interval),
                        "--stall-after", String.valueOf(stallAfter))
                .addNewEnv().withName("JAVA_TOOL_OPTIONS").withValue("-XX:+UseSerialGC -Xmx32m -Xss256k -XX:TieredStopAtLevel=1").endEnv()
                .withNewResources().addToRequests("cpu", new Quantity("10m")).addToRequests("memory", new Quantity("96Mi"))
                .addToLimits("memory", new Quantity("160Mi")).endResources()
                .addNewVolumeMount().withName(NO_TOKEN).withMountPath(TOKEN_DIR).withReadOnly(true).endVolumeMount()
                .withSecurityContext(PodModel.helperSecurity())
                .build();
    }

    /** An empty directory over the service account token's path, so that the sidecar has none. */
    static Volume noToken() {
        return new VolumeBuilder().withName(NO_TOKEN).withNewEmptyDir().withSizeLimit(new Quantity("1Mi")).endEmptyDir().build();
    }

    private static MonitoringSpec.HangDetection settings(TrainingJobSpec spec) {
        return spec.monitoring == null ? null : spec.monitoring.hangDetection;
    }
}
