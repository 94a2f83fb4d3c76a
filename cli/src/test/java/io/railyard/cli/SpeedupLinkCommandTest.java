package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.cli.speedup.SpeedupOutput;
import io.railyard.cli.speedup.SpeedupPair;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-pod helper as a server and a client over loopback: the real iperf3 and a real TCP round trip, and stand-ins for
 * ib_write_bw and ib_write_lat that print real perftest outputs (testdata/perftest): no RDMA hardware here.
 */
class SpeedupLinkCommandTest {
    private static final Path PERFTEST = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/perftest");
    private static final String TWO_PORTS = "[{\"hca\":\"mlx5_1\",\"port\":1,\"gidIndex\":3},{\"hca\":\"mlx5_0\",\"port\":1,\"gidIndex\":3}]";

    @TempDir
    Path dir;

    private Path tool(String name, String sample) throws IOException {
        Path script = dir.resolve(name);
        Files.writeString(script, """
                #!/bin/sh
                echo "$@" >> '%1$s/%2$s.argv'
                args="$*" duration=0 margin=2
                while [ $# -gt 0 ]; do case $1 in -D) duration=$2;; -f) margin=$2;; esac; shift; done
                if [ "$duration" -gt 0 ] && [ "$duration" -le $((2 * margin)) ]; then
                  echo '---------------------------------------------------------------------------------------'
                  echo 'please check that DURATION > 2*MARGIN' >&2; exit 1 # as perftest refuses it
                fi
                case "$args" in *127.0.0.1*) cat '%3$s';; *) echo ' Waiting for client to connect...';; esac
                """.formatted(dir, name, PERFTEST.resolve(sample)));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private Path root() throws IOException {
        Path stat = dir.resolve("root/proc/stat");
        Files.createDirectories(stat.getParent());
        Files.writeString(stat, "cpu  100 0 100 1000 0 0 0 0 0 0\n" + IntStream.range(0, 20)
                .mapToObj(i -> "cpu" + i + " 5 0 5 50 0 0 0 0 0 0\n").collect(Collectors.joining()) + "intr 0\n");
        return dir.resolve("root");
    }

    /**
     * A base whose 67 ports are all free now, below Linux's ephemeral range (32768 and up): the client sockets of other
     * tests (a stranger knocking every 20 ms) leave their ports there in TIME_WAIT, where iperf3 could not listen.
     */
    private static int freePortBase() throws IOException {
        java.util.Random random = new java.util.Random();
        while (true) {
            int base = 20_000 + random.nextInt(12_000);
            if (IntStream.rangeClosed(0, SpeedupLinkCommand.ROUND_TRIP_PORT).allMatch(k -> free(base + k))) {
                return base;
            }
        }
    }

    private static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private List<CommandRun> pair(String... more) throws Exception {
        return pairOn(freePortBase(), more);
    }

    private List<CommandRun> pairOn(int base, String... more) throws Exception {
        List<String> common = new ArrayList<>(List.of("--port-base=" + base, "--duration=1", "--timeout=60", "--connect-wait=20", "--retry-ms=50",
                "--devices-json=" + TWO_PORTS, "--root=" + root(), "--ib-write-bw=" + tool("ib_write_bw", "ib-write-bw-cpu-util-roce-92gbits-01.txt"),
                "--ib-write-lat=" + tool("ib_write_lat", "ib-write-lat-ib-1.47us-01.txt")));
        common.addAll(List.of(more));
        List<String> server = new ArrayList<>(List.of("speedup-link", "--role=server"));
        server.addAll(common);
        List<String> client = new ArrayList<>(List.of("speedup-link", "--role=client", "--peer=127.0.0.1"));
        client.addAll(common);
        CompletableFuture<CommandRun> served = CompletableFuture.supplyAsync(() -> CommandRun.of(server.toArray(String[]::new)));
        CommandRun sent = CommandRun.of(client.toArray(String[]::new));
        return List.of(sent, served.get());
    }

    @Test
    void bothPathsAreMeasuredAndFramedForTheReport() throws Exception {
        List<CommandRun> runs = pair();
        CommandRun sent = runs.get(0);
        CommandRun received = runs.get(1);

        assertThat(sent.exitCode()).as(sent.out() + sent.err()).isZero();
        assertThat(received.exitCode()).as(received.out() + received.err()).isZero();
        SpeedupPair pair = SpeedupPair.of("a", "b", SpeedupOutput.parse(sent.out()), SpeedupOutput.parse(received.out()));
        assertThat(pair.rdma().gbps()).isEqualTo(185.14);
        assertThat(pair.rdma().senderCores()).isEqualTo(1.014); // 5.07% of the 20 CPUs /proc/stat lists
        assertThat(pair.rdma().latencyUs()).isEqualTo(1.47);
        assertThat(pair.tcp().error()).isNull();
        assertThat(pair.tcp().gbps()).as("iperf3 over loopback").isPositive();
        assertThat(pair.tcp().senderCores()).isPositive();
        assertThat(pair.tcp().receiverCores()).isPositive();
        assertThat(pair.tcp().latencyUs()).as("half the median round trip").isPositive().isLessThan(10_000);
        // the k-th port in device order, on base + k, the same rail at both ends
        assertThat(Files.readAllLines(dir.resolve("ib_write_bw.argv"))).anySatisfy(argv -> assertThat(argv).startsWith("-d mlx5_0 -i 1 -x 3")
                .contains("--cpu_util").contains("-p " + argv.replaceAll(".*-p (\\d+).*", "$1")));
        assertThat(sent.out()).contains("railyard-speedup: begin test=tcp-bw role=client streams=2 cpus=20");
        // perftest refuses a duration not above twice its margin: a 1 s test gets none
        assertThat(Files.readAllLines(dir.resolve("ib_write_bw.argv"))).allSatisfy(argv -> assertThat(argv).contains("-D 1 -f 0 "));
    }

    @Test
    void theRoundTripsServerServesOnlyItsPairNotAStrangerWhoConnectsFirst() throws Exception {
        int base = freePortBase();
        List<String> common = List.of("--port-base=" + base, "--duration=1", "--timeout=60", "--connect-wait=20", "--retry-ms=50", "--rdma=false",
                "--root=" + root(), "--iperf3=" + dir.resolve("no-iperf3"), "--pair-token=5f1c0ffee0ddf00d5f1c0ffee0ddf00d");
        List<String> server = new ArrayList<>(List.of("speedup-link", "--role=server"));
        server.addAll(common);
        CompletableFuture<CommandRun> served = CompletableFuture.supplyAsync(() -> CommandRun.of(server.toArray(String[]::new)));

        // a stranger on the network is there first: its connection is closed, nothing echoed
        int strangerRead = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", base + SpeedupLinkCommand.ROUND_TRIP_PORT)) {
                socket.getOutputStream().write("not-the-token\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                return socket.getInputStream().read();
            }
        }, read -> true);
        List<String> client = new ArrayList<>(List.of("speedup-link", "--role=client", "--peer=127.0.0.1"));
        client.addAll(common);
        CommandRun sent = CommandRun.of(client.toArray(String[]::new));

