package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.finding;
import static io.railyard.diagnose.logs.Analyzed.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** Synthetic logs, one per rule, in the formats of the NCCL versions and tools that print them. */
class RulesTest {
    private static final String P = "gpu-a:1234:5678 [0] NCCL INFO ";
    private static final String W = "gpu-a:1234:5678 [0] transport/net_ib.cc:1295 NCCL WARN ";

    @Test
    void versionAndBootstrapInEveryFormat() {
        assertThat(text("NCCL version 2.18.5+cuda12.2\n" + P + "Bootstrap : Using eth0:10.0.0.1<0>\n").nccl())
                .satisfies(n -> {
                    assertThat(n.version()).isEqualTo("2.18.5");
                    assertThat(n.bootstrapInterface()).isEqualTo("eth0");
                });
        assertThat(text(P + "NCCL version 2.23.4+cuda12.6\n" + P + "Bootstrap: Using eth1:10.0.0.2<0>\n").nccl())
                .satisfies(n -> {
                    assertThat(n.version()).isEqualTo("2.23.4");
                    assertThat(n.bootstrapInterface()).isEqualTo("eth1");
                });
    }

    @Test
    void ibInitLinesDecideAFragmentWithoutChannelLinesAndTheOobSocketLineDoesNotMakeItSocket() {
        LogReport report = text(P + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
                + P + "NET/Socket : Using [0]ib0:10.0.0.1<0>\n");

        assertThat(report.nccl().transport()).isEqualTo("ib");
        assertThat(report.nccl().fallback()).isFalse();
        assertThat(finding(report, "network-inferred").evidence()).singleElement()
                .satisfies(e -> assertThat(e.text()).contains("NET/IB : Using [0]mlx5_0:1/IB"));
        assertThat(RdmaVerdict.of(P + "NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n", false).verified()).isTrue();
    }

    @Test
    void roceInitLineWithRelaxedOrderingIsRoce() {
        assertThat(text(P + "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n").nccl().transport())
                .isEqualTo("roce");
    }

    @Test
    void socketInitWithIbNotFoundIsAFallbackInAFragment() {
        String fragment = P + "NET/IB : No device found.\n" + P + "NET/Socket : Using [0]ens3:10.0.0.1<0>\n";
        LogReport report = text(fragment);

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isTrue();
        assertThat(finding(report, "ib-no-device").evidence()).isNotEmpty();
        assertThat(RdmaVerdict.of(fragment, true).verified()).isFalse();
    }

