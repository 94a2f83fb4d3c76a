package io.railyard.cli.up;

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
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What the shipped TrainingJobs of {@code examples/trainingjobs} take as given on a cluster, read from them: their
 * namespaces, the claims of their datasets and models (each bound to a volume of its own), the host paths they mount (the
 * operator allows them: KWOK mounts nothing), their priority classes, the Volcano queues the Volcano ones name.
 */
record ExampleNeeds(SortedSet<String> namespaces, SortedSet<String> claims, SortedSet<String> queues, SortedSet<String> hostPaths,
                    SortedSet<String> priorityClasses) {
    /** Above the default of 0, below the system's own classes. */
    private static final int PRIORITY = 1000;

    static ExampleNeeds of(Path examples) {
        ExampleNeeds needs = new ExampleNeeds(new TreeSet<>(), new TreeSet<>(), new TreeSet<>(), new TreeSet<>(), new TreeSet<>());
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
        if (job.getSpec().scheduling != null && job.getSpec().scheduling.scheduler == SchedulingSpec.Scheduler.VOLCANO
                && job.getSpec().scheduling.queue != null) {
            queues.add(job.getSpec().scheduling.queue);
        }
    }

    /** Makes them: the namespaces at the README's level, each claim bound to a hostPath volume under the sandbox, the queues. */
    void prepare(KubernetesClient admin, SandboxInstall install, Sandbox sandbox, boolean volcano) {
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
        if (volcano) {
            for (String queue : queues) {
                admin.resource(new GenericKubernetesResourceBuilder().withApiVersion("scheduling.volcano.sh/v1beta1").withKind("Queue")
                        .withNewMetadata().withName(queue).endMetadata()
                        .addToAdditionalProperties("spec", Map.of("weight", 1, "reclaimable", true)).build())
                        .fieldManager(SandboxInstall.FIELD_MANAGER).serverSideApply();
            }
        }
    }
}
