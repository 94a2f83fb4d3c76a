package io.railyard.cli;

import io.railyard.api.Names;
import io.railyard.operator.model.JobValidation;
import io.railyard.operator.model.OperatorDefaults;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * What an installation sets once and every command that builds pods shares: the image of Railyard's helper
 * containers, the RDMA resource and the node directories jobs may mount. The chart sets them on the operator;
 * {@code RAILYARD_IMAGE}, {@code RAILYARD_RDMA_RESOURCE} and {@code RAILYARD_ALLOWED_HOST_PATHS} set them for a shell.
 */
final class InstallationOptions {
    static final String RDMA_RESOURCE = "${env:RAILYARD_RDMA_RESOURCE:-" + Names.DEFAULT_RDMA_RESOURCE + "}";

    @Option(names = "--railyard-image", defaultValue = "${env:RAILYARD_IMAGE:-" + OperatorDefaults.RAILYARD_IMAGE + "}",
            description = "Image of Railyard's helper containers: await-rank, the preflight gate (default: RAILYARD_IMAGE, else ${DEFAULT-VALUE}).")
    String railyardImage;

    @Option(names = "--rdma-resource", defaultValue = RDMA_RESOURCE,
            description = "RDMA extended resource of jobs that name none (default: RAILYARD_RDMA_RESOURCE, else ${DEFAULT-VALUE}).")
    String rdmaResource;

    @Option(names = "--allowed-host-paths", split = ",", paramLabel = "PREFIX", defaultValue = "${env:RAILYARD_ALLOWED_HOST_PATHS}",
            description = "Node directories TrainingJobs may mount as hostPath, comma-separated or repeated (default: "
                    + "RAILYARD_ALLOWED_HOST_PATHS, else none: hostPath datasets and volumes are refused).")
    List<String> allowedHostPaths = new ArrayList<>();

    OperatorDefaults defaults() {
        if (!JobValidation.isResourceName(rdmaResource)) {
            throw new Railyard.UsageException("--rdma-resource " + rdmaResource + " is not an extended resource name such as rdma/rdma");
        }
        List<String> prefixes = allowedHostPaths == null ? List.of() : allowedHostPaths.stream().filter(p -> !p.isBlank()).toList();
        for (String prefix : prefixes) {
            if (!prefix.startsWith("/") || prefix.equals("/") || Path.of(prefix).normalize().toString().equals("/")) {
                throw new Railyard.UsageException("--allowed-host-paths " + prefix + ": give absolute directories below / "
                        + "(such as /mnt/datasets); allowing / would let every job mount the node's root");
            }
        }
        return new OperatorDefaults(railyardImage, rdmaResource, prefixes);
    }
}
