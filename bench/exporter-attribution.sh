#!/usr/bin/env bash
# What attributing ports to pods costs a scrape, on 8- and 64-port RoCE trees whose ports 8 pods hold (a kubelet
# serving PodResources on a unix socket): `railyard exporter` without attribution ("plain"), with it and a listing
# kept between scrapes ("cached": the default, refreshed when a pod of the node changes and at least every 2 minutes),
# with a List on every scrape ("listing", --pod-resources-max-age-ms 0), and node_exporter's infiniband collector.
# Interleaved batches, the DaemonSet's JVM flags; medians. "At 15 s" is a node scraped every 15 s whose pods do not
# change: each scrape pays the cached path and an eighth of a List.
#   bench/exporter-attribution.sh [BATCHES] [SCRAPES_PER_BATCH] [WARMUP_SECONDS]
batches=${1:-15}
per_batch=${2:-40}
warmup_seconds=${3:-30}
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/exporter-prelude.sh"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }
for tree in roce-8port roce-64port; do
  "$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.PodResourcesKubelet "$work/kubelet.sock" "$work/$tree" 8 >"$work/kubelet.log" 2>&1 &
  kubelet=$!
  prometheus-node-exporter --path.sysfs="$work/$tree/sys" --collector.disable-defaults --collector.infiniband \
    --web.listen-address=127.0.0.1:19100 >/dev/null 2>&1 &
  ne_pid=$!
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $flags -jar cli/target/railyard.jar exporter --root "$work/$tree" --listen 127.0.0.1:19402 >/dev/null 2>&1 &
  plain_pid=$!
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $flags -jar cli/target/railyard.jar exporter --root "$work/$tree" --listen 127.0.0.1:19403 \
    --pod-resources-socket "$work/kubelet.sock" >/dev/null 2>&1 &
  cached_pid=$!
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $flags -jar cli/target/railyard.jar exporter --root "$work/$tree" --listen 127.0.0.1:19404 \
    --pod-resources-socket "$work/kubelet.sock" --pod-resources-max-age-ms 0 >/dev/null 2>&1 &
  listing_pid=$!
  until curl -sf -o /dev/null 127.0.0.1:19100/metrics && curl -sf -o /dev/null 127.0.0.1:19402/metrics \
      && [[ "$(curl -s 127.0.0.1:19403/metrics)" == *$'\nrailyard_rdma_podresources_up 1'* ]] \
      && [[ "$(curl -s 127.0.0.1:19404/metrics)" == *$'\nrailyard_rdma_podresources_up 1'* ]]; do sleep 0.2; done
  end=$((SECONDS + warmup_seconds))
  while [ "$SECONDS" -lt "$end" ]; do
    for port in 19100 19402 19403 19404; do curl -s -o /dev/null "127.0.0.1:$port/metrics"; done
  done
  : > "$work/ne"; : > "$work/plain"; : > "$work/cached"; : > "$work/listing"
  for _ in $(seq "$batches"); do
    batch "$ne_pid" http://127.0.0.1:19100/metrics >> "$work/ne"
    batch "$plain_pid" http://127.0.0.1:19402/metrics >> "$work/plain"
    batch "$cached_pid" http://127.0.0.1:19403/metrics >> "$work/cached"
    batch "$listing_pid" http://127.0.0.1:19404/metrics >> "$work/listing"
  done
  held=$(curl -s 127.0.0.1:19403/metrics | grep -c '^railyard_rdma_port_allocation_info{')
  ports=$(curl -s 127.0.0.1:19402/metrics | grep -c '^railyard_rdma_state_id{')
  echo "$tree ($ports ports, $held attributed to 8 pods), $batches interleaved batches of $per_batch scrapes, medians:"
  for what in latency CPU; do
    col=$([ "$what" = latency ] && echo 1 || echo 2); unit=$([ "$what" = latency ] && echo "ms" || echo "ms/scrape")
    for run in ne plain cached listing; do eval "$run=\$(cut -d' ' -f$col \"\$work/$run\" | median)"; done
    # shellcheck disable=SC2154
    at15=$(awk -v c="$cached" -v l="$listing" 'BEGIN {print c + (l - c) / 8}')
    echo "  $what  plain $plain, cached $cached, listing $listing, at 15 s $at15, node_exporter $ne $unit;" \
      "cached/plain $(ratio "$cached" "$plain"), at-15-s/plain $(ratio "$at15" "$plain"), listing/plain $(ratio "$listing" "$plain")," \
      "at-15-s/node_exporter $(ratio "$at15" "$ne")"
  done
  kill "$kubelet" "$ne_pid" "$plain_pid" "$cached_pid" "$listing_pid"; wait "$kubelet" "$ne_pid" "$plain_pid" "$cached_pid" "$listing_pid" 2>/dev/null || true
  rm -f "$work/kubelet.sock"
done
