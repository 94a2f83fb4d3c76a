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
        StringBuilder json = new StringBuilder("""
                {
                  "nccl_version": "2.29.1",
                  "cuda_runtime_version": 13000,
                  "cuda_driver_version": 13000,
                  "timestamp": "2025-12-19 13:06:53",
                  "communicators_count": 1,
                  "communicators": [
                    {
                      "hash": "0xae94423cfbb2ef4a",
                      "secondary_hash": "0xb7e7187447156001:0xb8242ed28a71381e",
                      "size": %d,
                      "ranks_count": %d,
                      "missing_ranks_count": 0,
                      "ranks": [
                """.formatted(ranks, ranks));
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
        return json.append("""
                      ],
                      "missing_ranks": []
                    }
                  ],
                  "ras": {
                    "collection_time_sec": 0.000,
                    "timeouts_count": 0
                  }
                }
                """).toString();
    }
}
