#!/usr/bin/env bash
# NCCL RAS reports of a 512-rank job: parse time of the 1.2 MB JSON (median of 50) against jq on the same file
# (median of RUNS processes), of a verbose text report, and the nccl-watch sidecar's resident memory after 10 and
# 1,000 polls of a fake RAS serving the JSON.
#   bench/nccl-ras.sh [RUNS]
runs=${1:-9}
. "$(dirname "$0")/harness.sh"
command -v jq >/dev/null || { echo "nccl-ras.sh: jq is the peer: apt-get install jq" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
classes="bench/target/classes:$cp"
"$JAVA_HOME/bin/java" -cp "$classes" 'io.railyard.bench.NcclRasBench$Write' "$work/ras.json"
jq_times=()
for _ in $(seq "$runs"); do jq_times+=("$(millis jq empty "$work/ras.json")"); done
"$JAVA_HOME/bin/java" -Xmx1g -cp "$classes" io.railyard.bench.NcclRasBench "$work/ras.json" "${jq_times[@]}" 2>/dev/null
