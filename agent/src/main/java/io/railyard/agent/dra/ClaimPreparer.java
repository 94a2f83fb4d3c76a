package io.railyard.agent.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.agent.PortAllocation;
import io.railyard.agent.ResourceConfig;
import io.railyard.agent.PortHealth;
import io.railyard.node.Gpu;
import io.railyard.node.Hca;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Prepares claims on this node: reads the ResourceClaim, checks that it is the one the kubelet means (UID) and that
 * its allocation names this driver and this node's pool, writes the claim's CDI spec and remembers it in the
 * checkpoint. Idempotent; a claim it cannot prepare gets the reason, the others are still prepared. Claims are
 * prepared concurrently, each claim by one thread at a time.
 */
final class ClaimPreparer {
    /** A claim as the kubelet names it. */
    record ClaimRef(String namespace, String uid, String name) {}

    /** @param error why the claim was not prepared, null when it was */
    record Result(List<ClaimCheckpoint.PreparedDevice> devices, String error) {
        static Result failed(String error) {
            return new Result(List.of(), error);
        }
    }

    /** The API server's UIDs are UUIDs; anything else could name a path outside the driver's directories. */
    private static final Pattern UID = Pattern.compile("[0-9A-Za-z][0-9A-Za-z-]{0,63}");
    private final KubernetesClient client;
    private final String driver;
    private final String pool;
    private final Path cdiDir;
    private final ClaimCheckpoint checkpoint;
    private final Sysfs sysfs;
    private final Supplier<Map<String, DraDevice>> devices;
    private final Function<String, PortHealth> health;
    private final List<Gpu> gpus;
    /** Each resource's NCCL topology file on the host, by resource name. */
    private final Function<String, io.railyard.agent.ContainerExtras> extras;
    private final Object[] locks = new Object[64];

