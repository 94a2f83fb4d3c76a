package io.railyard.diagnose.logs;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NCCL debug logs of any version (NCCL_DEBUG=INFO), ranks interleaved, with or without {@code host:pid:tid}
 * prefixes: the network chosen, fallbacks, HCAs, GPUDirect RDMA, completion errors and failed verbs calls.
 */
final class NcclLogAnalyzer implements Analyzer {
    private static final String OLD_INFO = "] INFO ";
    private static final String VARIABLE = "NCCL_";
    private static final String VIA_NET = "via NET/";
    private static final String GDRDMA = "/GDRDMA";
    private static final String CHANNEL = "Channel";
    private static final String CALL_TO = "Call to";
    private static final String ASSIGNED = "Assigned NET plugin";
    private static final String SOCKET = "Socket";
    private static final String IB_SLASH = "IB/";
    private static final String VERSION = "NCCL version";
    private static final String BOOTSTRAP = "Bootstrap";
    private static final String USING_NETWORK = "Using network ";
    private static final String CONNECTED_RINGS = "Connected all rings";
    private static final String CUDA_DEV = "CUDA Dev ";
    private static final String RINGS_GDR = "GDR ";
    private static final String FI_GETINFO = "fi_getinfo";
    private static final String NO_OPTIMAL_PROVIDER = "Could not find any optimal provider";
    /** {@code NET/IB : Using [0]…}, and {@code NET/Socket: Using [0]…} as NCCL 2.3 and 2.4 wrote it. */
    private static final String GDR = "GPU Direct RDMA ";
    private static final String COMPLETION = "Got completion";
    private static final String IBV = "ibv_";
    private static final String PLUGIN = "plugin";
    private static final String FAILED = "failed";
    /** NCCL's net transport asked AWS's OFI plugin to register a connection's buffer: the plugin carries the traffic. */
    private static final String OFI_REGISTRATION = "NET/OFI Unable to register memory";

    private static final Pattern VERSION_NUMBER = Pattern.compile("NCCL version (\\d+\\.\\d+\\.\\d+)");
    private static final Pattern BOOTSTRAP_IF = Pattern.compile("Bootstrap ?: Using \\[?\\d*\\]?([^:<\\s]+)");
    /** HPC-X's IB plugin loaded and then turned off: NCCL's own IB transport carries the traffic. */
    private static final String IBEXT_DISABLED = "NCCL_IBEXT_DISABLE set by environment to 1";
    private static final Pattern NETWORK_NAME = Pattern.compile("^(AWS Libfabric|\\S+)");
    private static final Pattern PLUGIN_NAME = Pattern.compile("(?:P2P plugin|Initialized NET plugin|Assigned NET plugin) (\\S+)");

    private final Findings findings;
    private final NcclTuningLines tuning = new NcclTuningLines();
    private long hits;
    private String version;
    private String bootstrap;
    private String network;
    private String plugin;
    private boolean ibextDisabled;
    /** The IB transport came through a plugin (IBext): transport ib or roce, and the plugin named. */
    private boolean ibPlugin;
    /** What "Connected all rings, ... GDR n" said, null without such a line. */
    private Boolean ringsGdr;
    /** aws-ofi-nccl's init line (number and text: a Line is reused), for an inference; IB's and Socket's are in devices. */
    private InitLine ofiInit;
    private final NcclDevices devices = new NcclDevices();

    private long netConnections;
    private long gdrConnections;
    private long socketConnections;
    private final NcclGdrLines gdrLines;
    /** The network a completion error or a queue pair line came from, when nothing else in the log names it. */
    private String completionTransport;
    private boolean pluginCarries;

    private final NcclSetupLines setup;
    private final NcclErrorLines errors;

    NcclLogAnalyzer(Findings findings) {
        this.findings = findings;
        this.setup = new NcclSetupLines(findings);
        this.errors = new NcclErrorLines(findings);
        this.gdrLines = new NcclGdrLines(findings);
    }

    /** A line without the {@code NCCL INFO} tag: WARN lines, a bare version line, pre-2.3 formats, or none of NCCL's. */
    @Override
    public Interest interest() {
        return Interest.words(List.of(FI_GETINFO, VERSION, VIA_NET, COMPLETION, OLD_INFO, "NET/OFI", "reset by peer", "roken pipe",
                "closed by remote peer"));
    }

