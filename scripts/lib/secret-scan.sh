#!/usr/bin/env bash
# Done-when check of issue 14: no password of the secured test services appears in any log or output of a test run.
# Usage: scripts/lib/secret-scan.sh SECRETS_ENV [EXTRA_FILE...]
#   SECRETS_ENV  the file scripts/services.sh wrote ($SLUICE_HOME/secure/secrets.env); every *PASSWORD* value in it
#                is searched for (the values go to grep through a file, never through the command line)
# Searched: the extra files (scripts/test.sh passes the tee'd output of mvn), every module's surefire and failsafe
# reports, the engine and release processes. outputs the ITs keep (*/target/it-logs), and the
# services' own logs under $SLUICE_HOME. Prints the files that hold one (never the line) and exits 1, else exits 0.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SLUICE_HOME=${SLUICE_HOME:-$ROOT/.sluice}
secrets=${1:?usage: secret-scan.sh SECRETS_ENV [FILE...]}
shift
if [ ! -s "$secrets" ]; then
  echo "[secret-scan] no $secrets (SLUICE_SECURE=0?): nothing to look for" >&2
  exit 0
fi
patterns=$(mktemp)
trap 'rm -f "$patterns"' EXIT
chmod 600 "$patterns"
grep -E '^[A-Z_]*PASSWORD[A-Z_]*=' "$secrets" | cut -d= -f2- | grep -v '^$' >"$patterns" || true
count=$(wc -l <"$patterns")
[ "$count" -gt 0 ] || { echo "[secret-scan] no passwords in $secrets" >&2; exit 1; }
targets=("$@")
for d in "$ROOT"/*/target/surefire-reports "$ROOT"/*/target/failsafe-reports "$ROOT"/*/target/it-logs \
         "$SLUICE_HOME"/kafka "$SLUICE_HOME"/clickhouse/log "$SLUICE_HOME"/postgres/log; do
  [ -e "$d" ] && targets+=("$d")
done
files=$(find "${targets[@]}" -type f \( -name '*.log' -o -name '*.log.*' -o -name '*.txt' -o -name '*.xml' \
  -o -name '*-output.txt' -o -name '*.out' -o -name '*.err' -o -name '*.dumpstream' \) 2>/dev/null | wc -l)
found=$(grep -rlF -f "$patterns" "${targets[@]}" 2>/dev/null || true)
if [ -n "$found" ]; then
  echo "[secret-scan] FAILED: a test password appears in:" >&2
  printf '  %s\n' $found >&2
  exit 1
fi
echo "[secret-scan] $count test passwords searched in $files log and report files: none found" >&2
