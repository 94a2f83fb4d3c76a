#!/usr/bin/env bash
# The DRA driver on an example node against the fabric8 CRUD mock API server, run in a process of its own as an API
# server is: NodePrepareResources and NodeUnprepareResources latency over the real unix socket (p50/p99, a plain GET
# of the claim as the peer), and the time from a port going down or up to the ResourceSlice saying so.
#   bench/dra.sh [CLAIMS] [PORT_CHANGES] [RUNS]
claims=${1:-2000}
changes=${2:-10}
runs=${3:-3}
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; rm -rf "$work"' EXIT
for run in $(seq "$runs"); do
  # the server serves while its standard input, this fifo, stays open
  mkfifo "$work/in.$run"
  "$JAVA_HOME/bin/java" -XX:+UseSerialGC -cp "bench/target/classes:$cp" io.railyard.bench.MockApiServer <"$work/in.$run" >"$work/url.$run" 2>/dev/null &
  exec 3>"$work/in.$run"
  until [ -s "$work/url.$run" ]; do sleep 0.1; done
  "$JAVA_HOME/bin/java" -XX:+UseSerialGC -Xmx512m -cp "bench/target/classes:$cp" io.railyard.agent.dra.DraBench "$claims" "$changes" \
    "$(head -1 "$work/url.$run")" 2>/dev/null | grep -E '^(NodePrepare|peer|port change)'
  exec 3>&-
  wait
done
