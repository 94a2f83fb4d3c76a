#!/usr/bin/env bash
# The price of all or nothing: a NODES-node gang placed by the real Volcano through the operator's PodGroup, beside the
# same job placed by kube-scheduler, beside the same pods of a plain client without a gang; from creation until every
# pod is Running (KWOK), ROUNDS rounds interleaved, medians and ratios. Needs tools/control-plane build --with volcano.
#   bench/schedulers.sh [NODES] [ROUNDS]   (defaults 256, 3)
nodes=${1:-256}
rounds=${2:-3}
. "$(dirname "$0")/harness.sh"
[ -x "$(tools/control-plane bin volcano)/vc-scheduler" ] || { echo "Volcano is not built: tools/control-plane build --with volcano" >&2; exit 1; }
work=$(mktemp -d)
trap 'tools/control-plane down --dir "$work/cp" >/dev/null 2>&1; rm -rf "$work"' EXIT
tools/control-plane up --dir "$work/cp" --with volcano >/dev/null
kubectl=("$(tools/control-plane bin)/kubectl" --kubeconfig "$work/cp/kubeconfig")
"${kubectl[@]}" apply --server-side -k deploy/crds >/dev/null
"${kubectl[@]}" wait --for condition=Established crd/trainingjobs.railyard.io >/dev/null
for ns in bench peer; do
  "${kubectl[@]}" create namespace "$ns" >/dev/null
  "${kubectl[@]}" label namespace "$ns" pod-security.kubernetes.io/enforce=privileged >/dev/null
  until "${kubectl[@]}" get serviceaccount default -n "$ns" >/dev/null 2>&1; do sleep 0.2; done
done
"$JAVA_HOME/bin/java" -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.SchedulerBench \
  "$work/cp/kubeconfig" "$nodes" "$rounds" 2>/dev/null | grep --line-buffered -E '^(round|median)'
