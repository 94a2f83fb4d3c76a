package io.railyard.cli.up;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.DataVolume;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What the shipped TrainingJobs of {@code examples/trainingjobs} take as given on a cluster, read from them: their
 * namespaces, the claims of their datasets and models (each bound to a volume of its own), the host paths they mount (the
 * operator allows them: KWOK mounts nothing), their priority classes, the Volcano queues the Volcano ones name, and the
 * Kueue LocalQueues (namespace/name) the Kueue ones name, all in one ClusterQueue of the sandbox's nodes.
 */
record ExampleNeeds(SortedSet<String> namespaces, SortedSet<String> claims, SortedSet<String> volcanoQueues, SortedSet<String> kueueQueues,
                    SortedSet<String> hostPaths, SortedSet<String> priorityClasses) {
    /** The ClusterQueue, ResourceFlavor and Topology of the sandbox's Kueue. */
    static final String CLUSTER_QUEUE = "railyard-up";
    /** Above the default of 0, below the system's own classes. */
    private static final int PRIORITY = 1000;
    private static final String KUEUE = "kueue.x-k8s.io/v1beta2";

    static ExampleNeeds of(Path examples) {
        ExampleNeeds needs = new ExampleNeeds(new TreeSet<>(), new TreeSet<>(), new TreeSet<>(), new TreeSet<>(), new TreeSet<>(), new TreeSet<>());
        try (Stream<Path> files = Files.list(examples)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    needs.add(Serialization.unmarshal(in, TrainingJob.class));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return needs;
    }

    private void add(TrainingJob job) {
        String namespace = job.getMetadata().getNamespace() == null ? "default" : job.getMetadata().getNamespace();
        namespaces.add(namespace);
        Stream.of(job.getSpec().dataset, job.getSpec().model).filter(volume -> volume != null && volume.claimName != null)
                .map((DataVolume volume) -> namespace + "/" + volume.claimName).forEach(claims::add);
        Stream.of(job.getSpec().dataset, job.getSpec().model).filter(volume -> volume != null && volume.hostPath != null)
                .map(volume -> volume.hostPath).forEach(hostPaths::add);
        if (job.getSpec().scheduling != null && job.getSpec().scheduling.priorityClassName != null) {
            priorityClasses.add(job.getSpec().scheduling.priorityClassName);
        }
        SchedulingSpec scheduling = job.getSpec().scheduling;
        if (scheduling != null && scheduling.queue != null && scheduling.scheduler == SchedulingSpec.Scheduler.VOLCANO) {
            volcanoQueues.add(scheduling.queue);
        }
        if (scheduling != null && scheduling.queue != null && scheduling.scheduler == SchedulingSpec.Scheduler.KUEUE) {
            kueueQueues.add(namespace + "/" + scheduling.queue);
        }
    }

    /**
     * Makes them: the namespaces at the README's level, each claim bound to a hostPath volume under the sandbox, the
     * queues of the {@code schedulers} started; Kueue's ClusterQueue holds {@code quota}, what the sandbox's nodes hold.
     */
    void prepare(KubernetesClient admin, SandboxInstall install, Sandbox sandbox, List<String> schedulers, Map<String, Quantity> quota) {
        namespaces.forEach(install::jobNamespace);
        for (String claim : claims) {
            String namespace = claim.substring(0, claim.indexOf('/'));
            String name = claim.substring(claim.indexOf('/') + 1);
            String volume = namespace + "-" + name;
            Path path = sandbox.dir().resolve("volumes").resolve(volume);
            try {
                Files.createDirectories(path);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            admin.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata().withName(volume).endMetadata()
                    .withNewSpec().addToCapacity("storage", new Quantity("1Ti")).withAccessModes("ReadWriteMany").withStorageClassName("")
                    .withNewHostPath().withPath(path.toString()).withType("DirectoryOrCreate").endHostPath()
                    .withNewClaimRef().withNamespace(namespace).withName(name).endClaimRef().endSpec().build())
                    .fieldManager(SandboxInstall.FIELD_MANAGER).serverSideApply();
            admin.persistentVolumeClaims().inNamespace(namespace).resource(new PersistentVolumeClaimBuilder().withNewMetadata()
                    .withName(name).withNamespace(namespace).endMetadata().withNewSpec().withAccessModes("ReadWriteMany").withStorageClassName("")
                    .withVolumeName(volume).withNewResources().addToRequests("storage", new Quantity("1Ti")).endResources().endSpec().build())
                    .fieldManager(SandboxInstall.FIELD_MANAGER).serverSideApply();
        }
        for (String priorityClass : priorityClasses) {
            admin.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName(priorityClass).endMetadata()
                    .withValue(PRIORITY).withDescription("named by a shipped example of Railyard").build())
                    .fieldManager(SandboxInstall.FIELD_MANAGER).serverSideApply();
        }
        if (schedulers.contains("kueue")) {
            kueue(admin, quota);
        }
        if (schedulers.contains("volcano")) {
            for (String queue : volcanoQueues) {
                apply(admin, new GenericKubernetesResourceBuilder().withApiVersion("scheduling.volcano.sh/v1beta1").withKind("Queue")
                        .withNewMetadata().withName(queue).endMetadata()
                        .addToAdditionalProperties("spec", Map.of("weight", 1, "reclaimable", true)).build());
            }
        }
    }

    /**
     * A Topology of hosts and a flavor of the sandbox's nodes with it (so that Kueue admits a gang only where every pod
     * fits: its topology-aware scheduling counts each node's room), one ClusterQueue of the nodes' capacity, and the
     * examples' LocalQueues in it.
     */
    private void kueue(KubernetesClient admin, Map<String, Quantity> quota) {
        apply(admin, kueue("Topology", CLUSTER_QUEUE, null, Map.of("levels", List.of(Map.of("nodeLabel", "kubernetes.io/hostname")))));
        apply(admin, kueue("ResourceFlavor", CLUSTER_QUEUE, null, Map.of("nodeLabels", Map.of(SandboxNodes.SANDBOX_LABEL, "true"),
                "topologyName", CLUSTER_QUEUE)));
        List<Map<String, Object>> resources = quota.entrySet().stream()
                .map(entry -> Map.<String, Object>of("name", entry.getKey(), "nominalQuota", entry.getValue().toString())).toList();
        apply(admin, kueue("ClusterQueue", CLUSTER_QUEUE, null, Map.of("namespaceSelector", Map.of(),
                "preemption", Map.of("withinClusterQueue", "LowerPriority"),
                "resourceGroups", List.of(Map.of("coveredResources", List.copyOf(quota.keySet()),
                        "flavors", List.of(Map.of("name", CLUSTER_QUEUE, "resources", resources)))))));
        for (String queue : kueueQueues) {
            apply(admin, kueue("LocalQueue", queue.substring(queue.indexOf('/') + 1), queue.substring(0, queue.indexOf('/')),
                    Map.of("clusterQueue", CLUSTER_QUEUE)));
        }
    }

    private static GenericKubernetesResource kueue(String kind, String name, String namespace, Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder().withApiVersion(KUEUE).withKind(kind)
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata().addToAdditionalProperties("spec", spec).build();
    }

    private static void apply(KubernetesClient admin, GenericKubernetesResource object) {
        admin.resource(object).fieldManager(SandboxInstall.FIELD_MANAGER).serverSideApply();
    }
}
