package io.railyard.agent;

import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A gRPC server on a unix socket, as the kubelet's plugin APIs require, and the channel that dials one. */
public final class PluginServer implements AutoCloseable {
    private final Path socket;
    private final Server server;
    private final EventLoopGroup group;

    private PluginServer(Path socket, Server server, EventLoopGroup group) {
        this.socket = socket;
        this.server = server;
        this.group = group;
    }

    /** Serves on the socket, replacing a stale socket file left by an earlier run. */
    public static PluginServer start(Path socket, BindableService... services) {
        EventLoopGroup group = new EpollEventLoopGroup(1);
        try {
            Files.deleteIfExists(socket);
            NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(group)
                    .workerEventLoopGroup(group)
                    .withChildOption(ChannelOption.SO_KEEPALIVE, null); // grpc sets it for TCP; Netty warns on every unix socket
            for (BindableService service : services) {
                builder.addService(service);
            }
            return new PluginServer(socket, builder.build().start(), group);
        } catch (IOException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new UncheckedIOException("cannot serve on " + socket + ": " + e.getMessage(), e);
        }
    }

    /** A channel to a gRPC server on a unix socket, without the TCP keep-alive option grpc asks every socket for. */
    public static ManagedChannel dial(Path socket) {
        ManagedChannelBuilder<?> builder = Grpc.newChannelBuilder("unix:" + socket, InsecureChannelCredentials.create());
        if (builder instanceof NettyChannelBuilder netty) {
            netty.withOption(ChannelOption.SO_KEEPALIVE, null);
        }
        return builder.build();
    }

    Path socket() {
        return socket;
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // the directory went away with the kubelet; nothing left to clean
        }
    }
}
