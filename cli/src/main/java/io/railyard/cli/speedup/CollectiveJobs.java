package io.railyard.cli.speedup;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.PodTemplateOverrides;
import io.railyard.api.RdmaSpec;
import io.railyard.api.RunPolicy;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobSpec;
import io.railyard.operator.preflight.PodLogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code railyard speedup --collectives}: the all-reduce benchmark Railyard ships (a ConfigMap mounted into the pods) as
 * ordinary TrainingJobs on the same nodes, one per {@link CollectiveRun.Variant}, run one after the other; rank 0's log
 * read for the figures; the jobs and the ConfigMap deleted after, unless kept.
 */
public final class CollectiveJobs {
    public static final String MARK = "railyard-allreduce";
    public static final String SCRIPT = "allreduce_bench.py";
    public static final String MOUNT = "/opt/railyard-speedup";
    public static final String SPEEDUP_LABEL = Names.PREFIX + "speedup";

    /** What the jobs share: the only difference between them is {@link CollectiveRun.Variant#env}. */
    public record Shape(String namespace, String run, String image, int nodes, int gpusPerNode, String resource, int devicesPerNode,
            boolean hostNetwork, String socketInterface, Map<String, String> nodeSelector, List<String> nodeNames, int timeoutSeconds) {
        public String configMapName() {
            return "speedup-" + run;
        }

        public String jobName(CollectiveRun.Variant variant) {
            return "speedup-" + run + "-" + variant.id;
        }
    }

    private CollectiveJobs() {}

    public static String script() {
        try (InputStream in = CollectiveJobs.class.getResourceAsStream(SCRIPT)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in the jar
        }
    }

    public static ConfigMap configMap(Shape shape) {
        return new ConfigMapBuilder().withNewMetadata().withName(shape.configMapName()).withNamespace(shape.namespace())
                .addToLabels(SPEEDUP_LABEL, shape.run()).endMetadata().addToData(SCRIPT, script()).build();
    }

    public static TrainingJob job(Shape shape, CollectiveRun.Variant variant) {
        TrainingJob job = new TrainingJob();
        job.getMetadata().setName(shape.jobName(variant));
        job.getMetadata().setNamespace(shape.namespace());
        job.getMetadata().setLabels(Map.of(SPEEDUP_LABEL, shape.run()));
        TrainingJobSpec spec = new TrainingJobSpec();
        spec.image = shape.image();
        spec.script = MOUNT + "/" + SCRIPT;
        spec.nodes = shape.nodes();
        spec.gpusPerNode = shape.gpusPerNode();
        spec.rdma = new RdmaSpec();
        spec.rdma.resource = shape.resource();
        spec.rdma.devicesPerNode = shape.devicesPerNode();
        spec.rdma.hostNetwork = shape.hostNetwork() ? true : null;
        spec.rdma.socketInterface = shape.socketInterface();
        spec.rdma.env = variant.env.isEmpty() ? null : new LinkedHashMap<>(variant.env);
        spec.podTemplate = new PodTemplateOverrides();
        spec.podTemplate.nodeSelector = shape.nodeSelector();
        spec.podTemplate.nodeNames = shape.nodeNames();
        spec.podTemplate.volumes = List.of(new VolumeBuilder().withName("speedup-script").withNewConfigMap()
                .withName(shape.configMapName()).endConfigMap().build());
        spec.podTemplate.volumeMounts = List.of(new VolumeMountBuilder().withName("speedup-script").withMountPath(MOUNT).withReadOnly(true).build());
        spec.runPolicy = new RunPolicy();
        spec.runPolicy.backoffLimit = 0; // a benchmark that fails says why; running it again would only take longer
        spec.runPolicy.activeDeadlineSeconds = (long) shape.timeoutSeconds();
        job.setSpec(spec);
        return job;
    }

    /** Runs the variants one after the other and returns their figures, a failed one with its reason. */
    public static List<CollectiveRun> run(KubernetesClient client, PodLogs logs, Shape shape, boolean keep, Duration poll, Consumer<String> progress)
            throws InterruptedException {
        client.resource(configMap(shape)).create();
        List<CollectiveRun> runs = new ArrayList<>();
        try {
            for (CollectiveRun.Variant variant : CollectiveRun.Variant.values()) {
                String name = shape.jobName(variant);
                client.resource(job(shape, variant)).create();
                progress.accept("collectives: " + name + " (" + variant.title + ") created, waiting for it to finish");
                String phase = await(client, shape, name, poll);
                String log = logs.read(shape.namespace(), name + "-0").orElse("");
                CollectiveRun run = "Succeeded".equals(phase) || log.contains(MARK + " size=") ? CollectiveRun.of(variant, name, log)
                        : CollectiveRun.failed(variant, name, "the job ended " + (phase == null ? "without a phase within "
                                + shape.timeoutSeconds() + " s" : phase) + " (railyard status " + name + " says why)");
                runs.add(run);
                progress.accept("collectives: " + name + ": " + (run.error() == null ? run.rows().size() + " sizes measured" : run.error()));
                if (!keep) {
                    client.resource(job(shape, variant)).delete();
                }
            }
        } finally {
            if (!keep) {
                client.resource(configMap(shape)).delete();
            }
        }
        return runs;
    }

    private static String await(KubernetesClient client, Shape shape, String name, Duration poll) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(shape.timeoutSeconds());
        while (true) {
            TrainingJob job = client.resources(TrainingJob.class).inNamespace(shape.namespace()).withName(name).get();
            String phase = job == null || job.getStatus() == null ? null : job.getStatus().phase;
            if ("Succeeded".equals(phase) || "Failed".equals(phase) || Instant.now().isAfter(deadline)) {
                return phase;
            }
            Thread.sleep(poll.toMillis());
        }
    }
}
