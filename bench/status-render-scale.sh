#!/usr/bin/env bash
# railyard status of an N-rank TrainingJob (its N nodes in the cluster) against the fabric8 CRUD mock API server, and
# railyard render of the same job, in one JVM after a first warm-up run: wall time, requests, output; then render as a
# user runs it, ./railyard in a fresh process each time (its start-up cache made first). Budget at 12,500 ranks: status
# < 1 s, render < 3 s.
#   bench/status-render-scale.sh [RANKS] [RUNS]
ranks=${1:-12500}
runs=${2:-3}
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" -Xmx2g -cp "bench/target/classes:$cp" io.railyard.bench.StatusRenderScale "$ranks" "$runs" 2>/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: big, namespace: bench}\nspec: {image: pytorch, script: train.py, nodes: %d, gpusPerNode: 8, rdma: {devicesPerNode: 8}}\n' \
  "$ranks" >"$work/big.yaml"
./railyard render -f examples/trainingjobs/llama70b-roce.yaml >/dev/null 2>&1 # the start-up cache, once
fresh=()
for _ in $(seq "$runs"); do
  fresh+=("$(millis ./railyard render -f "$work/big.yaml")")
done
echo "render of $ranks ranks as a fresh ./railyard, $(du -m "$work/out" | cut -f1) MB of YAML: ${fresh[*]} ms; median $(printf '%s\n' "${fresh[@]}" | median) ms (budget 3,000 ms)"
