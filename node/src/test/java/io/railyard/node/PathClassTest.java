package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathClassTest {
    @TempDir
    Path dir;

    private PciDevice device(HostTree tree, String address) {
        return new PciReader(new Sysfs(tree.root())).read(tree.root().resolve("sys/bus/pci/devices").resolve(address)).orElseThrow();
    }

    @Test
    void classesOnAnHgxLayout() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        PciDevice gpu0 = device(tree, "0000:13:00.0");

        assertThat(PathClass.between(gpu0, device(tree, "0000:15:00.0"))).isEqualTo(PathClass.PIX); // mlx5_1, same switch
        assertThat(PathClass.between(gpu0, device(tree, "0000:35:00.0"))).isEqualTo(PathClass.NODE); // mlx5_2, other host bridge
        assertThat(PathClass.between(gpu0, device(tree, "0000:95:00.0"))).isEqualTo(PathClass.SYS); // mlx5_3, other socket
    }

    @Test
    void hostBridgeAndNestedSwitches() {
        HostTree tree = HostTree.at(dir);
        String cpus = "0-7";
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", "0x10de", "0x2330", "0x030200", "nvidia", 0, cpus);
        tree.pci("pci0000:00/0000:00:02.0/0000:02:00.0", "0x15b3", "0x101d", "0x020000", "mlx5_core", 0, cpus);
        tree.pci("pci0000:00/0000:00:03.0/0000:03:00.0/0000:04:00.0/0000:05:00.0/0000:06:00.0/0000:07:00.0",
                "0x10de", "0x2330", "0x030200", "nvidia", 0, cpus);
        tree.pci("pci0000:00/0000:00:03.0/0000:03:00.0/0000:04:01.0/0000:08:00.0", "0x15b3", "0x101d", "0x020000", "mlx5_core", 0, cpus);
        tree.pci("pci0000:00/0000:00:03.0/0000:03:00.0/0000:04:01.0/0000:08:00.1", "0x15b3", "0x101d", "0x020000", "mlx5_core", 0, cpus);

        assertThat(PathClass.between(device(tree, "0000:01:00.0"), device(tree, "0000:02:00.0"))).isEqualTo(PathClass.PHB);
        assertThat(PathClass.between(device(tree, "0000:07:00.0"), device(tree, "0000:08:00.0"))).isEqualTo(PathClass.PXB);
        assertThat(PathClass.between(device(tree, "0000:08:00.0"), device(tree, "0000:08:00.1"))).isEqualTo(PathClass.PIX);
        assertThat(PathClass.PXB.withinNcclDefaultGdrLevel()).isTrue();
        assertThat(PathClass.PHB.withinNcclDefaultGdrLevel()).isFalse();
    }
}