        assertThat(strangerRead).as("closed on the stranger").isEqualTo(-1);
        assertThat(served.get().out()).contains("tcp-lat served=1100 refused=1 (connections without the pair's token)");
        assertThat(sent.out()).as("the pair's round trip measured").containsPattern("tcp-lat samples=1000 rtt-us=\\d+\\.\\d+");
    }

    @Test
    void perftestsMarginShrinksForAShortTestSoThatItRuns() {
        assertThat(IntStream.of(1, 2, 3, 4, 5, 10).map(SpeedupLinkCommand::perftestMargin).boxed().toList()).containsExactly(0, 0, 1, 1, 2, 2);
    }

    @Test
    void aMissingIperf3LeavesTcpBandwidthOutWithItsReason() throws Exception {
        List<CommandRun> runs = pair("--iperf3=" + dir.resolve("no-such-iperf3"));
        CommandRun sent = runs.get(0);

        assertThat(sent.exitCode()).isEqualTo(1);
        SpeedupPair pair = SpeedupPair.of("a", "b", SpeedupOutput.parse(sent.out()), SpeedupOutput.parse(runs.get(1).out()));
        assertThat(pair.rdma().measured()).isTrue();
        assertThat(pair.tcp().error()).startsWith("cannot run " + dir.resolve("no-such-iperf3")).endsWith("(is it in the image?)");
    }

    @Test
    void withoutRdmaOnlyTcpRuns() throws Exception {
        List<CommandRun> runs = pair("--rdma=false");

        SpeedupPair pair = SpeedupPair.of("a", "b", SpeedupOutput.parse(runs.get(0).out()), SpeedupOutput.parse(runs.get(1).out()));
        assertThat(pair.rdma().error()).isEqualTo("not measured: the pair has a node without an RDMA device");
        assertThat(pair.tcp().measured()).isTrue();
        assertThat(dir.resolve("ib_write_bw.argv")).doesNotExist();
    }
}
