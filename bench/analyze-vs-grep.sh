#!/usr/bin/env bash
# `railyard analyze` on a large multi-rank NCCL log against `grep -c 'NCCL INFO'` on the same file, interleaved runs,
# JVM start included, run as users run it (./railyard). Prints the medians and their ratio (target: at most 3).
#   bench/analyze-vs-grep.sh [MEGABYTES] [RUNS]
megabytes=${1:-1024}
runs=${2:-5}
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$work/nccl.log"
"$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.SyntheticNcclLog "$log" "$megabytes"
cat "$log" > /dev/null # into the page cache for both

grep_ms=(); analyze_ms=()
for _ in $(seq "$runs"); do
  grep_ms+=("$(millis grep -c 'NCCL INFO' "$log")")
  analyze_ms+=("$(millis ./railyard analyze "$log")")
done
g=$(printf '%s\n' "${grep_ms[@]}" | median)
a=$(printf '%s\n' "${analyze_ms[@]}" | median)
echo "$(du -m "$log" | cut -f1) MB NCCL log, $(grep -c 'NCCL INFO' "$log") NCCL INFO lines, $runs interleaved runs, medians:"
echo "  grep -c 'NCCL INFO': ${g} ms"
echo "  railyard analyze:    ${a} ms"
awk -v a="$a" -v g="$g" 'BEGIN {printf "  ratio analyze/grep: %.2f\n", a / g}'
