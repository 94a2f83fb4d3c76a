package io.railyard.diagnose;

/** Whether the doctor could look at the cluster, and what it saw. */
public sealed interface ClusterAccess {

    /** No kubeconfig and no in-cluster credentials: the kubernetes check is skipped. */
    record NoCredentials(String why) implements ClusterAccess {}

    /** Credentials were found but the API server did not answer. */
    record Unreachable(String why) implements ClusterAccess {}

    record Observed(ClusterView view) implements ClusterAccess {}
}
