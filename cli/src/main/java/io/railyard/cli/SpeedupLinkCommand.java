package io.railyard.cli;

import io.railyard.cli.speedup.SpeedupOutput;
import io.railyard.node.NcclDeviceFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code railyard speedup-link}: what a speed-up pod runs, the fast path then the slow path between two nodes, each
 * test framed for {@link SpeedupOutput}: ib_write_bw on every allocated HCA at once with perftest's CPU report,
 * ib_write_lat on the first, iperf3 with as many streams as HCAs over the socket interface, and a TCP round trip. Server
 * and client run the tests in the same order; a client waits for its server's next test by retrying the connection.
 */
@Command(
        name = "speedup-link",
        mixinStandardHelpOptions = true,
        description = "Inside a speed-up pod: measure RDMA (ib_write_bw, ib_write_lat) and TCP (iperf3, a round trip) against the peer (used by railyard speedup).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every test gave a result", "1:a test failed or was skipped", "2:usage error"})
final class SpeedupLinkCommand implements Callable<Integer> {
    static final String MARK = SpeedupOutput.MARK;
    static final int LATENCY_PORT = 64;
    static final int IPERF3_PORT = 65;
    /** perftest's own margin (-f, default 2 s), the warm-up and cool-down it leaves out of a duration's figure. */
    private static final int PERFTEST_MARGIN_SECONDS = 2;

    /**
     * The margin for a test of this many seconds: perftest refuses a duration not above twice its margin ("please check
     * that DURATION > 2*MARGIN"), so a short test gets a shorter one, down to none.
     */
    static int perftestMargin(int durationSeconds) {
        return Math.max(0, Math.min(PERFTEST_MARGIN_SECONDS, (durationSeconds - 1) / 2));
    }
    static final int ROUND_TRIP_PORT = 66;
    private static final int ROUND_TRIPS = 1000;
    private static final int WARM_UP = 100;

    enum Role { server, client }

    @Spec
    CommandSpec spec;

    @Option(names = "--role", required = true, description = "server or client.")
    Role role;

    @Option(names = "--pair-token", defaultValue = "${env:RAILYARD_PAIR_TOKEN}", description = "The pair's token (railyard speedup"
            + " gives both pods the same): the round trip's server serves only a client that says it first (default: RAILYARD_PAIR_TOKEN;"
            + " none: any client).")
    String pairToken;

    @Option(names = "--peer", description = "The server's address (client).")
    String peer;

    @Option(names = "--port-base", defaultValue = "18515", description = "HCA k's bandwidth test uses this port + k; latency + 64, iperf3 + 65,"
            + " the round trip + 66 (default: ${DEFAULT-VALUE}).")
    int portBase;

    @Option(names = "--duration", defaultValue = "10", description = "Seconds each bandwidth test measures (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--timeout", defaultValue = "600", description = "Seconds for everything (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--connect-wait", defaultValue = "120", description = "Seconds a client waits for its server's next test (default: ${DEFAULT-VALUE}).")
    int connectWaitSeconds;

    @Option(names = "--rdma", defaultValue = "true", arity = "1", description = "Run the RDMA tests (false where one end has no RDMA device).")
    boolean rdma;

    @Option(names = "--devices-json", defaultValue = "${env:RAILYARD_RDMA_DEVICES}", description = "The allocated ports (default: RAILYARD_RDMA_DEVICES).")
    String devicesJson;

    @Option(names = "--nccl-ib-hca", defaultValue = "${env:NCCL_IB_HCA}", description = "The allocated ports without a description (default: NCCL_IB_HCA).")
    String ncclIbHca;

    @Option(names = "--gid-index", defaultValue = "${env:NCCL_IB_GID_INDEX}", description = "RoCE GID index (default: NCCL_IB_GID_INDEX).")
    Integer gidIndex;

    @Option(names = "--socket-ifname", defaultValue = "${env:NCCL_SOCKET_IFNAME}",
            description = "The TCP tests' interface, in NCCL's syntax (default: NCCL_SOCKET_IFNAME; else the route to the peer).")
    String socketIfname;

    @Option(names = "--root", defaultValue = "/", description = "Root holding proc/, for the node's CPU count (default: ${DEFAULT-VALUE}).")
    Path root;

    @Option(names = "--ib-write-bw", defaultValue = "ib_write_bw", hidden = true)
    String bwTool;

    @Option(names = "--ib-write-lat", defaultValue = "ib_write_lat", hidden = true)
    String latTool;

    @Option(names = "--iperf3", defaultValue = "iperf3", hidden = true)
    String iperf3;

