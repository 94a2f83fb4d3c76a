package io.railyard.agent.dra;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.railyard.agent.PortHealth;
import io.railyard.agent.dra.health.DRAResourceHealthGrpc;
import io.railyard.agent.dra.health.DeviceHealth;
import io.railyard.agent.dra.health.DeviceIdentifier;
import io.railyard.agent.dra.health.HealthStatus;
import io.railyard.agent.dra.health.NodeWatchResourcesRequest;
import io.railyard.agent.dra.health.NodeWatchResourcesResponse;
import io.railyard.agent.dra.registration.InfoRequest;
import io.railyard.agent.dra.registration.PluginInfo;
import io.railyard.agent.dra.registration.RegistrationGrpc;
import io.railyard.agent.dra.registration.RegistrationStatus;
import io.railyard.agent.dra.registration.RegistrationStatusResponse;
import io.railyard.agent.dra.v1.Claim;
import io.railyard.agent.dra.v1.Device;
import io.railyard.agent.dra.v1.NodePrepareResourceResponse;
import io.railyard.agent.dra.v1.NodePrepareResourcesRequest;
import io.railyard.agent.dra.v1.NodePrepareResourcesResponse;
import io.railyard.agent.dra.v1.NodeUnprepareResourceResponse;
import io.railyard.agent.dra.v1.NodeUnprepareResourcesRequest;
import io.railyard.agent.dra.v1.NodeUnprepareResourcesResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The kubelet-facing gRPC services: registration, the DRA plugin in versions v1 and v1beta1, and device health. */
final class DraServices {
    static final String PLUGIN_TYPE = "DRAPlugin";
    /** The kubelet takes the first service of this list it knows: v1 from 1.34, v1beta1 on 1.32 and 1.33. */
    static final List<String> SUPPORTED = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");
    private static final Logger LOG = LoggerFactory.getLogger(DraServices.class);

    private DraServices() {}

    /** What the kubelet's plugin watcher asks on {@code <driver>-reg.sock}. */
    static final class Registrar extends RegistrationGrpc.RegistrationImplBase {
        private final String driver;
        private final String endpoint;
        private volatile boolean registered;

        Registrar(String driver, String endpoint) {
            this.driver = driver;
            this.endpoint = endpoint;
        }

        boolean registered() {
            return registered;
        }

        @Override
        public void getInfo(InfoRequest request, StreamObserver<PluginInfo> observer) {
            observer.onNext(PluginInfo.newBuilder().setType(PLUGIN_TYPE).setName(driver).setEndpoint(endpoint).addAllSupportedVersions(SUPPORTED).build());
            observer.onCompleted();
        }

        @Override
        public void notifyRegistrationStatus(RegistrationStatus status, StreamObserver<RegistrationStatusResponse> observer) {
            registered = status.getPluginRegistered();
            if (registered) {
                LOG.info("DRA driver {} registered with the kubelet", driver);
            } else {
                LOG.warn("the kubelet refused DRA driver {}: {}", driver, status.getError());
            }
            observer.onNext(RegistrationStatusResponse.getDefaultInstance());
            observer.onCompleted();
        }
    }

    static final class V1 extends io.railyard.agent.dra.v1.DRAPluginGrpc.DRAPluginImplBase {
        private final ClaimPreparer preparer;

        V1(ClaimPreparer preparer) {
            this.preparer = preparer;
        }

        @Override
        public void nodePrepareResources(NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> observer) {
            observer.onNext(prepare(request));
            observer.onCompleted();
        }

        @Override
        public void nodeUnprepareResources(NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> observer) {
            observer.onNext(unprepare(request));
            observer.onCompleted();
        }

        NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
            NodePrepareResourcesResponse.Builder response = NodePrepareResourcesResponse.newBuilder();
            for (Claim claim : request.getClaimsList()) {
                ClaimPreparer.Result result = preparer.prepare(new ClaimPreparer.ClaimRef(claim.getNamespace(), claim.getUid(), claim.getName()));
                NodePrepareResourceResponse.Builder prepared = NodePrepareResourceResponse.newBuilder();
                if (result.error() != null) {
                    prepared.setError(result.error());
                }
                result.devices().forEach(d -> prepared.addDevices(Device.newBuilder().addRequestNames(d.request())
                        .setPoolName(d.pool()).setDeviceName(d.device()).addCdiDeviceIds(d.cdiId())));
                response.putClaims(claim.getUid(), prepared.build());
            }
            return response.build();
        }

        NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
            NodeUnprepareResourcesResponse.Builder response = NodeUnprepareResourcesResponse.newBuilder();
            for (Claim claim : request.getClaimsList()) {
                String error = preparer.unprepare(new ClaimPreparer.ClaimRef(claim.getNamespace(), claim.getUid(), claim.getName()));
                response.putClaims(claim.getUid(), NodeUnprepareResourceResponse.newBuilder().setError(error == null ? "" : error).build());
            }
            return response.build();
        }
    }

    /**
     * v1beta1 (Kubernetes 1.32 and 1.33): the same messages and field numbers as v1 without share_id, which this driver
     * never sets, so each call is v1's, read and answered through the wire format.
     */
    static final class V1beta1 extends io.railyard.agent.dra.v1beta1.DRAPluginGrpc.DRAPluginImplBase {
        private final V1 v1;

        V1beta1(V1 v1) {
            this.v1 = v1;
        }

        @Override
        public void nodePrepareResources(io.railyard.agent.dra.v1beta1.NodePrepareResourcesRequest request,
                StreamObserver<io.railyard.agent.dra.v1beta1.NodePrepareResourcesResponse> observer) {
            throughV1(request, NodePrepareResourcesRequest.parser(), v1::prepare,
                    io.railyard.agent.dra.v1beta1.NodePrepareResourcesResponse.parser(), observer);
        }

        @Override
        public void nodeUnprepareResources(io.railyard.agent.dra.v1beta1.NodeUnprepareResourcesRequest request,
                StreamObserver<io.railyard.agent.dra.v1beta1.NodeUnprepareResourcesResponse> observer) {
            throughV1(request, NodeUnprepareResourcesRequest.parser(), v1::unprepare,
                    io.railyard.agent.dra.v1beta1.NodeUnprepareResourcesResponse.parser(), observer);
        }

        /** Reads a v1beta1 request as v1's, answers it with v1 and writes the answer back as v1beta1's. */
        private static <Q, A> void throughV1(MessageLite request, Parser<Q> asV1, Function<Q, ? extends MessageLite> call,
                Parser<A> asV1beta1, StreamObserver<A> observer) {
            try {
                observer.onNext(asV1beta1.parseFrom(call.apply(asV1.parseFrom(request.toByteString())).toByteString()));
                observer.onCompleted();
            } catch (InvalidProtocolBufferException e) {
                observer.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
            }
        }
    }

    /** Streams every device's health: the whole list when a watcher connects and whenever one changes. */
    static final class Health extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {
        private final String pool;
        private final List<StreamObserver<NodeWatchResourcesResponse>> watchers = new CopyOnWriteArrayList<>();
        private volatile NodeWatchResourcesResponse latest = NodeWatchResourcesResponse.getDefaultInstance();

        Health(String pool) {
            this.pool = pool;
        }

        @Override
        public void nodeWatchResources(NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> observer) {
            ((ServerCallStreamObserver<NodeWatchResourcesResponse>) observer).setOnCancelHandler(() -> watchers.remove(observer));
            synchronized (this) {
                observer.onNext(latest);
                watchers.add(observer);
            }
        }

        synchronized void publish(Map<String, PortHealth> health) {
            long now = Instant.now().getEpochSecond();
            NodeWatchResourcesResponse.Builder response = NodeWatchResourcesResponse.newBuilder();
            health.forEach((device, status) -> response.addDevices(DeviceHealth.newBuilder()
                    .setDevice(DeviceIdentifier.newBuilder().setPoolName(pool).setDeviceName(device))
                    .setHealth(status.healthy() ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY).setLastUpdatedTime(now)));
            latest = response.build();
            for (StreamObserver<NodeWatchResourcesResponse> watcher : watchers) {
                try {
                    watcher.onNext(latest);
                } catch (RuntimeException e) {
                    watchers.remove(watcher); // the kubelet went away
                }
            }
        }

        void close() {
            watchers.forEach(StreamObserver::onCompleted);
            watchers.clear();
        }
    }
}