    ClaimPreparer(KubernetesClient client, String driver, String pool, Path cdiDir, ClaimCheckpoint checkpoint, Sysfs sysfs,
            Supplier<Map<String, DraDevice>> devices, Function<String, PortHealth> health, List<Gpu> gpus,
            Function<String, io.railyard.agent.ContainerExtras> extras) {
        this.client = client;
        this.driver = driver;
        this.pool = pool;
        this.cdiDir = cdiDir;
        this.checkpoint = checkpoint;
        this.sysfs = sysfs;
        this.devices = devices;
        this.health = health;
        this.gpus = List.copyOf(gpus);
        this.extras = extras;
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    Result prepare(ClaimRef ref) {
        if (!UID.matcher(ref.uid()).matches()) {
            return Result.failed(badUid(ref));
        }
        synchronized (lockOf(ref)) {
            return prepareHoldingLock(ref);
        }
    }

    /** Removes the claim's CDI spec and checkpoint entry; a claim this node never prepared is already done. */
    String unprepare(ClaimRef ref) {
        if (!UID.matcher(ref.uid()).matches()) {
            return badUid(ref);
        }
        synchronized (lockOf(ref)) {
            try {
                ClaimCheckpoint.Entry entry = checkpoint.get(ref.uid());
                Files.deleteIfExists(entry != null ? Path.of(entry.cdiFile()) : CdiSpec.file(cdiDir, driver, ref.uid()));
                checkpoint.remove(ref.uid());
                return null;
            } catch (IOException e) {
                return "cannot remove the CDI spec of claim " + ref.uid() + ": " + e.getMessage();
            }
        }
    }

    /**
     * One claim is prepared or unprepared by one thread at a time; other claims go on meanwhile, so that a prepare
     * waiting on a slow API server does not hold up the unprepare of a pod that is going away. Striped, not one lock a
     * claim: bounded, and nothing to clean up.
     */
    private Object lockOf(ClaimRef ref) {
        return locks[Math.floorMod(ref.uid().hashCode(), locks.length)];
    }

    private Result prepareHoldingLock(ClaimRef ref) {
        ClaimCheckpoint.Entry known = checkpoint.get(ref.uid());
        if (known != null && Files.exists(Path.of(known.cdiFile()))) {
            return new Result(known.devices(), null);
        }
        String what = "ResourceClaim " + ref.namespace() + "/" + ref.name();
        ResourceClaim claim;
        try {
            claim = client.resources(ResourceClaim.class).inNamespace(ref.namespace()).withName(ref.name()).get();
        } catch (KubernetesClientException e) {
            return Result.failed("cannot read " + what + ": " + e.getMessage());
        }
        if (claim == null) {
            return Result.failed(what + " does not exist");
        }
        if (!ref.uid().equals(claim.getMetadata().getUid())) {
            return Result.failed(what + " has UID " + claim.getMetadata().getUid() + ", not " + ref.uid() + ": it was deleted and created again");
        }
        if (claim.getStatus() == null || claim.getStatus().getAllocation() == null || claim.getStatus().getAllocation().getDevices() == null) {
            return Result.failed(what + " is not allocated");
        }
        List<DeviceRequestAllocationResult> results = claim.getStatus().getAllocation().getDevices().getResults().stream()
                .filter(result -> driver.equals(result.getDriver())).toList();
        if (results.isEmpty()) {
            return Result.failed(what + " allocates no device of driver " + driver);
        }
        Map<String, DraDevice> byName = devices.get();
        Map<String, List<DraDevice>> byRequest = new LinkedHashMap<>();
        List<ClaimCheckpoint.PreparedDevice> prepared = new ArrayList<>();
        for (DeviceRequestAllocationResult result : results) {
            if (!pool.equals(result.getPool())) {
                return Result.failed(what + " allocates " + result.getDevice() + " from pool " + result.getPool() + ", not this node's pool " + pool);
            }
            DraDevice device = byName.get(result.getDevice());
            if (device == null) {
                return Result.failed(what + " allocates " + result.getDevice() + ", which pool " + pool + " does not have (it has "
                        + String.join(", ", byName.keySet()) + ")");
            }
            PortHealth portHealth = health.apply(device.name());
            if (!portHealth.healthy()) {
                return Result.failed(what + " allocates " + device.name() + ", which is unhealthy: " + portHealth.reason());
            }
            String request = result.getRequest().split("/")[0]; // a subrequest's devices belong to its request
            byRequest.computeIfAbsent(request, r -> new ArrayList<>()).add(device);
            prepared.add(new ClaimCheckpoint.PreparedDevice(request, pool, device.name(), CdiSpec.deviceId(driver, ref.uid(), request)));
        }
        Map<String, PortAllocation> allocations = new LinkedHashMap<>();
        try {
            byRequest.forEach((request, list) -> {
                List<Port> ports = list.stream().map(d -> d.device().port()).toList();
                Set<Hca> hcas = new LinkedHashSet<>(list.stream().map(d -> d.device().hca()).toList());
                ResourceConfig resource = list.getFirst().resource();
                allocations.put(request, PortAllocation.of(sysfs, ports, hcas, gpus, resource, extras.apply(resource.name())));
            });
        } catch (PortAllocation.Refused e) {
            return Result.failed(what + ": " + e.getMessage());
        }
        Path file = CdiSpec.file(cdiDir, driver, ref.uid());
        try {
            CdiSpec.write(file, CdiSpec.spec(driver, ref.uid(), allocations));
            checkpoint.put(ref.uid(), new ClaimCheckpoint.Entry(ref.namespace(), ref.name(), file.toString(), prepared));
        } catch (IOException e) {
            return Result.failed("cannot write the CDI spec " + file + ": " + e.getMessage());
        }
        return new Result(prepared, null);
    }

    private static String badUid(ClaimRef ref) {
        return "claim " + ref.namespace() + "/" + ref.name() + " has UID \"" + ref.uid() + "\", which is not a Kubernetes UID: nothing done";
    }
}
