package io.railyard.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The example nodes shipped in {@code examples/nodes}: healthy servers and one broken variant per doctor check that
 * can fail. {@code main} writes them all; a test keeps the shipped trees equal to what this writes.
 */
public final class ExampleNodes {
    public static final String ROCE = "roce-8gpu";
    public static final String INFINIBAND = "ib-8gpu";
    public static final String TWELVE_HCAS = "roce-12hca";

    private ExampleNodes() {}

    /** Every example, by its directory name under {@code examples/nodes}. */
    public static Map<String, Consumer<HostTree>> all() {
        Map<String, Consumer<HostTree>> nodes = new LinkedHashMap<>();
        nodes.put(ROCE, ExampleNodes::roce);
        nodes.put(INFINIBAND, ExampleNodes::infiniBand);
        nodes.put(TWELVE_HCAS, tree -> new GpuServer(tree, false, 3).write("gpu-roce-12hca", 0));
        nodes.put("broken/driver", roceWith(tree -> tree
                .modules(without(GpuServer.BASE_MODULES, "rdma_ucm"))
                .remove("dev/infiniband/rdma_cm")));
        nodes.put("broken/devices", roceWith(tree -> tree.remove("dev/infiniband/uverbs2")));
        nodes.put("broken/subnet-manager", tree -> {
            infiniBand(tree);
            for (int hca = 0; hca < 8; hca++) {
                tree.port("mlx5_" + hca, 1, "2: INIT", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand", 0xffff, 0);
            }
        });
        nodes.put("broken/link", roceWith(tree ->
                tree.port("mlx5_3", 1, "1: DOWN", "2: Polling", "10 Gb/sec (4X SDR)", "Ethernet", 0, 0)));
        nodes.put("broken/mtu", roceWith(tree -> tree.file("sys/class/net/eth2/mtu", "1500")));
        nodes.put("broken/gid", roceWith(tree -> {
            String dir = tree.portDir("mlx5_4", 1);
            for (int index = 2; index <= 3; index++) {
                tree.file(dir + "/gids/" + index, "0000:0000:0000:0000:0000:0000:0000:0000");
                tree.remove(dir + "/gid_attrs/types/" + index).remove(dir + "/gid_attrs/ndevs/" + index);
            }
        }));
        nodes.put("broken/gpu-nic-affinity", ExampleNodes::farNics);
        nodes.put("broken/gpudirect", roceWith(tree -> tree.modules(without(GpuServer.BASE_MODULES, "nvidia_peermem"))));
        nodes.put("broken/memlock", roceWith(tree -> tree.memlock("65536", "65536")));
        return nodes;
    }

    /** Writes one example into {@code dir} and returns the tree for further changes. */
    public static HostTree write(String name, Path dir) {
        Consumer<HostTree> writer = all().get(name);
        if (writer == null) {
            throw new IllegalArgumentException("no example node " + name);
        }
        HostTree tree = HostTree.at(dir);
        writer.accept(tree);
        return tree;
    }

    /** An 8-GPU server with {@code 4 × nicsPerSwitch} single-port NICs, for benchmarks of many ports. */
    public static HostTree wide(Path dir, boolean infiniBand, int nicsPerSwitch) {
        HostTree tree = HostTree.at(dir);
        tree.remove("");
        new GpuServer(tree, infiniBand, nicsPerSwitch).write("gpu-wide", 0);
        return tree;
    }

    /** Writes every example under {@code dir}, replacing what is there. */
    public static void writeAll(Path dir) {
        all().forEach((name, writer) -> {
            HostTree tree = HostTree.at(dir.resolve(name));
            tree.remove("");
            writer.accept(tree);
        });
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "examples/nodes");
        writeAll(dir);
        System.out.println("wrote " + all().size() + " example nodes under " + dir);
    }

    private static void roce(HostTree tree) {
        new GpuServer(tree, false, 1).write("gpu-roce-01", 1);
    }

    private static void infiniBand(HostTree tree) {
        new GpuServer(tree, true, 2).write("gpu-ib-01", 0);
    }

    private static Consumer<HostTree> roceWith(Consumer<HostTree> fault) {
        return tree -> {
            roce(tree);
            fault.accept(tree);
        };
    }

    /** Two NICs in a riser on the second socket's root complex, away from every GPU's switch. */
    private static void farNics(HostTree tree) {
        GpuServer server = new GpuServer(tree, false, 0);
        server.write("gpu-roce-far", 1);
        for (int n = 1; n <= 2; n++) {
            String path = String.format("pci0000:d0/0000:d0:0%d.0/0000:d%d:00.0", n, n);
            server.writeNic("mlx5_" + n, path, 1, n - 1);
        }
    }

    private static List<String> without(List<String> modules, String removed) {
        List<String> result = new ArrayList<>(modules);
        result.remove(removed);
        return result;
    }
}
