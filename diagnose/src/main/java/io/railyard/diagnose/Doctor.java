package io.railyard.diagnose;

import java.util.List;

/** Runs every check, in the order a person would debug a node: drivers, devices, links, then what NCCL sees. */
public final class Doctor {
    public static final List<Check> CHECKS = List.of(
            new Check(DriverCheck.ID, DriverCheck::run),
            new Check(DevicesCheck.ID, DevicesCheck::run),
            new Check(SubnetManagerCheck.ID, SubnetManagerCheck::run),
            new Check(LinkCheck.ID, LinkCheck::run),
            new Check(MtuCheck.ID, MtuCheck::run),
            new Check(GidCheck.ID, GidCheck::run),
            new Check(TrafficClassCheck.ID, TrafficClassCheck::run),
            new Check(PKeyCheck.ID, PKeyCheck::run),
            new Check(NcclEnvCheck.ID, NcclEnvCheck::run),
            new Check(NcclTuningCheck.ID, NcclTuningCheck::run),
            new Check(GpuNicAffinityCheck.ID, GpuNicAffinityCheck::run),
            new Check(VirtualTopologyCheck.ID, VirtualTopologyCheck::run),
            new Check(GpuDirectCheck.ID, GpuDirectCheck::run),
            new Check(MemlockCheck.ID, MemlockCheck::run),
            new Check(KubernetesCheck.ID, KubernetesCheck::run),
            new Check(PerftestCheck.ID, PerftestCheck::run));

    private Doctor() {}

    public static DoctorReport run(DoctorInput input) {
        List<CheckResult> results = CHECKS.stream().map(check -> check.run(input)).toList();
        return new DoctorReport(CheckStatus.overall(results.stream().map(CheckResult::status).toList()), results, input.node());
    }
}
