#!/usr/bin/env bash
# The TrainingJob operator at scale on the fabric8 CRUD mock API server: time from a job's creation to all its pods
# (8, 128, 1,024 nodes; the 1,024 also as a ratio to a plain client creating as many pods on the same server), API
# requests per reconcile by verb, requests over a steady state, heap, and 100 concurrent 8-node jobs.
#   bench/operator-scale.sh [STEADY_SECONDS] [LARGEST]   (LARGEST: the largest gang and the plain client's pods, default 1024)
steady=${1:-60}
largest=${2:-1024}
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.OperatorScale "$steady" "$largest" 2>/dev/null \
  | grep -E '^(peer|[0-9]+-node|steady|heap|100 )'
