package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;

/** The headless Service that gives every rank a DNS name, ready or not (torchrun's master must resolve early). */
final class ServiceModel {
    private ServiceModel() {}

    static Service desired(TrainingJob job, JobSettings settings) {
        return new ServiceBuilder()
                .withMetadata(Ownership.metadata(job, settings.name()))
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .addToSelector(Names.JOB_LABEL, settings.name())
                .addNewPort().withName("master").withPort(settings.masterPort()).withProtocol("TCP").endPort()
                .endSpec()
                .build();
    }
}
