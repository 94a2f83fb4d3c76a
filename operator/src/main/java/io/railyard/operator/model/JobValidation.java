package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Quantity;
import io.railyard.api.DataVolume;
import io.railyard.api.Names;
import io.railyard.api.RdmaSpec;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TopologyRequest;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of the CRD's schema and its CEL validations, checked before anything is built, each failure naming the
 * field ({@code spec.nodes: must be at least 1}); and the rules a schema cannot say.
 */
public final class JobValidation {
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern RESOURCE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    /** Pod names are {@code <job>-<index>} and must stay DNS labels of at most 63 characters. */
    private static final int MAX_NAME = 52;

    private JobValidation() {}

    /** An extended resource name such as {@code rdma/rdma}, as the API server accepts one. */
    public static boolean isResourceName(String name) {
        return RESOURCE_NAME.matcher(name).matches();
    }

    public static List<String> errors(TrainingJob job) {
        List<String> errors = new ArrayList<>();
        String name = job.getMetadata() == null ? null : job.getMetadata().getName();
        if (name == null || name.isEmpty()) {
            errors.add("metadata.name: is required");
        } else if (!DNS_LABEL.matcher(name).matches() || name.length() > MAX_NAME) {
            errors.add("metadata.name: must be a DNS label of at most " + MAX_NAME + " characters (lower case letters, digits, '-')");
        }
        TrainingJobSpec spec = job.getSpec();
        if (spec == null) {
            errors.add("spec: is required");
            return errors;
        }
        required(errors, "spec.image", spec.image);
        if ((spec.script == null) == (spec.module == null)) {
            errors.add("spec: exactly one of script or module must be set");
        }
        notOption(errors, "spec.script", spec.script);
        notOption(errors, "spec.module", spec.module);
        atLeast(errors, "spec.nodes", spec.nodes, 1);
        atLeast(errors, "spec.gpusPerNode", spec.gpusPerNode, 1);
        atLeast(errors, "spec.spareNodes", spec.spareNodes, 0);
        between(errors, "spec.masterPort", spec.masterPort, 1, 65535);
        if (spec.preflight != null) {
            between(errors, "spec.preflight.minLineRatePercent", spec.preflight.minLineRatePercent, 1, 100);
            between(errors, "spec.preflight.timeoutSeconds", spec.preflight.timeoutSeconds, 10, Integer.MAX_VALUE);
        }
        if (spec.rdma != null) {
            between(errors, "spec.rdma.devicesPerNode", spec.rdma.devicesPerNode, 1, 64);
            if (spec.rdma.resource != null && !isResourceName(spec.rdma.resource)) {
                errors.add("spec.rdma.resource: must be an extended resource name such as rdma/rdma");
            }
            boolean dra = spec.rdma.allocation == RdmaSpec.Allocation.DRA;
            if (Boolean.TRUE.equals(spec.rdma.alignWithGpus) && !dra) {
                errors.add("spec.rdma.alignWithGpus: needs allocation dra (the device plugin cannot pair NICs with GPUs)");
            }
            if (Boolean.TRUE.equals(spec.rdma.alignWithGpus) && spec.gpusPerNode != null && spec.rdma.devicesPerNode != null
                    && spec.rdma.devicesPerNode > spec.gpusPerNode) {
                errors.add("spec.rdma.devicesPerNode: with alignWithGpus at most gpusPerNode (each NIC is paired with a GPU)");
            }
            if (spec.rdma.deviceClassName != null && !dra) {
                errors.add("spec.rdma.deviceClassName: is for allocation dra");
            }
        }
        volume(errors, "spec.dataset", spec.dataset);
        volume(errors, "spec.model", spec.model);
        if (spec.resources != null) {
            quantity(errors, "spec.resources.cpu", spec.resources.cpu);
            quantity(errors, "spec.resources.memory", spec.resources.memory);
        }
        if (spec.scheduling != null && spec.scheduling.scheduler == SchedulingSpec.Scheduler.KUEUE && spec.scheduling.queue == null) {
            errors.add("spec.scheduling.queue: is required with scheduler kueue (the LocalQueue's name)");
        }
        SchedulingSpec.Scheduler scheduler = spec.scheduling == null ? null : spec.scheduling.scheduler;
        if (spec.scheduling != null && spec.scheduling.topology != null && (scheduler == null || scheduler == SchedulingSpec.Scheduler.DEFAULT)) {
            errors.add("spec.scheduling.topology: is placed by a gang scheduler: kueue (its Topology), volcano (its HyperNodes) or"
                    + " kubernetes (its PodGroup's topology constraint); name one, or leave it out");
        }
        if (scheduler == SchedulingSpec.Scheduler.KUBERNETES && spec.scheduling.topology != null
                && spec.scheduling.topology.mode == TopologyRequest.Mode.PREFERRED) {
            errors.add("spec.scheduling.topology.mode: scheduler kubernetes places a gang under one domain only as Required (its"
                    + " topology constraint has no preference); use Required, or scheduler kueue for Preferred");
        }
        if (scheduler == SchedulingSpec.Scheduler.VOLCANO && spec.scheduling.topology != null && spec.scheduling.topology.level != null
                && !PodGroupModel.HYPER_NODE_TIERS.containsKey(spec.scheduling.topology.level)) {
            errors.add("spec.scheduling.topology.level: with scheduler volcano, " + Names.IB_LEAF_LABEL + " (HyperNode tier 1) or "
                    + Names.IB_SPINE_GROUP_LABEL + " (tier 2), the tiers railyard fabric --hyper-nodes writes");
        }
        if (spec.scheduling != null && spec.scheduling.topology != null && (spec.scheduling.topology.level == null || spec.scheduling.topology.level.isBlank())) {
            errors.add("spec.scheduling.topology.level: is required (a node label such as railyard.io/ib-leaf)");
        }
        if (spec.runPolicy != null) {
            atLeast(errors, "spec.runPolicy.backoffLimit", spec.runPolicy.backoffLimit, 0);
            atLeast(errors, "spec.runPolicy.nodeFailureLimit", spec.runPolicy.nodeFailureLimit, 0);
            if (spec.runPolicy.nodeExclusionSeconds != null && spec.runPolicy.nodeExclusionSeconds < 0) {
                errors.add("spec.runPolicy.nodeExclusionSeconds: must be at least 0");
            }
            if (spec.runPolicy.activeDeadlineSeconds != null && spec.runPolicy.activeDeadlineSeconds < 1) {
                errors.add("spec.runPolicy.activeDeadlineSeconds: must be at least 1");
            }
            if (spec.runPolicy.ttlSecondsAfterFinished != null && spec.runPolicy.ttlSecondsAfterFinished < 0) {
                errors.add("spec.runPolicy.ttlSecondsAfterFinished: must be at least 0");
            }
        }
        if (spec.monitoring != null && spec.monitoring.ncclInspector != null) {
            var inspector = spec.monitoring.ncclInspector;
            between(errors, "spec.monitoring.ncclInspector.intervalSeconds", inspector.intervalSeconds, 5, 3600);
            between(errors, "spec.monitoring.ncclInspector.slowPercent", inspector.slowPercent, 1, 100);
            between(errors, "spec.monitoring.ncclInspector.windows", inspector.windows, 1, 100);
        }
        if (spec.monitoring != null && spec.monitoring.hangDetection != null) {
            var hang = spec.monitoring.hangDetection;
            between(errors, "spec.monitoring.hangDetection.intervalSeconds", hang.intervalSeconds, 5, 3600);
            between(errors, "spec.monitoring.hangDetection.stallAfterSeconds", hang.stallAfterSeconds, 30, Integer.MAX_VALUE);
        }
        return errors;
    }

