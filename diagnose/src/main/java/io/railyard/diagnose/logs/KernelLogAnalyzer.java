package io.railyard.diagnose.logs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel's log ({@code dmesg}, {@code journalctl -k}) of the RDMA drivers: mlx5 firmware commands that failed or
 * timed out, and memory registrations the driver could not make.
 */
final class KernelLogAnalyzer implements Analyzer {
    /** A kernel line of an RDMA driver: dmesg's timestamp or the driver's device prefix. */
    private static final Pattern RDMA_KERNEL_LINE = Pattern.compile(
            "^\\s*(?:\\[\\s*\\d+\\.\\d+\\]\\s*|\\S+ kernel: )?(?:mlx5_core \\S+:|mlx5_ib\\S*:|infiniband \\w+:|mlx5_cmd_\\w+|mlx5_\\w+:\\d+:)");
    /** {@code mlx5_cmd_out_err:838:(pid 1): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x59c8a4)}. */
    private static final Pattern COMMAND_FAILED = Pattern.compile("(\\w+)\\((0x[0-9a-fA-F]+)\\) op_mod\\((0x[0-9a-fA-F]+)\\) failed, status ([^(,]+)\\((0x[0-9a-fA-F]+)\\)");
    private static final Pattern REG_MR_FAILED = Pattern.compile("reg mr failed\\. status (-?\\d+)");

    private final Findings findings;
    private long hits;

    KernelLogAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public void accept(Line line) {
        if (!line.contains("mlx5") && !line.contains("infiniband")) {
            return;
        }
        String text = line.text();
        if (!RDMA_KERNEL_LINE.matcher(text).find()) {
            return;
        }
        hits++;
        Matcher failed = COMMAND_FAILED.matcher(text);
        Matcher status = REG_MR_FAILED.matcher(text);
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
        // every finding is made line by line
    }
}