    @Override
    public void accept(Line line) {
        // LogAnalysis hands NCCL's INFO and WARN lines to acceptInfo and acceptWarn: this is every other line of a log
        if (line.contains(FI_GETINFO)) { // Libfabric's own warning
            setup.ofiNoProvider(line);
        }
        if (line.contains(VERSION) && (line.contains("ProcessGroupNCCL") || line.contains("NCCL error in:"))) {
            read(line); // PyTorch's error quoting NCCL's version: the version is NCCL's, the line is PyTorch's
        } else if (line.contains(VERSION) || line.contains(VIA_NET) || line.contains(COMPLETION) || line.contains(OLD_INFO)) {
            take(line);
        } else {
            outsideTags(line);
        }
    }

    /** NCCL's and its plugins' words quoted by others: PyTorch's "Last error:", the OFI plugin's test programs. */
    private void outsideTags(Line line) {
        errors.connectionLost(line);
        if (line.contains("NET/OFI")) {
            errors.ofi(line);
        }
    }

    /** A line tagged {@code NCCL WARN}. */
    void acceptWarn(Line line) {
        if (line.contains(FI_GETINFO) || line.contains(NO_OPTIMAL_PROVIDER)) { // AWS's OFI plugin without a provider
            setup.ofiNoProvider(line);
        }
        take(line);
    }

    private void take(Line line) {
        hits++;
        outsideTags(line); // WARN lines only: NCCL's INFO lines, most of a large log, report no broken connection
        int via = line.indexOf(VIA_NET, 0);
        if (via >= 0) {
            connection(line, via);
        } else {
            read(line);
        }
    }

    /**
     * A line tagged {@code NCCL INFO}, its message starting at {@code message}. Such lines are most of a large log, so
     * the message's first word decides, without searching the line, whether there is anything to read.
     */
    void acceptInfo(Line line, int message) {
        hits++;
        if (message >= line.length()) {
            return;
        }
        switch (line.charAt(message)) {
            case 'C' -> {
                char second = message + 1 < line.length() ? line.charAt(message + 1) : 0;
                if (second == 'h' && line.startsWith(CHANNEL, message)) {
                    int via = line.indexOf(VIA_NET, message);
                    if (via >= 0) {
                        connection(line, via);
                    }
                } else if (second == 'a' && line.startsWith(CALL_TO, message)) {
                    read(line);
                } else if (second == 'o' && line.startsWith(CONNECTED_RINGS, message)) {
                    connectedRings(line);
                } else if (second == 'U' && devices.socketInit == null && line.startsWith(CUDA_DEV, message) && line.contains("Socket NIC distance")) {
                    devices.socketInit = new InitLine(line.number(), line.text()); // NCCL 2.3/2.4: "CUDA Dev 0[0], Socket NIC distance :  PHB"
                }
            }
            case 'U' -> {
                if (!(line.startsWith(USING_NETWORK, message) && sameNetwork(line, message + USING_NETWORK.length()))) {
                    read(line); // every rank says "Using network IB" for every communicator: the known one says nothing new
                }
            }
            case 'N' -> startingWithN(line, message);
            case 'B', 'G', 'F', 'I', 'P' -> read(line);
            case 'R' -> { // NCCL 2.3 and 2.4 name a ring's connections: "Ring 00 : 0 -> 1 via NET/Socket/0"
                int via = line.indexOf(VIA_NET, message);
                if (via >= 0) {
                    connection(line, via);
                }
            }
            case 'A' -> {
                if (message + 1 < line.length() && line.charAt(message + 1) == 's' && line.startsWith(ASSIGNED, message)) {
                    read(line);
                }
            }
            default -> { } // collective traces, comm setup, rings and trees: nothing about the network
        }
    }

    /** A variable NCCL says it took ("NCCL_CROSS_NIC set by environment to 1."), or "NET/..." lines. Out of acceptInfo, which stays small. */
    private void startingWithN(Line line, int message) {
        if (line.startsWith(VARIABLE, message)) {
            tuning.setting(line, message);
        }
        if (!devices.repeated(line)) {
            read(line); // and "NET/IB : Using [0]mlx5_0:1/IB ..." with only its own out-of-band address changed
        }
    }