    @Option(names = "--retry-ms", defaultValue = "1000", hidden = true)
    long retryMillis;

    private PrintWriter out;
    private boolean allGood = true;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        if (role == Role.client && (peer == null || !PreflightLinkCommand.HOST.matcher(peer).matches())) {
            throw new Railyard.UsageException("--peer " + peer + " is not a host name or address: the client needs its server's");
        }
        Instant deadline = Instant.now().plusSeconds(timeoutSeconds);
        String cpus = cpuCount();
        List<AllocatedDevice> devices = AllocatedDevice.of(devicesJson, ncclIbHca, gidIndex);
        if (!rdma) {
            skip("rdma", "the pair has a node without an RDMA device");
        } else if (devices.isEmpty()) {
            skip("rdma", "no RDMA device is allocated to this container (neither RAILYARD_RDMA_DEVICES nor NCCL_IB_HCA is set)");
        } else {
            rdmaBandwidth(devices, cpus, deadline);
            rdmaLatency(devices.getFirst(), deadline);
        }
        InetAddress bind = socketAddress();
        tcpBandwidth(Math.max(1, rdma ? devices.size() : 1), bind, cpus, deadline);
        roundTrip(bind, deadline);
        return allGood ? 0 : 1;
    }

    private void rdmaBandwidth(List<AllocatedDevice> devices, String cpus, Instant deadline) throws Exception {
        List<Future<String>> runs = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int k = 0; k < devices.size(); k++) {
                AllocatedDevice device = devices.get(k);
                List<String> argv = new ArrayList<>(List.of(bwTool));
                argv.addAll(device.perftestArgs());
                argv.addAll(List.of("--report_gbits", "-F", "-D", String.valueOf(durationSeconds), "-f", String.valueOf(perftestMargin(durationSeconds)),
                        "-s", String.valueOf(1 << 20), "-q", "2",
                        "--cpu_util", "-p", String.valueOf(portBase + k)));
                String head = "test=rdma-bw role=" + role + " index=" + k + " hca=" + device.hca() + " cpus=" + cpus;
                runs.add(threads.submit(() -> framed(head, argv, deadline)));
            }
            for (Future<String> run : runs) {
                print(run.get());
            }
        }
    }

    private void rdmaLatency(AllocatedDevice device, Instant deadline) throws Exception {
        List<String> argv = new ArrayList<>(List.of(latTool));
        argv.addAll(device.perftestArgs());
        argv.addAll(List.of("-F", "-n", "10000", "-p", String.valueOf(portBase + LATENCY_PORT)));
        print(framed("test=rdma-lat role=" + role + " index=0 hca=" + device.hca(), argv, deadline));
    }

    private void tcpBandwidth(int streams, InetAddress bind, String cpus, Instant deadline) throws Exception {
        List<String> argv = new ArrayList<>(List.of(iperf3, "-J", "-p", String.valueOf(portBase + IPERF3_PORT)));
        if (role == Role.server) {
            argv.addAll(List.of("-s", "-1"));
        } else {
            argv.addAll(List.of("-c", peer, "-P", String.valueOf(streams), "-t", String.valueOf(durationSeconds)));
            if (bind != null) {
                argv.addAll(List.of("-B", bind.getHostAddress()));
            }
        }
        print(framed("test=tcp-bw role=" + role + " streams=" + streams + " cpus=" + cpus + (bind == null ? "" : " bind=" + bind.getHostAddress()),
                argv, deadline));
    }

    /** One test: its begin line, what the tool printed, its end line. A client retries while its server is not there yet. */
    private String framed(String head, List<String> argv, Instant deadline) throws Exception {
        Instant until = role == Role.client ? min(deadline, Instant.now().plusSeconds(connectWaitSeconds + durationSeconds)) : deadline;
        List<String> run = new ArrayList<>(argv);
        if (role == Role.client && !argv.getFirst().equals(iperf3)) {
            run.add(peer);
        }
        ToolRun result = ToolRun.run(run, until, text -> role == Role.client
                && (text.contains("Couldn't connect") || text.contains("unable to connect") || text.contains("Connection refused")), retryMillis);
        allGood &= result.exit().equals("0");
        return MARK + "begin " + head + "\n" + result.body() + MARK + "end " + head.split(" ")[0] + " exit=" + result.exit() + "\n";
    }

    /** TCP's round trip on the socket interface: one byte there and back, after a warm-up; the client prints the median. */
    private void roundTrip(InetAddress bind, Instant deadline) throws IOException, InterruptedException {
        StringBuilder block = new StringBuilder(MARK + "begin test=tcp-lat role=" + role + "\n");
        String exit = "0";
        try {
            if (role == Role.server) {
                try (ServerSocket server = new ServerSocket(portBase + ROUND_TRIP_PORT)) {
                    server.setSoTimeout((int) Math.max(1, Duration.between(Instant.now(), deadline).toMillis()));
                    int refused = 0;
                    while (true) {
                        try (Socket socket = server.accept()) {
                            if (!pairedWith(socket)) { // not this pair's client: the next connection may be
                                refused++;
                                continue;
                            }
                            socket.setTcpNoDelay(true);
                            InputStream in = socket.getInputStream();
                            OutputStream echo = socket.getOutputStream();
                            int served = 0;
                            for (int b = in.read(); b >= 0; b = in.read(), served++) {
                                echo.write(b);
                                echo.flush();
                            }
                            block.append(MARK).append("tcp-lat served=").append(served).append(refused == 0 ? ""
                                    : " refused=" + refused + " (connections without the pair's token)").append('\n');
                            break;
                        }
                    }
                }
            } else {
                block.append(MARK).append(String.format("tcp-lat samples=%d rtt-us=%.2f%n", ROUND_TRIPS, medianRoundTripMicros(bind, deadline)));
            }
        } catch (IOException e) {
            exit = "1";
            allGood = false;
            block.append("tcp round trip failed: ").append(e.getMessage()).append('\n');
        }
        print(block.append(MARK).append("end test=tcp-lat exit=").append(exit).append('\n').toString());
    }

    private double medianRoundTripMicros(InetAddress bind, Instant deadline) throws IOException, InterruptedException {
        Instant until = min(deadline, Instant.now().plusSeconds(connectWaitSeconds));
        while (true) {
            try (Socket socket = new Socket()) {
                if (bind != null) {
                    socket.bind(new InetSocketAddress(bind, 0));
                }
                socket.connect(new InetSocketAddress(peer, portBase + ROUND_TRIP_PORT), 5000);
                socket.setTcpNoDelay(true);
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                if (pairToken != null && !pairToken.isBlank()) {
                    out.write((pairToken + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
                long[] samples = new long[ROUND_TRIPS];
                for (int i = -WARM_UP; i < ROUND_TRIPS; i++) {
                    long start = System.nanoTime();
                    out.write(1);
                    out.flush();
                    if (in.read() < 0) {
                        throw new IOException("the server closed the connection after " + (i + WARM_UP) + " round trips");
                    }
                    if (i >= 0) {
                        samples[i] = System.nanoTime() - start;
                    }
                }
                Arrays.sort(samples);
                return samples[ROUND_TRIPS / 2] / 1000.0;
            } catch (SocketException e) {
                if (!Instant.now().plusMillis(retryMillis).isBefore(until)) {
                    throw e;
                }
                Thread.sleep(retryMillis); // the server is still in iperf3's test
            }
        }
    }

    /** Whether a connection to the round trip's server is this pair's client: it says the pair's token first, within 2 s. */
    private boolean pairedWith(Socket socket) throws IOException {
        if (pairToken == null || pairToken.isBlank()) {
            return true;
        }
        socket.setSoTimeout(2_000);
        byte[] expected = (pairToken + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try {
            return java.security.MessageDigest.isEqual(socket.getInputStream().readNBytes(expected.length), expected);
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } finally {
            socket.setSoTimeout(0);
        }
    }

    private void skip(String test, String reason) {
        allGood = false;
        print(MARK + "skip test=" + test + " reason=" + reason + "\n");
    }

    private void print(String text) {
        out.print(text);
        out.flush();
    }

    /** The first interface NCCL_SOCKET_IFNAME selects that is up and has an IPv4 address; null: the route decides. */
    private InetAddress socketAddress() throws SocketException {
        if (socketIfname == null || socketIfname.isBlank()) {
            return null;
        }
        NcclDeviceFilter filter = NcclDeviceFilter.parse(socketIfname);
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && filter.selects(nic.getName(), -1)) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address) {
                        return address;
                    }
                }
            }
        }
        print(MARK + "note NCCL_SOCKET_IFNAME=" + socketIfname + " selects no interface with an IPv4 address here: the route to the peer decides\n");
        return null;
    }

    /** The node's CPUs as /proc/stat lists them, which is what perftest's CPU share is of. */
    private String cpuCount() {
        try (var lines = Files.lines(root.resolve("proc/stat"))) {
            long count = lines.filter(line -> line.length() > 3 && line.startsWith("cpu") && Character.isDigit(line.charAt(3))).count();
            return count > 0 ? String.valueOf(count) : "?";
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
