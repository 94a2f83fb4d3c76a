package io.railyard.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.railyard.cli.Railyard;
import io.railyard.operator.preflight.Pairing;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A preflight ring over N nodes of D HCAs, planned and reported at full size without a cluster: the rounds, pods a
 * round, the time their creation takes at the sweep's create rate and the sweep's time when each test takes T s; then
 * a saved sweep of that size (one slow node) shown by {@code railyard preflight --from} as text, JSON and HTML, timed in
 * one JVM. Arguments: NODES DEVICES RATE TEST_SECONDS RUNS.
 */
public final class PreflightPlanScale {
    private PreflightPlanScale() {}

    public static void main(String[] args) throws Exception {
        int nodes = Integer.parseInt(args[0]);
        int devices = Integer.parseInt(args[1]);
        double rate = Double.parseDouble(args[2]);
        double testSeconds = Double.parseDouble(args[3]);
        int runs = Integer.parseInt(args[4]);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            names.add(String.format("gpu-%05d", i));
        }
        long start = System.nanoTime();
        List<List<Pairing.Pair>> rounds = Pairing.rounds(names, Pairing.Mode.RING);
        double planMillis = (System.nanoTime() - start) / 1e6;
        double sweepSeconds = 0;
        for (List<Pairing.Pair> round : rounds) {
            sweepSeconds += 2 * round.size() / rate + testSeconds; // a server and a client pod a pair, then the tests at once
        }
        System.out.printf("ring of %d nodes: %d rounds (%s pairs), planned in %.0f ms; at %.0f pods/s and %.0f s tests the sweep takes"
                + " %.0f s (%.1f min)%n", nodes, rounds.size(), rounds.stream().map(r -> String.valueOf(r.size())).toList(), planMillis,
                rate, testSeconds, sweepSeconds, sweepSeconds / 60);

        Path sweep = Files.createTempFile("sweep", ".json");
        try (JsonGenerator json = new JsonFactory().createGenerator(sweep.toFile(), com.fasterxml.jackson.core.JsonEncoding.UTF8)) {
            json.writeStartObject();
            json.writeStringField("status", "fail");
            json.writeStringField("summary", "gpu-00007 suspect");
            json.writeArrayFieldStart("pairs");
            for (List<Pairing.Pair> round : rounds) {
                for (Pairing.Pair pair : round) {
                    boolean slow = pair.client().equals("gpu-00007") || pair.server().equals("gpu-00007");
                    for (int hca = 0; hca < devices; hca++) {
                        json.writeStartObject();
                        json.writeStringField("server", pair.server());
                        json.writeStringField("client", pair.client());
                        json.writeStringField("hca", "mlx5_" + hca);
                        json.writeStringField("serverHca", "mlx5_" + hca);
                        json.writeNumberField("gbps", slow ? 80.0 : 392.0);
                        json.writeNumberField("lineRateGbps", 400.0);
                        json.writeNumberField("percent", slow ? 20.0 : 98.0);
                        json.writeStringField("verdict", slow ? "slow" : "ok");
                        json.writeStringField("reason", slow ? "80.0 Gb/s is 20.0% of the 400 Gb/s line rate, below 80%" : null);
                        json.writeEndObject();
                    }
                }
            }
            json.writeEndArray();
            json.writeArrayFieldStart("nodes");
            for (String name : names) {
                json.writeStartObject();
                json.writeStringField("node", name);
                json.writeStringField("verdict", name.equals("gpu-00007") ? "suspect" : "ok");
                json.writeStringField("reason", null);
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        System.out.printf("saved sweep: %d links, %d MB%n", rounds.stream().mapToInt(List::size).sum() * devices, Files.size(sweep) >> 20);
        for (int run = 0; run < runs; run++) {
            for (String output : List.of("text", "json", "html")) {
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                start = System.nanoTime();
                int code = Railyard.run(new PrintWriter(out), new PrintWriter(err), "preflight", "--from", sweep.toString(), "-o", output);
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf("report -o %s: exit %d in %.2f s, %d KB%s%n", output, code, seconds, out.toString().length() >> 10,
                        err.toString().isEmpty() ? "" : " (" + err.toString().strip() + ")");
            }
        }
        Files.delete(sweep);
    }
}
