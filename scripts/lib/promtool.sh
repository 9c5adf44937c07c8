#!/usr/bin/env bash
# Puts Prometheus' promtool at $SLUICE_HOME/tools/promtool (default <project>/.sluice/tools): the metrics tests parse
# every scrape with it (`promtool check metrics`, Prometheus' own text parser and name linter) and check the alert
# rules (`promtool check rules docs/grafana/alerts.yml`). It comes from Debian's `prometheus` package, downloaded with
# apt-get and unpacked without installing it (installing would start a Prometheus server). Idempotent.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SLUICE_HOME=${SLUICE_HOME:-$ROOT/.sluice}
TOOLS=$SLUICE_HOME/tools
if [ -x "$TOOLS/promtool" ]; then exit 0; fi
mkdir -p "$TOOLS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "[promtool] fetching Debian's prometheus package for promtool into $TOOLS" >&2
( cd "$work" && { apt-get download -q prometheus >"$work/apt.log" 2>&1 \
    || { apt-get update -q >>"$work/apt.log" 2>&1 && apt-get download -q prometheus >>"$work/apt.log" 2>&1; }; } ) \
  || { tail -20 "$work/apt.log" >&2; echo "[promtool] error: apt-get could not download prometheus" >&2; exit 1; }
dpkg-deb -x "$work"/prometheus_*.deb "$work/x"
cp "$work/x/usr/bin/promtool" "$TOOLS/promtool"
"$TOOLS/promtool" --version | head -1 >&2
