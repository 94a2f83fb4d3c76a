package io.railyard.cli;

import io.railyard.fabric.Fabric;
import io.railyard.fabric.FabricFinding;
import io.railyard.fabric.FabricReport;
import io.railyard.fabric.Topology;
import java.util.List;

/** The steps of {@code railyard fabric} that bench/fabric-phases.sh times one by one: reading the tool's output, and its JSON. */
public final class FabricSteps {
    private FabricSteps() {}

    public static List<String> read(String ibnetdiscoverFile) {
        return FabricInput.read("--ibnetdiscover", ibnetdiscoverFile);
    }

    public static String json(Fabric fabric, Topology topology, List<FabricFinding> findings) {
        return TreeJson.write(new FabricReport(fabric, topology, findings).json());
    }
}
