package io.railyard.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One status query to NCCL's RAS service, as its protocol is (plain text lines, the report streamed until the server
 * closes): JSON where the server accepts {@code SET FORMAT json} (2.28.7+), else the text {@code VERBOSE STATUS}.
 */
final class RasClient {
    /** A report is about 1.2 MB at 512 GPUs; this leaves room and still bounds a broken server. */
    static final int MAX_REPORT_CHARS = 32 << 20;
    private static final int CONNECT_MILLIS = 2_000;

    private final InetSocketAddress address;
    private final Duration timeout;
    private Boolean json;

    /** @param timeout RAS's own collective timeout for the query (its TIMEOUT command) */
    RasClient(InetSocketAddress address, Duration timeout) {
        this.address = address;
        this.timeout = timeout;
    }

    /** The report's text; JSON when the server speaks it. */
    String status() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(address, CONNECT_MILLIS);
            socket.setSoTimeout((int) timeout.plusSeconds(6).toMillis()); // as ncclras waits: t + 5 + 1 s
            OutputStream out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            if (!Boolean.FALSE.equals(json)) {
                json = command(out, in, "SET FORMAT json").startsWith("OK"); // before 2.28.7: ERROR: Unknown command
            }
            command(out, in, "TIMEOUT " + Math.max(1, timeout.toSeconds()));
            send(out, json ? "STATUS" : "VERBOSE STATUS");
            StringBuilder report = new StringBuilder();
            char[] buffer = new char[64 << 10];
            for (int read; (read = in.read(buffer)) >= 0; ) {
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

    private static String command(OutputStream out, BufferedReader in, String command) throws IOException {
        send(out, command);
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