    private static void required(List<String> errors, String field, String value) {
        if (value == null || value.isBlank()) {
            errors.add(field + ": is required");
        }
    }

    private static void atLeast(List<String> errors, String field, Integer value, int minimum) {
        if (value == null && minimum > 0) {
            errors.add(field + ": is required");
        } else if (value != null && value < minimum) {
            errors.add(field + ": must be at least " + minimum);
        }
    }

    private static void between(List<String> errors, String field, Integer value, int minimum, int maximum) {
        if (value != null && (value < minimum || value > maximum)) {
            errors.add(field + (maximum == Integer.MAX_VALUE ? ": must be at least " + minimum : ": must be between " + minimum + " and " + maximum));
        }
    }

    /** torchrun would read a value that starts with '-' as its own option. */
    private static void notOption(List<String> errors, String field, String value) {
        if (value != null && value.startsWith("-")) {
            errors.add(field + ": must not start with '-'");
        }
    }

    private static void volume(List<String> errors, String field, DataVolume volume) {
        if (volume == null) {
            return;
        }
        int sources = (volume.claimName != null ? 1 : 0) + (volume.hostPath != null ? 1 : 0) + (Boolean.TRUE.equals(volume.emptyDir) ? 1 : 0);
        if (sources != 1) {
            errors.add(field + ": exactly one of claimName, hostPath or emptyDir must be set");
        }
        if (volume.mountPath == null || !volume.mountPath.startsWith("/")) {
            errors.add(field + ".mountPath: must be an absolute path");
        }
        if (volume.loader != null) {
            required(errors, field + ".loader.image", volume.loader.image);
        }
    }

    private static void quantity(List<String> errors, String field, String value) {
        if (value == null) {
            return;
        }
        try {
            Quantity.getAmountInBytes(new Quantity(value));
        } catch (IllegalArgumentException | ArithmeticException e) {
            errors.add(field + ": '" + value + "' is not a Kubernetes quantity (e.g. 96, 500m, 1600Gi)");
        }
    }
}
