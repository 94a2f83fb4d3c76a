#!/usr/bin/env bash
# Scrape latency and CPU per scrape of `railyard exporter` against node_exporter's infiniband collector, on the same
# 8- and 64-port RoCE trees and a 64-port InfiniBand tree, in interleaved batches, with the DaemonSet's JVM flags. Prints medians and the Railyard/node_exporter ratios.
#   bench/exporter-vs-node-exporter.sh [BATCHES] [SCRAPES_PER_BATCH] [WARMUP_SECONDS]
batches=${1:-15}
per_batch=${2:-40}
warmup_seconds=${3:-30}
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/exporter-prelude.sh"
for tree in roce-8port roce-64port ib-64port; do
  prometheus-node-exporter --path.sysfs="$work/$tree/sys" --collector.disable-defaults --collector.infiniband \
    --web.listen-address=127.0.0.1:19100 >/dev/null 2>&1 &
  ne=$!
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $flags -jar cli/target/railyard.jar exporter --root "$work/$tree" --listen 127.0.0.1:19402 >/dev/null 2>&1 &
  ry=$!
  until curl -sf -o /dev/null 127.0.0.1:19100/metrics && curl -sf -o /dev/null 127.0.0.1:19402/metrics; do sleep 0.2; done
  # Warm up for WARMUP_SECONDS of scrapes: the JVM's second JIT tier settles after a few thousand port reads, and an
  # agent is scraped for days, so the steady state is what counts.
  end=$((SECONDS + warmup_seconds))
  while [ "$SECONDS" -lt "$end" ]; do curl -s -o /dev/null 127.0.0.1:19100/metrics; curl -s -o /dev/null 127.0.0.1:19402/metrics; done
  : > "$work/ne"; : > "$work/ry"
  for _ in $(seq "$batches"); do
    batch "$ne" http://127.0.0.1:19100/metrics >> "$work/ne"
    batch "$ry" http://127.0.0.1:19402/metrics >> "$work/ry"
  done
  ne_lat=$(cut -d' ' -f1 "$work/ne" | median); ry_lat=$(cut -d' ' -f1 "$work/ry" | median)
  ne_cpu=$(cut -d' ' -f2 "$work/ne" | median); ry_cpu=$(cut -d' ' -f2 "$work/ry" | median)
  ports=$(curl -s 127.0.0.1:19402/metrics | grep -c '^railyard_rdma_state_id{')
  ry_samples=$(curl -s 127.0.0.1:19402/metrics | grep -c '^railyard_rdma')
  ne_samples=$(curl -s 127.0.0.1:19100/metrics | grep -c '^node_infiniband')
  echo "$tree ($ports ports; samples: railyard $ry_samples, node_exporter $ne_samples), $batches interleaved batches of $per_batch scrapes, medians:"
  echo "  latency  railyard ${ry_lat} ms, node_exporter ${ne_lat} ms, ratio $(awk -v a="$ry_lat" -v b="$ne_lat" 'BEGIN {printf "%.2f", a / b}')"
  echo "  CPU      railyard ${ry_cpu} ms/scrape, node_exporter ${ne_cpu} ms/scrape, ratio $(awk -v a="$ry_cpu" -v b="$ne_cpu" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')"
  kill "$ne" "$ry"; wait "$ne" "$ry" 2>/dev/null || true
done
