package io.railyard.diagnose.inspector;

import io.railyard.diagnose.channel.ChannelRejections;
import io.railyard.diagnose.channel.ChannelServer;
import io.railyard.diagnose.channel.ChannelSeal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The job's speeds gathered in its first pod: every rank's sidecar connects once per interval and writes its summary
 * as one line, sealed with the job's key ({@link ChannelSeal}) and stamped with when it was sent. A line without the
 * seal, sent more than an interval and a half ago (a replay), or from a rank the job does not have is refused and
 * counted. Connections are served at once, each bounded in bytes ({@value #MAX_LINE}) and seconds
 * ({@value #READ_TIMEOUT_MS} ms), all of them in number and in the bytes held together, so a silent or flooding
 * stranger neither stalls the others nor fills the sidecar's heap.
 */
public final class SpeedGather implements AutoCloseable {
    public static final int MAX_LINE = 256 << 10;
    public static final int READ_TIMEOUT_MS = 5000;
    public static final int CONNECT_TIMEOUT_MS = 3000;
    /** Connections served at once: every pod of a large job sending in the same second. */
    static final int MAX_OPEN = 2048;
    /** The bytes all connections may hold at once, in KiB: a sixth of the sidecar's 48 MiB heap. */
    static final int BUFFERED_KIB = 8 << 10;
    private static final int CHUNK = 8 << 10;
    private static final String SENT = " at=";

    private final ServerSocket server;
    private final JobSpeeds speeds;
    private final Clock clock;
    private final ChannelSeal seal;
    private final Duration fresh;
    private final int ranks;
    private final ChannelRejections rejections;
    private final Semaphore buffered = new Semaphore(BUFFERED_KIB);

    private SpeedGather(ServerSocket server, JobSpeeds speeds, Clock clock, ChannelSeal seal, Duration interval, int ranks, Consumer<String> log) {
        this.server = server;
        this.speeds = speeds;
        this.clock = clock;
        this.seal = seal;
        this.fresh = interval.multipliedBy(3).dividedBy(2);
        this.ranks = ranks;
        this.rejections = new ChannelRejections("nccl-speed", log);
    }

    /**
     * @param seal  the job's seal; null where the pod has no key (every summary is then believed)
     * @param ranks the job's pods: a summary of another rank is refused
     */
    public static SpeedGather listen(InetSocketAddress address, JobSpeeds speeds, Clock clock, ChannelSeal seal, Duration interval, int ranks,
            Consumer<String> log) throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(address, 1024); // every rank of a large job may send in the same second
        SpeedGather gather = new SpeedGather(server, speeds, clock, seal, interval, ranks, log);
        ChannelServer.start(server, MAX_OPEN, gather.rejections, gather::receive);
        return gather;
    }

    /** Sends a rank's summary to the first pod's sidecar, sealed with the job's key where there is one. */
    public static void send(String host, int port, RankSummary summary, ChannelSeal seal, Instant now) throws IOException {
        String line = summary.toJson() + SENT + now.toEpochMilli();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write(((seal == null ? line : seal.seal(line, 0)) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** What was refused so far, by reason. */
    public ChannelRejections rejections() {
        return rejections;
    }

    private void receive(Socket socket) {
        int held = 0;
        try (socket) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            byte[] chunk = new byte[CHUNK];
            for (int n; ; ) {
                if (!buffered.tryAcquire(CHUNK >> 10)) {
                    rejections.count("memory");
                    return;
                }
                held += CHUNK >> 10;
                n = in.read(chunk);
                if (n < 0) {
                    break;
                }
                line.write(chunk, 0, n);
                if (line.size() > MAX_LINE || System.nanoTime() > until) {
                    rejections.count("slow-or-long");
                    return;
                }
            }
            take(line.toString(StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            rejections.count("slow-or-long"); // silent past the timeout, or cut: this interval's line of that rank is lost
        } finally {
            buffered.release(held);
        }
    }

    private void take(String line) {
        Optional<String> opened = seal == null ? Optional.of(line) : seal.open(line, 0);
        if (opened.isEmpty()) {
            rejections.count("seal");
            return;
        }
        int sent = opened.get().lastIndexOf(SENT);
        Instant now = clock.instant();
        Instant at = sent < 0 ? null : sentAt(opened.get().substring(sent + SENT.length()));
        if (at == null || at.isBefore(now.minus(fresh)) || at.isAfter(now.plus(fresh))) {
            rejections.count("stale");
            return;
        }
        Optional<RankSummary> summary = RankSummary.parse(opened.get().substring(0, sent));
        if (summary.isEmpty()) {
            rejections.count("unreadable");
            return;
        }
        if (ranks > 0 && !inRange(summary.get().rank())) {
            rejections.count("rank");
            return;
        }
        speeds.add(summary.get(), now);
    }

    private boolean inRange(String rank) {
        return rank.matches("\\d{1,6}") && Integer.parseInt(rank) < ranks;
    }

    private static Instant sentAt(String millis) {
        return millis.matches("\\d{1,15}") ? Instant.ofEpochMilli(Long.parseLong(millis)) : null;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
