# Sourced by the benchmark scripts: a JDK 25, the jar and the bench classes built, and their classpath in $cp.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JAVA_HOME=$(tools/java-home)
export JAVA_HOME MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow ${MAVEN_OPTS:-}"
./mvnw -q -B -DskipTests -DskipITs -pl bench,cli -am install >&2
cp=$(./mvnw -q -B -pl bench dependency:build-classpath -Dmdep.outputFile=/dev/stdout)
# The agent DaemonSet's JVM options (tools/agent-jvm-options), without its image's AOT cache, one per line.
agent_jvm_options() {
  grep -v '^#' tools/agent-jvm-options | tr ' ' '\n'
}

# Wall milliseconds of one run of a command; its output goes to a file (GNU grep stops at the first match when its
# output is /dev/null). Needs $work.
millis() { local start end; start=$(date +%s%N); "$@" >"$work/out" 2>&1 || true; end=$(date +%s%N); echo $(( (end - start) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# The fabric benches' input: a generated fabric (SyntheticFabric's HOSTS, then RAILS LEAVES SPINES CORES UPLINKS or
# nothing) written to $work/ibnetdiscover.txt, whose path is printed. Needs $work.
synthetic_fabric() {
  "$JAVA_HOME/bin/java" -cp "bench/target/classes:$cp" io.railyard.testkit.SyntheticFabric "$work/ibnetdiscover.txt" "$@" >&2
  echo "$work/ibnetdiscover.txt"
}

# The fabric8 CRUD mock API server in a process of its own (MockApiServer): its URL in $mock_url; it serves until this
# script exits. Needs $work.
start_mock_server() {
  mkfifo "$work/mock.in"
  "$JAVA_HOME/bin/java" -XX:+UseSerialGC -Xmx8g -cp "bench/target/classes:$cp" io.railyard.bench.MockApiServer \
    <"$work/mock.in" >"$work/mock.url" 2>/dev/null &
  exec 9>"$work/mock.in" # the server stops when this, the fifo's only writer, closes with the script
  until grep -q '^http' "$work/mock.url"; do sleep 0.1; done
  mock_url=$(grep -m1 '^http' "$work/mock.url")
}

# A control plane of tools/control-plane in $work/cp (its extra parts, e.g. --with volcano, as arguments) with the CRD
# applied and the namespaces bench and peer at the privileged level; taken down when the script exits. Needs $work.
real_control_plane() {
  [ -x "$(tools/control-plane bin)/kube-apiserver" ] || { echo "the control plane is not built: tools/control-plane build" >&2; exit 1; }
  trap 'tools/control-plane down --dir "$work/cp" >/dev/null 2>&1; rm -rf "$work"' EXIT
  tools/control-plane up --dir "$work/cp" "$@" >/dev/null
  local kubectl=("$(tools/control-plane bin)/kubectl" --kubeconfig "$work/cp/kubeconfig") ns
  "${kubectl[@]}" apply --server-side -k deploy/crds >/dev/null
  "${kubectl[@]}" wait --for condition=Established crd/trainingjobs.railyard.io >/dev/null
  for ns in bench peer; do
    "${kubectl[@]}" create namespace "$ns" >/dev/null
    "${kubectl[@]}" label namespace "$ns" pod-security.kubernetes.io/enforce=privileged >/dev/null
    until "${kubectl[@]}" get serviceaccount default -n "$ns" >/dev/null 2>&1; do sleep 0.2; done
  done
}