    /** "Connected all rings, use ring PXN 0 GDR 0" (2.21+): whether the rings use GPUDirect RDMA. Out of acceptInfo, which stays small. */
    private void connectedRings(Line line) {
        int digit = ringsGdrDigit(line);
        if (digit >= 0) {
            ringsGdr = line.charAt(digit) == '1';
        }
    }

    /**
     * Where the digit of the words "GDR n" is in a line, or -1: the regex {@code \bGDR (\d)\b} read by hand. A large log has
     * such a line every few hundred, from its start, while the JIT is still compiling: the regex kept a compiler busy.
     */
    static int ringsGdrDigit(Line line) {
        for (int at = line.indexOf(RINGS_GDR, 0); at >= 0; at = line.indexOf(RINGS_GDR, at + 1)) {
            int digit = at + RINGS_GDR.length();
            if ((at == 0 || !ConnectionLine.isWord(line.charAt(at - 1))) && digit < line.length() && line.charAt(digit) >= '0'
                    && line.charAt(digit) <= '9' && (digit + 1 == line.length() || !ConnectionLine.isWord(line.charAt(digit + 1)))) {
                return digit;
            }
        }
        return -1;
    }

    private void read(Line line) {
        if (line.contains(VERSION) && version == null) {
            match(VERSION_NUMBER, line).ifPresent(m -> version = m.group(1));
        }
        if (line.contains(BOOTSTRAP) && bootstrap == null) {
            match(BOOTSTRAP_IF, line).ifPresent(m -> bootstrap = m.group(1));
        }
        int usingNetwork = line.indexOf(USING_NETWORK, 0);
        if (usingNetwork >= 0 && !sameNetwork(line, usingNetwork + USING_NETWORK.length())) {
            Matcher named = NETWORK_NAME.matcher(line.text().substring(usingNetwork + USING_NETWORK.length()).strip());
            String name = named.find() ? named.group(1) : ""; // a paste may join the next line onto this one
            if (!name.isEmpty() && network != null && !name.equals(network) && !findings.has("mixed-networks")) {
                findings.add("mixed-networks", Severity.ERROR, "ranks chose different networks (" + network + " and " + name
                                + "): a communicator cannot connect ranks that use different transports",
                        "make RDMA work where a rank chose " + (name.equals("Socket") ? name : network)
                                + " (the findings above say why), so that every rank uses the same network", line);
            }
            network = name.isEmpty() ? network : name;
        }
        devices.read(line);
        if (line.contains(PLUGIN)) {
            match(PLUGIN_NAME, line).filter(m -> !m.group(1).equals("IB") && !m.group(1).equals("Socket"))
                    .ifPresent(m -> plugin = m.group(1));
        }
        errors.fallbackCause(line);
        if (line.contains(IBEXT_DISABLED)) {
            ibextDisabled = true;
        }
        if (line.contains(GDR)) {
            gdrLines.accept(line);
        }
        if (line.contains(COMPLETION)) {
            String transport = errors.completion(line, devices.anyRoce);
            if (completionTransport == null) {
                completionTransport = transport;
            }
        }
        if (line.contains(IBV) && line.contains(FAILED)) {
            errors.verbsCall(line);
        }
        if (line.contains(OFI_REGISTRATION)) {
            errors.pluginRegistration(line);
            pluginCarries = true;
        }
        if (NcclSetupLines.mayBeOne(line)) {
            String linkLayer = setup.queuePair(line);
            if (linkLayer != null && completionTransport == null) {
                completionTransport = linkLayer;   // only NCCL's IB transport sets up queue pairs
            }
            setup.bootstrap(line);
            String provider = setup.ofiProvider(line);
            if (provider != null && ofiInit == null) {
                ofiInit = new InitLine(line.number(), line.text());
            }
            Boolean ofiGdr = setup.ofiGpuDirect(line);
            if (ofiGdr != null) {
                gdrLines.said(ofiGdr);
            }
        }
    }

    /** Every rank says "Using network IB" for every communicator: the one already known is matched in place. */
    private boolean sameNetwork(Line line, int name) {
        if (network == null || !line.startsWith(network, name)) {
            return false;
        }
        int after = name + network.length();
        return after == line.length() || line.charAt(after) == ' ' || line.charAt(after) == '\r';
    }

