#!/usr/bin/env bash
# A preflight ring planned over NODES nodes without a cluster (rounds, pods a round, the sweep's time at the create rate
# with TEST_SECONDS tests), and a saved sweep of that size shown by `railyard preflight --from` as text, JSON and HTML,
# RUNS times in one JVM. Budget at 12,500 nodes: two rounds of tests; each report < 5 s.
#   bench/preflight-plan-scale.sh [NODES] [DEVICES] [RATE] [TEST_SECONDS] [RUNS]
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" -Xmx4g -cp "bench/target/classes:$cp" io.railyard.bench.PreflightPlanScale "${1:-12500}" "${2:-8}" "${3:-50}" \
  "${4:-10}" "${5:-3}" 2>/dev/null
