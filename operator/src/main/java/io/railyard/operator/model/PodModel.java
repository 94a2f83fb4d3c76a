package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaim;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.railyard.api.DataVolume;
import io.railyard.api.Names;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One pod of the gang: a node's GPUs and RDMA devices, torchrun, the job's data, and the scheduler's marks. */
final class PodModel {
    static final String TRAINER = "trainer";
    static final String AWAIT_RANK = "await-rank";
    static final String QUEUE_LABEL = "kueue.x-k8s.io/queue-name";
    static final String POD_GROUP_LABEL = KueueGroup.LABEL;
    static final String POD_GROUP_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count";
    static final String HOSTNAME_LABEL = "kubernetes.io/hostname";
    static final String POD_INFO = "/etc/railyard/pod";
    static final String RANK_DIR = "/var/run/railyard";
    /** The attempt the trainer runs (or ran last), written by await-rank into the emptyDir, which an in-place restart keeps. */
    static final String ATTEMPT_FILE = RANK_DIR + "/attempt";

    private PodModel() {}

    /** Which run of the gang the job is on: its restarts so far. */
    static int attempt(TrainingJob job) {
        return job.getStatus() == null || job.getStatus().restarts == null ? 0 : job.getStatus().restarts;
    }

    static List<String> excludedNodes(TrainingJob job) {
        return job.getStatus() == null || job.getStatus().excludedNodes == null ? List.of()
                : job.getStatus().excludedNodes.stream().map(e -> e.node).sorted().toList();
    }

    static Pod desired(TrainingJob job, JobSettings settings, int index, String railyardImage) {
        return build(job, settings, index, settings.podName(index), railyardImage);
    }

    /**
     * A hot spare: a member's shape (devices, placement, exclusions, data) with no rank, outside the gang's pod group,
     * that waits in await-rank until the operator gives it a failed rank's index, rank and master address.
     */
    static Pod spare(TrainingJob job, JobSettings settings, String name, String railyardImage) {
        return build(job, settings, SPARE, name, railyardImage);
    }

    /** The index of a spare: no rank, no preflight, no hang watch; its rank and master come from the rank file. */
    private static final int SPARE = -1;

