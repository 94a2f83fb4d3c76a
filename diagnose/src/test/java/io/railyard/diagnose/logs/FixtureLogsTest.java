package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.file;
import static io.railyard.diagnose.logs.Analyzed.finding;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** Each real log from public threads yields what its thread shows (testdata/logs/README.md). */
class FixtureLogsTest {

    @Test
    void infiniBandWithGpuDirectOnAks() {
        LogReport report = file("logs/nccl-ib-gdr-ok-aks-01.log");

        assertThat(report.kind()).isEqualTo("nccl-log");
        assertThat(report.nccl().transport()).isEqualTo("ib");
        assertThat(report.nccl().gdr()).isTrue();
        assertThat(report.nccl().fallback()).isFalse();
        assertThat(report.nccl().gdrConnections()).isEqualTo(7);
        assertThat(report.hasErrors()).isFalse();
        assertThat(finding(report, "rdma-verified").severity()).isEqualTo(Severity.INFO);
    }

    @Test
    void roceWithGpuDirectDisabled() {
        LogReport report = file("logs/nccl-roce-gdr-disabled-01.log");

        assertThat(report.nccl().transport()).isEqualTo("roce");
        assertThat(report.nccl().hcas()).containsExactly("mlx5_0:1", "mlx5_1:1");
        assertThat(report.nccl().gdr()).isFalse();
        Finding gdr = finding(report, "gdr-disabled");
        assertThat(gdr.severity()).isEqualTo(Severity.WARN);
        assertThat(gdr.evidence()).first().satisfies(e -> {
            assertThat(e.line()).isEqualTo(5);
            assertThat(e.text()).contains("GPU Direct RDMA Disabled for HCA 0 'mlx5_0'");
        });
    }

    @Test
    void silentSocketFallbackAfterTheDriverStopped() {
        LogReport report = file("logs/nccl-socket-fallback-driver-stopped-01.log");

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isTrue();
        assertThat(report.nccl().bootstrapInterface()).isEqualTo("eno1");
        assertThat(finding(report, "socket-fallback").severity()).isEqualTo(Severity.ERROR);
        assertThat(finding(report, "ib-no-device").evidence()).hasSize(2);
        assertThat(report.hasErrors()).isTrue();
    }

