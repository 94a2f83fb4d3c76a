package io.railyard.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gang's gate for a new attempt, so that no rank of the new attempt meets a rank of the old one: every pod's
 * await-rank, once its own pod carries the attempt, reports to rank 0's await-rank over TCP, and rank 0's lets them all
 * through when every other rank has reported that same attempt. A pod still running the old attempt reports nothing;
 * no API credentials are needed.
 */
final class AttemptBarrier {
    private static final Pattern REPORT = Pattern.compile("attempt (\\d{1,9}) rank (\\d{1,6})");
    private static final int RETRY_MILLIS = 500;

    private AttemptBarrier() {}

    /**
     * Returns once every rank is at {@code attempt}; false when the deadline passed first.
     *
     * @param master rank 0's address; @param rank this pod's node rank; @param nodes the gang's
     */
    static boolean await(String master, int port, int rank, int nodes, long attempt, Instant deadline, PrintWriter err)
            throws IOException, InterruptedException {
        if (nodes <= 1) {
            return true;
        }
        return rank == 0 ? hold(port, nodes, attempt, deadline, err) : report(master, port, rank, attempt, deadline);
    }

    /** Rank 0: waits for a report of this attempt from each other rank, then answers them all. */
    private static boolean hold(int port, int nodes, long attempt, Instant deadline, PrintWriter err) throws IOException {
        Map<Integer, Socket> reported = new HashMap<>();
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(port));
            server.setSoTimeout(RETRY_MILLIS);
            while (reported.size() < nodes - 1) {
                if (Instant.now().isAfter(deadline)) {
                    return false;
                }
                try {
                    Socket peer = server.accept();
                    peer.setSoTimeout(5_000);
                    Matcher report = REPORT.matcher(String.valueOf(new BufferedReader(new InputStreamReader(peer.getInputStream(),
                            StandardCharsets.US_ASCII)).readLine()));
                    if (report.matches() && Long.parseLong(report.group(1)) == attempt) {
                        Socket earlier = reported.put(Integer.parseInt(report.group(2)), peer); // a rank that reported again
                        if (earlier != null) {
                            earlier.close();
                        }
                    } else {
                        answer(peer, "wait"); // another attempt: it asks again once its pod carries this one
                    }
                } catch (SocketTimeoutException e) {
                    // no report within the interval: look at the deadline again
                } catch (IOException e) {
                    // a peer that went away mid-report reports again
                }
            }
            for (Socket peer : reported.values()) {
                answer(peer, "go");
            }
        }
        err.println("await-rank: all " + nodes + " ranks are at attempt " + attempt);
        return true;
    }

    /** Any other rank: reports to rank 0 until it answers go. */
    private static boolean report(String master, int port, int rank, long attempt, Instant deadline) throws InterruptedException {
        while (Instant.now().isBefore(deadline)) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(master, port), RETRY_MILLIS);
                socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, deadline.toEpochMilli() - Instant.now().toEpochMilli())));
                OutputStream out = socket.getOutputStream();
                out.write(("attempt " + attempt + " rank " + rank + "\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String answer = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
                if ("go".equals(answer)) {
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
}
