#!/usr/bin/env bash
# Wall time of `railyard doctor` on an example node, JVM start included: with the flags and class-data-sharing
# archive the launcher uses, against a plain `java -jar` of the same jar, interleaved run by run. Prints medians and their ratio.
#   bench/doctor-startup.sh [RUNS] [NODE]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
node=${2:-examples/nodes/roce-8gpu}
./railyard doctor --root "$node" --no-kubernetes >/dev/null || true   # builds the jar and writes the archive
JAVA_HOME=$(tools/java-home)
jar=cli/target/railyard.jar
jsa=cli/target/railyard.jsa

millis() { local start end; start=$(date +%s%N); "$@" >/dev/null 2>&1 || true; end=$(date +%s%N); echo $(( (end - start) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

cds=(); plain=()
for _ in $(seq "$runs"); do
  cds+=("$(millis "$JAVA_HOME/bin/java" -XX:+UseSerialGC -XX:SharedArchiveFile="$jsa" -Xshare:on -jar "$jar" doctor --root "$node" --no-kubernetes)")
  plain+=("$(millis "$JAVA_HOME/bin/java" -jar "$jar" doctor --root "$node" --no-kubernetes)")
done
m_cds=$(printf '%s\n' "${cds[@]}" | median)
m_plain=$(printf '%s\n' "${plain[@]}" | median)
echo "doctor on $node, $runs interleaved runs, median wall time:"
echo "  with CDS archive (./railyard): ${m_cds} ms"
echo "  plain java -jar:               ${m_plain} ms"
awk -v a="$m_cds" -v b="$m_plain" 'BEGIN {printf "  ratio CDS/plain: %.2f\n", a / b}'
