package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerRestartRule;
import io.fabric8.kubernetes.api.model.ContainerRestartRuleBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.railyard.api.RunPolicy.RestartStrategy;
import io.railyard.api.TrainingJobSpec;
import java.util.List;
import java.util.Optional;

/**
 * How a gang restarts: in place (KEP-5532's RestartAllContainers, Kubernetes 1.36) or by deleting and creating its pods.
 * In place, each pod gets a sidecar that exits with {@link #RESTART_CODE} when the operator moves the pod's attempt label
 * past the attempt its trainer runs, and a rule on that sidecar and on the trainer that such an exit restarts every
 * container of the pod where it stands; await-rank then holds the trainer until the pod carries a newer attempt.
 */
public final class RestartStrategies {
    /** The sidecar's exit code that restarts the pod in place: one no shell or signal gives. */
    public static final int RESTART_CODE = 86;
    /** The oldest Kubernetes release whose pods restart in place without a feature gate turned on. */
    public static final String IN_PLACE_SINCE = "1.36";
    static final String RESTART_WATCH = "restart-watch";
    /** The port of rank 0's gate for a new attempt (await-rank's --barrier-port); on the host network, the master port + 103. */
    static final int BARRIER_PORT = 9405;
    static final int HOST_NETWORK_OFFSET = 103;

    private static final java.util.regex.Pattern VERSION = java.util.regex.Pattern.compile("v?(\\d+)\\.(\\d+)");

    private RestartStrategies() {}

    /** The strategy asked for, Auto when none. */
    public static RestartStrategy asked(TrainingJobSpec spec) {
        return spec.runPolicy == null || spec.runPolicy.restartStrategy == null ? RestartStrategy.AUTO : spec.runPolicy.restartStrategy;
    }

    /**
     * Whether the job's pods restart in place on a cluster that does ({@code served}) or does not restart pods in place.
     * A Kueue gang never does: Kueue admits a pod group whole and replaces a member only by a pod of another name, so each
     * run is a group of its own, created whole.
     */
    public static boolean inPlace(TrainingJobSpec spec, boolean served) {
        return served && asked(spec) != RestartStrategy.RECREATE && !queuedByKueue(spec);
    }

    /** InPlace asked of a cluster that does not restart pods in place, or of a Kueue gang: the operator refuses it. */
    public static Optional<String> unserved(TrainingJobSpec spec, boolean served) {
        if (asked(spec) == RestartStrategy.IN_PLACE && queuedByKueue(spec)) {
            return Optional.of("spec.runPolicy.restartStrategy is InPlace but scheduler kueue restarts a gang only by recreating it"
                    + " (Kueue replaces a member of a pod group only by a pod of another name): use Auto or Recreate");
        }
        return asked(spec) == RestartStrategy.IN_PLACE && !served
                ? Optional.of("spec.runPolicy.restartStrategy is InPlace but this cluster does not restart pods in place (Kubernetes "
                        + IN_PLACE_SINCE + ", or gates RestartAllContainersOnContainerExits and ContainerRestartRules on, with the operator's "
                        + "--in-place-restart=on): use Auto or Recreate")
                : Optional.empty();
    }

    /** What `railyard render` says of InPlace for a cluster that does not restart pods in place. */
    static Optional<String> warning(TrainingJobSpec spec, boolean served) {
        return unserved(spec, served).map(problem -> problem + "; the pods are shown as Recreate makes them");
    }

    /** Whether a Kubernetes version ("1.36", "v1.36.2", "1.37+") restarts pods in place by default. */
    public static boolean servedBy(String version) {
        return atLeast(version, 36);
    }

    /** Whether a Kubernetes version ("1.36", "v1.36.2", "1.37+") is 1.{@code minor} or newer; false for what is not a version. */
    static boolean atLeast(String version, int minor) {
        java.util.regex.Matcher m = VERSION.matcher(version == null ? "" : version);
        if (!m.lookingAt()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        return major > 1 || major == 1 && Integer.parseInt(m.group(2)) >= minor;
    }

    /** await-rank's arguments for the gang's gate: every rank of a new attempt passes together. */
    static List<String> gate(JobSettings settings) {
        List<String> args = new java.util.ArrayList<>(List.of("--barrier-port=" + (settings.hostNetwork() ? settings.masterPort() + HOST_NETWORK_OFFSET
                : BARRIER_PORT), "--nodes=" + settings.spec().nodes));
        if (!settings.topologyOrder()) { // else rank 0's address comes with the rank, in the annotations
            args.add("--master-addr=" + settings.masterAddress());
        }
        args.addAll(ChannelKey.args());
        args.addAll(settings.jobInterface().map(name -> List.of("--bind-interface=" + name)).orElse(List.of()));
        return args;
    }

    /** The native sidecar that turns the operator's new attempt into an in-place restart of the pod. */
    static Container sidecar(String railyardImage) {
        Container watch = new ContainerBuilder()
                .withName(RESTART_WATCH)
                .withImage(railyardImage)
                .withArgs("restart-watch", "--labels=" + PodModel.POD_INFO + "/labels", "--attempt-file=" + PodModel.ATTEMPT_FILE)
                .withRestartPolicy("Always")
                .addNewVolumeMount().withName("pod-info").withMountPath(PodModel.POD_INFO).withReadOnly(true).endVolumeMount()
                .addNewVolumeMount().withName("rank").withMountPath(PodModel.RANK_DIR).withReadOnly(true).endVolumeMount()
                .withNewResources().addToRequests("cpu", new Quantity("10m")).addToRequests("memory", new Quantity("128Mi"))
                .addToLimits("memory", new Quantity("128Mi")).endResources()
                .withSecurityContext(PodModel.helperSecurity())
                .build();
        watch.setRestartPolicyRules(List.of(rule("In", RESTART_CODE)));
        return watch;
    }

    /** The trainer's own failure restarts the pod in place too: its container is never restarted alone. */
    static void trainer(Container trainer) {
        trainer.setRestartPolicy("Never");
        trainer.setRestartPolicyRules(List.of(rule("NotIn", 0)));
    }

    /** A container's rule: an exit code In or NotIn {@code code} restarts every container of the pod. */
    private static ContainerRestartRule rule(String operator, int code) {
        return new ContainerRestartRuleBuilder().withAction("RestartAllContainers").withNewExitCodes().withOperator(operator).withValues(code)
                .endExitCodes().build();
    }

    private static boolean queuedByKueue(TrainingJobSpec spec) {
        return spec.scheduling != null && spec.scheduling.scheduler == io.railyard.api.SchedulingSpec.Scheduler.KUEUE;
    }
}
