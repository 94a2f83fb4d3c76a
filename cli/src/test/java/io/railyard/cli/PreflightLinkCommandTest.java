package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-pod helper on an example node tree (for the ports' line rates), with a stand-in for ib_write_bw that records
 * its argv and prints real perftest outputs (testdata/perftest): no RDMA hardware here to run the real one on.
 */
class PreflightLinkCommandTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));
    private static final Path PERFTEST = REPO.resolve("testdata/perftest");
    private static final String ROCE_NODE = REPO.resolve("examples/nodes/roce-8gpu").toString();
    private static final String TWO_PORTS = "[{\"hca\":\"mlx5_1\",\"port\":1,\"linkLayer\":\"Ethernet\",\"gidIndex\":3},"
            + "{\"hca\":\"mlx5_2\",\"port\":1,\"linkLayer\":\"Ethernet\",\"gidIndex\":3}]";

    @TempDir
    Path dir;

    /** A stand-in that prints {@code sample} (after {@code failFirst} "not listening" answers) and records each argv. */
    private Path tool(String sample, int failFirst) throws IOException {
        Path script = dir.resolve("ib_write_bw");
        Files.writeString(script, """
                #!/bin/sh
                echo "$@" >> '%1$s/argv'
                echo x >> '%1$s/calls'
                if [ "$(wc -l < '%1$s/calls')" -le %2$d ]; then cat '%3$s'; exit 1; fi
                case "$*" in *10.0.0.2*) cat '%4$s';; *) echo ' Waiting for client to connect...';; esac
                """.formatted(dir, failFirst, PERFTEST.resolve("ib-write-bw-connect-failed-01.txt"), PERFTEST.resolve(sample)));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private CommandRun link(Path tool, String... more) {
        List<String> args = new ArrayList<>(List.of("preflight-link", "--tool=" + tool, "--root=" + ROCE_NODE, "--retry-ms=10",
                "--termination-log=" + dir.resolve("termination-log")));
        args.addAll(List.of(more));
        return CommandRun.of(args.toArray(String[]::new));
    }

    private List<String> argv() throws IOException {
        return Files.readAllLines(dir.resolve("argv"));
    }

    @Test
    void aClientRunsOneTestPerAllocatedHcaWithItsGidIndex() throws Exception {
        CommandRun run = link(tool("ib-write-bw-duration-ib-198gbits-edited-01.txt", 0), "--role=client", "--peer=10.0.0.2",
                "--devices-json=" + TWO_PORTS);

        assertThat(run.exitCode()).isEqualTo(0);
        assertThat(argv()).containsExactlyInAnyOrder(
                "-d mlx5_1 -i 1 -x 3 --report_gbits -F -D 5 -s 1048576 -q 2 -p 18515 10.0.0.2",
                "-d mlx5_2 -i 1 -x 3 --report_gbits -F -D 5 -s 1048576 -q 2 -p 18516 10.0.0.2");
        assertThat(run.out()).contains("railyard-preflight: begin role=client index=0 hca=mlx5_1 port=1 rate-gbps=200 peer=10.0.0.2",
                "railyard-preflight: end role=client index=1 hca=mlx5_2 exit=0", "197.70");
        assertThat(dir.resolve("termination-log")).as("only the gate writes figures").doesNotExist();
    }

    @Test
    void eachRailIsMeasuredAgainstTheSameRailWhateverOrderTheAllocationsListed() throws Exception {
        // the kubelet hands Allocate a set of device IDs: one node's list may be the other's reversed
        String reversed = "[{\"hca\":\"mlx5_10\",\"port\":1,\"gidIndex\":3},{\"hca\":\"mlx5_2\",\"port\":1,\"gidIndex\":3},"
                + "{\"hca\":\"mlx5_1\",\"port\":1,\"gidIndex\":3}]";
        Path tool = tool("ib-write-bw-duration-ib-198gbits-edited-01.txt", 0);
        link(tool, "--role=client", "--peer=10.0.0.2", "--devices-json=" + reversed);
        link(tool, "--role=server", "--nccl-ib-hca==mlx5_1:1,mlx5_2:1,mlx5_10:1", "--gid-index=3");

        List<String> ports = argv().stream().map(argv -> argv.replaceAll("^-d (\\S+) .* -p (\\d+).*$", "$1 $2")).toList();
        assertThat(ports).containsExactlyInAnyOrder("mlx5_1 18515", "mlx5_2 18516", "mlx5_10 18517",
                "mlx5_1 18515", "mlx5_2 18516", "mlx5_10 18517");
    }

    @Test
    void theGateJudgesItsSendingLinksAgainstTheSysfsLineRate() throws Exception {
        CommandRun run = link(tool("ib-write-bw-duration-roce-95gbits-edited-01.txt", 0), "--role=both", "--peer=10.0.0.2",
                "--devices-json=" + TWO_PORTS, "--min-percent=80");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(argv()).hasSize(4).contains("-d mlx5_2 -i 1 -x 3 --report_gbits -F -D 5 -s 1048576 -q 2 -p 18516");
        assertThat(run.out()).contains("railyard-preflight: slow mlx5_1 -> 10.0.0.2: 95.0 Gb/s is 47.5% of the 200 Gb/s line rate, below 80%");
        JsonNode message = new ObjectMapper().readTree(dir.resolve("termination-log").toFile());
        assertThat(message.path("links")).hasSize(2);
        assertThat(message.path("links").get(0).path("verdict").asText()).isEqualTo("slow");
        assertThat(message.path("links").get(0).path("percent").asDouble()).isEqualTo(47.5);
        assertThat(message.path("links").get(0).path("lineRateGbps").asDouble()).isEqualTo(200.0);
    }

    @Test
    void aServerNotListeningYetIsRetriedUntilItIs() throws Exception {
        CommandRun run = link(tool("ib-write-bw-duration-ib-198gbits-edited-01.txt", 2), "--role=client", "--peer=10.0.0.2",
                "--nccl-ib-hca==mlx5_2:1", "--gid-index=3", "--min-percent=80");

        assertThat(run.exitCode()).isEqualTo(0);
        assertThat(argv()).hasSize(3).allSatisfy(line -> assertThat(line).startsWith("-d mlx5_2 -i 1 -x 3 "));
        assertThat(run.out()).doesNotContain("Couldn't connect");
    }

    @Test
    void aTestThatHangsEndsAtTheTimeoutAsAFailedLink() throws Exception {
        Path script = dir.resolve("ib_write_bw");
        Files.writeString(script, "#!/bin/sh\nexec sleep 30\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));

        CommandRun run = link(script, "--role=client", "--peer=10.0.0.2", "--nccl-ib-hca=mlx5_0", "--timeout=1", "--min-percent=80");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("exit=timeout", "railyard-preflight: failed mlx5_0 -> 10.0.0.2: no result before the timeout");
    }

    @Test
    void withoutAnAllocatedDeviceItSaysSoAndFails() throws Exception {
        CommandRun run = link(tool("ib-write-bw-duration-ib-198gbits-edited-01.txt", 0), "--role=server", "--devices-json=", "--nccl-ib-hca=",
                "--min-percent=80");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).startsWith("railyard-preflight: error no RDMA device is allocated to this container");
        assertThat(Files.readString(dir.resolve("termination-log"))).isEqualTo("{\"links\":[],\"error\":\"no RDMA device allocated\"}");
    }

    @Test
    void aPeerThatIsNoHostIsAUsageError() throws Exception {
        CommandRun run = link(tool("ib-write-bw-duration-ib-198gbits-edited-01.txt", 0), "--role=client", "--peer=-x;reboot",
                "--nccl-ib-hca=mlx5_0");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("preflight-link: --peer -x;reboot is not a host name or address: the client role needs the server's\n");
    }
}
