# Sourced by the exporter benchmarks after the harness: node_exporter on PATH, the wide RoCE and InfiniBand trees in
# $work (removed at exit, with the processes started), and the DaemonSet's JVM flags in $flags (tools/agent-jvm-options;
# its ahead-of-time cache is the image's, so it is left out here).
command -v prometheus-node-exporter >/dev/null || { echo "install prometheus-node-exporter (apt-get install prometheus-node-exporter)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
"$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.bench.WideTrees "$work"
flags=$(grep -v '^#' tools/agent-jvm-options)
ticks=$(getconf CLK_TCK)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One batch of $per_batch scrapes of a process's URL; prints "median-latency-ms cpu-ms-per-scrape".
batch() {
  local pid=$1 url=$2 before after
  before=$(cpu_ticks "$pid")
  for _ in $(seq "$per_batch"); do curl -s -o /dev/null -w '%{time_total}\n' "$url"; done > "$work/lat"
  after=$(cpu_ticks "$pid")
  echo "$(awk '{print $1 * 1000}' "$work/lat" | median) $(awk -v d=$((after - before)) -v n="$per_batch" -v t="$ticks" 'BEGIN {print d * 1000 / t / n}')"
}
