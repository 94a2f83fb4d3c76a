package io.railyard.diagnose;

import io.railyard.node.Port;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** perftest's ib_write_bw is on PATH, and how to measure a link with it between two nodes. */
final class PerftestCheck {
    static final String ID = "perftest";
    private static final String TOOL = "ib_write_bw";

    static CheckResult run(DoctorInput input) {
        Optional<Path> tool = input.searchPath().stream()
                .map(dir -> dir.resolve(TOOL))
                .filter(path -> Files.isRegularFile(path) && Files.isExecutable(path))
                .findFirst();
        List<String> howTo = howTo(input.node().ports());
        if (tool.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, TOOL + " is not on PATH: no way to measure RDMA bandwidth here",
                    howTo, "install perftest (apt-get install perftest, or dnf install perftest)");
        }
        return CheckResult.ok(ID, TOOL + " found at " + tool.get(), howTo);
    }

    private static List<String> howTo(List<Port> ports) {
        Port port = ports.stream().filter(Port::isActive).findFirst().orElse(null);
        String device = port == null ? "mlx5_0" : port.hca();
        String gid = port == null ? "" : port.ncclGidIndex().stream().mapToObj(i -> " -x " + i).findFirst().orElse("");
        String command = TOOL + " -d " + device + gid + " -F --report_gbits";
        return List.of("on the first node: " + command, "on the second node: " + command + " <first node's address>",
                "expect close to the port's line rate; far below it points at MTU, PCIe placement or congestion");
    }
}
