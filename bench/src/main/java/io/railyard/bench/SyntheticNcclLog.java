package io.railyard.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a multi-rank NCCL_DEBUG=INFO log of a given size: 64 ranks on 8 hosts interleaved; per 1000 lines, a few
 * init lines, 100 channel lines over NET/IB with GPUDirect RDMA, 50 of the training script's own lines, and
 * collective traces (NCCL_DEBUG_SUBSYS=COLL), which make up most of a large log.
 * Arguments: FILE MEGABYTES.
 */
public final class SyntheticNcclLog {
    private SyntheticNcclLog() {}

    /** Which kind of line the n-th of every thousand is. */
    private static int bucket(int n) {
        if (n < 7) {
            return n; // init: NET/IB, network, three channel lines, two traces
        }
        if (n < 107) {
            return 2; // channels
        }
        if (n < 157) {
            return 9; // the training script
        }
        return n % 500 == 0 ? 8 : 5; // collective traces, now and then a ring
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        long bytes = Long.parseLong(args[1]) << 20;
        long written = 0;
        long n = 0;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            while (written < bytes) {
                int rank = (int) (n % 64);
                int gpu = rank % 8;
                String prefix = "gpu-node-" + (rank / 8) + ":" + (40000 + rank) + ":" + (41000 + rank) + " [" + gpu + "] NCCL INFO ";
                String line = switch (bucket((int) (n % 1000))) {
                    case 0 -> prefix + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB ib0:10.1." + rank + ".1<0>";
                    case 1 -> prefix + "Using network IB";
                    case 2, 3, 4 -> prefix + "Channel " + String.format("%02d", n % 32) + "/0 : " + rank + "[" + gpu + "] -> "
                            + ((rank + 8) % 64) + "[" + gpu + "] [send] via NET/IB/" + (gpu / 2) + "/GDRDMA";
                    case 5, 6 -> prefix + "AllReduce: opCount " + Long.toHexString(n) + " sendbuff 0x7f2a3c000000 recvbuff 0x7f2a3c000000 "
                            + "count 466119168 datatype 7 op 0 root 0 comm 0x55cc8aa86c70 [nranks=64] stream 0x55cc8b0e4a10";
                    case 7 -> prefix + "comm 0x55cc8aa86c70 rank " + rank + " nranks 64 cudaDev " + gpu + " nvmlDev " + gpu
                            + " busId " + (0x1b + gpu) + "000 commId 0x65e0bd6ee7449db4 - Init COMPLETE";
                    case 8 -> prefix + "Connected all rings";
                    default -> "[rank" + rank + "]: epoch 3 step " + n + " loss 2.3114 lr 0.00031 tokens/s 181230";
                };
                byte[] encoded = (line + "\n").getBytes(StandardCharsets.US_ASCII);
                out.write(encoded);
                written += encoded.length;
                n++;
            }
        }
    }
}
