#!/usr/bin/env bash
# Where `railyard fabric -o json` spends a cold run on a large fabric: read, parse, topology, health and JSON, each timed
# in a fresh JVM with the launcher's flags for fabric, RUNS times; prints the medians (ms). Same shapes as fabric-vs-awk.sh.
#   bench/fabric-phases.sh [HOSTS] [RUNS] [RAILS LEAVES SPINES CORES UPLINKS]
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hosts=${1:-2000}
runs=${2:-7}
topology=$(synthetic_fabric "$hosts" "${@:3}")
for _ in $(seq "$runs"); do
  "$JAVA_HOME/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:InitialRAMPercentage=6 -XX:NewRatio=1 \
    -cp "bench/target/classes:$cp" io.railyard.bench.FabricPhases "$topology"
done > "$work/runs"
line="$hosts hosts, $runs cold runs, medians (ms):"
for phase in read parse topology health json; do
  line+=" $phase $(grep -o "$phase [0-9]*" "$work/runs" | cut -d' ' -f2 | median)"
done
echo "$line"
