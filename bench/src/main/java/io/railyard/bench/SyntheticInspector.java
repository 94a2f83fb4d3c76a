package io.railyard.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes an NCCL Inspector dump directory of a given size: one file per process of an 8-GPU node
 * ({@code <host>-pid<pid>.log}), records of the format v4.0 as the plugin writes them, AllReduce, AllGather and
 * ReduceScatter of 1 MiB to 1 GiB in two communicators with P2P sends now and then, the busbw varying by a few percent.
 * Arguments: DIR MEGABYTES.
 */
public final class SyntheticInspector {
    private static final String[] COLLECTIVES = {"AllReduce", "AllGather", "ReduceScatter"};

    private SyntheticInspector() {}

    static String record(int rank, long sn, String collective, long bytes, double busBw, String comm) {
        return String.format(Locale.ROOT, "{\"header\":{\"id\":\"%s\",\"rank\":%d,\"n_ranks\":512,\"nnodes\":64,\"comm_name\":\"%s\"},"
                + "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":\"profiler_plugin\","
                + "\"dump_timestamp_us\":%d,\"hostname\":\"llama-7\",\"pid\":%d},\"coll_perf\":{\"coll\":\"%s\",\"coll_sn\":%d,"
                + "\"coll_msg_size_bytes\":%d,\"coll_exec_time_us\":%d,\"coll_timing_source\":\"kernel_gpu\",\"coll_algobw_gbs\":%.6f,"
                + "\"coll_busbw_gbs\":%.6f}}", comm.startsWith("DP") ? "0x7f8c496ae9f661" : "0x2a3b4c5d6e7f8091", rank, comm,
                1748030377748202L + sn * 350, 1639453 + rank % 8, collective, sn, bytes, Math.max(1, (long) (bytes / busBw / 1e3)), busBw * 0.53, busBw);
    }

    static String p2p(int rank, long sn, long bytes) {
        return String.format(Locale.ROOT, "{\"header\":{\"id\":\"0x5e6f7a8b9c0d1e2f\",\"rank\":%d,\"n_ranks\":512,\"nnodes\":64,\"comm_name\":\"PP\"},"
                + "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":\"profiler_plugin\","
                + "\"dump_timestamp_us\":%d,\"hostname\":\"llama-7\",\"pid\":%d},\"p2p_perf\":{\"p2p\":\"Send\",\"p2p_sn\":%d,\"p2p_peer\":%d,"
                + "\"p2p_msg_size_bytes\":%d,\"p2p_exec_time_us\":%d,\"p2p_timing_source\":\"kernel_gpu\",\"p2p_algobw_gbs\":%.6f,"
                + "\"p2p_busbw_gbs\":%.6f}}", rank, 1748030377748202L + sn * 350, 1639453 + rank % 8, sn, (rank + 8) % 512, bytes,
                bytes / 45_000, 45.0, 45.0);
    }

    public static void main(String[] args) throws IOException {
        Path dir = Files.createDirectories(Path.of(args[0]));
        long bytes = Long.parseLong(args[1]) << 20;
        List<BufferedWriter> files = new ArrayList<>();
        for (int gpu = 0; gpu < 8; gpu++) {
            files.add(Files.newBufferedWriter(dir.resolve("llama-7-pid" + (1639453 + gpu) + ".log"), StandardCharsets.UTF_8));
        }
        long written = 0;
        long records = 0;
        for (long sn = 0; written < bytes; sn++) {
            for (int gpu = 0; gpu < 8; gpu++) {
                int rank = 56 + gpu;
                String line = sn % 50 == 49 ? p2p(rank, sn, 4L << 20)
                        : record(rank, sn, COLLECTIVES[(int) (sn % 3)], 1L << (20 + sn % 11), 380 + (sn * 7 + gpu) % 23,
                                sn % 4 == 0 ? "TP Group 7" : "DP Group 0");
                files.get(gpu).write(line);
                files.get(gpu).write('\n');
                written += line.length() + 1;
                records++;
            }
        }
        for (BufferedWriter file : files) {
            file.close();
        }
        System.out.println(records + " records, " + (written >> 20) + " MiB in 8 files");
    }
}
