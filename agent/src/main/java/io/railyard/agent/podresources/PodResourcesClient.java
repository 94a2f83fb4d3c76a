package io.railyard.agent.podresources;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.railyard.agent.PluginServer;
import io.railyard.agent.podresources.v1.ListPodResourcesRequest;
import io.railyard.agent.podresources.v1.ListPodResourcesResponse;
import io.railyard.agent.podresources.v1.PodResourcesListerGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/** The kubelet's PodResources {@code List}, over its unix socket, on one channel kept between calls. */
public final class PodResourcesClient implements AutoCloseable {
    /** Where the kubelet serves the PodResources API. */
    public static final Path DEFAULT_SOCKET = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");
    private static final long DEADLINE_MILLIS = 2_000;

    /** The listing could not be had; the message names the socket and why. */
    public static final class UnavailableException extends Exception {
        UnavailableException(String message) {
            super(message);
        }
    }

    private final Path socket;
    private final ManagedChannel channel;

    public PodResourcesClient(Path socket) {
        this.socket = socket;
        this.channel = PluginServer.dial(socket);
    }

    public Path socket() {
        return socket;
    }

    /**
     * What tells this socket from the one a restarted kubelet makes at the same path (its file key: device and inode);
     * null when there is no socket.
     */
    public Object socketIdentity() {
        try {
            return Files.readAttributes(socket, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    public ListPodResourcesResponse list() throws UnavailableException {
        if (!Files.exists(socket)) {
            throw new UnavailableException("no kubelet PodResources socket at " + socket + " (is the pod-resources directory mounted?)");
        }
        try {
            return PodResourcesListerGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            channel.resetConnectBackoff(); // a kubelet that restarted is dialled again on the next call, not minutes later
            throw new UnavailableException("the kubelet at " + socket + " refused PodResources List: " + e.getStatus().getCode()
                    + (e.getStatus().getDescription() == null ? "" : " " + e.getStatus().getDescription()));
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
