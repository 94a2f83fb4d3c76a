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
[ -x "$(tools/control-plane bin)/kube-apiserver" ] || { echo "the control plane is not built: tools/control-plane build" >&2; exit 1; }
work=$(mktemp -d)
trap 'tools/control-plane down --dir "$work/cp" >/dev/null 2>&1; rm -rf "$work"' EXIT
tools/control-plane up --dir "$work/cp" >/dev/null
kubectl=("$(tools/control-plane bin)/kubectl" --kubeconfig "$work/cp/kubeconfig")
"${kubectl[@]}" apply --server-side -k deploy/crds >/dev/null
"${kubectl[@]}" wait --for condition=Established crd/trainingjobs.railyard.io >/dev/null
for ns in bench peer; do
  "${kubectl[@]}" create namespace "$ns" >/dev/null
  "${kubectl[@]}" label namespace "$ns" pod-security.kubernetes.io/enforce=privileged >/dev/null
  until "${kubectl[@]}" get serviceaccount default -n "$ns" >/dev/null 2>&1; do sleep 0.2; done
done
"$JAVA_HOME/bin/java" -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.RealClusterBench \
  "$work/cp/kubeconfig" "$largest" "$rounds" "$strategies" 2>/dev/null | grep --line-buffered -E '^([0-9]+-node|creation|Recreate|InPlace)'
rss=0
for pidfile in "$work"/cp/*.pid; do rss=$((rss + $(awk '/VmRSS/ {print $2}' "/proc/$(cat "$pidfile")/status"))); done
echo "control plane resident memory: $((rss / 1024)) MiB (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok); machine: $(free -g | awk '/Mem:/ {print $2}') GiB"
