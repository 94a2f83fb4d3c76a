package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.text;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Port-state tools and the verbs ping-pong tests that the corpus has no thread of yet, in their real formats: lshca's
 * table (its README, MrBr-github/lshca), iPXE's ifstat (pasted in iPXE boot logs), ibv_rc_pingpong (ucx#4556 for its
 * rate lines; the failure lines are the verbs examples' own messages).
 */
class PortStateToolsTest {
    @Test
    void lshcaTableNamesTheDevicesWhoseLinkIsDown() {
        LogReport report = text("""
                ---------------------------------------------------------------------------------------------------
                Dev #1
                 Desc: Mellanox Technologies MT28908 Family [ConnectX-6]
                 PN: MCX654106A-HCAT  rev. A5
                 FW: 20.26.0282
                ---------------------------------------------------------------------------------------------------
                  PCI_addr   |  RDMA  | Net  | Numa | LnkStat | IpStat  | Link | Rate | LnkCapWidth | HCA_Type
                ---------------------------------------------------------------------------------------------------
                0000:04:00.0 | mlx5_0 | ib0  |  0   |  actv   | up_ip4  |  IB  | 200  |   x16 G3    |  MT4123
                0000:04:00.1 | mlx5_1 | ib1  |  0   |  down   |  down   |  IB  | 10*  |   x16 G3    |  MT4123
                """);

        assertThat(report.kind()).isEqualTo("port-state");
        assertThat(report.tool()).isEqualTo("lshca");
        assertThat(report.ports()).extracting(p -> p.port() + " " + p.state()).containsExactly("mlx5_0 actv", "mlx5_1 down");
        assertThat(report.findings()).extracting(Finding::id, Finding::summary).containsExactly(
                org.assertj.core.groups.Tuple.tuple("port-down", "port mlx5_1 is down"));
    }

    @Test
    void ipxeIfstatSaysWhichNicHasNoLink() {
        LogReport report = text("""
                net0: 08:00:27:62:7c:4d using 82540em on PCI00:03.0 (open)
                  [Link:down, TX:0 TXE:0 RX:0 RXE:0]
                  [Link status: Down (http://ipxe.org/38086101)]
                Waiting for link-up on net0... ok
                """);

        assertThat(report.kind()).isEqualTo("port-state");
        assertThat(report.tool()).isEqualTo("ipxe-ifstat");
        assertThat(report.findings()).extracting(Finding::summary).containsExactly("iPXE's net0 (82540em on PCI00:03.0) has no link");
    }

    @Test
    void pingPongIsItsOwnKindAndItsRetryFailureIsTheRetryFinding() {
        LogReport ok = text("""
                  local address:  LID 0x0068, QPN 0x002035, PSN 0xefdd06, GID ::
                  remote address: LID 0x0068, QPN 0x002034, PSN 0xd4cad5, GID ::
                8192000 bytes in 0.01 seconds = 11336.45 Mbit/sec
                1000 iters in 0.01 seconds = 5.78 usec/iter
                """);
        assertThat(ok.kind()).isEqualTo("ibv_pingpong");
        assertThat(ok.findings()).isEmpty();

        LogReport failed = text("""
                  local address:  LID 0x0001, QPN 0x00004a, PSN 0x7f3e2a, GID ::
                  remote address: LID 0x0002, QPN 0x00004b, PSN 0x1d5c0f, GID ::
                Failed status transport retry counter exceeded (12) for wr_id 2
                parse WC failed 1
                """);
        assertThat(failed.kind()).isEqualTo("ibv_pingpong");
        assertThat(failed.findings()).extracting(Finding::id).containsExactly("retry-exceeded", "pingpong-failed");
        assertThat(failed.findings()).noneMatch(f -> f.id().startsWith("perftest"));
    }

    @Test
    void ibdev2netdevPortsAreFacts() {
        LogReport report = text("""
                mlx5_0 port 1 ==> ib0 (Up)
                mlx5_1 port 1 ==> ib1 (Up)
                mlx5_2 port 1 ==> ens1f0np0 (Down)
                """);

        assertThat(report.tool()).isEqualTo("ibdev2netdev");
        assertThat(report.ports()).hasSize(3);
        assertThat(report.findings()).extracting(Finding::summary).containsExactly("port mlx5_2:1 (ens1f0np0) is Down");
    }
}