    private static Pod build(TrainingJob job, JobSettings settings, int index, String name, String railyardImage) {
        boolean member = index != SPARE;
        boolean rankFromFile = settings.topologyOrder() || !member;
        PodBuilder pod = new PodBuilder().withMetadata(Ownership.metadata(job, name));
        if (member) {
            pod.editMetadata().addToLabels(Names.INDEX_LABEL, String.valueOf(index))
                    .addToLabels(Names.ATTEMPT_LABEL, String.valueOf(attempt(job))).endMetadata();
        } else {
            pod.editMetadata().addToLabels(Names.SPARE_LABEL, "true").endMetadata();
        }
        if (member && !settings.topologyOrder()) { // else the operator labels the rank once the gang is placed
            pod.editMetadata().addToLabels(Names.RANK_LABEL, String.valueOf(index)).endMetadata();
        }
        NodeSelectorTermBuilder nodes = new NodeSelectorTermBuilder().addNewMatchExpression().withKey(Names.RDMA_NODE_LABEL)
                .withOperator("In").withValues("true").endMatchExpression();
        List<String> excluded = excludedNodes(job);
        if (!excluded.isEmpty()) { // the nodes blamed for an earlier failure (status.excludedNodes)
            nodes.addNewMatchExpression().withKey(HOSTNAME_LABEL).withOperator("NotIn").withValues(excluded).endMatchExpression();
        }
        List<String> named = settings.podTemplate().nodeNames;
        if (named != null && !named.isEmpty()) {
            nodes.addNewMatchField().withKey("metadata.name").withOperator("In").withValues(named).endMatchField();
        }
        PodSpecBuilder spec = new PodSpecBuilder()
                .withRestartPolicy("Never")
                .withHostname(name)
                .withSubdomain(settings.name())
                .withServiceAccountName(settings.podTemplate().serviceAccountName)
                .withNodeSelector(settings.podTemplate().nodeSelector)
                .withTolerations(settings.podTemplate().tolerations)
                .withNewAffinity()
                .withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addToNodeSelectorTerms(nodes.build())
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                .withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withTopologyKey(HOSTNAME_LABEL)
                .withNewLabelSelector().addToMatchLabels(Names.JOB_LABEL, settings.name()).endLabelSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity()
                .endAffinity();
        if (settings.hostNetwork()) {
            spec.withHostNetwork(true).withDnsPolicy("ClusterFirstWithHostNet");
        }
        String priority = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.priorityClassName;
        spec.withPriorityClassName(priority);
        scheduler(pod, spec, settings, member, KueueGroup.name(job));

        if (member && PreflightGate.enabled(job)) {
            spec.addToInitContainers(PreflightGate.container(settings, index, railyardImage)); // first: before data loads
        }
        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> mounts = new ArrayList<>();
        volumes.add(new VolumeBuilder().withName("dshm").withNewEmptyDir().withMedium("Memory").endEmptyDir().build());
        mounts.add(new VolumeMountBuilder().withName("dshm").withMountPath("/dev/shm").build());
        settings.dataVolumes().forEach((volumeName, volume) -> {
            volumes.add(volume(volumeName, volume));
            mounts.add(new VolumeMountBuilder().withName(volumeName).withMountPath(volume.mountPath).withReadOnly(readOnly(volume)).build());
            if (volume.loader != null) {
                spec.addToInitContainers(loader(volumeName, volume));
            }
        });
        boolean watched = index == 0 && HangWatch.enabled(job.getSpec());
        if (watched) {
            volumes.add(HangWatch.noToken());
            spec.addToInitContainers(HangWatch.sidecar(settings, railyardImage));
        }
        boolean inspected = InspectorSidecar.enabled(job.getSpec());
        if (inspected) {
            volumes.add(InspectorSidecar.dumpDir());
            mounts.add(InspectorSidecar.trainerMount());
            if (!watched) {
                volumes.add(HangWatch.noToken());
            }
        }
        if (settings.inPlace() || inspected) { // their pods talk to each other through Railyard: the job's key seals it
            volumes.add(ChannelKey.volume(settings));
        }
        if (rankFromFile || settings.inPlace()) {
            volumes.add(podInfo(settings.inPlace()));
            volumes.add(new VolumeBuilder().withName("rank").withNewEmptyDir().endEmptyDir().build());
            mounts.add(new VolumeMountBuilder().withName("rank").withMountPath(RANK_DIR).withReadOnly(true).build());
            spec.addToInitContainers(awaitRank(settings, rankFromFile, railyardImage));
        }
        if (settings.inPlace()) { // after await-rank: it starts once the trainer is about to run the pod's attempt
            spec.addToInitContainers(RestartStrategies.sidecar(railyardImage));
        }
        if (inspected) { // after await-rank: its rank label is set by then
            spec.addToInitContainers(InspectorSidecar.sidecar(settings, member ? index : 1, railyardImage)); // a spare reports as a rank
        }
        if (settings.podTemplate().volumes != null) {
            volumes.addAll(settings.podTemplate().volumes);
        }
        if (settings.podTemplate().volumeMounts != null) {
            mounts.addAll(settings.podTemplate().volumeMounts);
        }
        if (settings.dra()) {
            spec.addNewResourceClaim().withName(ClaimTemplateModel.CLAIM).withResourceClaimTemplateName(ClaimTemplateModel.name(settings)).endResourceClaim();
        }
        // set on the built objects: a builder's with() copies what it is given, field by field, and build() copies it again,
        // which made the copies most of the operator's time to build a 12,500-node gang (bench/operator-scale.sh)
        PodSpec built = spec.build();
        built.setVolumes(volumes);
        built.setContainers(new ArrayList<>(List.of(trainer(settings, index, rankFromFile, mounts))));
        if (member && settings.scheduler() == SchedulingSpec.Scheduler.KUBERNETES) { // a field fabric8's model does not have yet
            built.setAdditionalProperty("schedulingGroup", WorkloadGangModel.schedulingGroup(settings));
        }
        Pod result = pod.build();
        result.setSpec(built);
        return result;
    }

    /** A member joins the gang's group; a spare is admitted and scheduled on its own, so it never holds the gang back. */
    private static void scheduler(PodBuilder pod, PodSpecBuilder spec, JobSettings settings, boolean member, String kueueGroup) {
        String queue = settings.spec().scheduling == null ? null : settings.spec().scheduling.queue;
        if (settings.scheduler() == SchedulingSpec.Scheduler.VOLCANO) {
            spec.withSchedulerName("volcano");
            if (member) {
                pod.editMetadata().addToAnnotations(PodGroupModel.GROUP_NAME_ANNOTATION, settings.name()).endMetadata();
            }
        } else if (settings.scheduler() == SchedulingSpec.Scheduler.KUEUE) {
            pod.editMetadata().addToLabels(QUEUE_LABEL, queue).endMetadata();
            if (member) {
                pod.editMetadata()
                        .addToLabels(POD_GROUP_LABEL, kueueGroup)
                        .addToAnnotations(KueueGroup.topology(settings.spec()))
                        .addToAnnotations(POD_GROUP_COUNT_ANNOTATION, String.valueOf(settings.spec().nodes))
                        .endMetadata();
            }
        }
    }

