package io.railyard.operator.model;

import static io.railyard.operator.model.Jobs.example;
import static io.railyard.operator.model.Jobs.pods;
import static io.railyard.operator.model.Jobs.render;
import static io.railyard.operator.model.Jobs.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.Base64;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.railyard.api.TrainingJob;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TrainingJobModelTest {

    private static Container trainer(Pod pod) {
        return pod.getSpec().getContainers().getFirst();
    }

    private static Map<String, String> env(Pod pod) {
        return trainer(pod).getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue, (a, b) -> b));
    }

    /** The sum of every pod's requests, as the scheduler counts a pod: its containers together, or its largest init container. */
    private static Map<String, Quantity> podRequests(List<HasMetadata> objects) {
        Map<String, Quantity> total = new java.util.TreeMap<>();
        for (Pod pod : objects.stream().filter(Pod.class::isInstance).map(Pod.class::cast).toList()) {
            Map<String, Quantity> own = new java.util.TreeMap<>();
            pod.getSpec().getContainers().forEach(c -> c.getResources().getRequests().forEach((r, q) -> own.merge(r, q, Quantity::add)));
            pod.getSpec().getInitContainers().stream().filter(c -> c.getResources() != null && c.getResources().getRequests() != null)
                    .forEach(c -> c.getResources().getRequests().forEach((r, q) -> own.merge(r, q,
                            (a, b) -> a.getNumericalAmount().compareTo(b.getNumericalAmount()) >= 0 ? a : b)));
            own.forEach((r, q) -> total.merge(r, q, Quantity::add));
        }
        return total;
    }

    @Test
    void theFirstPodCarriesTheNcclWatchSidecarWithoutAToken() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8, hostNetwork: true},"
                + " monitoring: {hangDetection: {intervalSeconds: 15, stallAfterSeconds: 120}}}");
        List<Pod> pods = Jobs.pods(job);

        io.fabric8.kubernetes.api.model.Container watch = pods.getFirst().getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("nccl-watch")).findFirst().orElseThrow();
        String ras = trainer(pods.getFirst()).getEnv().stream().filter(e -> e.getName().equals("NCCL_RAS_ADDR")).findFirst().orElseThrow().getValue();

        assertThat(watch.getRestartPolicy()).as("a native sidecar").isEqualTo("Always");
        assertThat(watch.getArgs()).containsExactly("nccl-watch", "-o", "json", "--ras", ras, "--interval", "15", "--stall-after", "120");
        assertThat(ras).as("its own port on the host network").matches("localhost:\\d+").isNotEqualTo("localhost:28028");
        assertThat(watch.getVolumeMounts()).singleElement().satisfies(m -> assertThat(m.getMountPath()).isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount"));
        assertThat(watch.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pods.get(1).getSpec().getInitContainers()).noneMatch(c -> c.getName().equals("nccl-watch"));
        assertThat(Jobs.pods(Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, monitoring: {hangDetection: {enabled: false}}}"))
                .getFirst().getSpec().getInitContainers()).isEmpty();
        assertThat(trainer(Jobs.pods(Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}")).getFirst()).getEnv())
                .as("in the pod's own network RAS keeps its default").noneMatch(e -> e.getName().equals("NCCL_RAS_ADDR"));
    }

    @Test
    void everyPodGetsTheInspectorPluginsVariablesAndTheNcclSpeedSidecarWithoutAToken() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8},"
                + " monitoring: {ncclInspector: {enabled: true, intervalSeconds: 15}}}");
        List<Pod> pods = Jobs.pods(job);

        assertThat(pods).hasSize(2).allSatisfy(pod -> {
            io.fabric8.kubernetes.api.model.Container speed = pod.getSpec().getInitContainers().stream()
                    .filter(c -> c.getName().equals("nccl-speed")).findFirst().orElseThrow();
            assertThat(speed.getRestartPolicy()).as("a native sidecar").isEqualTo("Always");
            assertThat(speed.getArgs()).startsWith("nccl-speed", "--dir", "/var/run/railyard/nccl-inspector", "--interval", "15",
                    "--listen", "0.0.0.0:9403", "--trainingjob", "job", "--rank", "$(RAILYARD_RANK)", "--gpus-per-node", "8");
            // the trainer leaves the device plugin's GPU-to-NIC map for the sidecar, which names a slow GPU's NIC by it
            assertThat(trainer(pod).getCommand()).startsWith("/bin/sh", "-c").contains("torchrun", "t.py");
            assertThat(trainer(pod).getCommand().get(2)).endsWith("echo \"$RAILYARD_GPU_NICS\" > /var/run/railyard/nccl-inspector/.gpu-nics"
                    + " && exec torchrun \"$@\"");
            assertThat(speed.getEnv()).anySatisfy(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                    .isEqualTo("metadata.labels['railyard.io/rank']"));
            assertThat(speed.getVolumeMounts()).extracting(m -> m.getMountPath() + (Boolean.TRUE.equals(m.getReadOnly()) ? " ro" : ""))
                    .containsExactly("/var/run/railyard/nccl-inspector ro", "/var/run/railyard/channel ro", "/var/run/secrets/kubernetes.io/serviceaccount ro");
            assertThat(env(pod)).containsEntry("NCCL_PROFILER_PLUGIN", "inspector").containsEntry("NCCL_INSPECTOR_ENABLE", "1")
                    .containsEntry("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "15000000")
                    .containsEntry("NCCL_INSPECTOR_DUMP_DIR", "/var/run/railyard/nccl-inspector");
            assertThat(trainer(pod).getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/var/run/railyard/nccl-inspector"));
        });
        assertThat(sidecarArgs(pods.get(0))).as("the first pod gathers the ranks and logs the job's line").endsWith("--gather", "0.0.0.0:9404",
                "--ranks", "2", "--slow-percent", "80", "--windows", "3");
        assertThat(sidecarArgs(pods.get(1))).as("the others report to it through the headless Service")
                .endsWith("--report-to", "job-0.job.ns.svc:9404");
        List<Pod> onHost = Jobs.pods(Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, masterPort: 23000, rdma: {hostNetwork: true},"
                + " monitoring: {ncclInspector: {enabled: true, slowPercent: 70, windows: 5}}}"));
        assertThat(sidecarArgs(onHost.get(0))).as("the job's own ports on the host network").contains("0.0.0.0:23101", "0.0.0.0:23102", "70", "5");
        assertThat(sidecarArgs(onHost.get(1))).endsWith("--report-to", "job-0.job.ns.svc:23102");
        assertThat(Jobs.pods(Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}")))
                .as("off unless enabled").allSatisfy(pod -> {
                    assertThat(env(pod)).doesNotContainKey("NCCL_INSPECTOR_ENABLE");
                    assertThat(String.join(" ", trainer(pod).getCommand())).doesNotContain("RAILYARD_GPU_NICS");
                });
    }

    @Test
    void theJobsChannelsAreSealedWithItsKeyWhichTheTrainerNeverSeesAndOpenToItsOwnPodsOnly() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8},"
                + " monitoring: {ncclInspector: {enabled: true}}}");
        job.getMetadata().setUid("0b5e7c1a-1111-2222-3333-444455556666");
        List<HasMetadata> objects = TrainingJobModel.desired(job, OperatorDefaults.STANDARD.withInPlaceRestart(true)).objects();
        List<Pod> pods = objects.stream().filter(Pod.class::isInstance).map(Pod.class::cast).toList();

        assertThat(pods).allSatisfy(pod -> {
            assertThat(pod.getSpec().getVolumes()).filteredOn(v -> v.getSecret() != null).singleElement().satisfies(v -> {
                assertThat(v.getSecret().getSecretName()).isEqualTo("job-channel");
                assertThat(v.getSecret().getDefaultMode()).isEqualTo(0444);
            });
            List<io.fabric8.kubernetes.api.model.Container> all = new java.util.ArrayList<>(pod.getSpec().getInitContainers());
            all.addAll(pod.getSpec().getContainers());
            assertThat(all).filteredOn(c -> c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals("channel-key")))
                    .extracting(io.fabric8.kubernetes.api.model.Container::getName).containsExactlyInAnyOrder("await-rank", "nccl-speed");
            assertThat(all).filteredOn(c -> c.getArgs() != null && c.getArgs().contains("--channel-key=/var/run/railyard/channel/key"))
                    .extracting(io.fabric8.kubernetes.api.model.Container::getName).containsExactlyInAnyOrder("await-rank", "nccl-speed");
            assertThat(all).filteredOn(c -> c.getEnv() != null && c.getEnv().stream().anyMatch(e -> e.getName().equals("RAILYARD_JOB_UID")
                    && e.getValue().equals("0b5e7c1a-1111-2222-3333-444455556666"))).hasSize(2);
        });
        var policy = objects.stream().filter(io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class::cast).findFirst().orElseThrow();
        assertThat(policy.getMetadata().getName()).isEqualTo("job-channels");
        assertThat(policy.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> assertThat(owner.getUid()).isEqualTo(job.getMetadata().getUid()));
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).containsEntry("railyard.io/job-name", "job");
        assertThat(policy.getSpec().getIngress()).hasSize(2);
        assertThat(policy.getSpec().getIngress().getFirst().getFrom()).singleElement()
                .satisfies(from -> assertThat(from.getPodSelector().getMatchLabels()).containsEntry("railyard.io/job-name", "job"));
        assertThat(policy.getSpec().getIngress().getLast().getPorts()).as("everyone else: every port but 9404 and 9405")
                .extracting(p -> p.getProtocol() + " " + p.getPort().getIntVal() + "-" + p.getEndPort())
                .containsExactly("TCP 1-9403", "TCP 9406-65535", "UDP 1-65535", "SCTP 1-65535");

        Secret key = ChannelKey.secret(job);
        assertThat(Base64.getDecoder().decode(key.getData().get("key"))).hasSize(32).isNotEqualTo(Base64.getDecoder().decode(ChannelKey.secret(job).getData().get("key")));
        assertThat(key.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> assertThat(owner.getController()).isTrue());
        assertThat(key.getImmutable()).isTrue();
        assertThat(TrainingJobModel.desired(Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {hostNetwork: true,"
                + " socketInterface: bond0}, monitoring: {ncclInspector: {enabled: true}}}"), OperatorDefaults.STANDARD).objects())
                .as("none on the host network, where the servers bind the job's interface").noneMatch(o -> o.getKind().equals("NetworkPolicy"))
                .filteredOn(Pod.class::isInstance).first().satisfies(pod -> assertThat(sidecarArgs((Pod) pod)).contains("--bind-interface=bond0"));
        assertThat(TrainingJobModel.desired(job, OperatorDefaults.STANDARD.withInPlaceRestart(true).withNetworkPolicy(false)).objects())
                .as("turned off for a CNI that enforces none").noneMatch(o -> o.getKind().equals("NetworkPolicy"));
    }

    private static List<String> sidecarArgs(Pod pod) {
        return pod.getSpec().getInitContainers().stream().filter(c -> c.getName().equals("nccl-speed")).findFirst().orElseThrow().getArgs();
    }

    @Test
    void aUsersOwnInspectorVariablesWinAndRenderSaysSo() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8,"
                + " env: {NCCL_PROFILER_PLUGIN: /opt/nccl/libnccl-profiler-inspector.so}}, monitoring: {ncclInspector: {enabled: true}}}");

        TrainingJobModel.Desired desired = TrainingJobModel.desired(job, new OperatorDefaults("railyard:test", "rdma/rdma"));

        Pod pod = desired.objects().stream().filter(Pod.class::isInstance).map(Pod.class::cast).findFirst().orElseThrow();
        assertThat(env(pod)).containsEntry("NCCL_PROFILER_PLUGIN", "/opt/nccl/libnccl-profiler-inspector.so")
                .containsEntry("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "30000000");
        assertThat(trainer(pod).getEnv()).filteredOn(e -> e.getName().equals("NCCL_PROFILER_PLUGIN")).hasSize(1);
        assertThat(desired.warnings()).contains("spec.monitoring.ncclInspector: your own NCCL_PROFILER_PLUGIN is left as you set it;"
                + " the nccl-speed sidecar reads /var/run/railyard/nccl-inspector");
    }

    @Test
    void theNextRunsPodsAvoidTheExcludedNodesAndCarryTheRun() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8}}");
        job.setStatus(new io.railyard.api.TrainingJobStatus());
        job.getStatus().restarts = 2;
        io.railyard.api.TrainingJobStatus.ExcludedNode excluded = new io.railyard.api.TrainingJobStatus.ExcludedNode();
        excluded.node = "gpu-7";
        excluded.reason = "RdmaPortDown";
        job.getStatus().excludedNodes = java.util.List.of(excluded);

        Pod pod = Jobs.pods(job).getFirst();

        assertThat(pod.getMetadata().getLabels()).containsEntry(io.railyard.api.Names.ATTEMPT_LABEL, "2");
        assertThat(pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms())
                .singleElement().satisfies(term -> assertThat(term.getMatchExpressions())
                        .extracting(e -> e.getKey() + " " + e.getOperator() + " " + e.getValues())
                        .containsExactly("railyard.io/rdma In [true]", "kubernetes.io/hostname NotIn [gpu-7]"));
        assertThat(Jobs.pods(Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}")).getFirst().getMetadata().getLabels())
                .containsEntry(io.railyard.api.Names.ATTEMPT_LABEL, "0");
    }

    @Test
    void thePodGroupAsksForExactlyWhatThePodsRequestInEveryAllocationMode() {
        String base = "{image: pytorch, script: t.py, nodes: 3, gpusPerNode: 8, resources: {cpu: '48', memory: 800Gi}, "
                + "scheduling: {scheduler: volcano}, ";
        Map<String, String> modes = Map.of(
                "device plugin", base + "rdma: {devicesPerNode: 8}}",
                "device plugin with the preflight gate", base + "rdma: {devicesPerNode: 8}, preflight: {}}",
                "another resource", base + "rdma: {resource: rdma/ib, devicesPerNode: 4}}",
                "DRA", base + "rdma: {allocation: dra, devicesPerNode: 8}}",
                "DRA with GPUs aligned", base + "rdma: {allocation: dra, alignWithGpus: true, devicesPerNode: 8}}",
                "DRA with the preflight gate", base + "rdma: {allocation: dra, devicesPerNode: 8}, preflight: {}}",
                "without the hang watch on rank 0", base + "rdma: {devicesPerNode: 8}, monitoring: {hangDetection: {enabled: false}}}",
                "with the inspector on every rank", base + "rdma: {devicesPerNode: 8}, monitoring: {ncclInspector: {enabled: true}}}");
        modes.forEach((mode, spec) -> {
            List<HasMetadata> objects = render(yaml(spec));
            PodGroup group = objects.stream().filter(PodGroup.class::isInstance).map(PodGroup.class::cast).findFirst().orElseThrow();
            assertThat(new java.util.TreeMap<>(group.getSpec().getMinResources())).as(mode).isEqualTo(podRequests(objects));
        });
        PodGroup dra = render(yaml(modes.get("DRA with GPUs aligned"))).stream().filter(PodGroup.class::isInstance)
                .map(PodGroup.class::cast).findFirst().orElseThrow();
        assertThat(dra.getSpec().getMinResources()).as("the claim brings the NICs and GPUs").doesNotContainKeys("rdma/rdma", "nvidia.com/gpu")
                .containsEntry("cpu", new Quantity("144"));
    }

    @Test
    void onlyThePodsAskedForAreBuiltAndTheyAreRendersOwn() {
        TrainingJob job = yaml("{image: pytorch, script: t.py, nodes: 4, gpusPerNode: 8, rdma: {devicesPerNode: 8}}");
        job.getMetadata().setName("llama");

        List<Pod> missing = TrainingJobModel.pods(job, OperatorDefaults.STANDARD, index -> index == 0 || index == 3);

        List<Pod> rendered = render(job).stream().filter(Pod.class::isInstance).map(Pod.class::cast).toList();
        assertThat(missing).containsExactly(rendered.get(0), rendered.get(3)).extracting(pod -> pod.getMetadata().getName())
                .containsExactly("llama-0", "llama-3");
        assertThat(TrainingJobModel.pods(job, OperatorDefaults.STANDARD, index -> false)).as("a whole gang's reconcile builds none").isEmpty();
    }

    @Test
    void jobsThatNameNoRdmaResourceGetTheInstallations() {
        TrainingJob job = yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8}, scheduling: {scheduler: volcano}}");

        List<HasMetadata> objects = TrainingJobModel.desired(job, new OperatorDefaults("registry.local/railyard:1", "rdma/ib")).objects();

        assertThat(trainer((Pod) objects.getLast()).getResources().getLimits()).containsEntry("rdma/ib", new Quantity("8"))
                .doesNotContainKey("rdma/rdma");
        assertThat(objects.stream().filter(PodGroup.class::isInstance).map(PodGroup.class::cast).findFirst().orElseThrow()
                .getSpec().getMinResources()).containsEntry("rdma/ib", new Quantity("16"));
    }

    @Test
    void aVolcanoGangWithATopologyRequestStaysWithinOneHyperNodeOfItsTier() {
        PodGroup leaf = podGroup(yaml("{image: pytorch, script: t.py, nodes: 4, gpusPerNode: 8,"
                + " scheduling: {scheduler: volcano, topology: {level: railyard.io/ib-leaf}}}"));
        PodGroup spines = podGroup(yaml("{image: pytorch, script: t.py, nodes: 4, gpusPerNode: 8,"
                + " scheduling: {scheduler: volcano, topology: {level: railyard.io/ib-spine-group, mode: Preferred}}}"));
        PodGroup none = podGroup(yaml("{image: pytorch, script: t.py, nodes: 4, gpusPerNode: 8, scheduling: {scheduler: volcano}}"));

        assertThat(leaf.getSpec().getAdditionalProperties()).containsEntry("networkTopology", Map.of("mode", "hard", "highestTierAllowed", 1));
        assertThat(spines.getSpec().getAdditionalProperties()).containsEntry("networkTopology", Map.of("mode", "soft", "highestTierAllowed", 2));
        assertThat(none.getSpec().getAdditionalProperties()).doesNotContainKey("networkTopology");
        assertThat(io.fabric8.kubernetes.client.utils.Serialization.asYaml(leaf)).as("as render prints it")
                .contains("  networkTopology:\n", "    highestTierAllowed: 1\n", "    mode: \"hard\"\n");
    }

    private static PodGroup podGroup(TrainingJob job) {
        return TrainingJobModel.desired(job, OperatorDefaults.STANDARD).objects().stream().filter(PodGroup.class::isInstance)
                .map(PodGroup.class::cast).findFirst().orElseThrow();
    }

    @Test
    void eightGpusWithTheDefaultOneRdmaDeviceIsWarnedAbout() {
        TrainingJob unset = yaml("{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8}");
        TrainingJob set = yaml("{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8, rdma: {devicesPerNode: 8}}");

        assertThat(TrainingJobModel.desired(unset, OperatorDefaults.STANDARD).warnings()).singleElement().asString()
                .contains("devicesPerNode is not set", "1 RDMA device for its 8 GPUs", "one rail");
        assertThat(TrainingJobModel.desired(set, OperatorDefaults.STANDARD).warnings()).isEmpty();
    }

    @Test
    void llamaOnRoceRendersAServicePodGroupAndTwoPods() {
        List<HasMetadata> objects = render(example("llama70b-roce.yaml"));

        assertThat(objects).extracting(HasMetadata::getKind).containsExactly("Service", "PodGroup", "Pod", "Pod");
        Service service = (Service) objects.get(0);
        assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(service.getSpec().getPublishNotReadyAddresses()).isTrue();
        PodGroup group = (PodGroup) objects.get(1);
        assertThat(group.getSpec().getMinMember()).isEqualTo(2);
        assertThat(group.getSpec().getQueue()).isEqualTo("research");
        assertThat(group.getSpec().getMinResources()).containsEntry("nvidia.com/gpu", new Quantity("16"))
                .containsEntry("rdma/rdma", new Quantity("8")).containsEntry("cpu", new Quantity("192"))
                .containsEntry("memory", new Quantity("3200Gi"));

        Pod pod = (Pod) objects.get(3);
        assertThat(pod.getMetadata().getName()).isEqualTo("llama70b-sft-1");
        assertThat(pod.getSpec().getHostname()).isEqualTo("llama70b-sft-1");
        assertThat(pod.getSpec().getSubdomain()).isEqualTo("llama70b-sft");
        assertThat(pod.getSpec().getSchedulerName()).isEqualTo("volcano");
        assertThat(pod.getMetadata().getAnnotations()).containsEntry("scheduling.k8s.io/group-name", "llama70b-sft");
        assertThat(trainer(pod).getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("8"))
                .containsEntry("rdma/rdma", new Quantity("4")).containsEntry("cpu", new Quantity("96"))
                .containsEntry("memory", new Quantity("1600Gi"));
        assertThat(trainer(pod).getResources().getRequests()).isEqualTo(trainer(pod).getResources().getLimits());
        assertThat(env(pod)).containsEntry("PET_NNODES", "2").containsEntry("PET_NPROC_PER_NODE", "8")
                .containsEntry("PET_MASTER_PORT", "29500").containsEntry("PET_MASTER_ADDR", "llama70b-sft-0.llama70b-sft.training.svc")
                .containsEntry("PET_NODE_RANK", "1").containsEntry("NCCL_IB_DISABLE", "0").containsEntry("NCCL_DEBUG", "INFO")
                .containsEntry("NCCL_DEBUG_SUBSYS", "INIT,NET").containsEntry("NCCL_NET_GDR_LEVEL", "PHB")
                .containsEntry("NCCL_SOCKET_IFNAME", "eth0").doesNotContainKeys("NCCL_IB_HCA", "NCCL_IB_GID_INDEX");
        assertThat(trainer(pod).getCommand()).containsExactly("torchrun", "/workspace/train.py", "--model", "/models/llama-70b",
                "--data", "/data/sft", "--bf16", "--fsdp", "full_shard");
        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
    }

    @Test
    void podsRequireRdmaNodesAndOneNodeEach() {
        Pod pod = pods(example("llama70b-roce.yaml")).getFirst();

        assertThat(pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().getFirst().getMatchExpressions().getFirst())
                .satisfies(e -> {
                    assertThat(e.getKey()).isEqualTo("railyard.io/rdma");
                    assertThat(e.getValues()).containsExactly("true");
                });
        assertThat(pod.getSpec().getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getFirst())
                .satisfies(term -> {
                    assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                    assertThat(term.getLabelSelector().getMatchLabels()).containsEntry("railyard.io/job-name", "llama70b-sft");
                });
    }

    @Test
    void datasetAndModelVolumesWithTheirLoader() {
        Pod pod = pods(example("llama70b-roce.yaml")).getFirst();

        assertThat(pod.getSpec().getVolumes()).extracting(v -> v.getName()).contains("dshm", "dataset", "model");
        assertThat(pod.getSpec().getVolumes()).filteredOn(v -> v.getName().equals("dataset")).first()
                .satisfies(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("sft-data"));
        assertThat(trainer(pod).getVolumeMounts()).filteredOn(m -> m.getName().equals("model")).first()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo("/models");
                    assertThat(m.getReadOnly()).isTrue();
                });
        assertThat(pod.getSpec().getInitContainers()).filteredOn(c -> !c.getName().equals("nccl-watch")).singleElement().satisfies(loader -> {
            assertThat(loader.getName()).isEqualTo("load-model");
            assertThat(loader.getImage()).isEqualTo("ghcr.io/example/model-loader:1.2");
            assertThat(loader.getCommand()).containsExactly("fetch-model", "--to", "/models/llama-70b", "meta-llama/Llama-3.1-70B");
            assertThat(loader.getVolumeMounts().getFirst().getReadOnly()).isNull();
        });
    }

    @Test
    void moduleRunsWithDashM() {
        Pod pod = pods(example("ib-volcano.yaml")).getFirst();

        assertThat(trainer(pod).getCommand()).startsWith("torchrun", "-m", "megatron.training.pretrain_gpt", "--tensor-model-parallel-size");
        assertThat(pod.getSpec().getPriorityClassName()).isEqualTo("training-high");
        assertThat(pod.getSpec().getTolerations()).extracting(t -> t.getKey()).containsExactly("nvidia.com/gpu");
        assertThat(pod.getSpec().getVolumes()).filteredOn(v -> v.getName().equals("dataset")).first()
                .satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo("/mnt/lustre/datasets/pile"));
    }

    @Test
    void hostNetworkWithKueue() {
        TrainingJob job = example("hostnetwork-kueue.yaml");
        List<HasMetadata> objects = render(job);
        Pod pod = pods(job).getFirst();
        int port = JobSettings.hostPort("team-a", "resnet-hostnet");

        assertThat(objects).extracting(HasMetadata::getKind).doesNotContain("PodGroup");
        assertThat(pod.getSpec().getHostNetwork()).isTrue();
        assertThat(pod.getSpec().getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
        assertThat(port).isBetween(20000, 29999).isEqualTo(JobSettings.hostPort("team-a", "resnet-hostnet"));
        assertThat(port).isNotEqualTo(JobSettings.hostPort("team-a", "resnet-hostnet-2"));
        assertThat(env(pod)).containsEntry("PET_MASTER_PORT", String.valueOf(port)).containsEntry("NCCL_SOCKET_IFNAME", "bond0")
                .containsEntry("NCCL_IB_TIMEOUT", "20");
        assertThat(trainer(pod).getPorts().getFirst().getHostPort()).isEqualTo(port);
        assertThat(pod.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/queue-name", "team-a-gpus")
                .containsEntry("kueue.x-k8s.io/pod-group-name", "resnet-hostnet-0");
        assertThat(pod.getMetadata().getAnnotations()).containsEntry("kueue.x-k8s.io/pod-group-total-count", "2");
    }

    @Test
    void topologyOrderWaitsForTheRank() {
        Pod pod = pods(example("topology.yaml")).get(2);

        assertThat(env(pod)).doesNotContainKeys("PET_NODE_RANK", "PET_MASTER_ADDR").containsEntry("PET_NNODES", "4");
        assertThat(pod.getSpec().getInitContainers()).extracting(Container::getName).containsExactly("await-rank");
        assertThat(pod.getSpec().getInitContainers().getFirst().getArgs()).containsExactly("await-rank",
                "--annotations=/etc/railyard/pod/annotations", "--env-file=/var/run/railyard/rank.env");
        assertThat(trainer(pod).getCommand()).containsExactly("/bin/sh", "-c",
                ". /var/run/railyard/rank.env && exec torchrun \"$@\"", "torchrun", "/workspace/train.py");
        assertThat(pod.getSpec().getVolumes()).filteredOn(v -> v.getName().equals("pod-info")).first()
                .satisfies(v -> assertThat(v.getDownwardAPI().getItems().getFirst().getFieldRef().getFieldPath()).isEqualTo("metadata.annotations"));
    }

    @Test
    void hostileArgumentsReachTorchrunUnchanged() {
        String spec = """
                image: pytorch
                script: train.py
                args: ["; rm -rf / #", "$(id)", "`reboot`", "a b", "--flag=\\"quoted\\""]
                nodes: 2
                gpusPerNode: 8
                """;
        Container plain = trainer(pods(yaml(spec)).getFirst());
        Container ordered = trainer(pods(yaml(spec + "scheduling: {topologyKeys: [rack]}\n")).getFirst());

        assertThat(plain.getCommand()).containsExactly("torchrun", "train.py", "; rm -rf / #", "$(id)", "`reboot`", "a b", "--flag=\"quoted\"");
        assertThat(ordered.getCommand().subList(0, 4)).containsExactly("/bin/sh", "-c", ". /var/run/railyard/rank.env && exec torchrun \"$@\"", "torchrun");
        assertThat(ordered.getCommand().subList(4, ordered.getCommand().size()))
                .containsExactly("train.py", "; rm -rf / #", "$(id)", "`reboot`", "a b", "--flag=\"quoted\"");
    }

    @Test
    void defaultSchedulerWarnsAboutGangDeadlocks() {
        TrainingJob two = yaml("image: pytorch\nscript: t.py\nnodes: 2\ngpusPerNode: 8\nrdma: {devicesPerNode: 8}\n");
        TrainingJob one = yaml("image: pytorch\nscript: t.py\nnodes: 1\ngpusPerNode: 8\nrdma: {devicesPerNode: 8}\n");

        assertThat(TrainingJobModel.desired(two, new OperatorDefaults("img", "rdma/rdma")).warnings()).singleElement().asString().contains("deadlock", "volcano, kueue or kubernetes");
        assertThat(TrainingJobModel.desired(one, new OperatorDefaults("img", "rdma/rdma")).warnings()).isEmpty();
        assertThat(pods(two).getFirst().getSpec().getSchedulerName()).isNull();
    }

    @Test
    void gpuDirectOffLeavesTheGdrLevelToNccl() {
        Pod pod = pods(yaml("image: pytorch\nscript: t.py\nnodes: 1\ngpusPerNode: 8\nrdma: {gpuDirect: false, resource: rdma/roce, devicesPerNode: 2}\n")).getFirst();

        assertThat(env(pod)).doesNotContainKey("NCCL_NET_GDR_LEVEL");
        assertThat(trainer(pod).getResources().getLimits()).containsEntry("rdma/roce", new Quantity("2"));
    }

    @Test
    void ownedByTheJobOnceItHasAUid() {
        TrainingJob job = example("ib-volcano.yaml");
        job.getMetadata().setUid("6c1d2b1e-0000-4000-8000-000000000001");

        assertThat(render(job)).allSatisfy(object -> assertThat(object.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> {
                    assertThat(owner.getKind()).isEqualTo("TrainingJob");
                    assertThat(owner.getController()).isTrue();
                    assertThat(owner.getUid()).isEqualTo("6c1d2b1e-0000-4000-8000-000000000001");
                }));
        assertThat(render(example("ib-volcano.yaml")).getFirst().getMetadata().getOwnerReferences()).isEmpty();
    }

    @Test
    void everyRenderedObjectReadsBackIntoTheTypedModelWithoutUnknownFields() throws Exception {
        for (String example : List.of("llama70b-roce.yaml", "ib-volcano.yaml", "hostnetwork-kueue.yaml", "topology.yaml")) {
            for (HasMetadata object : render(example(example))) {
                HasMetadata back = Jobs.YAML.readValue(Serialization.asYaml(object), object.getClass());
                assertThat(Serialization.asYaml(back)).as(example + " " + object.getKind()).isEqualTo(Serialization.asYaml(object));
            }
        }
    }
}
