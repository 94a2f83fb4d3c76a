package io.railyard.diagnose.channel;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * The accept loop of a channel's server: each connection served at once on a virtual thread, at most {@code maxOpen} at
 * a time (one past them is closed and counted {@code busy}), until the server closes.
 */
public final class ChannelServer {
    private ChannelServer() {}

    /** Starts accepting on a virtual thread of its own; {@code serve} is given each connection and must close it. */
    public static void start(ServerSocket server, int maxOpen, ChannelRejections rejections, Consumer<Socket> serve) {
        Semaphore open = new Semaphore(maxOpen);
        Thread.ofVirtual().name("channel-accept").start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket peer = server.accept();
                    if (!open.tryAcquire()) {
                        rejections.count("busy");
                        peer.close();
                        continue;
                    }
                    Thread.ofVirtual().start(() -> {
                        try {
                            serve.accept(peer);
                        } finally {
                            open.release();
                        }
                    });
                } catch (IOException e) {
                    // closed, or one connection failed before it was accepted
                }
            }
        });
    }
}
