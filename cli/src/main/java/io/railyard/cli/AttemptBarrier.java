package io.railyard.cli;

import io.railyard.diagnose.channel.ChannelRejections;
import io.railyard.diagnose.channel.ChannelServer;
import io.railyard.diagnose.channel.ChannelSeal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gang's gate for a new attempt, so that no rank of the new attempt meets a rank of the old one: every pod's
 * await-rank, once its own pod carries the attempt, reports to rank 0's await-rank over TCP, and rank 0's lets them all
 * through when every other rank has reported that same attempt. A pod still running the old attempt reports nothing;
 * no API credentials are needed. Each report is sealed with the job's key for its attempt ({@link ChannelSeal}): a
 * report without the seal, of another attempt, or of a rank the gang does not have is refused, and rank 0 serves
 * its connections at once, each bounded in bytes and seconds and all of them in number, so a silent or flooding
 * stranger cannot hold the gate.
 */
final class AttemptBarrier {
    private static final Pattern REPORT = Pattern.compile("attempt (\\d{1,9}) rank (\\d{1,6})");
    private static final int RETRY_MILLIS = 500;
    /** Connections rank 0 serves at once: every rank of a large gang reporting, and strangers beside them. */
    static final int MAX_OPEN = 256;
    /** A report is about 100 bytes with its seal. */
    static final int MAX_LINE = 256;
    /** What a connection may take to say its report. */
    static final int READ_MILLIS = 2_000;

    private AttemptBarrier() {}

    /**
     * Returns once every rank is at {@code attempt}; false when the deadline passed first.
     *
     * @param master rank 0's address; @param rank this pod's node rank; @param nodes the gang's
     * @param bind   the address rank 0 listens on (null: every address of the pod)
     * @param seal   the job's seal; null where the pod has no key (every report is then believed)
     */
    static boolean await(String master, InetAddress bind, int port, int rank, int nodes, long attempt, Instant deadline, ChannelSeal seal,
            PrintWriter err) throws IOException, InterruptedException {
        if (nodes <= 1) {
            return true;
        }
        return rank == 0 ? new Holder(nodes, attempt, seal, err).hold(bind, port, deadline)
                : report(master, port, rank, attempt, deadline, seal);
    }

    /** Rank 0: takes the reports of this attempt from each other rank, then answers them all. */
    private static final class Holder {
        private final int nodes;
        private final long attempt;
        private final ChannelSeal seal;
        private final Map<Integer, Socket> reported = new ConcurrentHashMap<>();
        private final CountDownLatch everyRank = new CountDownLatch(1);
        private final ChannelRejections rejections;
        private final PrintWriter err;

        Holder(int nodes, long attempt, ChannelSeal seal, PrintWriter err) {
            this.err = err;
            this.nodes = nodes;
            this.attempt = attempt;
            this.seal = seal;
            this.rejections = new ChannelRejections("await-rank", line -> {
                err.println(line);
                err.flush();
            });
        }

        boolean hold(InetAddress bind, int port, Instant deadline) throws IOException, InterruptedException {
            try (ServerSocket server = new ServerSocket()) {
                server.setReuseAddress(true);
                server.bind(new InetSocketAddress(bind, port), MAX_OPEN);
                ChannelServer.start(server, MAX_OPEN, rejections, this::serve);
                long millis = Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
                if (!everyRank.await(millis, TimeUnit.MILLISECONDS)) {
                    return false;
                }
            }
            reported.values().forEach(peer -> answer(peer, "go"));
            rejections.flush();
            err.println("await-rank: all " + nodes + " ranks are at attempt " + attempt);
            err.flush();
            return true;
        }

        private void serve(Socket peer) {
            Optional<String> line = readLine(peer);
            if (line.isEmpty()) {
                rejections.count("slow-or-long");
                close(peer);
                return;
            }
            Optional<String> report = seal == null ? line : seal.open(line.get(), attempt);
            if (report.isEmpty()) {
                rejections.count("seal"); // a stranger, another job, or a rank already at another attempt: it asks again
                answer(peer, "wait");
                return;
            }
            Matcher m = REPORT.matcher(report.get());
            int rank = m.matches() ? Integer.parseInt(m.group(2)) : -1;
            if (!m.matches() || Long.parseLong(m.group(1)) != attempt) {
                answer(peer, "wait"); // another attempt (unsealed reports): it asks again once its pod carries this one
                return;
            }
            if (rank < 1 || rank >= nodes) {
                rejections.count("rank");
                close(peer);
                return;
            }
            Socket earlier = reported.put(rank, peer); // a rank that reported again
            if (earlier != null) {
                close(earlier);
            }
            if (reported.size() == nodes - 1) {
                everyRank.countDown();
            }
        }
    }

    /** One line of at most {@value #MAX_LINE} bytes within {@value #READ_MILLIS} ms; empty for a silent, slow or long one. */
    private static Optional<String> readLine(Socket peer) {
        try {
            peer.setSoTimeout(READ_MILLIS);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_MILLIS);
            InputStream in = peer.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b; (b = in.read()) >= 0; ) {
                if (b == '\n') {
                    return Optional.of(line.toString(StandardCharsets.US_ASCII));
                }
                if (line.size() >= MAX_LINE || System.nanoTime() > until) { // a trickle of bytes is as slow as silence
                    return Optional.empty();
                }
                line.write(b);
            }
        } catch (IOException e) {
            // silent past the timeout, or gone
        }
        return Optional.empty();
    }

    /** Any other rank: reports to rank 0 until it answers go. */
    private static boolean report(String master, int port, int rank, long attempt, Instant deadline, ChannelSeal seal) throws InterruptedException {
        String message = "attempt " + attempt + " rank " + rank;
        String line = (seal == null ? message : seal.seal(message, attempt)) + "\n";
        while (Instant.now().isBefore(deadline)) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(master, port), RETRY_MILLIS);
                socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, deadline.toEpochMilli() - Instant.now().toEpochMilli())));
                OutputStream out = socket.getOutputStream();
                out.write(line.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] answer = socket.getInputStream().readNBytes(3);
                if (new String(answer, StandardCharsets.US_ASCII).equals("go\n")) {
                    return true;
                }
            } catch (IOException e) {
                // rank 0 not listening yet (its pod still runs the old attempt, or is restarting): ask again
            }
            Thread.sleep(RETRY_MILLIS);
        }
        return false;
    }

    private static void answer(Socket peer, String word) {
        try (peer) {
            peer.getOutputStream().write((word + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            // gone: it asks again
        }
    }

    private static void close(Socket peer) {
        try {
            peer.close();
        } catch (IOException e) {
            // gone already
        }
    }
}
