package io.railyard.diagnose;

import java.util.ArrayList;
import java.util.List;

/** The cluster's view of this node: the RDMA device plugin runs here and the RDMA resource is allocatable. */
final class KubernetesCheck {
    static final String ID = "kubernetes";

    static CheckResult run(DoctorInput input) {
        ClusterView cluster;
        switch (input.cluster()) {
            case ClusterAccess.NoCredentials(String why) -> {
                return CheckResult.skip(ID, why);
            }
            case ClusterAccess.Unreachable(String why) -> {
                return new CheckResult(ID, CheckStatus.WARN, "cannot ask the Kubernetes API: " + why, List.of(),
                        "check the kubeconfig's server and credentials (kubectl get nodes), or run without them");
            }
            case ClusterAccess.Observed(ClusterView view) -> cluster = view;
        }
        String resource = input.rdmaResource();
        if (!cluster.nodeFound()) {
            return new CheckResult(ID, CheckStatus.FAIL, "node " + cluster.nodeName() + " is not in the cluster", List.of(),
                    "pass --node-name with the Kubernetes node name (kubectl get nodes)");
        }
        List<String> details = new ArrayList<>();
        String allocatable = cluster.allocatable().getOrDefault(resource, "0");
        details.add(resource + " allocatable on " + cluster.nodeName() + ": " + allocatable);
        cluster.pluginPods().forEach(pod -> details.add("device plugin pod " + pod.namespace() + "/" + pod.name() + ": "
                + pod.phase() + (pod.ready() ? ", ready" : ", not ready")));
        if (cluster.pluginPods().isEmpty()) {
            return new CheckResult(ID, CheckStatus.FAIL, "no RDMA device plugin pod runs on " + cluster.nodeName(), details,
                    "deploy the Railyard agent DaemonSet (deploy/agent) and check its node selector and tolerations");
        }
        if (cluster.pluginPods().stream().noneMatch(ClusterView.PluginPod::ready)) {
            return new CheckResult(ID, CheckStatus.FAIL, "the RDMA device plugin pod on " + cluster.nodeName() + " is not ready",
                    details, "kubectl logs the plugin pod; then railyard doctor inside it");
        }
        if (allocatable.equals("0")) {
            return new CheckResult(ID, CheckStatus.FAIL, cluster.nodeName() + " has no allocatable " + resource
                    + ": the device plugin did not register, or lost its registration when the kubelet restarted", details,
                    "restart the device plugin pod; if it comes back at 0, check its log for devices it could not find");
        }
        if (!cluster.rdmaProblems().isEmpty()) {
            details.addAll(cluster.rdmaProblems());
            return new CheckResult(ID, CheckStatus.WARN, cluster.nodeName() + " reports " + cluster.rdmaProblems().stream()
                    .map(problem -> problem.substring(0, problem.indexOf(':'))).distinct().reduce((a, b) -> a + ", " + b).orElse("")
                    + " (its agent's Node conditions)", details, "see the ports named above; the link check here reads them now");
        }
        return CheckResult.ok(ID, cluster.nodeName() + " offers " + allocatable + " " + resource + " through a ready device plugin", details);
    }
}
