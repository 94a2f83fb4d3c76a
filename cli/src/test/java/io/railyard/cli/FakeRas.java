package io.railyard.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test double of NCCL's RAS service on loopback, speaking its protocol (one command a line, {@code SET FORMAT}
 * only from 2.28.7, the report streamed and the connection closed): each status query gets the next scripted
 * report, the last one again after; {@link #CLOSE} closes the connection without a word, as a dying process does,
 * and {@link #SILENT} never answers.
 */
public final class FakeRas implements AutoCloseable {
    static final String CLOSE = "<close>";
    /** Reads the commands and never answers, as a stopped process's socket does. */
    static final String SILENT = "<silent>";

    private final ServerSocket server;
    private final boolean json;
    private final List<String> reports;
    private final AtomicInteger served = new AtomicInteger();
    private final List<String> commands = new CopyOnWriteArrayList<>();

    /** @param json whether it speaks JSON (NCCL 2.28.7+) */
    public FakeRas(boolean json, List<String> reports) throws IOException {
        this.server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        this.json = json;
        this.reports = reports;
        Thread.ofVirtual().start(this::serve);
    }

    public String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** Status queries answered so far. */
    public int served() {
        return served.get();
    }

    List<String> commands() {
        return List.copyOf(commands);
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                answer(socket);
            } catch (IOException e) {
                // the client went away, or the server closed
            }
        }
    }

    private void answer(Socket socket) throws IOException {
        String report = reports.get(Math.min(served.getAndIncrement(), reports.size() - 1));
        if (report.equals(CLOSE)) {
            return;
        }
        if (report.equals(SILENT)) {
            socket.getInputStream().transferTo(OutputStream.nullOutputStream()); // until the client gives up
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream out = socket.getOutputStream();
        for (String line; (line = in.readLine()) != null; ) {
            commands.add(line);
            String command = line.strip().toUpperCase();
            if (command.startsWith("SET FORMAT")) {
                reply(out, json ? "OK" : "ERROR: Unknown command SET");
            } else if (command.startsWith("TIMEOUT") || command.startsWith("CLIENT PROTOCOL")) {
                reply(out, command.startsWith("TIMEOUT") ? "OK" : "SERVER PROTOCOL 2");
            } else if (command.equals("STATUS") || command.equals("VERBOSE STATUS")) {
                out.write(report.getBytes(StandardCharsets.UTF_8));
                return;
            } else {
                reply(out, "ERROR: Unknown command " + line);
            }
        }
    }

    private static void reply(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
