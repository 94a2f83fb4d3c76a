#!/usr/bin/env bash
# A gang routed around a failed node, on the fabric8 CRUD mock API server with the tests' played scheduler: for 128-
# and 1,024-node gangs, the time from a member's node turning RdmaPortDown True to every pod of the new run created
# (median of RUNS, and as a ratio to a plain client creating as many pods on the same server), the operator's requests
# for a restart by verb, and its requests over a steady interval of the running gangs.
#   bench/gang-restart.sh [RUNS] [STEADY_SECONDS]
runs=${1:-3}
steady=${2:-30}
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" -Xmx3g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.GangRestartBench "$runs" "$steady" 2>/dev/null \
  | grep -E '^([0-9]+-node|steady)'
