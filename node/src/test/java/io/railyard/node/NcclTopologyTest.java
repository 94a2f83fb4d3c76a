package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import io.railyard.testkit.KvmGuest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class NcclTopologyTest {
    private static final Path EXPECTED = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/topology");

    @TempDir
    Path dir;

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void anEightGpuServerIsTwoCpusWithTheirSwitchesGpusAndNics() throws Exception {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        String xml = NcclTopology.xml(NodeDiscovery.discover(tree.root()), new Sysfs(tree.root()));

        assertThat(xml).isEqualTo(Files.readString(EXPECTED.resolve("roce-8gpu.xml")));
        Document document = parse(xml);
        assertThat(document.getDocumentElement().getTagName()).isEqualTo("system");
        assertThat(document.getElementsByTagName("cpu").getLength()).isEqualTo(2);
        Element firstNet = (Element) document.getElementsByTagName("net").item(0);
        assertThat(firstNet.getAttribute("name")).isEqualTo("mlx5_1");
        assertThat(firstNet.getAttribute("speed")).isEqualTo("200000");
        assertThat(firstNet.getAttribute("gdr")).isEqualTo("1");
        Element switchUpstream = null;
        for (int i = 0; i < document.getElementsByTagName("pci").getLength(); i++) {
            Element pci = (Element) document.getElementsByTagName("pci").item(i);
            if (pci.getAttribute("busid").equals("0000:11:00.0")) {
                switchUpstream = pci;
            }
        }
        assertThat(switchUpstream).isNotNull();
        assertThat(switchUpstream.getElementsByTagName("pci").getLength()).as("3 downstream ports, 2 GPUs and 1 NIC").isEqualTo(6);
        assertThat(switchUpstream.getElementsByTagName("net").getLength()).isEqualTo(1);
    }

    @Test
    void anInfiniBandServerHasAnInfiniBandNetOnEachNic() throws Exception {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);

        assertThat(NcclTopology.xml(NodeDiscovery.discover(tree.root()), new Sysfs(tree.root())))
                .isEqualTo(Files.readString(EXPECTED.resolve("ib-8gpu.xml")));
    }

    @Test
    void aFileIsCheckedAgainstTheNodesGpusAndNics() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        NodeInventory node = NodeDiscovery.discover(tree.root());
        Sysfs sysfs = new Sysfs(tree.root());
        String own = NcclTopology.xml(node, sysfs);

        assertThat(NcclTopology.check(own, node, sysfs)).isEmpty();
        assertThat(NcclTopology.check(own.replace("0000:93:00.0", "0000:99:00.0").replace("\"mlx5_4\"", "\"mlx5_9\""), node, sysfs)).containsExactly(
                "GPU 0000:99:00.0 of the file is not a PCI function of this node",
                "<net name=\"mlx5_9\"> names no RDMA device or interface of this node",
                "GPU 0000:93:00.0 is not in the file: NCCL places it by itself");
        assertThat(NcclTopology.check("<graphs version=\"1\"/>", node, sysfs)).singleElement().asString().contains("not <system>");
        assertThat(NcclTopology.check("<system", node, sysfs)).singleElement().asString().startsWith("not NCCL topology XML:");
    }

    /**
     * A file in the shape the clouds publish for their GPU VMs (Azure's HPC images' ndv4-topo.xml: devices placed under
     * switches the VM does not show, bus IDs that do, no <gpu> or <nic> children), for this test's VM.
     */
    @Test
    void aCloudStyleFileWithInventedSwitchesMatchesTheVmItWasWrittenFor() {
        HostTree tree = KvmGuest.write(HostTree.at(dir.resolve("vm")));
        NodeInventory guest = NodeDiscovery.discover(tree.root());
        StringBuilder file = new StringBuilder("<system version=\"1\">\n");
        for (int numa = 0; numa < 2; numa++) {
            file.append("  <cpu numaid=\"").append(numa).append("\" affinity=\"0000ffff,0000ffff\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"1\">\n")
                    .append("    <pci busid=\"ffff:ff:0").append(numa + 1).append(".0\" class=\"0x060400\" link_speed=\"16 GT/s\" link_width=\"16\">\n");
            for (int pair = 0; pair < 2; pair++) {
                int index = numa * 2 + pair;
                file.append(String.format("      <pci busid=\"0000:00:%02x.0\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>%n", 0x05 + index))
                        .append(String.format("      <pci busid=\"0000:00:%02x.0\" class=\"0x020000\" link_speed=\"16 GT/s\" link_width=\"16\"/>%n", 0x0d + index));
            }
            file.append("    </pci>\n  </cpu>\n");
        }
        file.append("</system>\n");

        assertThat(NcclTopology.check(file.toString(), guest, new Sysfs(tree.root()))).isEmpty();
        assertThat(NcclTopology.check(file.toString().replace("0000:00:0e.0", "0000:00:1e.0"), guest, new Sysfs(tree.root())))
                .containsExactly("NIC 0000:00:1e.0 of the file is not a PCI function of this node",
                        "NIC mlx5_1 (0000:00:0e.0) is not in the file: NCCL places it by itself");
    }

    @Test
    void aVmsPassthroughDevicesHangFromAFlatTree() {
        NodeInventory guest = NodeDiscovery.discover(KvmGuest.write(HostTree.at(dir.resolve("vm"))).root());
        NodeInventory server = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("server")).root());

        assertThat(NcclTopology.flat(guest)).isTrue();
        assertThat(guest.gpus()).hasSize(4).allMatch(gpu -> gpu.pci().numaNodeOrNone() == -1);
        assertThat(NcclTopology.flat(server)).isFalse();
        assertThat(NcclTopology.xml(guest, new Sysfs(Path.of(guest.root())))).contains("<cpu numaid=\"-1\"", "vendor=\"AuthenticAMD\" familyid=\"25\"");
    }
}
