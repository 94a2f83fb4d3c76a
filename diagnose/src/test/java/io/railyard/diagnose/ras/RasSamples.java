package io.railyard.diagnose.ras;

import java.util.function.IntToLongFunction;

/**
 * RAS JSON reports made from the real sample in testdata/ras by changing its numbers only: ranks, hosts, pids and
 * AllReduce counts. Ranks sit eight to a host, 10.0.0.1 upwards.
 */
public final class RasSamples {
    private RasSamples() {}

    public static RasReport allReduce(long... counts) {
        return RasJson.parse(json(counts.length, rank -> counts[rank]));
    }

    public static String json(int ranks, IntToLongFunction allReduce) {
        return json(ranks, 1, allReduce);
    }

    /** @param communicators how many communicators over the same ranks (a 512-GPU job's report is about 1.2 MB) */
    public static String json(int ranks, int communicators, IntToLongFunction allReduce) {
        StringBuilder json = new StringBuilder("""
                {
                  "nccl_version": "2.29.1",
                  "cuda_runtime_version": 13000,
                  "cuda_driver_version": 13000,
                  "timestamp": "2025-12-19 13:06:53",
                  "communicators_count": %d,
                  "communicators": [
                """.formatted(communicators));
        for (int comm = 0; comm < communicators; comm++) {
            communicator(json, comm, ranks, allReduce);
            json.append(comm == communicators - 1 ? "\n" : ",\n");
        }
        return json.append("""
                  ],
                  "ras": {
                    "collection_time_sec": 0.000,
                    "timeouts_count": 0
                  }
                }
                """).toString();
    }

    private static void communicator(StringBuilder json, int comm, int ranks, IntToLongFunction allReduce) {
        json.append("""
                    {
                      "hash": "0xae94423cfbb2ef%02x",
                      "secondary_hash": "0xb7e7187447156001:0xb8242ed28a71381e",
                      "size": %d,
                      "ranks_count": %d,
                      "missing_ranks_count": 0,
                      "ranks": [
                """.formatted(comm, ranks, ranks));
        for (int rank = 0; rank < ranks; rank++) {
            json.append("""
                        {
                          "rank": %d,
                          "host": "10.0.%d.%d",
                          "pid": %d,
                          "cuda_dev": %d,
                          "nvml_dev": %d,
                          "status": {
                            "init_state": 0,
                            "async_error": 0,
                            "finalize_called": false,
                            "destroy_flag": false,
                            "abort_flag": false
                          },
                          "collective_counts": {
                            "Broadcast": 0,
                            "Reduce": 0,
                            "AllGather": 0,
                            "ReduceScatter": 0,
                            "AllReduce": %d
                          }
                        }%s
                """.formatted(rank, rank / 8 / 250, rank / 8 % 250 + 1, 1524344 + rank, rank % 8, rank % 8,
                    allReduce.applyAsLong(rank), rank == ranks - 1 ? "" : ","));
        }
        json.append("""
                      ],
                      "missing_ranks": []
                    }""");
    }
}
