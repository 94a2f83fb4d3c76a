#!/usr/bin/env bash
# Wall time of `railyard doctor` on an example node, JVM start included: with the flags and ahead-of-time cache the
# launcher uses, against a plain `java -jar` of the same jar and against bench/check-rdma.sh (the same checks as a shell
# script reading the same files), interleaved run by run. Prints medians and their ratios.
#   bench/doctor-startup.sh [RUNS] [NODE]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
node=${2:-examples/nodes/roce-8gpu}
./railyard doctor --root "$node" --no-kubernetes >/dev/null || true   # builds the jar and writes the cache
JAVA_HOME=$(tools/java-home)
jar=cli/target/railyard.jar
aot=cli/target/railyard.aot

millis() { local start end; start=$(date +%s%N); "$@" >/dev/null 2>&1 || true; end=$(date +%s%N); echo $(( (end - start) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

cached=(); plain=(); shell=()
for _ in $(seq "$runs"); do
  cached+=("$(millis "$JAVA_HOME/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:AOTCache="$aot" -jar "$jar" doctor --root "$node" --no-kubernetes)")
  plain+=("$(millis "$JAVA_HOME/bin/java" -jar "$jar" doctor --root "$node" --no-kubernetes)")
  shell+=("$(millis bench/check-rdma.sh "$node")")
done
m_cached=$(printf '%s\n' "${cached[@]}" | median)
m_shell=$(printf '%s\n' "${shell[@]}" | median)
m_plain=$(printf '%s\n' "${plain[@]}" | median)
echo "doctor on $node, $runs interleaved runs, median wall time:"
echo "  with the AOT cache (./railyard): ${m_cached} ms"
echo "  plain java -jar:               ${m_plain} ms"
echo "  bench/check-rdma.sh:            ${m_shell} ms"
awk -v a="$m_cached" -v b="$m_plain" 'BEGIN {printf "  ratio AOT/plain: %.2f\n", a / b}'
awk -v a="$m_cached" -v b="$m_shell" 'BEGIN {printf "  ratio AOT/shell: %.2f\n", a / b}'
