#!/usr/bin/env bash
# The nccl-speed sidecar, with the JVM options of its container:
#  1. reading a large NCCL Inspector dump directory (8 files, one per process) once to its end (`--once`), against
#     `jq -c .` of the same files, interleaved runs, JVM start included: medians of wall time and peak RSS, and the ratio;
#  2. the first pod's cost of gathering a job's ranks: CPU time per interval of a sidecar that gathers RANKS ranks'
#     summaries against one that gathers none, both running at once for INTERVALS one-second intervals.
#   bench/nccl-speed.sh [MEGABYTES] [RUNS] [RANKS] [INTERVALS]
megabytes=${1:-1024}
runs=${2:-3}
ranks=${3:-512}
intervals=${4:-30}
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
export JAVA_TOOL_OPTIONS="-XX:+UseSerialGC -Xmx48m -Xss256k -XX:TieredStopAtLevel=1" # the sidecar container's (InspectorSidecar)
jar=cli/target/railyard.jar
"$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.SyntheticInspector "$work/dump" "$megabytes" 2>/dev/null
cat "$work"/dump/* > /dev/null # into the page cache for both

# "wall_ms peak_rss_kib" of one run
measure() {
  if ! /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err"; then
    echo "failed: $* ($(tail -1 "$work/err"))" >&2; exit 1
  fi
  awk '{printf "%d %d\n", $1 * 1000, $2}' "$work/time"
}
jq_ms=(); jq_kib=(); speed_ms=(); speed_kib=()
for _ in $(seq "$runs"); do
  read -r ms kib < <(measure jq -c . "$work"/dump/*.log); jq_ms+=("$ms"); jq_kib+=("$kib")
  read -r ms kib < <(measure "$JAVA_HOME/bin/java" -jar "$jar" nccl-speed --once --dir "$work/dump" --rank 7); speed_ms+=("$ms"); speed_kib+=("$kib")
done
records=$(grep -c . "$work"/dump/*.log | awk -F: '{s += $2} END {print s}')
j=$(printf '%s\n' "${jq_ms[@]}" | median); s=$(printf '%s\n' "${speed_ms[@]}" | median)
jk=$(printf '%s\n' "${jq_kib[@]}" | median); sk=$(printf '%s\n' "${speed_kib[@]}" | median)
echo "$(du -sm "$work/dump" | cut -f1) MB of Inspector JSON lines, $records records in 8 files, $runs interleaved runs, medians:"
echo "  jq -c .:                 ${j} ms, peak RSS $((jk / 1024)) MiB"
echo "  nccl-speed --once:       ${s} ms, peak RSS $((sk / 1024)) MiB"
awk -v s="$s" -v j="$j" 'BEGIN {printf "  ratio nccl-speed/jq:     %.2f\n", s / j}'
rm -rf "$work/dump"

# CPU ticks (utime + stime) of a process
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
mkdir -p "$work/empty-a" "$work/empty-b"
"$JAVA_HOME/bin/java" -jar "$jar" nccl-speed --dir "$work/empty-a" --interval 1 --listen 127.0.0.1:0 --rank 0 \
  --gather 127.0.0.1:0 --ranks "$ranks" >"$work/gather.out" 2>"$work/gather.err" & pids+=($!); gather=$!
"$JAVA_HOME/bin/java" -jar "$jar" nccl-speed --dir "$work/empty-b" --interval 1 --listen 127.0.0.1:0 --rank 0 \
  --gather 127.0.0.1:0 --ranks "$ranks" >"$work/idle.out" 2>"$work/idle.err" & pids+=($!); idle=$!
until grep -q 'gathering' "$work/gather.err" 2>/dev/null && grep -q 'gathering' "$work/idle.err" 2>/dev/null; do sleep 0.2; done
port=$(sed -n 's/.*gathering the job.s ranks on port \([0-9]*\).*/\1/p' "$work/gather.err")
sleep 3 # both past their start-up
g0=$(ticks "$gather"); i0=$(ticks "$idle")
env -u JAVA_TOOL_OPTIONS "$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.SpeedGatherLoad 127.0.0.1 "$port" "$ranks" "$intervals" 1000
g1=$(ticks "$gather"); i1=$(ticks "$idle")
hz=$(getconf CLK_TCK)
last=$(tail -1 "$work/gather.out")
echo "first pod gathering $ranks ranks, $intervals one-second intervals (the other's sidecar gathers none, the same seconds):"
echo "  last line: ${#last} bytes, $(grep -o '"reporting":[0-9]*' <<<"$last")"
awk -v g=$((g1 - g0)) -v i=$((i1 - i0)) -v n="$intervals" -v hz="$hz" 'BEGIN {
  printf "  CPU per interval: gathering %.1f ms, idle %.1f ms, the gathering itself %.1f ms\n", g * 1000 / hz / n, i * 1000 / hz / n, (g - i) * 1000 / hz / n }'
echo "  RSS: gathering $(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$gather/status") MiB, idle $(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$idle/status") MiB"
