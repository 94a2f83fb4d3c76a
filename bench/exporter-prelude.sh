# Sourced by the exporter benchmarks after the harness: node_exporter on PATH, the wide RoCE and InfiniBand trees in
# $work (removed at exit, with the processes started), and the DaemonSet's JVM flags in $flags (tools/agent-jvm-options;
# its ahead-of-time cache is the image's, so it is left out here).
command -v prometheus-node-exporter >/dev/null || { echo "install prometheus-node-exporter (apt-get install prometheus-node-exporter)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
"$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.WideTrees "$work"
flags=$(grep -v '^#' tools/agent-jvm-options)
