#!/usr/bin/env bash
# `railyard fabric -o html` on a large three-tier fabric with one cable trained on one lane: wall time through
# ./railyard beside `-o json` of the same file (interleaved runs), the page's size, and how long a real headless Chromium
# takes to show it beside the 14-box page of testdata/ibsim/fattree-faults. Medians.
#   bench/fabric-picture.sh [HOSTS] [RUNS] [RAILS LEAVES SPINES CORES UPLINKS]   (default 2000 7 8 100 500 100 20)
hosts=${1:-2000}
runs=${2:-7}
shape=("${@:3}")
[ ${#shape[@]} -eq 0 ] && shape=(8 100 500 100 20)
. "$(dirname "$0")/harness.sh"
command -v chromium >/dev/null || { echo "install chromium (apt-get install chromium)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
topology=$(synthetic_fabric "$hosts" "${shape[@]}")
# one host cable at 1X: the leaf's line for gpu-node-0042 mlx5_3 (a finding drawn in orange)
sed -i '0,/"gpu-node-0042 mlx5_3" lid \([0-9]*\) 4xNDR/s//"gpu-node-0042 mlx5_3" lid \1 1xNDR/' "$topology"
./railyard fabric --ibnetdiscover "$topology" -o html > "$work/large.html" || true   # the jar and its caches exist before timing
faults=testdata/ibsim/fattree-faults
./railyard fabric --ibnetdiscover "$faults/ibnetdiscover.txt" --iblinkinfo "$faults/iblinkinfo.txt" \
  --ibqueryerrors "$faults/ibqueryerrors.txt" -o html > "$work/small.html" || true

json_ms=(); html_ms=()
for _ in $(seq "$runs"); do
  json_ms+=("$(millis ./railyard fabric --ibnetdiscover "$topology" -o json)")
  html_ms+=("$(millis ./railyard fabric --ibnetdiscover "$topology" -o html)")
done
j=$(printf '%s\n' "${json_ms[@]}" | median)
h=$(printf '%s\n' "${html_ms[@]}" | median)
echo "$hosts hosts, $(grep -c '^Switch' "$topology") switches, $(grep -c '^Ca' "$topology") HCAs; $runs interleaved runs, medians:"
echo "  railyard fabric -o json: ${j} ms"
echo "  railyard fabric -o html: ${h} ms ($(awk -v h="$h" -v j="$j" 'BEGIN {printf "%.2f", h / j}') of -o json); page $(du -k "$work/large.html" | cut -f1) KB"
"$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.PageRenderTime "$(command -v chromium)" "$runs" "$work/large.html" "$work/small.html" \
  | sed 's/^/  chromium /'
