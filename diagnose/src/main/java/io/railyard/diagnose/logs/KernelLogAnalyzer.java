package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel's log ({@code dmesg}, {@code journalctl -k}, a syslog) of the RDMA drivers (mlx5 firmware commands that
 * failed or timed out, memory registrations the driver could not make) and of the other network drivers (links that
 * went down and up again, checksum faults, transmit timeouts, a NIC lost from PCIe).
 */
final class KernelLogAnalyzer implements Analyzer {
    /** A kernel line of an RDMA driver: dmesg's timestamp or the driver's device prefix. */
    private static final Pattern RDMA_KERNEL_LINE = Pattern.compile(
            "^\\s*(?:\\[\\s*\\d+\\.\\d+\\]\\s*|\\S+ kernel: )?(?:mlx5_core \\S+:|mlx5_ib\\S*:|infiniband \\w+:|mlx5_cmd_\\w+|mlx5_\\w+:\\d+:)");
    /** {@code mlx5_cmd_out_err:838:(pid 1): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x59c8a4)}. */
    private static final Pattern COMMAND_FAILED = Pattern.compile("(\\w+)\\((0x[0-9a-fA-F]+)\\) op_mod\\((0x[0-9a-fA-F]+)\\) failed, status ([^(,]+)\\((0x[0-9a-fA-F]+)\\)");
    private static final Pattern REG_MR_FAILED = Pattern.compile("reg mr failed\\. status (-?\\d+)");
    /** In a kernel line (dmesg's uptime, a syslog's "kernel:", illumos' "kern."), a network driver other than mlx5. */
    private static final Pattern NIC_DRIVER = Pattern.compile("\\b(?:ixgbe|i40e|iavf|ice|irdma|igb|igc|e1000e?|bnxt_en|bnxt_re|ena|efa"
            + "|mlx4_\\w+|qede|qedr|cxgb4|iw_cxgb4|hfi1|tg3|ionic|virtio_net|be2net|sfc|nfp|r8169|NETDEV WATCHDOG|hw csum failure)(?![a-z])");
    /** dmesg's uptime stamp (UCX's epoch stamps have more digits and a second bracket after). */
    private static final Pattern DMESG_STAMP = Pattern.compile("^\\s*\\[\\s*\\d{1,8}\\.\\d{6}\\](?!\\s*\\[)");
    /** The BSD kernels' "igc1: link state changed to DOWN", which has no prefix of its own. */
    private static final String BSD_LINK = ": link state changed to ";
    /** "eth4: NIC Link is Down", "i40e4 link down", "enp1s0f0np0 NIC Link is Up", "igc1: link state changed to UP". */
    private static final Pattern LINK = Pattern.compile("(\\S+?):? (?:NIC )?[Ll]ink (?:is |state changed to )?([Dd]own|[Uu]p|DOWN|UP)\\b");

    private final Findings findings;
    private long hits;
    /** Interfaces whose link went down, and how often one came up again after. */
    private final java.util.Set<String> down = new java.util.LinkedHashSet<>();
    private final java.util.Set<String> flapped = new java.util.LinkedHashSet<>();
    private final java.util.Set<String> up = new java.util.HashSet<>();
    private long firstDownLine = -1;
    private String firstDownText;

    KernelLogAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return new Interest(List.of("mlx5", "infiniband", "kern", BSD_LINK), KernelLogAnalyzer::dmesgStamped);
    }

    @Override
    public void accept(Line line) {
        if (!line.contains("mlx5") && !line.contains("infiniband")) {
            if (line.contains("kern") || line.contains(BSD_LINK) || dmesgStamped(line)) {
                nic(line);
            }
            return;
        }
        String text = line.text();
        if (!RDMA_KERNEL_LINE.matcher(text).find()) {
            nic(line); // an mlx5 line behind a syslog's date and host: the kernel's all the same
            return;
        }
        hits++;
        Matcher failed = COMMAND_FAILED.matcher(text);
        Matcher status = REG_MR_FAILED.matcher(text);
        if (link(line, text)) {
            return;
        }
        if (failed.find()) {
            commandFailed(line, failed.group(1).toUpperCase(java.util.Locale.ROOT), failed.group(4).strip(), failed.group(5));
        } else if (status.find()) {
            findings.add("mr-registration-failed", Severity.ERROR, "the mlx5 driver could not register memory (status " + status.group(1)
                            + (status.group(1).equals("-12") ? ", out of memory" : "") + "): its memory keys or the pinnable memory ran out",
                    "registrations leaked by killed processes hold memory keys until they end (rdma resource show mr); check the "
                            + "locked-memory limit; end the holders, or reload mlx5_ib or reboot to free them", line);
        } else if (text.contains("Will cause a leak of a command resource") || text.contains("No done completion")) {
            findings.add("mlx5-command-timeout", Severity.ERROR, "the NIC's firmware did not answer a driver command in time",
                    "the firmware is stuck or overloaded: look for health syndromes in dmesg (mlx5_core ... health), check the firmware "
                            + "version (mlxfwmanager), and reset the NIC (mlxfwreset) or reboot", line);
        }
    }

    /** dmesg's "[ 1234.567890]" first, tested by hand before the pattern: "[rank0]:" starts most lines of a training log. */
    private static boolean dmesgStamped(Line line) {
        if (line.firstNonBlank() != '[') {
            return false;
        }
        int at = line.indexOf("[", 0) + 1;
        while (at < line.length() && line.charAt(at) == ' ') {
            at++;
        }
        return at < line.length() && Character.isDigit(line.charAt(at)) && DMESG_STAMP.matcher(line.text()).find();
    }

    /** A line of the kernel's log ("kernel:", "kern.", or dmesg's stamp, checked by the caller). */
    private void nic(Line line) {
        String text = line.text();
        boolean bsdLink = text.contains(BSD_LINK);
        if (!bsdLink && !text.contains("kernel: ") && !text.contains(" kern.") && !DMESG_STAMP.matcher(text).find()) {
            return;
        }
        hits++; // a kernel log, though this line may be of another subsystem
        if (link(line, text) || !bsdLink && !NIC_DRIVER.matcher(text).find()) {
            return;
        }
        if (text.contains("hw csum failure")) {
            findings.add("nic-checksum-fault", Severity.WARN, "the kernel found packets with a wrong checksum that the NIC had passed (hw csum failure)",
                    "a NIC, firmware or driver fault: update the NIC's firmware and driver; as a stopgap turn receive checksum offload off"
                            + " (ethtool -K <interface> rx off)", line);
        } else if (text.contains("NETDEV WATCHDOG")) {
            findings.add("nic-tx-timeout", Severity.ERROR, "a NIC stopped sending: the kernel's transmit watchdog fired",
                    "the NIC or its driver hung: look for firmware and PCIe errors before this line; reset the interface, update the"
                            + " driver and firmware", line);
        } else if (text.contains("PCIe link lost")) {
            findings.add("nic-pcie-link-lost", Severity.ERROR, "a NIC dropped off the PCIe bus (PCIe link lost)",
                    "reseat or replace the card, check the slot's power and the server's PCIe errors (AER in dmesg); a reboot brings it back", line);
        }
    }

    /**
     * A link going down or up, of any driver: down then up again, or up twice (it went down between, unlogged), is a
     * flap. True when the line was one.
     */
    private boolean link(Line line, String text) {
        Matcher link = LINK.matcher(text);
        if (!link.find()) {
            return false;
        }
        String device = link.group(1);
        boolean isDown = link.group(2).equalsIgnoreCase("down");
        if (firstDownLine < 0 && (isDown || up.contains(device))) {
            firstDownLine = line.number();
            firstDownText = text;
        }
        if (isDown) {
            down.add(device);
        } else if (down.remove(device) || !up.add(device)) {
            flapped.add(device);
        }
        return true;
    }

    private void commandFailed(Line line, String command, String status, String code) {
        boolean mkey = command.contains("MKEY");
        String remedy = mkey && status.contains("limits exceeded")
                ? "the NIC's memory keys are used up: registrations leaked by killed processes hold them (rdma resource show mr); "
                        + "end the holders, or reload mlx5_ib or reboot to free them"
                : status.contains("bad parameter")
                        ? "the driver asked for something this firmware does not support: bring the firmware up to the driver's version "
                                + "(mlxfwmanager) and check the feature the caller enabled"
                        : "check the NIC's firmware against the driver (mlxfwmanager, ethtool -i) and the resource limits of the command";
        findings.add("mlx5-command-failed", Severity.ERROR, "the NIC's firmware refused " + command + ": status " + status + " (" + code + ")"
                + (mkey ? ", a memory registration" : ""), remedy, line);
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (!flapped.isEmpty()) {
            List<String> named = flapped.stream().limit(5).toList();
            findings.add("link-flap", Severity.WARN, "the link of " + String.join(", ", named) + (flapped.size() > named.size()
                            ? " and " + (flapped.size() - named.size()) + " more" : "") + " went down and came up again",
                    "a flapping link stalls every collective that crosses it: check the cable, the optic and the switch port's error"
                            + " counters; ethtool -S shows the NIC's", firstDownLine, firstDownText);
        }
    }
}
