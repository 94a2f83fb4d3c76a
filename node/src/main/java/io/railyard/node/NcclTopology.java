package io.railyard.node;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * NCCL's topology XML (what {@code NCCL_TOPO_FILE} reads and {@code NCCL_TOPO_DUMP_FILE} writes): per NUMA node a
 * {@code <cpu>}, under it the PCI bridges and switches down to each GPU and RDMA NIC, the NICs' ports as
 * {@code <net>} with speed and GPUDirect capability. NCCL fills in what a file leaves out (a GPU's SM version, NVLinks)
 * from the driver, as it does for the files clouds publish for their VMs; what it cannot find out inside a VM is where
 * the devices really sit, which is what a file is for.
 */
public final class NcclTopology {
    private NcclTopology() {}

    /** The topology of the node's GPUs and NICs as its sysfs shows it. */
    public static String xml(NodeInventory node, Sysfs sysfs) {
        Map<String, String> cpu = cpuInfo(sysfs);
        boolean gdr = !node.peerMemory().isEmpty();
        Map<Integer, Tree> byNuma = new TreeMap<>();
        for (Gpu gpu : node.gpus()) {
            byNuma.computeIfAbsent(gpu.pci().numaNodeOrNone(), numa -> new Tree()).add(gpu.pci(), null);
        }
        Map<Hca, Integer> devs = new LinkedHashMap<>(); // NCCL's net device index: ports in HCA device order
        int dev = 0;
        for (Hca hca : node.hcas().stream().sorted((a, b) -> Port.compareHcaNames(a.name(), b.name())).toList()) {
            devs.put(hca, dev);
            dev += hca.ports().size();
            if (hca.pci().isKnown()) {
                byNuma.computeIfAbsent(hca.pci().orElseThrow().numaNodeOrNone(), numa -> new Tree()).add(hca.pci().orElseThrow(), hca);
            }
        }
        StringBuilder out = new StringBuilder("<system version=\"1\">\n");
        byNuma.forEach((numa, tree) -> {
            out.append("  <cpu numaid=\"").append(numa).append('"');
            String affinity = affinity(sysfs, numa, tree);
            if (!affinity.isEmpty()) {
                out.append(" affinity=\"").append(escape(affinity)).append('"');
            }
            if (cpu.containsKey("vendor_id")) {
                out.append(" arch=\"x86_64\" vendor=\"").append(escape(cpu.get("vendor_id"))).append('"');
                attribute(out, "familyid", cpu.get("cpu family"));
                attribute(out, "modelid", cpu.get("model"));
            }
            out.append(">\n");
            tree.write(out, sysfs, "    ", devs, gdr);
            out.append("  </cpu>\n");
        });
        return out.append("</system>\n").toString();
    }

    /**
     * What a topology file says that this node contradicts: a GPU or NIC PCI function that does not exist here, a
     * {@code <net>} that names no HCA here, a GPU or NIC of the node the file leaves out. Bridges may be invented (the
     * clouds' files place devices under switches the VM does not show) and are not checked. Unparsable XML is one line.
     */
    public static List<String> check(String xml, NodeInventory node, Sysfs sysfs) {
        List<String> problems = new ArrayList<>();
        Element system;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            system = factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        } catch (Exception e) {
            return List.of("not NCCL topology XML: " + String.valueOf(e.getMessage()).lines().findFirst().orElse("unreadable"));
        }
        if (!system.getTagName().equals("system")) {
            return List.of("not NCCL topology XML: the root element is <" + system.getTagName() + ">, not <system>");
        }
        Set<String> fileGpus = new LinkedHashSet<>();
        Set<String> fileNics = new LinkedHashSet<>();
        NodeList pcis = system.getElementsByTagName("pci");
        for (int i = 0; i < pcis.getLength(); i++) {
            Element pci = (Element) pcis.item(i);
            String busId = pci.getAttribute("busid").toLowerCase(Locale.ROOT);
            String pciClass = pci.getAttribute("class").toLowerCase(Locale.ROOT);
            boolean gpu = pciClass.startsWith("0x03") || pci.getElementsByTagName("gpu").getLength() > 0;
            boolean nic = pciClass.startsWith("0x02") || pci.getElementsByTagName("nic").getLength() > 0 && !pciClass.startsWith("0x06");
            if (!gpu && !nic) {
                continue;
            }
            (gpu ? fileGpus : fileNics).add(busId);
            if (!sysfs.exists(sysfs.resolve("sys/bus/pci/devices").resolve(busId))) {
                problems.add((gpu ? "GPU" : "NIC") + " " + busId + " of the file is not a PCI function of this node");
            }
        }
        NodeList nets = system.getElementsByTagName("net");
        Set<String> hcaNames = new LinkedHashSet<>(node.hcas().stream().map(Hca::name).toList());
        for (int i = 0; i < nets.getLength(); i++) {
            String name = ((Element) nets.item(i)).getAttribute("name");
            if (!name.isEmpty() && !hcaNames.contains(name) && node.netdevs().stream().noneMatch(n -> n.name().equals(name))) {
                problems.add("<net name=\"" + name + "\"> names no RDMA device or interface of this node");
            }
        }
        for (Gpu gpu : node.gpus()) {
            if (!fileGpus.contains(gpu.address().toLowerCase(Locale.ROOT))) {
                problems.add("GPU " + gpu.address() + " is not in the file: NCCL places it by itself");
            }
        }
        for (Hca hca : node.hcas()) {
            hca.pci().ifKnown(pci -> {
                if (!fileNics.contains(pci.address().toLowerCase(Locale.ROOT))) {
                    problems.add("NIC " + hca.name() + " (" + pci.address() + ") is not in the file: NCCL places it by itself");
                }
            });
        }
        return problems;
    }

    /** The node's GPUs and NICs hang straight from a host bridge, as a VM's emulated PCI tree shows passthrough devices. */
    public static boolean flat(NodeInventory node) {
        List<PciDevice> devices = new ArrayList<>();
        node.gpus().forEach(gpu -> devices.add(gpu.pci()));
        node.hcas().forEach(hca -> hca.pci().ifKnown(devices::add));
        return !devices.isEmpty() && devices.stream().allMatch(pci -> pci.topologyPath().size() <= 2);
    }

    /** {@code /proc/cpuinfo}'s first processor's fields. */
    public static Map<String, String> cpuInfo(Sysfs sysfs) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : sysfs.read(sysfs.resolve("proc/cpuinfo")).orElse("").lines().toList()) {
            if (line.isBlank() && !fields.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }

    private static String affinity(Sysfs sysfs, int numa, Tree tree) {
        Attr<String> cpumap = sysfs.read(sysfs.resolve("sys/devices/system/node/node" + numa + "/cpumap"));
        if (cpumap.isKnown()) {
            return cpumap.orElseThrow().strip();
        }
        return tree.firstDevice().map(address -> sysfs.read(sysfs.resolve("sys/bus/pci/devices").resolve(address).resolve("local_cpus")).orElse(""))
                .orElse("").strip();
    }

    private static void attribute(StringBuilder out, String name, String value) {
        if (value != null && !value.isEmpty()) {
            out.append(' ').append(name).append("=\"").append(escape(value)).append('"');
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** The PCI tree below one CPU: bus IDs from the root port down, each device's HCA where it is one. */
    private static final class Tree {
        private final Map<String, Tree> children = new TreeMap<>();
        private Hca hca;
        private boolean device;

        void add(PciDevice pci, Hca hca) {
            Tree at = this;
            for (String busId : pci.topologyPath().subList(Math.min(1, pci.topologyPath().size()), pci.topologyPath().size())) {
                at = at.children.computeIfAbsent(busId, b -> new Tree());
            }
            at.device = true;
            at.hca = hca;
        }

        java.util.Optional<String> firstDevice() {
            for (Map.Entry<String, Tree> child : children.entrySet()) {
                if (child.getValue().device) {
                    return java.util.Optional.of(child.getKey());
                }
                java.util.Optional<String> below = child.getValue().firstDevice();
                if (below.isPresent()) {
                    return below;
                }
            }
            return java.util.Optional.empty();
        }

        void write(StringBuilder out, Sysfs sysfs, String indent, Map<Hca, Integer> devs, boolean gdr) {
            children.forEach((busId, child) -> {
                Sysfs.Directory dir = sysfs.directory(sysfs.resolve("sys/bus/pci/devices").resolve(busId));
                out.append(indent).append("<pci busid=\"").append(escape(busId)).append('"');
                for (String[] field : new String[][] {{"class", "class"}, {"vendor", "vendor"}, {"device", "device"},
                        {"subsystem_vendor", "subsystem_vendor"}, {"subsystem_device", "subsystem_device"},
                        {"link_speed", "current_link_speed"}, {"link_width", "current_link_width"}}) {
                    attribute(out, field[0], dir.read(field[1]).orElse("").strip());
                }
                if (child.children.isEmpty() && child.hca == null) {
                    out.append("/>\n");
                    return;
                }
                out.append(">\n");
                if (child.hca != null) {
                    out.append(indent).append("  <nic>\n");
                    int dev = devs.getOrDefault(child.hca, 0);
                    for (Port port : child.hca.ports()) {
                        out.append(indent).append("    <net name=\"").append(escape(child.hca.name())).append("\" dev=\"").append(dev++)
                                .append("\" port=\"").append(port.number()).append('"');
                        port.rate().ifKnown(rate -> out.append(" speed=\"").append(Math.round(rate.gigabitsPerSecond() * 1000)).append('"'));
                        child.hca.nodeGuid().ifKnown(guid -> out.append(" guid=\"0x").append(escape(guid.replace(":", ""))).append('"'));
                        out.append(" gdr=\"").append(gdr ? 1 : 0).append("\"/>\n");
                    }
                    out.append(indent).append("  </nic>\n");
                }
                child.write(out, sysfs, indent + "  ", devs, gdr);
                out.append(indent).append("</pci>\n");
            });
        }
    }
}
