package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.time.Instant;
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
    /**
     * Rules no request uses, and what uses them instead: the finalizers subresource is checked by the admission plugin
     * OwnerReferencesPermissionEnforcement (on in tools/control-plane) when the operator sets blockOwnerDeletion.
     */
    private static final Set<String> USED_BY_ADMISSION = Set.of("railyard.io/trainingjobs/finalizers update");

    @Test
    void noRequestOfTheOperatorIsDeniedAndEveryRuleOfItsRoleIsUsed(Installation railyard) {
        List<Audit.Request> requests = Audit.operatorRequests(railyard.cluster, Instant.EPOCH);
        Map<String, Integer> byVerb = new TreeMap<>();
        List<String> denied = new ArrayList<>();
        for (Audit.Request request : requests) {
            byVerb.merge(request.key(), 1, Integer::sum);
            if (request.code() == 403) {
                denied.add(request.key() + " " + request.uri());
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
