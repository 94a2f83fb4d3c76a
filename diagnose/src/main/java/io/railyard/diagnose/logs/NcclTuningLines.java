package io.railyard.diagnose.logs;

import java.util.HashMap;
import java.util.Map;

/**
 * What an NCCL log says of NCCL's network tuning: the variables it prints as set ({@code NCCL_CROSS_NIC set by
 * environment to 1.}), and each rank's channels, by the NIC each receives and sends on. A channel that receives on one
 * NIC and sends on another crosses rails, which a rail-optimized fabric pays for through its spines; so does a hop
 * between two nodes that leaves on one NIC and arrives on another ({@code 7[7] -> 8[0] [send] via NET/IB/7} while GPU 0
 * receives that channel on NET/IB/0), whatever each process says of itself. NCCL builds the same rings on every node, so
 * the GPU that receives a channel here is the one that receives it on the next node.
 */
final class NcclTuningLines {
    private static final String SET_BY_ENVIRONMENT = " set by environment to ";
    /** Channels remembered, each by rank: enough for 64 channels of 512 ranks, and a bound on a log that never ends. */
    private static final int MAX_CHANNELS = 32_768;
    /**
     * Connection lines read: each communicator's set-up prints them again, so the first ones (64 channels of 64 ranks)
     * show how the channels run, and a large log's millions more would cost a parse each (bench/analyze-vs-grep.sh).
     */
    static final int CONNECTION_LINES = 4_096;

    private record Nics(String receive, String send, long line, String text) {}

    private static final int MAX_PROCESSES = 4096;

    private final Map<String, String> settings = new HashMap<>();
    private final Map<String, Nics> channels = new HashMap<>();
    /** The NIC each GPU sends or receives each channel on, by "channel/GPU/send" or "channel/GPU/receive". */
    private final Map<String, String> hopEnds = new HashMap<>();
    /** The processes whose connections were read, and the NICs (NET/IB/1) those used. */
    private final java.util.Set<String> processes = new java.util.HashSet<>();
    private final java.util.Set<String> nicsUsed = new java.util.TreeSet<>();
    private long firstConnectionLine;
    private String firstConnectionText;
    private String crossing;
    private long crossingLine;
    private String crossingText;
    private long splitLine;
    private String splitText;

    /** A line whose message starts with a variable's name: {@code NCCL_IB_QPS_PER_CONNECTION set by environment to 4}. */
    void setting(Line line, int message) {
        int set = line.indexOf(SET_BY_ENVIRONMENT, message);
        if (set < 0) {
            return;
        }
        String name = line.text().substring(message, set);
        String value = line.text().substring(set + SET_BY_ENVIRONMENT.length()).strip().replaceFirst("\\.$", "");
        settings.putIfAbsent(name, value);
        if (name.equals("NCCL_IB_SPLIT_DATA_ON_QPS") && splitText == null) {
            splitLine = line.number();
            splitText = line.text();
        }
    }

    /** A channel's connection over the network (one of the first {@value #CONNECTION_LINES}): the NIC its local rank uses. */
    void connection(Line line) {
        if (crossing != null || channels.size() >= MAX_CHANNELS) {
            return;
        }
        ConnectionLine connection = ConnectionLine.find(line.text());
        if (connection == null) {
            return;
        }
        if (connection.process() != null && processes.size() < MAX_PROCESSES) {
            processes.add(connection.process());
        }
        String nic = connection.net() + "/" + connection.nic();
        nicsUsed.add(nic);
        if (firstConnectionText == null) {
            firstConnectionLine = line.number();
            firstConnectionText = line.text();
        }
        boolean receive = connection.receive();
        String rank = receive ? connection.to() : connection.from();
        String key = connection.channel() + "/" + rank;
        Nics known = channels.get(key);
        Nics now = known == null ? new Nics(receive ? nic : null, receive ? null : nic, line.number(), line.text())
                : new Nics(receive && known.receive() == null ? nic : known.receive(), !receive && known.send() == null ? nic : known.send(),
                        known.line(), known.text());
        channels.put(key, now);
        if (now.receive() != null && now.send() != null && !now.receive().equals(now.send())) {
            crossed("channel " + connection.channel() + " of rank " + rank + " receives on NET/" + now.receive() + " and sends on NET/" + now.send(), line);
        } else {
            hop(connection, nic, line);
        }
    }

