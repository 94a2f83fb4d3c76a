#!/usr/bin/env bash
# `railyard fabric` (parse, tiers, rail groups, findings, JSON) on the ibnetdiscover output of a large three-tier fabric,
# JVM start included, run as users run it (./railyard), against an awk one-liner that only counts each switch's
# cabled ports of the same file, interleaved runs. Prints the medians and their ratio (target: railyard under 1 s).
#   bench/fabric-vs-awk.sh [HOSTS] [RUNS] [RAILS LEAVES SPINES CORES UPLINKS]
# Without a shape: pods of 32 hosts (8 rails, 8 spines a pod, 8 cores). With one, e.g. 2000 7 8 100 500 100 20: 8 rails of
# 100 leaves, 500 spines, 100 cores, 20 uplinks a leaf (1,400 switches, 8 MB of output).
hosts=${1:-2000}
runs=${2:-7}
shape=("${@:3}")
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
topology=$(synthetic_fabric "$hosts" "${shape[@]}")
./railyard fabric --ibnetdiscover "$topology" >/dev/null || true   # the jar and its class-data archive exist before timing
cat "$topology" > /dev/null

awk_ms=(); fabric_ms=()
for _ in $(seq "$runs"); do
  awk_ms+=("$(millis awk '/^Switch/ {s=$3} /^\[/ && s {n[s]++} END {for (k in n) print k, n[k]}' "$topology")")
  fabric_ms+=("$(millis ./railyard fabric --ibnetdiscover "$topology" -o json)")
done
a=$(printf '%s\n' "${awk_ms[@]}" | median)
f=$(printf '%s\n' "${fabric_ms[@]}" | median)
echo "$hosts hosts, $(grep -c '^Switch' "$topology") switches, $(grep -c '^Ca' "$topology") HCAs, $(du -k "$topology" | cut -f1) KB of ibnetdiscover output; $runs interleaved runs, medians:"
echo "  awk (count ports per switch):       ${a} ms"
echo "  railyard fabric --ibnetdiscover -o json: ${f} ms"
awk -v f="$f" -v a="$a" 'BEGIN {printf "  ratio fabric/awk: %.2f\n", f / a}'
