package io.railyard.bench;

import io.railyard.cli.FabricSteps;
import io.railyard.fabric.Fabric;
import io.railyard.fabric.FabricFinding;
import io.railyard.fabric.FabricHealth;
import io.railyard.fabric.IbNetDiscover;
import io.railyard.fabric.Topology;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Where one cold run of {@code railyard fabric -o json} spends its time: the phases of the command timed in one fresh JVM,
 * with the launcher's flags for fabric (its AOT cache aside: that one is trained on the jar's class path). One line a run;
 * bench/fabric-phases.sh runs it a few times and prints the medians.
 *   FabricPhases IBNETDISCOVER_FILE
 */
public final class FabricPhases {
    private FabricPhases() {}

    public static void main(String[] args) {
        long t0 = System.nanoTime();
        List<String> lines = FabricSteps.read(args[0]);
        long t1 = System.nanoTime();
        Fabric fabric = IbNetDiscover.parse(lines);
        long t2 = System.nanoTime();
        Topology topology = Topology.of(fabric, Map.of());
        long t3 = System.nanoTime();
        List<FabricFinding> findings = FabricHealth.check(fabric, topology, List.of(), List.of(), null);
        long t4 = System.nanoTime();
        String json = FabricSteps.json(fabric, topology, findings);
        long t5 = System.nanoTime();
        System.out.printf("read %d parse %d topology %d health %d json %d (%d bytes)%n", ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4),
                ms(t4, t5), json.getBytes(StandardCharsets.UTF_8).length);
    }

    private static long ms(long from, long to) {
        return (to - from) / 1_000_000;
    }
}
