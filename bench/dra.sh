#!/usr/bin/env bash
# The DRA driver on an example node against the fabric8 CRUD mock API server: NodePrepareResources and
# NodeUnprepareResources latency over the real unix socket (p50/p99, a plain GET of the claim as the peer), and the
# time from a port going down or up to the ResourceSlice saying so.
#   bench/dra.sh [CLAIMS] [PORT_CHANGES] [RUNS]
claims=${1:-2000}
changes=${2:-10}
runs=${3:-3}
. "$(dirname "$0")/harness.sh"
for run in $(seq "$runs"); do
  "$JAVA_HOME/bin/java" -Xmx512m -cp "bench/target/classes:$cp" io.railyard.agent.dra.DraBench "$claims" "$changes" 2>/dev/null \
    | grep -E '^(NodePrepare|peer|port change)'
done
