package io.railyard.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.node.Rate;
import io.railyard.operator.preflight.HelperOutput;
import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.PreflightPods;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code railyard preflight-link}: what a preflight pod runs. For each HCA the device plugin allocated to the container,
 * ib_write_bw as a server (port base + k) and/or as a client to the peer's port base + k, all at once; each run's output
 * printed as one framed block for {@link HelperOutput}. With {@code --min-percent} (the TrainingJob gate) it judges its
 * own sending links, writes them to the termination message and exits 1 when one is slow or failed.
 */
@Command(
        name = "preflight-link",
        mixinStandardHelpOptions = true,
        description = "Inside a preflight pod: run ib_write_bw on each allocated HCA against the peer (used by railyard preflight and the TrainingJob gate).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every run gave a result (and, with --min-percent, every sending link is fast enough)", "1:a run failed or a link is slow", "2:usage error"})
final class PreflightLinkCommand implements Callable<Integer> {
    static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9.:]{0,252})");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MESSAGE_BYTES = 1 << 20;
    private static final int QUEUE_PAIRS = 2;

    enum Role { server, client, both }

    /** What runs one ib_write_bw: the real one as a process, or the sandbox's played one ({@link PlayedPreflightLink}). */
    interface MeasuringTool {
        ToolRun run(String role, List<String> argv, Instant deadline) throws Exception;
    }

    private final MeasuringTool played;

    PreflightLinkCommand() {
        this(null);
    }

    PreflightLinkCommand(MeasuringTool played) {
        this.played = played;
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--role", required = true, description = "server, client or both (${COMPLETION-CANDIDATES}).")
    Role role;

    @Option(names = "--peer", description = "The server's address (client and both).")
    String peer;

    @Option(names = "--port-base", defaultValue = "" + PreflightPods.PORT_BASE, description = "HCA k uses this port + k (default: ${DEFAULT-VALUE}).")
    int portBase;

    @Option(names = "--duration", defaultValue = "5", description = "Seconds each ib_write_bw measures (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--timeout", defaultValue = "300", description = "Seconds for everything, waiting for the peer included (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--min-percent", description = "Judge the sending links: below this share of the port's line rate is slow (exit 1).")
    Integer minPercent;

    @Option(names = "--devices-json", defaultValue = "${env:RAILYARD_RDMA_DEVICES}", description = "The allocated ports as the device plugin describes them (default: RAILYARD_RDMA_DEVICES).")
    String devicesJson;

    @Option(names = "--nccl-ib-hca", defaultValue = "${env:NCCL_IB_HCA}", description = "The allocated ports when there is no description (default: NCCL_IB_HCA).")
    String ncclIbHca;

    @Option(names = "--gid-index", defaultValue = "${env:NCCL_IB_GID_INDEX}", description = "RoCE GID index when there is no description (default: NCCL_IB_GID_INDEX).")
    Integer gidIndex;

    @Option(names = "--root", defaultValue = "/", description = "Root holding sys/, for the ports' line rates (default: ${DEFAULT-VALUE}).")
    Path root;

    @Option(names = "--termination-log", defaultValue = "/dev/termination-log", description = "Where the gate's figures go (default: ${DEFAULT-VALUE}).")
    Path terminationLog;

    @Option(names = "--tool", defaultValue = "ib_write_bw", hidden = true)
    String tool;

    @Option(names = "--retry-ms", defaultValue = "1000", hidden = true)
    long retryMillis;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (role != Role.server && peer == null) {
            throw new Railyard.UsageException("--peer is missing: the " + role + " role sends to the server at that address");
        }
        if (role != Role.server && !HOST.matcher(peer).matches()) {
            throw new Railyard.UsageException("--peer " + peer + " is not a host name or address: the " + role + " role needs the server's");
        }
        List<AllocatedDevice> devices = devices();
        if (devices.isEmpty()) {
            out.println(HelperOutput.error("no RDMA device is allocated to this container (neither RAILYARD_RDMA_DEVICES nor NCCL_IB_HCA"
                    + " is set): request the RDMA resource, and check that the device plugin runs on this node"));
            writeTerminationMessage(List.of(), "no RDMA device allocated");
            return 1;
        }
        Instant deadline = Instant.now().plusSeconds(timeoutSeconds);
        List<Future<String>> runs = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int k = 0; k < devices.size(); k++) {
                AllocatedDevice device = devices.get(k);
                int index = k;
                if (role != Role.client) {
                    runs.add(threads.submit(() -> run(PreflightPods.SERVER, index, device, null, deadline)));
                }
                if (role != Role.server) {
                    runs.add(threads.submit(() -> run(PreflightPods.CLIENT, index, device, peer, deadline)));
                }
            }
            StringBuilder all = new StringBuilder();
            for (Future<String> run : runs) {
                String block = run.get();
                out.print(block);
                out.flush();
                all.append(block);
            }
            return verdict(HelperOutput.parse(all.toString()));
        }
    }

    private int verdict(HelperOutput.Output output) throws IOException {
        if (minPercent == null) {
            return output.runs().stream().allMatch(run -> run.error() == null) ? 0 : 1;
        }
        List<Link> links = output.runs(PreflightPods.CLIENT).stream()
                .map(run -> run.gbps() == null ? Link.failed(null, peer, run.hca(), run.error(), null)
                        : Link.measured(null, peer, run.hca(), null, run.gbps(), run.rateGbps(), minPercent))
                .toList();
        writeTerminationMessage(links, null);
        links.stream().filter(link -> !link.ok()).forEach(link -> spec.commandLine().getOut().println(
                HelperOutput.MARK + link.verdict() + " " + link.hca() + " -> " + peer + ": " + link.reason()));
        return links.stream().allMatch(Link::ok) ? 0 : 1;
    }

    /** The figures the operator reads from the container's status, without asking for its log. */
    private void writeTerminationMessage(List<Link> links, String error) throws IOException {
        if (minPercent == null || !Files.isDirectory(terminationLog.toAbsolutePath().getParent())) {
            return;
        }
        List<Map<String, Object>> entries = new ArrayList<>();
        for (Link link : links) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("hca", link.hca());
            entry.put("gbps", link.gbps());
            entry.put("lineRateGbps", link.lineRateGbps());
            entry.put("percent", link.percent());
            entry.put("verdict", link.verdict().toString());
            entry.put("reason", link.reason());
            entries.add(entry);
        }
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("links", entries);
        if (error != null) {
            message.put("error", error);
        }
        Files.writeString(terminationLog, JSON.writeValueAsString(message));
    }

    /** One ib_write_bw, retried while the server is not listening yet, killed at the deadline; its framed output. */
    private String run(String runRole, int index, AllocatedDevice device, String server, Instant deadline) throws Exception {
        Double rate = lineRate(device);
        StringBuilder block = new StringBuilder(HelperOutput.begin(runRole, index, device.hca(), device.port(), rate, server)).append('\n');
        List<String> argv = new ArrayList<>(List.of(tool));
        argv.addAll(device.perftestArgs());
        argv.addAll(List.of("--report_gbits", "-F", "-D", String.valueOf(durationSeconds), "-s", String.valueOf(MESSAGE_BYTES),
                "-q", String.valueOf(QUEUE_PAIRS), "-p", String.valueOf(portBase + index)));
        if (server != null) {
            argv.add(server);
        }
        ToolRun run = played != null ? played.run(runRole, argv, deadline)
                : ToolRun.run(argv, deadline, text -> server != null && text.contains("Couldn't connect"), retryMillis);
        return block.append(run.body()).append(HelperOutput.end(runRole, index, device.hca(), run.exit())).append('\n').toString();
    }

    private Double lineRate(AllocatedDevice device) {
        Path file = root.resolve("sys/class/infiniband").resolve(device.hca()).resolve("ports").resolve(String.valueOf(device.port())).resolve("rate");
        try {
            double gbps = Rate.parse(Files.readString(file).strip()).gigabitsPerSecond();
            return gbps > 0 ? gbps : null;
        } catch (IOException | RuntimeException e) {
            return null; // the judge says "line rate unknown"
        }
    }

    List<AllocatedDevice> devices() throws IOException {
        return AllocatedDevice.of(devicesJson, ncclIbHca, gidIndex);
    }
}
