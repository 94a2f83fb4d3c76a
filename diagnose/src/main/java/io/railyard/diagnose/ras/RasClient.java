package io.railyard.diagnose.ras;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One status query to NCCL's RAS service, as its protocol is (plain text lines, the report streamed until the server
 * closes): JSON where the server accepts {@code SET FORMAT json} (2.28.7+), else the text {@code VERBOSE STATUS}.
 */
public final class RasClient {
    /** A report is about 1.2 MB at 512 GPUs; this leaves room and still bounds a broken server. */
    public static final int MAX_REPORT_CHARS = 32 << 20;
    private static final int CONNECT_MILLIS = 2_000;

    private final InetSocketAddress address;
    private final Duration timeout;
    private Boolean json;

    /** @param timeout how long a query may take once connected; RAS is asked to gather within half of it (its TIMEOUT command) */
    public RasClient(InetSocketAddress address, Duration timeout) {
        this.address = address;
        this.timeout = timeout;
    }

    /** The report's text; JSON when the server speaks it. */
    public String status() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(address, CONNECT_MILLIS);
            long deadline = System.nanoTime() + timeout.toNanos(); // the whole exchange, however the server trickles it
            OutputStream out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            if (!Boolean.FALSE.equals(json)) {
                json = command(socket, deadline, out, in, "SET FORMAT json").startsWith("OK"); // before 2.28.7: ERROR: Unknown command
            }
            command(socket, deadline, out, in, "TIMEOUT " + Math.max(1, timeout.toSeconds() / 2));
            send(out, json ? "STATUS" : "VERBOSE STATUS");
            StringBuilder report = new StringBuilder();
            char[] buffer = new char[64 << 10];
            for (int read; (read = in.read(buffer, 0, within(socket, deadline, buffer.length))) >= 0; ) {
                report.append(buffer, 0, read);
                if (report.length() > MAX_REPORT_CHARS) {
                    throw new IOException("RAS report larger than " + (MAX_REPORT_CHARS >> 20) + " MiB");
                }
            }
            if (report.isEmpty()) {
                throw new IOException("RAS at " + address.getHostString() + ":" + address.getPort() + " closed without a report");
            }
            return report.toString();
        }
    }

    /** Sets the socket's read timeout to what is left before the deadline; past it, gives up. Returns {@code length}. */
    private int within(Socket socket, long deadline, int length) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("no whole report within " + timeout.toSeconds() + " s");
        }
        socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
        return length;
    }

    private String command(Socket socket, long deadline, OutputStream out, BufferedReader in, String command) throws IOException {
        send(out, command);
        within(socket, deadline, 0);
        String reply = in.readLine();
        if (reply == null) {
            throw new IOException("RAS closed the connection after " + command);
        }
        return reply;
    }

    private static void send(OutputStream out, String command) throws IOException {
        out.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
