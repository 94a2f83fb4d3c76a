#!/usr/bin/env bash
# The price of all or nothing: a NODES-node gang placed by the real Volcano through the operator's PodGroup, and admitted
# by the real Kueue as a pod group (topology-aware, so only where every pod fits), and as kube-scheduler's own gang
# (scheduling.k8s.io/v1beta1 Workload and PodGroup), beside the same job placed by
# kube-scheduler, beside the same pods of a plain client without a gang; from creation until every pod is Running
# (KWOK), ROUNDS rounds interleaved, medians and ratios. Needs tools/control-plane build --with volcano --with kueue.
#   bench/schedulers.sh [NODES] [ROUNDS]   (defaults 256, 3)
nodes=${1:-256}
rounds=${2:-3}
. "$(dirname "$0")/harness.sh"
[ -x "$(tools/control-plane bin volcano)/vc-scheduler" ] || { echo "Volcano is not built: tools/control-plane build --with volcano" >&2; exit 1; }
[ -x "$(tools/control-plane bin kueue)/kueue" ] || { echo "Kueue is not built: tools/control-plane build --with kueue" >&2; exit 1; }
work=$(mktemp -d)
real_control_plane --with volcano --with kueue
"$JAVA_HOME/bin/java" -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "bench/target/classes:$cp" io.railyard.bench.SchedulerBench \
  "$work/cp/kubeconfig" "$nodes" "$rounds" 2>/dev/null | grep --line-buffered -E '^(round|median)'
