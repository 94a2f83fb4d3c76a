package io.railyard.diagnose.logs;

/**
 * What a pasted NCCL RAS status report says about the job.
 *
 * @param status healthy, ranks behind, or ranks missing
 */
public record RasSummary(String ncclVersion, int ranks, int nodes, int communicators, String status) {}