    /** One end of a hop between two GPUs: crossed where the other end of the same channel's hop uses another NIC. */
    private void hop(ConnectionLine connection, String nic, Line line) {
        if (connection.fromGpu() == null || connection.toGpu() == null) {
            return;
        }
        boolean receive = connection.receive();
        String here = connection.channel() + "/" + (receive ? connection.toGpu() + "/receive" : connection.fromGpu() + "/send");
        String there = hopEnds.get(connection.channel() + "/" + (receive ? connection.fromGpu() + "/send" : connection.toGpu() + "/receive"));
        hopEnds.putIfAbsent(here, nic);
        if (there != null && !there.equals(nic)) {
            String sends = receive ? there : nic;
            String receives = receive ? nic : there;
            crossed("channel " + connection.channel() + " hops from GPU " + connection.fromGpu() + " on NET/" + sends + " to GPU "
                    + connection.toGpu() + " on NET/" + receives + " (rank " + connection.from() + " -> " + connection.to() + ")", line);
        }
    }

    private void crossed(String how, Line line) {
        crossing = how;
        crossingLine = line.number();
        crossingText = line.text();
    }

    /** @param nicsFound the NICs NCCL said it found ({@code NET/IB : Using [0]mlx5_0:1/IB ...}) */
    void finish(Findings findings, int nicsFound) {
        // as many processes as NICs: a whole node's ranks, each of which should have a NIC of its own
        if (nicsFound > 1 && processes.size() >= nicsFound && !nicsUsed.isEmpty() && nicsUsed.size() < nicsFound) {
            findings.add("nccl-nics-unused", Severity.WARN, "the channels of " + processes.size() + " processes use " + nicsUsed.size() + " of the "
                            + nicsFound + " NICs NCCL found (NET/" + String.join(", NET/", nicsUsed) + ")",
                    "a NIC no channel uses carries nothing: check NCCL_IB_HCA and each GPU's nearest NIC (railyard doctor's gpu-nic-affinity);"
                            + " on a rail-optimized fabric NCCL_CROSS_NIC=0 keeps each GPU on its own rail",
                    firstConnectionLine, firstConnectionText);
        }
        String crossNic = settings.get("NCCL_CROSS_NIC");
        if (crossing != null) {
            findings.add("nccl-cross-rail", Severity.WARN, "rings cross NICs: " + crossing + " (NCCL_CROSS_NIC "
                            + (crossNic == null ? "2, NCCL's default" : crossNic + ", set by environment") + ")",
                    "on a rail-optimized fabric that traffic crosses rails through the spines: set NCCL_CROSS_NIC=0 (the device plugin does"
                            + " where the node's railyard.io/fabric.shape label says rail-optimized); on a fat tree it costs nothing",
                    crossingLine, crossingText);
        }
        int qps = number(settings.get("NCCL_IB_QPS_PER_CONNECTION"));
        if (qps > 1 && "1".equals(settings.get("NCCL_IB_SPLIT_DATA_ON_QPS"))) {
            findings.add("nccl-split-qps", Severity.WARN, "NCCL_IB_SPLIT_DATA_ON_QPS=1 with NCCL_IB_QPS_PER_CONNECTION=" + qps
                            + ": every message is split over " + qps + " queue pairs, which adds latency",
                    "set NCCL_IB_SPLIT_DATA_ON_QPS=0 (NCCL's default since 2.20): whole messages round-robin over the queue pairs",
                    splitLine, splitText);
        }
    }

    private static int number(String value) {
        return value != null && value.matches("\\d{1,3}") ? Integer.parseInt(value) : -1;
    }
}
