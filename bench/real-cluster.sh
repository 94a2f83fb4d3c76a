#!/usr/bin/env bash
# The operator on a real control plane (tools/control-plane, built once with tools/control-plane build): a LARGEST-node
# gang created beside a plain fabric8 client creating the same pods (ROUNDS rounds, the median of the ratios), then a
# node fault's recovery for each strategy beside the plain client's creates or patches. KWOK's nodes; kube-scheduler
# places every pod. Prints the machine's memory and the control plane's resident memory at the end.
#   bench/real-cluster.sh [LARGEST] [ROUNDS] [STRATEGIES]   (defaults 1024, 3, Recreate,InPlace)
largest=${1:-1024}
rounds=${2:-3}
strategies=${3:-Recreate,InPlace}
. "$(dirname "$0")/harness.sh"
work=$(mktemp -d)
real_control_plane
"$JAVA_HOME/bin/java" -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.RealClusterBench \
  "$work/cp/kubeconfig" "$largest" "$rounds" "$strategies" 2>/dev/null | grep --line-buffered -E '^([0-9]+-node|creation|Recreate|InPlace)'
rss=0
for pidfile in "$work"/cp/*.pid; do rss=$((rss + $(awk '/VmRSS/ {print $2}' "/proc/$(cat "$pidfile")/status"))); done
echo "control plane resident memory: $((rss / 1024)) MiB (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok); machine: $(free -g | awk '/Mem:/ {print $2}') GiB"
