package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A Kubernetes Event for each condition that changed, so that {@code kubectl describe tj} tells the job's story. */
final class JobEvents {
    private static final Logger LOG = LoggerFactory.getLogger(JobEvents.class);

    private JobEvents() {}

    static void record(KubernetesClient client, TrainingJob job, TrainingJobStatus before, TrainingJobStatus after, Instant now) {
        List<Condition> old = before == null || before.conditions == null ? List.of() : before.conditions;
        for (Condition condition : after.conditions == null ? List.<Condition>of() : after.conditions) {
            boolean changed = old.stream().noneMatch(o -> o.getType().equals(condition.getType())
                    && o.getStatus().equals(condition.getStatus()) && Objects.equals(o.getReason(), condition.getReason()));
            if (changed && "True".equals(condition.getStatus()) || changed && "RdmaVerified".equals(condition.getType())) {
                boolean bad = condition.getType().equals("Failed") || condition.getType().equals("Restarting")
                        || condition.getType().equals(Admission.CONDITION) || condition.getType().equals("Degraded")
                        || (condition.getType().equals("RdmaVerified") && "False".equals(condition.getStatus()));
                emit(client, job, bad ? "Warning" : "Normal", condition.getReason(), condition.getType() + ": " + condition.getMessage(), now);
            }
        }
    }

    /** The newest condition, for the log line of a phase change. */
    static String latest(TrainingJobStatus status) {
        return status.conditions == null || status.conditions.isEmpty() ? ""
                : status.conditions.stream().max((a, b) -> a.getLastTransitionTime().compareTo(b.getLastTransitionTime()))
                        .map(c -> c.getType() + " " + c.getReason() + ": " + c.getMessage()).orElse("");
    }

    /** The desired state's warnings (a gang without a gang scheduler, one rail for eight GPUs), once, when the job is new. */
    static void warnings(KubernetesClient client, TrainingJob job, List<String> warnings, Instant now) {
        warnings.forEach(warning -> emit(client, job, "Warning", "SpecWarning", warning, now));
    }

    private static void emit(KubernetesClient client, TrainingJob job, String type, String reason, String message, Instant now) {
        try {
            client.v1().events().inNamespace(job.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(job.getMetadata().getName() + "-").withNamespace(job.getMetadata().getNamespace()).endMetadata()
                    .withNewInvolvedObject().withApiVersion(job.getApiVersion()).withKind(job.getKind()).withName(job.getMetadata().getName())
                    .withNamespace(job.getMetadata().getNamespace()).withUid(job.getMetadata().getUid()).endInvolvedObject()
                    .withType(type)
                    .withReason(reason)
                    .withMessage(message)
                    .withFirstTimestamp(now.toString()).withLastTimestamp(now.toString()).withCount(1)
                    .withNewSource().withComponent("railyard-operator").endSource()
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("TrainingJob({}/{}): cannot record an event: {}", job.getMetadata().getNamespace(), job.getMetadata().getName(), e.getMessage());
        }
    }
}
