package io.railyard.operator.reconcile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;

/**
 * The operator as OperatorCommand runs it (a lenient reading client, no server-side apply, which the CRUD mock API
 * server lacks), on a test's mock server.
 */
record OperatorUnderTest(Operator operator, TrainingJobReconciler reconciler) implements AutoCloseable {

    /** @param namespaces what it watches, as {@code --namespace} gives them (none: all) */
    static OperatorUnderTest start(KubernetesClient client, RankZeroLog logs, Clock clock, String... namespaces) {
        return start(client, logs, clock, new OperatorDefaults("railyard:test", "rdma/rdma"), namespaces);
    }

    /** @param defaults the installation's, and whether the cluster restarts pods in place */
    static OperatorUnderTest start(KubernetesClient client, RankZeroLog logs, Clock clock, OperatorDefaults defaults, String... namespaces) {
        var serialization = LenientReading.serialization();
        KubernetesClient operatorClient = new KubernetesClientBuilder().withConfig(client.getConfiguration())
                .withKubernetesSerialization(serialization).build();
        Operator operator = new Operator(o -> o.withKubernetesClient(operatorClient).withCloseClientOnStop(true)
                .withResourceCloner(LenientReading.cloner(serialization))
                .withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false));
        TrainingJobReconciler reconciler = new TrainingJobReconciler(defaults, logs, clock);
        operator.register(reconciler, c -> {
            c.withReconciliationMaxInterval(Duration.ofSeconds(10)); // the operator's safety net, at a test's pace
            if (namespaces.length > 0) {
                c.settingNamespaces(namespaces);
            }
        });
        operator.start();
        return new OperatorUnderTest(operator, reconciler);
    }

    /** A TrainingJob in namespace ns from its spec in YAML, created the way kubectl would. */
    static TrainingJob create(KubernetesClient client, String name, String spec) {
        try {
            TrainingJob job = new ObjectMapper(new YAMLFactory()).readValue("""
                    apiVersion: railyard.io/v1alpha1
                    kind: TrainingJob
                    metadata: {name: %s, namespace: ns}
                    spec:
                    """.formatted(name) + spec.indent(2), TrainingJob.class);
            return client.resource(job).create();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        operator.stop();
    }
}
