#!/usr/bin/env bash
# The node's RDMA conditions (see NodeHealthBench): a port change in sysfs to the condition on the API, p50/p99; the API
# writes of a steady node over a simulated hour; the agent's CPU per poll with node health off and on, RUNS times.
# `railyard agent` runs as a process with the JVM options of deploy/agent/daemonset.yaml (without the image's AOT cache).
# POLL_MS (default 500, the DaemonSet's) sets the agent's poll: a short one brings its compiler to steady state sooner.
#   [POLL_MS=100] bench/node-health.sh [CHANGES] [CPU_SECONDS] [RUNS] [WARM_SECONDS]
changes=${1:-50}
seconds=${2:-30}
runs=${3:-3}
warm=${4:-10}
. "$(dirname "$0")/harness.sh"
mapfile -t agent_options < <(agent_jvm_options)
"$JAVA_HOME/bin/java" -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -Drailyard.bench.warmSeconds="$warm" -Drailyard.bench.pollMs="${POLL_MS:-500}" -cp "bench/target/classes:$cp" io.railyard.bench.NodeHealthBench \
  "$changes" "$seconds" "$runs" cli/target/railyard.jar "${agent_options[@]}" 2>&1 | grep -v -E '^(SLF4J|WARNING|[A-Z][a-z]{2} [0-9]|INFO)'
