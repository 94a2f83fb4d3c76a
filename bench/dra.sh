#!/usr/bin/env bash
# The DRA driver on an example node, three processes as on a node: the bench plays the kubelet, `railyard agent --dra`
# runs with the DaemonSet's JVM options (deploy/agent/daemonset.yaml, without its image's AOT cache), and the fabric8
# CRUD mock API server runs in a third. NodePrepareResources and NodeUnprepareResources latency over the real unix
# socket (p50/p99 after WARMUP calls, a plain GET of the claim as the peer; and the cold agent's first calls), and the time from a port going down or up to the
# ResourceSlice saying so.
#   bench/dra.sh [CLAIMS] [WARMUP] [PORT_CHANGES] [RUNS]
claims=${1:-2000}
warmup=${2:-5000}
changes=${3:-10}
runs=${4:-3}
. "$(dirname "$0")/harness.sh"
mapfile -t agent_options < <(agent_jvm_options)
work=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; rm -rf "$work"' EXIT
for run in $(seq "$runs"); do
  # the server serves while its standard input, this fifo, stays open
  mkfifo "$work/in.$run"
  "$JAVA_HOME/bin/java" -XX:+UseSerialGC -cp "bench/target/classes:$cp" io.railyard.bench.MockApiServer <"$work/in.$run" >"$work/url.$run" 2>/dev/null &
  exec 3>"$work/in.$run"
  until [ -s "$work/url.$run" ]; do sleep 0.1; done
  if ! "$JAVA_HOME/bin/java" -XX:+UseSerialGC -Xmx512m -cp "bench/target/classes:$cp" io.railyard.bench.DraBench "$claims" "$warmup" "$changes" \
      "$(head -1 "$work/url.$run")" cli/target/railyard.jar "${agent_options[@]}" >"$work/out" 2>"$work/err"; then
    grep -v -E '^(SLF4J|[A-Z][a-z]{2} [0-9]|INFO)' "$work/err" | head -20 >&2
    exit 1
  fi
  cat "$work/out"
  exec 3>&-
  wait
done
