package io.railyard.cli.speedup;

import io.railyard.diagnose.logs.Bandwidth;
import io.railyard.diagnose.logs.Iperf3Summary;
import java.util.List;
import java.util.Objects;

/**
 * One node pair measured both ways: RDMA (ib_write_bw on every HCA at once, ib_write_lat) and TCP (iperf3 with as many
 * streams as HCAs, a round trip), from the client's and the server's helper output.
 */
public record SpeedupPair(String client, String server, Path rdma, Path tcp) {

    /**
     * One path's figures. CPU is in cores busy: perftest reports the share of the node's CPUs busy in user time during
     * its test, iperf3 its own process's time over the test's; both are turned into cores so that they compare.
     *
     * @param gbps the client's bandwidth to the server, all HCAs or streams together
     * @param latencyUs one way: half the round trip (ib_write_lat's t_typical; the TCP round trip's median / 2)
     * @param senderCores CPU cores busy on the client while it sent; null when its tool did not report it
     * @param receiverCores on the server
     * @param error why this path was not measured, else null
     */
    public record Path(Double gbps, Double latencyUs, Double senderCores, Double receiverCores, Long retransmits, String error) {
        public static Path failed(String error) {
            return new Path(null, null, null, null, null, error);
        }

        public boolean measured() {
            return error == null && gbps != null && gbps > 0;
        }

        /** Cores per Gb/s at the sending end, the receiving end, or both ends together; null when a figure is missing. */
        public Double coresPerGbps(Double cores) {
            return cores == null || !measured() ? null : cores / gbps;
        }

        public Double bothEndsCores() {
            return senderCores == null || receiverCores == null ? null : senderCores + receiverCores;
        }
    }

    public static SpeedupPair failed(String client, String server, String reason) {
        return new SpeedupPair(client, server, Path.failed(reason), Path.failed(reason));
    }

    public static SpeedupPair of(String client, String server, SpeedupOutput sent, SpeedupOutput received) {
        return new SpeedupPair(client, server, rdma(sent, received), tcp(sent, received));
    }

    public boolean bothMeasured() {
        return rdma.measured() && tcp.measured();
    }

    private static Path rdma(SpeedupOutput sent, SpeedupOutput received) {
        if (sent.skipped.containsKey("rdma")) {
            return Path.failed("not measured: " + sent.skipped.get("rdma"));
        }
        List<SpeedupOutput.Test> runs = sent.tests("rdma-bw");
        if (runs.isEmpty()) {
            return Path.failed("not measured: the client's log holds no ib_write_bw run");
        }
        double gbps = 0;
        for (SpeedupOutput.Test run : runs) {
            Bandwidth bandwidth = run.report().bandwidth();
            if (!run.ok() || bandwidth == null || bandwidth.averageGbps() == null) {
                return Path.failed("ib_write_bw on " + run.fields().getOrDefault("hca", "?") + ": " + run.failure());
            }
            gbps += bandwidth.averageGbps();
        }
        Double latency = sent.tests("rdma-lat").stream().filter(SpeedupOutput.Test::ok).map(t -> t.report().bandwidth())
                .filter(Objects::nonNull).map(Bandwidth::typicalLatencyUs).filter(Objects::nonNull).findFirst().orElse(null);
        return new Path(round(gbps), latency, perftestCores(runs), perftestCores(received.tests("rdma-bw")), null, null);
    }

    /** The runs measured at once, each over the whole node: the node's share is their largest, not their sum. */
    private static Double perftestCores(List<SpeedupOutput.Test> runs) {
        Double cores = null;
        for (SpeedupOutput.Test run : runs) {
            Bandwidth bandwidth = run.report().bandwidth();
            if (bandwidth != null && bandwidth.cpuPercent() != null && run.cpus() != null) {
                double these = bandwidth.cpuPercent() / 100 * run.cpus();
                cores = cores == null ? these : Math.max(cores, these);
            }
        }
        return cores == null ? null : round(cores);
    }

    private static Path tcp(SpeedupOutput sent, SpeedupOutput received) {
        List<SpeedupOutput.Test> runs = sent.tests("tcp-bw");
        if (runs.isEmpty()) {
            return Path.failed("not measured: the client's log holds no iperf3 run");
        }
        SpeedupOutput.Test run = runs.getFirst();
        Iperf3Summary tcp = run.report().iperf3();
        Double gbps = tcp == null ? null : tcp.receivedGbps() != null ? tcp.receivedGbps() : tcp.sentGbps();
        if (!run.ok() || gbps == null) {
            String failure = run.failure();
            return Path.failed(failure.contains("iperf3") ? failure : "iperf3: " + failure);
        }
        Double receiver = tcp.remoteCpuPercent();
        if (receiver == null) {
            receiver = received.tests("tcp-bw").stream().map(t -> t.report().iperf3()).filter(Objects::nonNull)
                    .map(Iperf3Summary::localCpuPercent).filter(Objects::nonNull).findFirst().orElse(null);
        }
        Double latency = sent.roundTripMicros == null ? null : round(sent.roundTripMicros / 2);
        return new Path(round(gbps), latency, tcp.localCpuPercent() == null ? null : round(tcp.localCpuPercent() / 100),
                receiver == null ? null : round(receiver / 100), tcp.retransmits(), null);
    }

    public static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
