#!/usr/bin/env bash
# Sluice quickstart on a fresh machine: builds engine.jar, starts Kafka, ClickHouse and PostgreSQL (scripts/services.sh;
# SLUICE_SECURE=0 leaves their secured listeners and certificates out), creates
# the example tables, produces the bundled GitHub sample into topic github.events (4 partitions), runs the engine on
# examples/github-events.toml until every partition is committed to its end, and prints rows per table and records/s.
# Re-running starts over: the topic, the consumer group and database github are recreated.
# The services keep running afterwards; stop them with: scripts/services.sh stop
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# the services, the produce command and examples/github-events.toml (through ${SLUICE_KAFKA_PORT:-19092} and
# ${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}) all take the ports from these, so a quickstart on other ports touches nothing
# that listens on the default ones
export SLUICE_KAFKA_PORT=${SLUICE_KAFKA_PORT:-19092}
export SLUICE_CLICKHOUSE_HTTP_PORT=${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}
export SLUICE_CLICKHOUSE_TCP_PORT=${SLUICE_CLICKHOUSE_TCP_PORT:-19000}
export SLUICE_POSTGRES_PORT=${SLUICE_POSTGRES_PORT:-15432}
KAFKA="127.0.0.1:$SLUICE_KAFKA_PORT"
CH="http://127.0.0.1:$SLUICE_CLICKHOUSE_HTTP_PORT"
SAMPLE=examples/data/github-events.jsonl.gz
CONFIG=examples/github-events.toml
JAR=engine/target/engine.jar
TOPIC=github.events

declare -a STEP_NAMES STEP_SECS
step_start=0
begin() { printf '\n== %s\n' "$1"; STEP_NAMES+=("$1"); step_start=$(now); }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
end() { STEP_SECS+=("$(elapsed "$step_start")"); }
ch() { curl -sS --fail-with-body "$CH/" --data-binary "$1"; }

begin "build engine.jar (mvn package, tests skipped)"
mvn -B -q -Dstyle.color=never -DskipTests package -pl engine -am
end

begin "start Kafka, ClickHouse and PostgreSQL (scripts/services.sh start)"
scripts/services.sh start
end

begin "create database github and its tables (examples/github-events.sql)"
ch "DROP DATABASE IF EXISTS github" >/dev/null
# one statement per request: the HTTP interface runs one statement at a time
sed -e 's/--.*$//' examples/github-events.sql | tr '\n' ' ' | tr ';' '\n' | while read -r stmt; do
  [ -n "${stmt// /}" ] && ch "$stmt" >/dev/null
done
echo "tables: $(ch "SELECT groupArray(name) FROM system.tables WHERE database = 'github'")"
end

begin "produce the sample into topic $TOPIC (4 partitions)"
LINES=$(zcat "$SAMPLE" | grep -c .)
java -jar "$JAR" produce --bootstrap-servers "$KAFKA" --topic "$TOPIC" --partitions 4 --file "$SAMPLE" \
  --recreate --delete-group sluice-github
end

begin "run the engine until the sample is drained"
t0=$(now)
SLUICE_LOG_LEVEL=${SLUICE_LOG_LEVEL:-INFO} java -jar "$JAR" --config "$CONFIG" --until-caught-up
ENGINE_SECS=$(elapsed "$t0")
end

begin "check what landed in ClickHouse"
echo "rows per table:"
ch "SELECT table, sum(rows) FROM system.parts WHERE database = 'github' AND active GROUP BY table ORDER BY table FORMAT PrettyCompactNoEscapes"
TOTAL=$(ch "SELECT sum(rows) FROM system.parts WHERE database = 'github' AND active")
UNION="SELECT id FROM github.push_events UNION ALL SELECT id FROM github.watch_events UNION ALL SELECT id FROM github.create_events UNION ALL SELECT id FROM github.issues_events UNION ALL SELECT id FROM github.pull_request_events UNION ALL SELECT id FROM github.issue_comment_events UNION ALL SELECT id FROM github.fork_events UNION ALL SELECT id FROM github.other_events"
DISTINCT=$(ch "SELECT uniqExact(id) FROM ($UNION)")
SAMPLE_DISTINCT=$(zcat "$SAMPLE" | grep -o '^{"id":"[0-9]*"' | sort -u | wc -l)
end

printf '\n== timings\n'
for i in "${!STEP_NAMES[@]}"; do printf '  %6.1f s  %s\n' "${STEP_SECS[$i]}" "${STEP_NAMES[$i]}"; done
printf '\nsample lines: %s   rows in github.*: %s   distinct ids: %s (sample: %s)\n' "$LINES" "$TOTAL" "$DISTINCT" "$SAMPLE_DISTINCT"
awk -v n="$LINES" -v s="$ENGINE_SECS" 'BEGIN { printf "engine wall time %.1f s (JVM start, group join and drain included): %.0f records/s\n", s, n / s }'
echo "(The engine's own summary above counts from its start, without the JVM's. 8,502 records are too few to measure"
echo " speed, and its latency includes the time the sample sat in Kafka before the engine ran: scripts/bench.sh"
echo " measures both, see the README's Performance section.)"
if [ "$TOTAL" = "$LINES" ] && [ "$DISTINCT" = "$SAMPLE_DISTINCT" ]; then
  echo "OK: every sample event is in ClickHouse exactly once."
else
  echo "MISMATCH: expected $LINES rows and $SAMPLE_DISTINCT distinct ids" >&2
  exit 1
fi
printf '\nKafka, ClickHouse and PostgreSQL are still running. Stop them with: scripts/services.sh stop\n'
