#!/usr/bin/env bash
# Installs and starts what the tests need (Kafka and ClickHouse via scripts/services.sh, which installs Debian's
# clickhouse-server with apt-get when missing and resolves the Kafka broker jars with Maven), then runs every unit
# and integration test: mvn -B verify. Services this script started are stopped again at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

started=0
if ! scripts/services.sh status >/dev/null 2>&1; then
  started=1
fi
scripts/services.sh start
cleanup() {
  if [ "$started" = 1 ] && [ -z "${SLUICE_KEEP_SERVICES:-}" ]; then
    scripts/services.sh stop || true
  fi
}
trap cleanup EXIT

mvn -B verify "$@"