    @Test
    void socketsForcedOnLoopback() {
        LogReport report = file("logs/nccl-socket-ib-disabled-lo-01.log");

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isFalse();
        assertThat(report.nccl().gdr()).isFalse();
        assertThat(finding(report, "rdma-disabled").evidence().getFirst().line()).isEqualTo(3);
        assertThat(finding(report, "socket-loopback").severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void retryExceededOnRoce() {
        LogReport report = file("logs/nccl-ib-retry-exceeded-01.log");

        Finding retry = finding(report, "retry-exceeded");
        assertThat(retry.summary()).contains("status 12 RETRY_EXC_ERR (vendor error 129)");
        assertThat(retry.remedy()).contains("GID index").contains("NCCL_IB_TIMEOUT");
        assertThat(retry.occurrences()).isEqualTo(3);
        assertThat(report.nccl().transport()).isEqualTo("roce");
    }

    @Test
    void localProtectionErrorPointsAtAcs() {
        LogReport report = file("logs/nccl-ib-loc-prot-err-acs-01.log");

        Finding error = finding(report, "local-protection-error");
        assertThat(error.summary()).contains("status 4 LOC_PROT_ERR (vendor error 81)");
        assertThat(error.remedy()).contains("ACS").contains("NCCL_NET_GDR_LEVEL=0");
        assertThat(report.nccl().transport()).isEqualTo("ib");
    }

    @Test
    void pytorchWatchdogTimeout() {
        LogReport report = file("logs/pytorch-nccl-watchdog-timeout-01.log");

        assertThat(report.kind()).isEqualTo("pytorch");
        assertThat(report.nccl()).isNull();
        assertThat(finding(report, "watchdog-timeout").summary()).contains("ALLREDUCE #1580 ran 600060 ms against a 600000 ms timeout");
        assertThat(finding(report, "watchdog-ranks").summary()).contains("2 (0, 4)");
    }

    @Test
    void ncclTestsNearPeak() {
        LogReport report = file("logs/nccl-tests-allreduce-ib-near-peak-01.txt", OptionalDouble.of(800));

        assertThat(report.kind()).isEqualTo("nccl-tests");
        assertThat(report.bandwidth().avgBusGBps()).isEqualTo(84.8558);
        assertThat(report.bandwidth().peakBusGBps()).isEqualTo(96.69);
        assertThat(report.bandwidth().rowCount()).isEqualTo(6);
        assertThat(report.bandwidth().lineRatePercent()).isEqualTo(96.7);
        assertThat(finding(report, "bandwidth-near-line-rate").severity()).isEqualTo(Severity.INFO);
    }

    @Test
    void perftestInGigabits() {
        LogReport report = file("logs/ib-write-bw-gbits-postlist-roce-01.txt");

        assertThat(report.kind()).isEqualTo("perftest");
        assertThat(report.bandwidth().peakGbps()).isEqualTo(0.0);
        assertThat(report.bandwidth().averageGbps()).isEqualTo(0.48);
        assertThat(report.bandwidth().rows()).containsExactly(java.util.List.of(8.0, 224958464.0, 0.0, 0.48));
        assertThat(report.hasErrors()).isFalse();
    }

    @Test
    void ibstatOfAHealthyNdrPort() {
        LogReport report = file("logs/ibstat-ndr-active-01.txt");

        assertThat(report.kind()).isEqualTo("ibstat");
        assertThat(report.ports()).singleElement().satisfies(port -> {
            assertThat(port.port()).isEqualTo("mlx5_5:1");
            assertThat(port.state()).isEqualTo("Active");
            assertThat(port.physicalState()).isEqualTo("LinkUp");
            assertThat(port.rate()).isEqualTo("400");
            assertThat(port.lid()).isEqualTo(987);
            assertThat(port.smLid()).isEqualTo(359);
        });
        assertThat(report.findings()).isEmpty();
    }

    @Test
    void ibvDevinfoOfARoceBondWithMtu1024() {
        LogReport report = file("logs/ibv_devinfo-roce-bond-mtu1024-01.txt");

        assertThat(report.kind()).isEqualTo("ibv_devinfo");
        assertThat(report.ports()).singleElement().satisfies(port -> {
            assertThat(port.state()).isEqualTo("ACTIVE");
            assertThat(port.activeMtu()).isEqualTo(1024);
            assertThat(port.linkLayer()).isEqualTo("Ethernet");
        });
        assertThat(finding(report, "roce-mtu-below-4096").severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void devicePluginWithoutRdmaCm() {
        LogReport report = file("logs/k8s-rdma-shared-dp-rdma-cm-missing-0-devices-01.log");

        assertThat(report.kind()).isEqualTo("device-plugin");
        assertThat(finding(report, "plugin-rdma-cm-missing").remedy()).startsWith("modprobe rdma_ucm");
        assertThat(finding(report, "plugin-exposes-no-devices").occurrences()).isEqualTo(2);
    }

    @Test
    void ibqueryerrorsOfAFabricWithFaults() {
        LogReport faults = file("ibsim/fattree-faults/ibqueryerrors.txt");
        LogReport clean = file("ibsim/fattree/ibqueryerrors.txt");

        assertThat(faults.kind()).isEqualTo("ibqueryerrors");
        assertThat(finding(faults, "port-errors").summary()).contains("gpu-node-03 mlx5_1 port 1: SymbolErrorCounter=3, LinkDownedCounter=4");
        assertThat(finding(faults, "port-errors").occurrences()).isGreaterThanOrEqualTo(5);
        assertThat(clean.kind()).isEqualTo("ibqueryerrors");
        assertThat(clean.findings()).isEmpty();
    }

    @Test
    void perfqueryCounters() {
        LogReport report = file("ibsim/fattree-faults/perfquery-leaf-04-p2.txt");

        assertThat(report.kind()).isEqualTo("ibqueryerrors");
        assertThat(finding(report, "port-errors").summary()).contains("PortRcvErrors=57", "LocalLinkIntegrityErrors=2");
        assertThat(report.ports()).singleElement().satisfies(p -> assertThat(p.errors()).containsEntry("PortXmitData", 2664L));
    }
}
