#!/usr/bin/env bash
# The device plugin's latencies against the fake kubelet over real unix sockets (see DevicePluginBench), then the
# idle agent's resident memory with the DaemonSet's JVM flags (tools/agent-jvm-options).
#   bench/device-plugin.sh [ALLOCATE_CALLS] [HEALTH_ROUNDS] [RESTARTS] [POLL_MS]
. "$(dirname "$0")/harness.sh"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "bench/target/classes:$cp" io.railyard.bench.DevicePluginBench "$@"

flags=$(grep -v '^#' tools/agent-jvm-options)
dir=$(mktemp -d)
mkdir -p "$dir/device-plugins"
# shellcheck disable=SC2086
"$JAVA_HOME/bin/java" $flags -jar cli/target/railyard.jar agent --root examples/nodes/roce-8gpu \
  --device-plugin-dir "$dir/device-plugins" --no-kubernetes --health-address 127.0.0.1:0 >"$dir/agent.log" 2>&1 &
pid=$!
sleep 8
rss=$(ps -o rss= -p "$pid")
kill "$pid"; wait "$pid" || true
rm -rf "$dir"
echo "agent idle on an 8-GPU, 4-port RoCE node, flags '$flags': RSS $((rss / 1024)) MiB"
