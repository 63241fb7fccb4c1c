#!/usr/bin/env bash
# Throw-away certificates for local TLS runs (never for production: see docs/security.md):
#   scripts/lib/gen-certs.sh DIR NAME:IP[,IP...] [NAME:IP ...]
# DIR gets ca.p12, ca.pem, truststore.p12, NAME.p12 per node (EC key, certificate signed by the CA naming the IPs
# in subjectAltName) and password (one random password for every store), all mode 600 in a mode-700 directory.
# Idempotent. Runs keytool's code in one JVM (io.elect.core.security.ThrowAwayPki); needs scripts/build first.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
here="$(cd "$(dirname "$0")/../.." && pwd)"
jar="$(ls "$here"/elect-core/target/elect-core-*.jar | grep -v -e sources -e tests | head -1)"
exec java --add-exports java.base/sun.security.tools.keytool=ALL-UNNAMED -cp "$jar" io.elect.core.security.ThrowAwayPki "$@" >/dev/null
