package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;

/** metav1.Condition bookkeeping: lastTransitionTime moves only when the condition's status does. */
public final class Conditions {
    private Conditions() {}

    /** The conditions with one set; the others as they were. */
    public static List<Condition> set(List<Condition> conditions, String type, boolean status, String reason, String message,
            long generation, String now) {
        List<Condition> result = new ArrayList<>();
        String value = status ? "True" : "False";
        boolean found = false;
        for (Condition condition : conditions == null ? List.<Condition>of() : conditions) {
            if (!condition.getType().equals(type)) {
                result.add(condition);
                continue;
            }
            found = true;
            String since = value.equals(condition.getStatus()) ? condition.getLastTransitionTime() : now;
            result.add(condition(type, value, reason, message, generation, since));
        }
        if (!found) {
            result.add(condition(type, value, reason, message, generation, now));
        }
        return result;
    }

    private static Condition condition(String type, String status, String reason, String message, long generation, String since) {
        return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withObservedGeneration(generation).withLastTransitionTime(since).build();
    }
}
