package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
     * Rules no request of these tests uses, and why: an admission check rather than a request, or a part whose e2e test
     * needs what this cluster does not have yet (each is a gap, printed with the figures, not a pass).
     */
    private static final Map<String, String> NOT_SHOWN = Map.of(
            "railyard.io/trainingjobs/finalizers update", "checked by OwnerReferencesPermissionEnforcement when a pod's owner"
                    + " reference blocks deletion, which every pod the operator creates does: an admission check, not a request",
            "core/nodes patch", "the preflight gate's mark on a failed node: its helper pods' results have no e2e test yet",
            "coordination.k8s.io/leases update", "JOSDK's start-up check asks for it (a SelfSubjectRulesReview); the renewals are patches");

    /** Rules only VolcanoIT uses, excused where Volcano is not built (never under CI, which builds it). */
    private static final Map<String, String> WITHOUT_VOLCANO = Map.of(
            "scheduling.volcano.sh/podgroups watch", "Volcano is not built here: tools/control-plane build --with volcano",
            "scheduling.volcano.sh/podgroups create", "Volcano is not built here",
            "scheduling.volcano.sh/podgroups delete", "Volcano is not built here");

    /** Rules the operator uses only where Kueue serves its Workloads, excused where Kueue is not built (never under CI). */
    private static final Map<String, String> WITHOUT_KUEUE = Map.of(
            "kueue.x-k8s.io/workloads list", "Kueue is not built here: tools/control-plane build --with kueue",
            "kueue.x-k8s.io/workloads watch", "Kueue is not built here");

    @Test
    void noRequestOfTheOperatorIsDeniedAndEveryRuleOfItsRoleIsUsed(Installation railyard) {
        Map<String, String> notShown = new TreeMap<>(NOT_SHOWN);
        if (!railyard.cluster.volcano) {
            notShown.putAll(WITHOUT_VOLCANO);
        }
        if (!railyard.cluster.kueue) {
            notShown.putAll(WITHOUT_KUEUE);
        }
        List<Audit.Request> requests = Audit.operatorRequests(railyard.cluster, Instant.EPOCH);
        Map<String, Integer> byVerb = new TreeMap<>();
        List<String> denied = new ArrayList<>();
        List<String> deniedWhileStarting = new ArrayList<>();
        for (Audit.Request request : requests) {
            byVerb.merge(request.key(), 1, Integer::sum);
            if (request.code() == 403) {
                String line = request.received() + " " + request.key() + " " + request.uri();
                boolean starting = railyard.cluster.apiServerStarts.stream().anyMatch(start -> start.holds(request.received()));
                (starting ? deniedWhileStarting : denied).add(line);
            }
        }
        System.out.println("requests of the operator by verb and resource (" + requests.size() + " in all, " + denied.size() + " denied):");
        byVerb.forEach((verbAndResource, count) -> System.out.printf("  %6d  %s%n", count, verbAndResource));
        // A restarted API server answers before its RBAC caches are filled, and denies everyone until then: the
        // server's start, not the operator's role (FaultsIT's outage shows the operator going on after it).
        deniedWhileStarting.forEach(line -> System.out.println("  denied while the API server started, before /readyz: " + line));

        assertThat(requests).isNotEmpty();
        assertThat(denied).as("requests of the operator the API server denied").isEmpty();
        List<String> granted = new ArrayList<>(rules(railyard.cluster.admin.rbac().clusterRoles().withName(Installation.OPERATOR_ACCOUNT)
                .get().getRules()).toList());
        granted.addAll(rules(railyard.cluster.admin.rbac().roles().inNamespace(Installation.SYSTEM)
                .withName(Installation.OPERATOR_ACCOUNT + "-leader-election").get().getRules()).toList());
        granted.stream().filter(notShown::containsKey).forEach(rule -> System.out.println("  not shown: " + rule + ": " + notShown.get(rule)));
        List<String> unused = granted.stream().filter(rule -> !byVerb.containsKey(rule) && !notShown.containsKey(rule)).toList();
        assertThat(unused).as("rules of the operator's roles that no request used").isEmpty();
        assertThat(notShown.keySet()).as("rules excused that a request now uses: take them off the list").noneMatch(byVerb::containsKey);
    }

    private static Stream<String> rules(List<PolicyRule> policy) {
        List<String> rules = new ArrayList<>();
        for (PolicyRule rule : policy) {
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
