#!/usr/bin/env bash
# The TrainingJob operator at scale on the fabric8 CRUD mock API server, which runs in a process of its own: time from a
# job's creation to all its pods (8, 128 and LARGEST nodes; the largest in three rounds, each beside a plain client
# creating as many pods on the same server, and the median of their ratios), API requests per reconcile by verb, requests over a steady state, the operator's heap,
# and 100 concurrent 8-node jobs. NODES RDMA nodes and OTHER_PODS pods of no job are created first: the heap is then the
# operator's with them in the cluster.
#   bench/operator-scale.sh [STEADY_SECONDS] [LARGEST] [NODES] [OTHER_PODS]   (defaults 60, 1024, 0, 0)
steady=${1:-60}
largest=${2:-1024}
nodes=${3:-0}
others=${4:-0}
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$work"' EXIT
start_mock_server
"$JAVA_HOME/bin/java" -Xmx4g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.OperatorScale \
  "$mock_url" "$steady" "$largest" "$nodes" "$others" 2>/dev/null | grep -E '^(peer|[0-9]+-node|steady|heap|100 )'
