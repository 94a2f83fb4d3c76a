#!/usr/bin/env bash
# railyard preflight over a 256-node ring (8 HCAs each) on the fabric8 CRUD mock API server with instant results: the
# sweep's wall time, when each round's pods were created, the command's API requests by verb, and a plain client
# creating 256 pods on the same server as a peer.
#   bench/preflight-scale.sh [NODES] [DEVICES] [RUNS]
nodes=${1:-256}
devices=${2:-8}
runs=${3:-3}
. "$(dirname "$0")/harness.sh"
for run in $(seq "$runs"); do
  echo "run $run"
  "$JAVA_HOME/bin/java" -Xmx1g -Drailyard.repo=. -cp "bench/target/classes:$cp" io.railyard.bench.PreflightScale "$nodes" "$devices" 2>/dev/null \
    | grep -E '^(peer|sweep|PASS|FAIL|  )'
done
