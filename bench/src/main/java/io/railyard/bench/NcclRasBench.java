package io.railyard.bench;

import io.railyard.cli.FakeRas;
import io.railyard.diagnose.ras.RasJson;
import io.railyard.diagnose.ras.RasSamples;
import io.railyard.diagnose.ras.RasText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * NCCL RAS reports of a 512-rank job: parse time of the JSON (about 1.2 MB, four communicators, made from the real
 * sample's numbers) and of a verbose text report, against jq reading the same JSON; then the nccl-watch sidecar as
 * its own process with the sidecar's JVM flags, polling a fake RAS that serves the JSON, its resident memory after
 * 10 and 1,000 polls. Arguments: JQ_MILLIS... (jq's wall times on the JSON, measured by the script), the JSON's path.
 */
public final class NcclRasBench {
    private NcclRasBench() {}

    public static void main(String[] args) throws Exception {
        Path json = Path.of(args[0]);
        String report = Files.readString(json);
        String text = text(512, 4);
        double jsonMillis = median(50, () -> RasJson.parse(report));
        double textMillis = median(50, () -> RasText.parse(text));
        List<Double> jq = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            jq.add(Double.parseDouble(args[i]));
        }
        double jqMillis = jq.stream().sorted().toList().get(jq.size() / 2);
        System.out.printf("512-rank JSON, %.2f MB: parse median %.1f ms; jq empty on it %.1f ms (a process each); ratio %.2f%n",
                report.length() / 1e6, jsonMillis, jqMillis, jsonMillis / jqMillis);
        System.out.printf("512-rank verbose text, %.2f MB: parse median %.1f ms%n", text.length() / 1e6, textMillis);
        try (FakeRas ras = new FakeRas(true, List.of(report))) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UseSerialGC", "-Xmx32m", "-Xss256k", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    "io.railyard.cli.Railyard", "nccl-watch", "--ras", ras.address(), "--interval", "0.01", "-o", "json"));
            Process watch = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            long early = rssAfter(ras, watch, 10);
            long late = rssAfter(ras, watch, 1000);
            System.out.printf("nccl-watch (-Xmx32m, serial GC, C1) polling the 1.2 MB report: RSS %d MiB after 10 polls, %d MiB after 1,000%n",
                    early >> 10, late >> 10);
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A VERBOSE STATUS text report with one mismatch block per communicator, half the ranks detailed. */
    static String text(int ranks, int communicators) {
        StringBuilder text = new StringBuilder("NCCL version 2.26.2 compiled with CUDA 12.8\n");
        for (int comm = 0; comm < communicators; comm++) {
            text.append("#0-").append(comm).append(" (fa93daea854b06").append(String.format("%02x", comm)).append(") MISMATCH\n")
                    .append("  Communicator ranks have different AllGather operation counts\n")
                    .append("  ").append(ranks / 2).append(" ranks have launched up to operation 640\n")
                    .append("  ").append(ranks / 2).append(" ranks have launched up to operation 641\n");
            for (int rank = 0; rank < ranks / 2; rank++) {
                text.append("  Rank ").append(rank).append(" -- GPU ").append(rank % 8).append(" managed by process ").append(323032 + rank)
                        .append(" on node 10.137.").append(rank / 8 / 250).append('.').append(rank / 8 % 250 + 1).append('\n');
            }
        }
        return text.toString();
    }

    private static long rssAfter(FakeRas ras, Process watch, int polls) throws Exception {
        while (ras.served() < polls) {
            if (!watch.isAlive()) {
                throw new IllegalStateException("nccl-watch exited with " + watch.exitValue());
            }
            Thread.sleep(20);
        }
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(watch.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for " + watch.pid());
    }

    private static double median(int runs, Runnable parse) {
        for (int i = 0; i < 20; i++) {
            parse.run();
        }
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            parse.run();
            millis.add((System.nanoTime() - start) / 1e6);
        }
        return millis.stream().sorted().toList().get(runs / 2);
    }

    /** Writes the 512-rank JSON for the script, which times jq on it. */
    public static final class Write {
        public static void main(String[] args) throws Exception {
            Files.writeString(Path.of(args[0]), RasSamples.json(512, 4, rank -> rank == 300 ? 9_999 : 10_000));
        }
    }
}
