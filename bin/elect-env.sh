# Sourced by bin/elect, bin/nodetool and bin/electtool: locates the project, a Java 17, and the classpath.
# Not executable on its own.
ELECT_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Java: $JAVA_HOME/bin/java if set, else java on the PATH. Cassandra 5.0.9 needs exactly Java 17.
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="$(command -v java || true)"; fi
elect_require_java17() {
  if [ -z "$JAVA" ] || [ ! -x "$JAVA" ]; then
    echo "elect: no Java found; install a Java 17 JDK and set JAVA_HOME" >&2; exit 1
  fi
  local v
  v="$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  if [ "$v" != "17" ]; then
    echo "elect: $JAVA is Java ${v:-unknown}; ELECT (Cassandra 5.0.9) runs only on Java 17: set JAVA_HOME to a Java 17 JDK (e.g. /usr/lib/jvm/java-17-openjdk-amd64)" >&2
    exit 1
  fi
}

# The runtime classpath written by the Maven build (elect-core/target/classpath.txt). Built on first use.
elect_classpath() {
  local jar cpfile="$ELECT_HOME/elect-core/target/classpath.txt"
  jar="$(ls "$ELECT_HOME"/elect-core/target/elect-core-*.jar 2>/dev/null | grep -v -e sources -e tests | head -1)"
  if [ -z "$jar" ] || [ ! -f "$cpfile" ]; then
    echo "elect: not built yet; building (mvn -DskipTests install) ..." >&2
    "$ELECT_HOME/scripts/build" >&2 || { echo "elect: build failed" >&2; exit 1; }
    jar="$(ls "$ELECT_HOME"/elect-core/target/elect-core-*.jar | grep -v -e sources -e tests | head -1)"
  fi
  echo "$jar:$(cat "$cpfile")"
}
