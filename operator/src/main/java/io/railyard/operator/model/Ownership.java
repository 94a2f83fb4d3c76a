package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;

/** Metadata of an object the job owns: its name, the job's labels, and an owner reference once the job has a UID. */
final class Ownership {
    private Ownership() {}

    static ObjectMeta metadata(TrainingJob job, String name) {
        ObjectMetaBuilder metadata = new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(job.getMetadata().getNamespace())
                .addToLabels("app.kubernetes.io/name", "railyard-trainer")
                .addToLabels("app.kubernetes.io/managed-by", "railyard")
                .addToLabels(Names.JOB_LABEL, job.getMetadata().getName());
        // A job read from a file has no UID yet: the operator's objects carry the reference, render's cannot.
        if (job.getMetadata().getUid() != null) {
            metadata.addToOwnerReferences(new OwnerReferenceBuilder()
                    .withApiVersion(job.getApiVersion())
                    .withKind(job.getKind())
                    .withName(job.getMetadata().getName())
                    .withUid(job.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build());
        }
        return metadata.build();
    }
}
