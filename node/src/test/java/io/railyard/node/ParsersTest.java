package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ParsersTest {

    @Test
    void rates() {
        assertThat(Rate.parse("200 Gb/sec (4X HDR)").bytesPerSecond()).isEqualTo(25_000_000_000L);
        assertThat(Rate.parse("200 Gb/sec (4X HDR)").width()).isEqualTo("4X HDR");
        assertThat(Rate.parse("2.5 Gb/sec (1X SDR)").bytesPerSecond()).isEqualTo(312_500_000L);
        assertThat(Rate.parse("500 Gb/sec (4X HDR)").bytesPerSecond()).isEqualTo(62_500_000_000L);
        assertThat(Rate.parse("10 Gb/sec (4X)").width()).isEqualTo("4X");
        assertThat(Rate.parse("0 GB/sec").bytesPerSecond()).isZero();
        assertThatThrownBy(() -> Rate.parse("fast")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void linkStates() {
        assertThat(LinkState.parse("4: ACTIVE")).isEqualTo(new LinkState(4, "ACTIVE"));
        assertThat(LinkState.parse("5: LinkUp\n")).isEqualTo(new LinkState(5, "LinkUp"));
        assertThatThrownBy(() -> LinkState.parse("ACTIVE")).hasMessageContaining("<id>: <name>");
        assertThatThrownBy(() -> LinkState.parse("x: ACTIVE")).hasMessageContaining("not a number");
    }

    @Test
    void memlock() {
        assertThat(MemlockLimit.parse("Max locked memory         unlimited            unlimited            bytes").isUnlimited()).isTrue();
        MemlockLimit limited = MemlockLimit.parse("Limit\nMax locked memory         65536                65536                bytes\n");
        assertThat(limited.softBytes()).isEqualTo(65536);
        assertThat(MemlockLimit.describe(65536)).isEqualTo("64 KiB");
        assertThat(MemlockLimit.describe(8L << 20)).isEqualTo("8 MiB");
        assertThatThrownBy(() -> MemlockLimit.parse("Max open files 1024 1024 files")).hasMessageContaining("no 'Max locked memory' row");
    }

    @Test
    void gids() {
        Gid v4 = new Gid(3, "0000:0000:0000:0000:0000:ffff:0a6e:0021", Attr.of(GidType.ROCE_V2), Attr.of("eth1"));
        Gid local = new Gid(1, "fe80:0000:0000:0000:ba3f:d2ff:fea1:2b00", Attr.of(GidType.ROCE_V2), Attr.of("eth1"));
        assertThat(v4.isIpv4()).isTrue();
        assertThat(v4.displayAddress()).isEqualTo("10.110.0.33");
        assertThat(local.isLinkLocal()).isTrue();
        assertThat(local.isIpv4()).isFalse();
        assertThat(new GidTable(java.util.List.of(local, v4)).roceV2Ipv4Index()).hasValue(3);
        assertThat(GidType.parse("RoCE v2")).isEqualTo(GidType.ROCE_V2);
        assertThat(GidType.parse("IB/RoCE v1")).isEqualTo(GidType.IB_ROCE_V1);
    }

    @Test
    void ncclDeviceFilterMatchesAsNcclDoes() {
        NcclDeviceFilter prefix = NcclDeviceFilter.parse("mlx5_1");
        assertThat(prefix.selects("mlx5_1", 1)).isTrue();
        assertThat(prefix.selects("mlx5_10", 1)).isTrue();
        assertThat(prefix.selects("mlx5_2", 1)).isFalse();

        NcclDeviceFilter exact = NcclDeviceFilter.parse("=mlx5_1:1,mlx5_2:1");
        assertThat(exact.selects("mlx5_1", 1)).isTrue();
        assertThat(exact.selects("mlx5_10", 1)).isFalse();
        assertThat(exact.selects("mlx5_1", 2)).isFalse();

        NcclDeviceFilter excluded = NcclDeviceFilter.parse("^mlx5_0");
        assertThat(excluded.selects("mlx5_0", 1)).isFalse();
        assertThat(excluded.selects("mlx5_1", 1)).isTrue();

        assertThatThrownBy(() -> NcclDeviceFilter.parse("mlx5_1:one")).hasMessageContaining("not a number");
    }
}
