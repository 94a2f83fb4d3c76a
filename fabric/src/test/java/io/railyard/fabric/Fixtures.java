package io.railyard.fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The real infiniband-diags outputs of simulated fabrics in testdata/ibsim (their README lists the truth). */
final class Fixtures {
    private static final Path IBSIM = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/ibsim");

    private Fixtures() {}

    static List<String> lines(String fabric, String file) {
        try {
            return Files.readAllLines(IBSIM.resolve(fabric).resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Fabric fabric(String fabric, String file) {
        return IbNetDiscover.parse(lines(fabric, file));
    }

    static Topology topology(String fabric) {
        return Topology.of(fabric(fabric, "ibnetdiscover.txt"), java.util.Map.of());
    }

    static List<FabricFinding> findings(String fabric) {
        Fabric parsed = fabric(fabric, "ibnetdiscover.txt");
        return FabricHealth.check(parsed, Topology.of(parsed, java.util.Map.of()), IbLinkInfo.parse(lines(fabric, "iblinkinfo.txt")),
                IbQueryErrors.parse(lines(fabric, "ibqueryerrors.txt")), null);
    }
}
