#!/usr/bin/env bash
# Scrape latency of a freshly started `railyard exporter` beside node_exporter's infiniband collector on the same 8-port
# RoCE tree, scrape by scrape from the first, alternating, with the DaemonSet's JVM flags, and with the ahead-of-time
# cache the image's build trains (tools/train-aot-cache, here on the 64-port RoCE tree) or without it (AOT=off).
# Prints the median Railyard/node_exporter latency ratio of scrapes 1-9, 10-25, 26-100 and 101-200, each the median
# over RUNS fresh starts. VIA=launcher starts it as a user on a bare host does, `./railyard exporter`, with the launcher's own
# flags and cache (tools/agent-jvm-options, trained on the first start, before the measured ones).
#   [VIA=launcher] [AOT=off] bench/exporter-cold-start.sh [RUNS]
runs=${1:-5}
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/exporter-prelude.sh"
aot=()
if [ "${VIA:-java}" = launcher ]; then
  rm -f cli/target/railyard-agent.aot
  ./railyard exporter --help >/dev/null
elif [ "${AOT:-on}" != off ]; then
  tools/train-aot-cache "$JAVA_HOME/bin/java" cli/target/railyard.jar "$work/roce-64port" "$work/agent.aot" "$flags"
  aot=(-XX:AOTCache="$work/agent.aot")
fi
tree="$work/roce-8port"

: > "$work/ratios"
for run in $(seq "$runs"); do
  prometheus-node-exporter --path.sysfs="$tree/sys" --collector.disable-defaults --collector.infiniband \
    --web.listen-address=127.0.0.1:19100 >/dev/null 2>&1 &
  ne=$!
  if [ "${VIA:-java}" = launcher ]; then
    ./railyard exporter --root "$tree" --listen 127.0.0.1:19402 >/dev/null 2>&1 &
  else
    # shellcheck disable=SC2086
    "$JAVA_HOME/bin/java" $flags "${aot[@]}" -jar cli/target/railyard.jar exporter --root "$tree" --listen 127.0.0.1:19402 >/dev/null 2>&1 &
  fi
  ry=$!
  # ready without a scrape: node_exporter's landing page and the Prometheus client's health endpoint
  until curl -sf -o /dev/null 127.0.0.1:19100/ && curl -sf -o /dev/null 127.0.0.1:19402/-/healthy; do sleep 0.05; done
  for i in $(seq 200); do
    n=$(curl -s -o /dev/null -w '%{time_total}' 127.0.0.1:19100/metrics)
    r=$(curl -s -o /dev/null -w '%{time_total}' 127.0.0.1:19402/metrics)
    echo "$run $i $(awk -v r="$r" -v n="$n" 'BEGIN {print r / n}')" >> "$work/ratios"
  done
  kill "$ne" "$ry"; wait "$ne" "$ry" 2>/dev/null || true
done

bucket() { # FIRST LAST: per run the median ratio of those scrapes, then the median of the runs
  for run in $(seq "$runs"); do
    awk -v run="$run" -v a="$1" -v b="$2" '$1 == run && $2 >= a && $2 <= b {print $3}' "$work/ratios" | median
  done | median
}
echo "railyard exporter / node_exporter scrape latency on 8 RoCE ports, fresh starts, median of $runs runs, started ${VIA:-by java}, AOT cache ${AOT:-on}:"
echo "  scrapes 1-9:    $(bucket 1 9)"
echo "  scrapes 10-25:  $(bucket 10 25)"
echo "  scrapes 26-100: $(bucket 26 100)"
echo "  scrapes 101-200: $(bucket 101 200)"