    @Test
    void nccl23RingLinesAndSocketLineWithoutTheSpaceAreRead() {
        LogReport report = text("gpu-a:1234:5678 [0] NCCL INFO NET/Socket: Using [0]eth0:10.0.0.1<0>\n"
                + "gpu-a:1234:5678 [0] NCCL INFO Ring 00 : 0 -> 1 via NET/Socket/0\n");

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().netConnections()).isEqualTo(1);
    }

    @Test
    void ibSetUpButSocketChannelsIsAFallback() {
        LogReport report = text(P + "NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
                + P + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isTrue();
    }

    @Test
    void queuePairLinesWithAGidIndexAreRoceAndAShortMtuIsAFinding() {
        LogReport report = text(P + "NET/IB: Dev 0 Port 1 qpn 58 mtu 3 GID 3 (0/FFFF0A0A0A01)\n");

        assertThat(report.nccl().transport()).isEqualTo("roce");
        assertThat(finding(report, "mtu").summary()).contains("1024 bytes, not 4096");
        assertThat(finding(report, "mtu").remedy()).contains("netdev MTU");
        LogReport ib = text(P + "NET/IB: Dev 1 Port 1 qpn 1032 mtu 5 LID 17\n");
        assertThat(ib.nccl().transport()).isEqualTo("ib");
        assertThat(ib.findings()).noneMatch(f -> f.id().equals("mtu"));
    }

    @Test
    void bootstrapThatCannotConnectNamesTheInterfaceProblem() {
        LogReport linkLocal = text(W.replace("transport/net_ib.cc:1295", "misc/socket.cc:484")
                + "socketStartConnect: Connect to 169.254.3.1<45213> failed : Software caused connection abort\n");
        LogReport docker = text(P.replace("NCCL INFO ", "NCCL INFO ") + "Call to connect returned Connection refused, retrying\n"
                + W.replace("transport/net_ib.cc:1295", "misc/socket.cc:484") + "socketStartConnect: Connect to 172.17.0.1<39505> failed : Connection timed out\n");

        assertThat(finding(linkLocal, "bootstrap-connect").summary()).contains("link-local address 169.254.3.1");
        assertThat(finding(linkLocal, "bootstrap-connect").remedy()).contains("NCCL_SOCKET_IFNAME");
        assertThat(finding(docker, "bootstrap-connect").summary()).contains("docker0");
        assertThat(linkLocal.hasErrors()).isTrue();
    }

    @Test
    void awsOfiPluginWithTheEfaProviderIsThePluginEvenWithoutUsingNetwork() {
        LogReport report = text(P + "NET/OFI Initializing aws-ofi-nccl 1.7.4-aws\n" + P + "NET/OFI Selected Provider is efa (found 4 nics)\n"
                + P + "NET/OFI GPUDirect RDMA support is enabled\n");

        assertThat(report.nccl().transport()).isEqualTo("plugin");
        assertThat(report.nccl().plugin()).isEqualTo("AWS Libfabric");
        assertThat(report.nccl().rdma()).isTrue();
        assertThat(report.nccl().gdr()).isTrue();
        assertThat(finding(report, "network-inferred").evidence().getFirst().text()).contains("Selected Provider is efa");
        assertThat(text(P + "Using network AWS Libfabric\n" + P + "NET/OFI GPUDirect RDMA is disabled\n").nccl().gdr()).isFalse();
    }

    @Test
    void ibextPluginMissingItsSymbolFallsBackToNcclsOwnIb() {
        LogReport report = text(P + "NET/Plugin: Failed to find ncclNetPlugin_v5 symbol.\n"
                + P + "NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n");

        assertThat(report.nccl().transport()).isEqualTo("ib");
        assertThat(report.nccl().fallback()).isFalse();
    }

    @Test
    void noVerbsLibraryIsASilentFallback() {
        LogReport report = text(W.replace("transport/net_ib.cc:1295", "misc/ibvwrap.cc:63") + "Failed to open libibverbs.so[.1]\n"
                + P + "NET/Socket : Using [0]eth0:10.0.0.1<0>\n" + P + "Using network Socket\n");

        assertThat(report.nccl().fallback()).isTrue();
        assertThat(finding(report, "no-verbs-library").remedy()).contains("rdma-core");
        assertThat(finding(report, "socket-fallback").severity()).isEqualTo(Severity.ERROR);
    }

    @Test
    void pluginFailingToInitializeIsAFallback() {
        LogReport report = text(P + "Failed to initialize NET plugin IB\n" + P + "Initialized NET plugin Socket\n"
                + P + "Assigned NET plugin Socket to comm\n" + P + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isTrue();
    }

    @Test
    void hpcxPluginWithGpuDirect() {
        LogReport report = text(P + "NET/Plugin : Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n"
                + P + "P2P plugin IBext_v8\n" + P + "NET/IB : Using [0]mlx5_0:1/IB/SHARP [1]mlx5_1:1/IB/SHARP [RO]; OOB ib0:10.1.0.1<0>\n"
                + P + "Using network IBext_v8\n" + P + "Channel 00/1 : 0[0] -> 8[0] [send] via NET/IBext_v8/0/GDRDMA\n");

        assertThat(report.nccl().transport()).as("IBext is NCCL's IB transport as a plugin").isEqualTo("ib");
        assertThat(report.nccl().plugin()).isEqualTo("IBext_v8");
        assertThat(report.nccl().gdr()).isTrue();
        assertThat(report.nccl().hcas()).containsExactly("mlx5_0:1", "mlx5_1:1");
        assertThat(report.nccl().rdma()).isTrue();
    }

    @Test
    void gpuBeyondTheGdrLevelAndNoPeerMemory() {
        LogReport distance = text(P + "NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.1.0.1<0>\n" + P + "Using network IB\n"
                + P + "GPU Direct RDMA Disabled for GPU 86000 / HCA 0 (distance 5 > 4), read 0\n");
        LogReport noModule = text(P + "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n" + P + "Using network IB\n");

        assertThat(finding(distance, "gdr-distance").summary()).contains("distance 5", "allows (4)");
        assertThat(distance.nccl().gdr()).isFalse();
        assertThat(finding(noModule, "gdr-no-module").remedy()).contains("nvidia_peermem");
    }

    @Test
    void completionStatusesOfEveryVersion() {
        assertThat(text(W + "NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129\n").findings())
                .extracting(Finding::id).contains("retry-exceeded");
        assertThat(finding(text(W + "NET/IB: Got completion from peer 10.0.0.2<3303> with status=IBV_WC_RNR_RETRY_EXC_ERR(13) "
                + "opcode=IBV_WC_SEND(0) len=0 vendor_err=135 hca mlx5_0\n"), "rnr-retry-exceeded").summary()).contains("vendor error 135");
        assertThat(finding(text(W + "NET/IB : Got completion from peer 10.0.0.2<3303> with status=5 opcode=0 len=0 vendor err 249\n"),
                "wr-flush-error").severity()).isEqualTo(Severity.INFO);
    }

    @Test
    void linkLocalGidOnRoce() {
        LogReport report = text(P + "NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>\n" + P + "Using network IB\n"
                + W + "NET/IB : Got completion from peer 10.0.0.2<3303> with status=12 opcode=0 len=0 vendor err 129 (Send) "
                + "localGid ::ffff:0.0.0.0 remoteGids fe80::1\n"
                + W + "NET/IB : Got completion from peer 10.0.0.2<3303> with status=12 opcode=0 len=0 vendor err 129 (Send) "
                + "localGid fe80::ba3f:d2ff:fea1:2b00 remoteGids fe80::1\n");

        assertThat(finding(report, "link-local-gid").summary()).contains("fe80::ba3f:d2ff:fea1:2b00");
    }

    @Test
    void failedVerbsCalls() {
        assertThat(text(W + "NET/IB : ibv_reg_mr_iova2 failed with error Cannot allocate memory\n").findings())
                .extracting(Finding::id).contains("memlock");
        assertThat(text(W + "NET/IB : ibv_reg_dmabuf_mr failed with error Operation not supported\n").findings())
                .extracting(Finding::id).contains("dmabuf-registration-failed");
        assertThat(text(W + "NET/IB : ibv_modify_qp failed with error Connection timed out\n").findings())
                .extracting(Finding::id).contains("unroutable-gid");
        assertThat(finding(text(W + "Call to ibv_create_qp failed with error Cannot allocate memory\n"), "verbs-call-failed").summary())
                .contains("Call to ibv_create_qp failed");
    }

    @Test
    void ibstatPortsWithoutASubnetManagerOrALink() {
        LogReport report = text("""
                CA 'mlx5_0'
                	CA type: MT4129
                	Port 1:
                		State: Initializing
                		Physical state: LinkUp
                		Rate: 400
                		Base lid: 65535
                		SM lid: 0
                		Link layer: InfiniBand
                CA 'mlx5_1'
                	Port 1:
                		State: Down
                		Physical state: Polling
                		Link layer: InfiniBand
                """);

        assertThat(report.kind()).isEqualTo("ibstat");
        assertThat(finding(report, "no-subnet-manager").summary()).contains("mlx5_0:1 is Initializing with the link up");
        assertThat(finding(report, "port-down").summary()).isEqualTo("port mlx5_1:1 is Down (Polling): no link partner");
        assertThat(finding(report, "port-down").evidence().getFirst().line()).isEqualTo(11);
    }

    @Test
    void perftestInMegabytesBelowLineRateWithSmallRoceMtu() {
        String perftest = """
                                    RDMA_Write BW Test
                 Mtu             : 1024[B]
                 Link type       : Ethernet
                 GID index       : 3
                ---------------------------------------------------------------------------------------
                 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
                 65536      5000             9000.00            8800.00              0.140800
                ---------------------------------------------------------------------------------------
                """;
        LogReport report = Analyzed.bytes(perftest.getBytes(StandardCharsets.UTF_8), OptionalDouble.of(200));

        assertThat(report.bandwidth().peakGbps()).isEqualTo(72.0);
        assertThat(report.bandwidth().averageGbps()).isEqualTo(70.4);
        assertThat(report.bandwidth().lineRatePercent()).isEqualTo(36.0);
        assertThat(finding(report, "bandwidth-below-line-rate").summary()).contains("72.0 Gb/s is 36% of the 200 Gb/s line rate");
        assertThat(finding(report, "roce-mtu-below-4096").severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void perftestErrors() {
        LogReport report = text("                    RDMA_Write BW Test\n Completion with error at client\n"
                + " Failed status 12: wr_id 0 syndrom 0x81\n");

        assertThat(finding(report, "perftest-completion-error").summary()).contains("status 12 (RETRY_EXC_ERR");
    }

    @Test
    void ncclTestsWrongResultsAndLowBandwidth() {
        String rows = """
                #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
                #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
                   134217728      33554432     float     sum      -1   5000.0   26.84   50.33      2   5010.0   26.79   50.23      0
                # Avg bus bandwidth    : 40.1
                """;
        LogReport report = Analyzed.bytes(rows.getBytes(StandardCharsets.UTF_8), OptionalDouble.of(800));

        assertThat(finding(report, "nccl-tests-wrong-results").severity()).isEqualTo(Severity.ERROR);
        assertThat(finding(report, "bandwidth-below-line-rate").summary()).contains("50.3 GB/s is 50% of the 800 Gb/s line rate");
    }

    @Test
    void manyRanksInterleavedWithoutPrefixes() {
        StringBuilder log = new StringBuilder();
        for (int rank = 0; rank < 64; rank++) {
            log.append("[").append(rank % 8).append("] NCCL INFO Channel 00/0 : ").append(rank).append("[0] -> ").append((rank + 8) % 64)
                    .append("[0] [send] via NET/IB/").append(rank % 8).append("/GDRDMA\n");
            log.append("pod-").append(rank).append(" | ").append(rank % 8).append(" NCCL INFO Using network IB\n");
        }

        LogReport report = text(log.toString());

        assertThat(report.nccl().transport()).isEqualTo("ib");
        assertThat(report.nccl().netConnections()).isEqualTo(64);
        assertThat(report.nccl().gdrConnections()).isEqualTo(64);
    }

    @Test
    void plainTextIsUnknownWithNothingToReport() {
        LogReport report = text("hello\nworld\n");

        assertThat(report.kind()).isEqualTo("unknown");
        assertThat(report.findings()).isEmpty();
        assertThat(report.nccl()).isNull();
        assertThat(report.bandwidth()).isNull();
    }

    @Test
    void rdmaLinkOutputNamesAPortThatIsNotActiveAndSoftRoce() {
        LogReport report = text("link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 3 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP\n"
                + "link mlx5_1/1 state DOWN physical_state DISABLED netdev ens2f1\nlink rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0\n");

        assertThat(report.kind()).isEqualTo("rdma-link");
        assertThat(finding(report, "port-down").summary()).isEqualTo("port mlx5_1/1 is DOWN (physical_state DISABLED)");
        assertThat(finding(report, "port-down").occurrences()).isEqualTo(1);
        assertThat(finding(report, "soft-rdma").summary()).startsWith("rxe0 is Soft-RoCE (rxe)");
    }

    @Test
    void openMpiOpenibWarningNamesTheDeviceFromTheLinesAfterIt() {
        LogReport report = text("WARNING: There is at least non-excluded one OpenFabrics device found,\nbut there are no active ports detected"
                + " (or Open MPI was unable to use them).\n\n  Local host:   gpu-a\n  Local device: mlx5_3\n");

        assertThat(report.kind()).isEqualTo("openmpi");
        assertThat(finding(report, "openmpi-openib").summary()).isEqualTo("Open MPI could not use mlx5_3 through its openib BTL");
        assertThat(finding(report, "openmpi-openib").remedy()).contains("--mca pml ucx");
    }

    @Test
    void ucxRegistrationOutOfLockedMemoryIsTheMemlockLimit() {
        LogReport report = text("[1652739463.054681] [cn0022:4071024:0]   ib_md.c:309 UCX  ERROR mlx5_1: ibv_reg_mr(address=0x7f0, length=4096,"
                + " access=0xf) failed: Cannot allocate memory\n");

        assertThat(finding(report, "ucx-memlock").summary()).isEqualTo("UCX could not register memory on mlx5_1: Cannot allocate memory,"
                + " the locked-memory limit (ulimit -l)");
    }

    @Test
    void sriovGuidsAllZeroOrRejectedNameTheFunction() {
        assertThat(finding(text("error adding container to network \"ib\": infiniBand SRI-OV CNI failed to configure VF \"VF ib3 GUID is not valid\"\n"),
                "sriov-guid").summary()).startsWith("the virtual function ib3 has no valid GUID");
        assertThat(finding(text("    device                 node GUID\n    ------              ----------------\n    mlx5_4              0000000000000000\n"),
                "sriov-guid").summary()).startsWith("the virtual function mlx5_4");
        assertThat(text("    mlx5_0              506b4b0300285028\n").findings()).isEmpty();
    }

    @Test
    void ibstatStoppedByIbpanicSaysWhichDeviceAndThatTheRestIsMissing() {
        LogReport report = text("ibpanic: [8371] main: stat of IB device 'mlx5_an0' failed: No such file or directory\n");

        assertThat(report.kind()).isEqualTo("ibstat");
        assertThat(finding(report, "ibstat-failed").summary())
                .isEqualTo("ibstat stopped at mlx5_an0: No such file or directory; the devices after it are not shown");
    }

    @Test
    void ringsThatSayGdrZeroTurnGpuDirectOff() {
        assertThat(text(P + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/4\n" + P + "Connected all rings, use ring PXN 0 GDR 0\n").nccl().gdr()).isFalse();
        assertThat(text(P + "Connected all rings, use ring PXN 0 GDR 1\n" + P + "Using network IB\n").nccl().gdr()).isTrue();
    }

    @Test
    void ranksOnDifferentNetworksAreAFinding() {
        LogReport report = text(P + "Using network IB\n" + P + "Using network Socket\n");

        assertThat(finding(report, "mixed-networks").summary()).startsWith("ranks chose different networks (IB and Socket)");
        assertThat(text(P + "Using network IB\n" + P + "Using network IB\n").findings()).extracting(Finding::id).doesNotContain("mixed-networks");
    }

    @Test
    void efaWithoutAProviderAndIpv6LinkLocalBootstrap() {
        assertThat(finding(text("libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list\n"),
                "ofi-no-provider").remedy()).contains("vpc.amazonaws.com/efa");
        assertThat(finding(text("gpu-a:1:2 [5] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to fe80::966d:ae03:a2:8cf0%ib1<17943> failed"
                + " : Software caused connection abort\n"), "bootstrap-connect").summary()).contains("IPv6 link-local address fe80::966d:ae03:a2:8cf0%ib1");
    }

    @Test
    void ncclTestsRunUnderNcclDebugKeepsItsKindAndFillsTheNcclFacts() {
        LogReport report = text("#  Rank  0 Group  0 Pid   2832 on   testgpu1 device  0 [0x03] NVIDIA A100-PCIE-40GB\n"
                + P + "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ibs65:10.10.10.101<0>\n" + P + "Using network IB\n");

        assertThat(report.kind()).isEqualTo("nccl-tests");
        assertThat(report.nccl().transport()).isEqualTo("ib");
    }

    @Test
    void anHcaVerbsCannotOpenIsAFallbackCause() {
        LogReport report = text("gpu-a:1:2 [0] NCCL WARN NET/IB : Unable to open device mlx5_0\n" + P + "NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                + P + "Using network Socket\n");

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isTrue();
        assertThat(finding(report, "ib-init-failed").evidence().getFirst().line()).isEqualTo(1);
    }

    @Test
    void aSharedDevicePluginResourceWithoutDevicesIsNamed() {
        LogReport report = text("2023/09/02 06:23:37 Warning: no Rdma Devices were found for resource hpc_shared_devices_b\n"
                + "2023/09/02 06:23:37 Resource: &{ResourceName:hpc_shared_devices_c ResourcePrefix:rdma RdmaHcaMax:1000 Devices:[]}\n");

        assertThat(report.kind()).isEqualTo("device-plugin");
        assertThat(finding(report, "plugin-exposes-no-devices").summary()).endsWith("resource hpc_shared_devices_b");
    }

    @Test
    void ibportstateNamesADisabledSwitchPortByLidAndPort() {
        LogReport report = text("# Port info: Lid 2 port 24\nLinkState:.......................Down\n"
                + "PhysLinkState:...................Disabled\nLinkSpeedActive:.................2.5 Gbps\n"
                + "# Port info: Lid 2 port 1\nLinkState:.......................Active\nPhysLinkState:...................LinkUp\n");

        assertThat(report.kind()).isEqualTo("ibportstate");
        assertThat(report.findings()).filteredOn(f -> f.id().equals("port-down")).singleElement().satisfies(f -> {
            assertThat(f.summary()).isEqualTo("port Lid 2 port 24 is Down (Disabled)");
            assertThat(f.remedy()).contains("ibportstate LID PORT enable");
        });
    }

    @Test
    void anIbextPluginStaysThePluginWhenOnlyWatchdogOutputAndItsCompletionErrorFollow() {
        LogReport report = text(P + "P2P plugin IBext_v8\n"
                + "[rank0]:[E1127 10:01:02.123456 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
                + "WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n"
                + "Last error:\n"
                + "NET/IB : Got completion from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, vendor err 129\n");

        assertThat(report.nccl().plugin()).isEqualTo("IBext_v8");
        assertThat(report.nccl().transport()).isEqualTo("ib");
        assertThat(report.findings()).extracting(Finding::id).contains("retry-exceeded", "watchdog-timeout");
    }

    @Test
    void aUsingNetworkLineWithTheNextLineJoinedOntoItNamesOnlyTheNetwork() {
        LogReport report = text(P + "Using network IBext_v8 gpu-b:4321:8765 [1] NCCL INFO Using network IBext_v8\n");

        assertThat(report.nccl().plugin()).isEqualTo("IBext_v8");
        assertThat(text(P + "Using network AWS Libfabric\n").nccl().plugin()).isEqualTo("AWS Libfabric");
    }

    @Test
    void theOfiPluginsFailedCompletionIsAFindingThatPointsAtTheSecurityGroup() {
        // the format of aws-ofi-nccl's NCCL_OFI_WARN for an error completion, with the EFA provider's text for a peer it cannot reach
        LogReport report = text("ip-10-0-1-5:118:240 [3] ofi_process_cq:196 NCCL WARN NET/OFI Request 0x7f3c2c0b2d80 completed with error. "
                + "RC: 103. Error: 4126 (Unresponsive receiver (reachable by EFA device but handshake failed)). Completed length: 0\n");

        assertThat(finding(report, "ofi-completion-error").summary()).contains("RC: 103. Error: 4126 (Unresponsive receiver");
        assertThat(finding(report, "ofi-completion-error").remedy()).contains("security group");
        assertThat(report.findings()).extracting(Finding::id).doesNotContain(UnexplainedErrors.ID);
    }
}
