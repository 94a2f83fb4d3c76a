#!/usr/bin/env bash
# A gang's node fault restarted in place against recreated, in the same run, on the fabric8 CRUD mock API server (in a
# process of its own) with the tests' played scheduler: the time from a member's node turning RdmaPortDown True to every
# rank's pod on the new attempt (median of RUNS), and the operator's requests for the last restart by verb (goal for
# 1,024 nodes in place: < 2 s, about 1,024 PATCH, 1 DELETE).
# STRATEGIES is InPlace, Recreate or both (the default, one after the other).
#   bench/in-place-restart.sh [NODES] [RUNS] [STRATEGIES]
nodes=${1:-1024}
runs=${2:-3}
strategies=${3:-InPlace,Recreate}
case "$strategies" in
  InPlace | Recreate | InPlace,Recreate | Recreate,InPlace) ;;
  *) echo "in-place-restart.sh: STRATEGIES is InPlace, Recreate or InPlace,Recreate, not '$strategies'" >&2; exit 2 ;;
esac
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$work"' EXIT
start_mock_server
"$JAVA_HOME/bin/java" -Xmx3g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.InPlaceRestartBench \
  "$mock_url" "$nodes" "$runs" "$strategies" 2>/dev/null | grep -E '^(InPlace|Recreate),'
