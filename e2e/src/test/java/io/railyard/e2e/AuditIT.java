package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Least privilege shown both ways by the API server's audit log (level Metadata), read after every other e2e test:
 * no request of the operator was denied, and every rule of its ClusterRole was used.
 */
@ExtendWith(RealCluster.class)
@Order(100)
class AuditIT {
    private static final String OPERATOR = "system:serviceaccount:" + Installation.SYSTEM + ":" + Installation.OPERATOR_ACCOUNT;
    /**
     * Rules no request uses, and what uses them instead: the finalizers subresource is checked by the admission plugin
     * OwnerReferencesPermissionEnforcement (on in tools/control-plane) when the operator sets blockOwnerDeletion.
     */
    private static final Set<String> USED_BY_ADMISSION = Set.of("railyard.io/trainingjobs/finalizers update");

    @Test
    void noRequestOfTheOperatorIsDeniedAndEveryRuleOfItsRoleIsUsed(Installation railyard) throws IOException {
        List<JsonNode> requests = operatorRequests(railyard);
        Map<String, Integer> byVerb = new TreeMap<>();
        List<String> denied = new ArrayList<>();
        for (JsonNode request : requests) {
            byVerb.merge(key(request), 1, Integer::sum);
            if (request.path("responseStatus").path("code").asInt() == 403) {
                denied.add(key(request) + " " + request.path("requestURI").asText());
            }
        }
        System.out.println("requests of the operator by verb and resource (" + requests.size() + " in all, " + denied.size() + " denied):");
        byVerb.forEach((verbAndResource, count) -> System.out.printf("  %6d  %s%n", count, verbAndResource));

        assertThat(requests).isNotEmpty();
        assertThat(denied).as("requests of the operator the API server denied").isEmpty();
        ClusterRole role = railyard.cluster.admin.rbac().clusterRoles().withName(Installation.OPERATOR_ACCOUNT).get();
        List<String> unused = granted(role).filter(rule -> !byVerb.containsKey(rule) && !USED_BY_ADMISSION.contains(rule)).toList();
        assertThat(unused).as("rules of the operator's ClusterRole that no request used").isEmpty();
    }

    private static List<JsonNode> operatorRequests(Installation railyard) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> requests = new ArrayList<>();
        try (Stream<String> lines = Files.lines(railyard.cluster.auditLog())) {
            for (String line : (Iterable<String>) lines::iterator) {
                JsonNode event = json.readTree(line);
                if (event.path("user").path("username").asText().equals(OPERATOR) && event.path("stage").asText().equals("ResponseComplete")) {
                    requests.add(event);
                }
            }
        }
        return requests;
    }

    /** "group/resource[/subresource] verb", the core group written as "core". */
    private static String key(JsonNode request) {
        JsonNode object = request.path("objectRef");
        String group = object.path("apiGroup").asText("");
        String subresource = object.path("subresource").asText("");
        return (group.isEmpty() ? "core" : group) + "/" + object.path("resource").asText()
                + (subresource.isEmpty() ? "" : "/" + subresource) + " " + request.path("verb").asText();
    }

    private static Stream<String> granted(ClusterRole role) {
        List<String> rules = new ArrayList<>();
        for (PolicyRule rule : role.getRules()) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    for (String verb : rule.getVerbs()) {
                        rules.add((group.isEmpty() ? "core" : group) + "/" + resource + " " + verb);
                    }
                }
            }
        }
        return rules.stream();
    }
}
