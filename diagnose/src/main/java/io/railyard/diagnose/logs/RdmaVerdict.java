package io.railyard.diagnose.logs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Whether rank 0's NCCL log shows RDMA really used, for the operator's {@code RdmaVerified} condition.
 *
 * @param verified true when NCCL used RDMA (with GPUDirect RDMA when it was required), false when it fell back or
 *     failed, null when the log does not tell yet
 * @param reason a condition reason: RdmaInUse, SocketFallback, SocketTransport, GpuDirectOff, RdmaErrors, NotYetKnown
 */
public record RdmaVerdict(Boolean verified, String reason, String message, List<Evidence> evidence) {

    /** Judges the tail of a log; the caller bounds its size. */
    public static RdmaVerdict of(String log, boolean gpuDirectRequired) {
        LogReport report;
        try {
            report = LogAnalysis.analyze("rank-0", new ByteArrayInputStream(log.getBytes(StandardCharsets.UTF_8)), OptionalDouble.empty());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        NcclSummary nccl = report.nccl();
        List<Finding> errors = report.findings().stream().filter(f -> f.severity() == Severity.ERROR).toList();
        if (nccl == null || nccl.transport().equals("unknown")) {
            return new RdmaVerdict(null, "NotYetKnown", "rank 0's log does not show NCCL's network yet", List.of());
        }
        if (nccl.transport().equals("socket")) {
            Finding first = errors.isEmpty() ? null : errors.getFirst();
            return new RdmaVerdict(false, nccl.fallback() ? "SocketFallback" : "SocketTransport",
                    first == null ? "NCCL used TCP sockets" : first.summary(), first == null ? List.of() : first.evidence());
        }
        if (!errors.isEmpty()) {
            return new RdmaVerdict(false, "RdmaErrors", errors.getFirst().summary(), errors.getFirst().evidence());
        }
        if (gpuDirectRequired && Boolean.FALSE.equals(nccl.gdr())) {
            return new RdmaVerdict(false, "GpuDirectOff", "NCCL used RDMA without GPUDirect RDMA", List.of());
        }
        String hcas = nccl.hcas().isEmpty() ? "" : " on " + String.join(", ", nccl.hcas());
        return new RdmaVerdict(true, "RdmaInUse", "NCCL uses " + nccl.transport() + hcas
                + (Boolean.TRUE.equals(nccl.gdr()) ? " with GPUDirect RDMA" : ""), List.of());
    }
}
