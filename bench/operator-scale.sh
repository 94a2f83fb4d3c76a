#!/usr/bin/env bash
# The TrainingJob operator at scale on the fabric8 CRUD mock API server: time from a job's creation to all its pods
# (8, 128, 1,024 nodes; the 1,024 also as a ratio to a plain client creating as many pods on the same server), API
# requests per reconcile by verb, requests over a steady state, heap, and 100 concurrent 8-node jobs.
# NODES RDMA nodes and OTHER_PODS pods of no job are created first: the heap is then the operator's with them in the cluster.
#   bench/operator-scale.sh [STEADY_SECONDS] [LARGEST] [NODES] [OTHER_PODS]   (LARGEST: the largest gang and the plain
#   client's pods, default 1024; NODES and OTHER_PODS default 0)
steady=${1:-60}
largest=${2:-1024}
nodes=${3:-0}
others=${4:-0}
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" -Xmx4g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.OperatorScale "$steady" "$largest" "$nodes" "$others" 2>/dev/null \
  | grep -E '^(peer|[0-9]+-node|steady|heap|100 )'
