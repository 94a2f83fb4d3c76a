package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * What one input showed: its kind (and for {@code port-state} the tool), the NCCL network facts, benchmark results,
 * node tool port facts, and findings.
 * {@code nccl}, {@code bandwidth}, {@code iperf3}, {@code ras}, {@code inspector} and {@code torchrun} are null where they
 * do not apply.
 */
public record LogReport(String file, String kind, String tool, NcclSummary nccl, Bandwidth bandwidth, Iperf3Summary iperf3, List<PortFacts> ports,
        RasSummary ras, InspectorSummary inspector, TorchrunSummary torchrun, List<Finding> findings) {
    static final int MAX_ROWS = 1000;

    public LogReport {
        ports = List.copyOf(ports);
        findings = List.copyOf(findings);
    }

    public boolean hasErrors() {
        return findings.stream().anyMatch(f -> f.severity() == Severity.ERROR);
    }

    /** Filled by the analyzers when the input has been read. */
    static final class Builder {
        final String file;
        final Findings findings;
        final OptionalDouble lineRateGbps;
        String kind = "unknown";
        /** The tool of a {@code port-state} input (ibdev2netdev, lshca, ipxe-ifstat); null for the other kinds. */
        String tool;
        NcclSummary nccl;
        Bandwidth bandwidth;
        Iperf3Summary iperf3;
        RasSummary ras;
        InspectorSummary inspector;
        TorchrunSummary torchrun;
        final List<PortFacts> ports = new ArrayList<>();

        Builder(String file, Findings findings, OptionalDouble lineRateGbps) {
            this.file = file;
            this.findings = findings;
            this.lineRateGbps = lineRateGbps;
        }

        LogReport build() {
            return new LogReport(file, kind, "port-state".equals(kind) ? tool : null, nccl, bandwidth, iperf3, ports, ras, inspector,
                    torchrun, findings.list());
        }
    }
}
