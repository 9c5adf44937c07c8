#!/usr/bin/env bash
# Installs and starts what the tests need (Kafka, ClickHouse and PostgreSQL via scripts/services.sh, which installs
# Debian's clickhouse-server and postgresql with apt-get when missing and resolves the Kafka broker jars with Maven), then runs every unit
# and integration test, with the fault-injection profile (issue 6): mvn -B verify -Pfaults. Services this script
# started are stopped again at the end. scripts/faults.sh runs the fault tests alone.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# the secured ITs need the SASL_SSL, MTLS and HTTPS listeners that SLUICE_SECURE=0 leaves out
if [ "${SLUICE_SECURE:-1}" != 1 ]; then
  echo "[test] error: SLUICE_SECURE=${SLUICE_SECURE} leaves out the secured listeners the tests use; unset it" >&2
  exit 2
fi
# the services that are down now are the ones this script starts, and the only ones it stops at the end (one that
# was already running, e.g. Kafka and ClickHouse of a checkout from before PostgreSQL joined, keeps running)
started=()
for service in kafka clickhouse postgres; do
  if ! scripts/services.sh status "$service" >/dev/null 2>&1; then started+=("$service"); fi
done
scripts/services.sh start
# Prometheus' own text parser for the metrics tests (unpacked from Debian's package, nothing installed)
scripts/lib/promtool.sh
cleanup() {
  if [ -z "${SLUICE_KEEP_SERVICES:-}" ]; then
    for service in "${started[@]}"; do scripts/services.sh stop "$service" || true; done
  fi
}
trap cleanup EXIT

# the ITs talk to the services on the ports services.sh used (SLUICE_KAFKA_PORT, SLUICE_CLICKHOUSE_HTTP_PORT,
# SLUICE_POSTGRES_PORT, and the secured listeners' SLUICE_KAFKA_SASL_SSL_PORT, SLUICE_KAFKA_MTLS_PORT,
# SLUICE_CLICKHOUSE_HTTPS_PORT; PostgreSQL's TLS is on its one port), with the certificates and passwords it made
# (secure dir)
eval "$(scripts/services.sh env)"
mkdir -p "${SLUICE_HOME:-$ROOT/.sluice}"
RUN_LOG=${SLUICE_HOME:-$ROOT/.sluice}/test-run.log
set +e
mvn -B verify -Pfaults \
  -Dsluice.kafka.bootstrap="$SLUICE_KAFKA_BOOTSTRAP" \
  -Dsluice.clickhouse.url="$SLUICE_CLICKHOUSE_URL" \
  -Dsluice.kafka.sasl.bootstrap="$SLUICE_KAFKA_SASL_SSL_BOOTSTRAP" \
  -Dsluice.kafka.mtls.bootstrap="$SLUICE_KAFKA_MTLS_BOOTSTRAP" \
  -Dsluice.clickhouse.https.url="$SLUICE_CLICKHOUSE_HTTPS_URL" \
  -Dsluice.secure.dir="$SLUICE_SECURE_DIR" \
  -Dsluice.postgres.url="$SLUICE_POSTGRES_URL" \
  -Dsluice.promtool="${SLUICE_HOME:-$ROOT/.sluice}/tools/promtool" \
  "$@" 2>&1 | tee "$RUN_LOG"
rc=${PIPESTATUS[0]}
set -e
# done when: no test password appears in any log or output of the run (docs/security.md); first, the scan must find
# a password planted for it, or it proves nothing
planted=$(mktemp -d)
echo "SELFTEST_PASSWORD=planted-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')" >"$planted/secrets.env"
echo "a log line that leaks $(cut -d= -f2 "$planted/secrets.env")" >"$planted/leak.log"
if scripts/lib/secret-scan.sh "$planted/secrets.env" "$planted/leak.log" 2>/dev/null; then
  echo "[secret-scan] self-test FAILED: a planted password was not found" >&2
  rc=1
fi
rm -rf "$planted"
scripts/lib/secret-scan.sh "$SLUICE_SECURE_DIR/secrets.env" "$RUN_LOG" || rc=1
exit "$rc"
