package io.railyard.bench;

import io.railyard.diagnose.inspector.IntervalSpeeds;
import io.railyard.diagnose.inspector.RankSummary;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Plays every rank but the first of a job sending its nccl-speed summary to the first pod's sidecar once per
 * interval, as the sidecars do (a connection, one JSON line), each summary of a training step's collectives.
 * Arguments: HOST PORT RANKS INTERVALS INTERVAL_MS.
 */
public final class SpeedGatherLoad {
    private SpeedGatherLoad() {}

    static RankSummary summary(int rank) {
        List<IntervalSpeeds.Speed> speeds = new ArrayList<>();
        String[] collectives = {"AllReduce", "AllGather", "ReduceScatter"};
        for (int c = 0; c < collectives.length; c++) {
            for (String size : new String[] {"1 GiB", "64 MiB", "1 MiB"}) {
                double gbps = 380 + (rank * 7 + c) % 23;
                speeds.add(new IntervalSpeeds.Speed(new IntervalSpeeds.Key(collectives[c], size, "DP Group 0"), gbps, gbps * 0.93, 0.003, 120));
            }
        }
        return new RankSummary(String.valueOf(rank), "llama-" + rank, speeds);
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        int ranks = Integer.parseInt(args[2]);
        int intervals = Integer.parseInt(args[3]);
        long intervalMs = Long.parseLong(args[4]);
        List<byte[]> lines = new ArrayList<>();
        for (int rank = 1; rank < ranks; rank++) {
            lines.add((summary(rank).toJson() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        long next = System.currentTimeMillis();
        for (int i = 0; i < intervals; i++) {
            for (byte[] line : lines) {
                send(host, port, line);
            }
            next += intervalMs;
            Thread.sleep(Math.max(0, next - System.currentTimeMillis())); // the ranks' pace, not a measurement
        }
        System.out.println(intervals + " intervals of " + lines.size() + " summaries (" + lines.getFirst().length + " bytes each)");
    }

    private static void send(String host, int port, byte[] line) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 3000);
            OutputStream out = socket.getOutputStream();
            out.write(line);
        }
    }
}