    private static Container trainer(JobSettings settings, int index, boolean rankFromFile, List<VolumeMount> mounts) {
        Map<String, Quantity> resources = new LinkedHashMap<>();
        if (!settings.gpusInClaim()) {
            resources.put(Names.GPU_RESOURCE, new Quantity(String.valueOf(settings.spec().gpusPerNode)));
        }
        if (!settings.dra()) {
            resources.put(settings.rdmaResource(), new Quantity(String.valueOf(settings.devicesPerNode())));
        }
        if (settings.resources().cpu != null) {
            resources.put("cpu", new Quantity(settings.resources().cpu));
        }
        if (settings.resources().memory != null) {
            resources.put("memory", new Quantity(settings.resources().memory));
        }
        ContainerBuilder trainer = new ContainerBuilder()
                .withName(TRAINER)
                .withImage(settings.spec().image)
                .withCommand(TorchrunCommand.argv(settings.spec(), rankFromFile,
                        InspectorSidecar.enabled(settings.spec()) ? InspectorSidecar.GPU_NICS_FILE : null))
                .withEnv(TrainerEnvironment.of(settings, rankFromFile ? null : index))
                .withNewResources().withLimits(resources).withRequests(resources).withClaims(claims(settings)).endResources()
                // NCCL registers its buffers with the NIC: locking them needs IPC_LOCK when memlock is limited.
                .withNewSecurityContext().withNewCapabilities().withAdd("IPC_LOCK").endCapabilities().endSecurityContext()
                .withVolumeMounts(mounts);
        if (settings.hostNetwork()) {
            trainer.addNewPort().withName("master").withContainerPort(settings.masterPort()).withHostPort(settings.masterPort()).endPort();
        } else {
            trainer.addNewPort().withName("master").withContainerPort(settings.masterPort()).endPort();
        }
        Container built = trainer.build();
        if (settings.inPlace()) {
            RestartStrategies.trainer(built);
        }
        return built;
    }

    /** The pod's claim, for a container that uses the NICs (and GPUs) of a DRA allocation; none otherwise. */
    static List<ResourceClaim> claims(JobSettings settings) {
        return settings.dra() ? List.of(new ResourceClaimBuilder().withName(ClaimTemplateModel.CLAIM).build()) : List.of();
    }

    private static Volume volume(String name, DataVolume volume) {
        VolumeBuilder builder = new VolumeBuilder().withName(name);
        if (volume.claimName != null) {
            builder.withNewPersistentVolumeClaim().withClaimName(volume.claimName).withReadOnly(volume.loader == null && readOnly(volume))
                    .endPersistentVolumeClaim();
        } else if (volume.hostPath != null) {
            builder.withNewHostPath().withPath(volume.hostPath).withType("Directory").endHostPath();
        } else {
            builder.withNewEmptyDir().endEmptyDir();
        }
        return builder.build();
    }

    /** Claims and host paths are read-only for the trainer unless asked; an empty dir the loader fills is too. */
    private static boolean readOnly(DataVolume volume) {
        return volume.readOnly != null ? volume.readOnly : volume.claimName != null || volume.hostPath != null || volume.loader != null;
    }

    private static Container loader(String name, DataVolume volume) {
        return new ContainerBuilder()
                .withName("load-" + name)
                .withImage(volume.loader.image)
                .withCommand(volume.loader.command)
                .addNewVolumeMount().withName(name).withMountPath(volume.mountPath).endVolumeMount()
                .build();
    }

    /** The pod's annotations (its rank, when the operator orders ranks) and, for in-place restarts, its labels (its attempt). */
    private static Volume podInfo(boolean labels) {
        var items = new io.fabric8.kubernetes.api.model.DownwardAPIVolumeSourceBuilder().addNewItem().withPath("annotations")
                .withNewFieldRef().withFieldPath("metadata.annotations").endFieldRef().endItem();
        if (labels) {
            items.addNewItem().withPath("labels").withNewFieldRef().withFieldPath("metadata.labels").endFieldRef().endItem();
        }
        return new VolumeBuilder().withName("pod-info").withDownwardAPI(items.build()).build();
    }

    /**
     * Waits for the operator's rank (topology order) and, for in-place restarts, for an attempt newer than the one the
     * trainer last ran: a pod whose trainer failed and restarted it waits there for the gang's next attempt.
     */
    private static Container awaitRank(JobSettings settings, boolean rankFromFile, String railyardImage) {
        List<String> args = new ArrayList<>(List.of("await-rank"));
        if (rankFromFile) {
            args.addAll(List.of("--annotations=" + POD_INFO + "/annotations", "--env-file=" + TorchrunCommand.RANK_ENV_FILE));
        }
        if (settings.inPlace()) {
            args.addAll(List.of("--labels=" + POD_INFO + "/labels", "--attempt-file=" + ATTEMPT_FILE));
            args.addAll(RestartStrategies.gate(settings));
        }
        ContainerBuilder container = new ContainerBuilder()
                .withName(AWAIT_RANK)
                .withImage(railyardImage)
                .withArgs(args)
                .addNewVolumeMount().withName("pod-info").withMountPath(POD_INFO).withReadOnly(true).endVolumeMount()
                .addNewVolumeMount().withName("rank").withMountPath(RANK_DIR).endVolumeMount()
                .withSecurityContext(helperSecurity());
        if (settings.inPlace()) { // the gate's reports are sealed
            container.addToVolumeMounts(ChannelKey.mount()).addToEnv(ChannelKey.jobUid(settings));
        }
        return container.build();
    }

    /** Railyard's own helper containers pass Pod Security's restricted level whatever the trainer needs. */
    static io.fabric8.kubernetes.api.model.SecurityContext helperSecurity() {
        return new io.fabric8.kubernetes.api.model.SecurityContextBuilder().withRunAsNonRoot(true).withRunAsUser(65532L)
                .withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true).withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build();
    }

}
