package io.railyard.cli;

import io.railyard.api.Names;
import io.railyard.operator.model.JobValidation;
import io.railyard.operator.model.OperatorDefaults;
import picocli.CommandLine.Option;

/**
 * What an installation sets once and every command that builds pods shares: the image of Railyard's helper
 * containers and the RDMA resource. The chart sets both on the operator; {@code RAILYARD_IMAGE} and
 * {@code RAILYARD_RDMA_RESOURCE} set them for a shell.
 */
final class InstallationOptions {
    static final String RDMA_RESOURCE = "${env:RAILYARD_RDMA_RESOURCE:-" + Names.DEFAULT_RDMA_RESOURCE + "}";

    @Option(names = "--railyard-image", defaultValue = "${env:RAILYARD_IMAGE:-" + OperatorDefaults.RAILYARD_IMAGE + "}",
            description = "Image of Railyard's helper containers: await-rank, the preflight gate (default: RAILYARD_IMAGE, else ${DEFAULT-VALUE}).")
    String railyardImage;

    @Option(names = "--rdma-resource", defaultValue = RDMA_RESOURCE,
            description = "RDMA extended resource of jobs that name none (default: RAILYARD_RDMA_RESOURCE, else ${DEFAULT-VALUE}).")
    String rdmaResource;

    OperatorDefaults defaults() {
        if (!JobValidation.isResourceName(rdmaResource)) {
            throw new Railyard.UsageException("--rdma-resource " + rdmaResource + " is not an extended resource name such as rdma/rdma");
        }
        return new OperatorDefaults(railyardImage, rdmaResource);
    }
}
