#!/usr/bin/env bash
# Installs and starts what the tests need (Kafka and ClickHouse via scripts/services.sh, which installs Debian's
# clickhouse-server with apt-get when missing and resolves the Kafka broker jars with Maven), then runs every unit
# and integration test, with the fault-injection profile (issue 6): mvn -B verify -Pfaults. Services this script
# started are stopped again at the end. scripts/faults.sh runs the fault tests alone.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

started=0
if ! scripts/services.sh status >/dev/null 2>&1; then
  started=1
fi
scripts/services.sh start
# Prometheus' own text parser for the metrics tests (unpacked from Debian's package, nothing installed)
scripts/lib/promtool.sh
cleanup() {
  if [ "$started" = 1 ] && [ -z "${SLUICE_KEEP_SERVICES:-}" ]; then
    scripts/services.sh stop || true
  fi
}
trap cleanup EXIT

# the ITs talk to the services on the ports services.sh used (SLUICE_KAFKA_PORT, SLUICE_CLICKHOUSE_HTTP_PORT)
mvn -B verify -Pfaults \
  -Dsluice.kafka.bootstrap="127.0.0.1:${SLUICE_KAFKA_PORT:-19092}" \
  -Dsluice.clickhouse.url="http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}" \
  "$@"
