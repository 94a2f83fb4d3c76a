package io.railyard.diagnose;

import java.util.List;

/** Runs every check, in the order a person would debug a node: drivers, devices, links, then what NCCL sees. */
public final class Doctor {
    public static final List<Check> CHECKS = List.of(
            new DriverCheck(),
            new DevicesCheck(),
            new SubnetManagerCheck(),
            new LinkCheck(),
            new MtuCheck(),
            new GidCheck(),
            new NcclEnvCheck(),
            new GpuNicAffinityCheck(),
            new GpuDirectCheck(),
            new MemlockCheck(),
            new KubernetesCheck(),
            new PerftestCheck());

    private Doctor() {}

    public static DoctorReport run(DoctorInput input) {
        List<CheckResult> results = CHECKS.stream().map(check -> check.run(input)).toList();
        return new DoctorReport(CheckStatus.overall(results.stream().map(CheckResult::status).toList()), results, input.node());
    }
}
