# Sourced by the benchmark scripts: a JDK 25, the jar and the bench classes built, and their classpath in $cp.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JAVA_HOME=$(tools/java-home)
export JAVA_HOME MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow ${MAVEN_OPTS:-}"
./mvnw -q -B -DskipTests -pl bench,cli -am install >&2
cp=$(./mvnw -q -B -pl bench dependency:build-classpath -Dmdep.outputFile=/dev/stdout)
