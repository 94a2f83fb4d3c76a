#!/usr/bin/env bash
# railyard status of an N-rank TrainingJob (its N nodes in the cluster) against the fabric8 CRUD mock API server, and
# railyard render of the same job, in one JVM after a first warm-up run: wall time, requests, output. Budget at 12,500
# ranks: status < 1 s, render < 3 s.
#   bench/status-render-scale.sh [RANKS] [RUNS]
ranks=${1:-12500}
runs=${2:-3}
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" -Xmx2g -cp "bench/target/classes:$cp" io.railyard.bench.StatusRenderScale "$ranks" "$runs" 2>/dev/null
