package io.railyard.agent;

import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.railyard.agent.v1beta1.Empty;
import io.railyard.agent.v1beta1.RegisterRequest;
import io.railyard.agent.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * The kubelet's side of the device plugin protocol over real unix sockets: it serves Registration on
 * {@code kubelet.sock} and dials plugins at the endpoint they registered. A restart removes every file in the
 * directory, as the kubelet does when it starts, then serves {@code kubelet.sock} again.
 */
public final class FakeKubelet implements AutoCloseable {
    private final Path dir;
    private final List<RegisterRequest> registrations = new CopyOnWriteArrayList<>();
    private final List<Long> registrationNanos = new CopyOnWriteArrayList<>();
    private volatile long servingSinceNanos;
    private PluginServer server;

    private FakeKubelet(Path dir) {
        this.dir = dir;
    }

    public static FakeKubelet start(Path dir) {
        FakeKubelet kubelet = new FakeKubelet(dir);
        kubelet.serve();
        return kubelet;
    }

    public List<RegisterRequest> registrations() {
        return registrations;
    }

    /** When each registration arrived ({@link System#nanoTime()}). */
    public List<Long> registrationNanos() {
        return registrationNanos;
    }

    /** When kubelet.sock was last created ({@link System#nanoTime()}). */
    public long servingSinceNanos() {
        return servingSinceNanos;
    }

    public ManagedChannel dial(String endpoint) {
        return PluginServer.dial(dir.resolve(endpoint));
    }

    public void restart() {
        server.close();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        serve();
    }

    private void serve() {
        server = PluginServer.start(dir.resolve(KubeletClient.KUBELET_SOCKET), new RegistrationGrpc.RegistrationImplBase() {
            @Override
            public void register(RegisterRequest request, StreamObserver<Empty> observer) {
                registrationNanos.add(System.nanoTime());
                registrations.add(request);
                observer.onNext(Empty.getDefaultInstance());
                observer.onCompleted();
            }
        });
        servingSinceNanos = System.nanoTime();
    }

    @Override
    public void close() {
        server.close();
    }
}