    /** A channel line; most lines of a large log are these, so they are read as bytes. */
    private void connection(Line line, int via) {
        if (++netConnections <= NcclTuningLines.CONNECTION_LINES) { // the first communicators' set-up shows how channels run
            tuning.connection(line);
        }
        int net = via + VIA_NET.length();
        boolean socket = line.startsWith(SOCKET, net);
        if (socket) {
            socketConnections++;
        } else if (line.indexOf(GDRDMA, net) >= 0) {
            gdrConnections++;
        }
        if (network == null && plugin == null && !socket && !line.startsWith(IB_SLASH, net)) {
            String rest = line.text().substring(net);
            plugin = rest.substring(0, Math.max(rest.indexOf('/'), 0)).strip();
        }
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (hits == 0 && version == null) { // a version PyTorch's error quotes is NCCL's, though no line is
            return;
        }
        String transport = transport();
        boolean fallback = transport.equals("socket")
                && (errors.ibFailed() || devices.ibInit != null);
        Boolean gdr = gdrConnections > 0 ? Boolean.TRUE : gdrLines.disabled() ? Boolean.FALSE : ringsGdr != null ? ringsGdr : gdrLines.enabled() ? Boolean.TRUE : null;
        report.nccl = new NcclSummary(version, transport, transport.equals("plugin") || ibPlugin ? plugin : null, fallback, gdr,
                devices.hcas.stream().toList(), bootstrap, netConnections, gdrConnections);
        NcclConclusions.conclude(findings, report.nccl, devices.socketInterfaces, gdrLines.noModule());
        tuning.finish(findings, devices.hcas.size());
    }

    private String transport() {
        String name = network;
        if (name == null && netConnections > 0) {
            name = socketConnections == netConnections ? "Socket" : plugin == null ? "IB" : plugin;
        }
        if (name == null && completionTransport != null) {
            // completions are only reported by NCCL's IB transport
            devices.anyRoce |= completionTransport.equals("RoCE");
            devices.anyIb |= completionTransport.equals("IB");
            name = "IB";
        }
        if (name == null) {
            name = inferredFromInit();
        }
        if (name == null) {
            return pluginCarries ? "plugin" : "unknown";
        }
        if (name.equals("Socket")) {
            return "socket";
        }
        if (name.equals("IB") || name.startsWith("IBext")) {
            // IBext (HPC-X's nccl-rdma-sharp plugin) is NCCL's IB transport shipped as a plugin, SHARP beside it; its
            // completions say NET/IB too, so an IBext plugin named on its own line carries the traffic unless a "Using
            // network IB" line says otherwise
            boolean namedPlugin = network == null && plugin != null && plugin.startsWith("IBext") && !ibextDisabled;
            ibPlugin = name.startsWith("IBext") || namedPlugin;
            plugin = name.startsWith("IBext") ? name : plugin;
            return devices.anyRoce && !devices.anyIb ? "roce" : "ib";
        }
        plugin = name;
        return "plugin";
    }

    /**
     * Without a "Using network" line, channel lines or completions, the init lines decide: NET/IB set up with its
     * devices and nothing failing means IB or RoCE (a NET/Socket line beside it is the out-of-band interface); NET/Socket
     * alone, or with IB failing or turned off, means sockets. The inference is a finding that cites its line.
     */
    private String inferredFromInit() {
        boolean ibFailed = errors.ibFailed() || findings.has("rdma-disabled");
        InitLine evidence;
        String name;
        if (ofiInit != null) {
            evidence = ofiInit;
            name = "AWS Libfabric";   // the name aws-ofi-nccl gives itself in "Using network"
        } else if (devices.ibInit != null && !devices.hcas.isEmpty() && !ibFailed) {
            evidence = devices.ibInit;
            name = "IB";
        } else if (devices.socketInit != null && (ibFailed || devices.ibInit == null)) {
            evidence = devices.socketInit;
            name = "Socket";
        } else {
            return null;
        }
        findings.add("network-inferred", Severity.INFO, "no 'Using network' or channel line: the network is inferred from NCCL's init"
                        + " line for " + (name.equals("IB") ? "NET/IB and its devices" : name.equals("Socket") ? "NET/Socket" : name),
                "NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,NET prints the channel lines that settle it", evidence.number(), evidence.text());
        return name;
    }

    private static Optional<Matcher> match(Pattern pattern, Line line) {
        Matcher matcher = pattern.matcher(line.text());
        return matcher.find() ? Optional.of(matcher) : Optional.empty();
    }
}
