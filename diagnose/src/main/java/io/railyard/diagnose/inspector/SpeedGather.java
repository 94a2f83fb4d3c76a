package io.railyard.diagnose.inspector;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * The job's speeds gathered in its first pod: every rank's sidecar connects once per interval and writes its summary
 * as one line; a line that is no summary, longer than {@value #MAX_LINE} bytes or slower than {@value #READ_TIMEOUT_MS}
 * ms is dropped.
 */
public final class SpeedGather implements AutoCloseable {
    public static final int MAX_LINE = 1 << 20;
    public static final int READ_TIMEOUT_MS = 5000;
    public static final int CONNECT_TIMEOUT_MS = 3000;

    private final ServerSocket server;
    private final JobSpeeds speeds;
    private final Clock clock;

    private SpeedGather(ServerSocket server, JobSpeeds speeds, Clock clock) {
        this.server = server;
        this.speeds = speeds;
        this.clock = clock;
    }

    public static SpeedGather listen(InetSocketAddress address, JobSpeeds speeds, Clock clock) throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(address, 1024); // every rank of a large job may send in the same second
        SpeedGather gather = new SpeedGather(server, speeds, clock);
        Thread.ofVirtual().name("speed-gather").start(gather::accept);
        return gather;
    }

    /** Sends a rank's summary to the first pod's sidecar. */
    public static void send(String host, int port, RankSummary summary) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write((summary.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> receive(socket));
            } catch (IOException e) {
                // closed, or one connection failed before it was accepted
            }
        }
    }

    private void receive(Socket socket) {
        try (socket) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            RankSummary.parse(line(socket.getInputStream())).ifPresent(summary -> speeds.add(summary, clock.instant()));
        } catch (IOException e) {
            // a connection cut, slow or too long: this interval's line of that rank is lost
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            line.write(buffer, 0, n);
            if (line.size() > MAX_LINE) {
                throw new IOException("longer than " + MAX_LINE + " bytes");
            }
        }
        return line.toString(StandardCharsets.UTF_8).strip();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
