#!/usr/bin/env bash
# Runs only the fault-injection tests of issue 6 (engine/src/test/java/io/sluice/engine/faults/*FaultIT.java: kill -9,
# ClickHouse outage, dropped table, rebalance, unmatched policies) on the real services, then prints the measured
# summary lines from engine/target/fault-report.txt. scripts/test.sh runs them too, with everything else (-Pfaults).
#
#   scripts/faults.sh                      all of them (about 4 minutes after the build)
#   scripts/faults.sh KillNineFaultIT      one class (any failsafe it.test pattern)
#   FAULTS_SEED=123 scripts/faults.sh      repeat the random kill moments of a reported run (-Dfaults.seed)
#
# The build uses this checkout's modules (-am), not whatever another checkout installed into ~/.m2.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

pattern=${1:-*FaultIT}
seed=()
[ -n "${FAULTS_SEED:-}" ] && seed=("-Dfaults.seed=$FAULTS_SEED")
rc=0
# scripts/test.sh starts the services (and stops what it started); its arguments go to mvn verify -Pfaults
scripts/test.sh -pl engine -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.failIfNoSpecifiedTests=false -Dit.test="$pattern" ${seed[@]+"${seed[@]}"} || rc=$?
echo
echo "== engine/target/fault-report.txt"
cat engine/target/fault-report.txt 2>/dev/null || echo "(none written)"
exit $rc
