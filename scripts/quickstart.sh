#!/usr/bin/env bash
# Sluice quickstart on a fresh machine: builds engine.jar, starts Kafka, ClickHouse and PostgreSQL (scripts/services.sh;
# SLUICE_SECURE=0 leaves their secured listeners and certificates out), creates
# the example tables, produces the bundled GitHub sample into topic github.events (4 partitions), runs the engine on
# examples/github-events.toml until every partition is committed to its end, and prints rows per table and records/s.
# Re-running starts over: the topic, the consumer group and database github are recreated.
# The engine run also writes engine/target/engine.jsa, a class data sharing archive of the classes it loaded: later
# runs started from this directory as `java -XX:SharedArchiveFile=engine/target/engine.jsa -jar engine/target/engine.jar`
# start faster and spend less CPU in the JIT (docs/tuning.md, "Start-up"); SLUICE_CDS=0 leaves it out.
# The services keep running afterwards; stop them with: scripts/services.sh stop
#
# Usage: scripts/quickstart.sh [--sink clickhouse|postgres]
#   --sink clickhouse (the default) as above.
#   --sink postgres   lands the same sample in PostgreSQL instead: recreates the eight tables of
#                     examples/github-events-postgres.sql in database analytics (user sluice, password from
#                     secure/secrets.env), runs examples/github-events-postgres.toml (group sluice-github-pg) and checks
#                     that each table holds every event of its types exactly once. SLUICE_QS_WAIT_SECS (default 60)
#                     bounds the wait for the rows after the engine stops.
#
# The engine runs on a copy of the example ($SLUICE_HOME/quickstart-*.toml) with an [engine] table added:
# kafka_check_timeout_ms = SLUICE_QS_KAFKA_CHECK_MS (default 60000), since the services are known to be up and a
# loaded machine may need more than the engine's default 10 s to answer. Any step that fails ends the script with a
# line "FAILED: <step>: <reason>" and the timings of the steps so far.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

SINK=clickhouse
while [ $# -gt 0 ]; do
  case "$1" in
    --sink) [ $# -ge 2 ] || { echo "quickstart: --sink needs a value: clickhouse or postgres" >&2; exit 2; }
            SINK=$2; shift 2 ;;
    --sink=*) SINK=${1#--sink=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quickstart: unknown argument '$1' (usage: scripts/quickstart.sh [--sink clickhouse|postgres])" >&2; exit 2 ;;
  esac
done
case "$SINK" in
  clickhouse|postgres) ;;
  *) echo "quickstart: --sink '$SINK' is not a sink kind the quickstart runs: clickhouse or postgres" >&2; exit 2 ;;
esac

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

# Class data sharing (docs/tuning.md, "Start-up"): the engine run dumps the classes it loaded into $CDS_ARCHIVE at its
# exit (a dynamic archive on top of the JDK's own). The archive names the jar by the path given here, relative to the
# repository root, and is valid only for this jar and this JDK: every quickstart makes it afresh after the build.
# A JDK without a base archive (lib/server/classes.jsa) would refuse to start with the option: there the run makes
# none. Nothing fails for want of an archive; later runs only start more slowly.
CDS_ARCHIVE=engine/target/engine.jsa
CDS_DUMP=()
if [ "${SLUICE_CDS:-1}" != 0 ]; then
  if java -Xshare:on -version >/dev/null 2>&1; then
    # -Xlog:cds=error: without it the dump warns about each of about 240 classes (picocli's, jnr's) compiled for
    # Java 5, which CDS leaves out (the JVM loads them from the jar as before)
    CDS_DUMP=("-XX:ArchiveClassesAtExit=$CDS_ARCHIVE" "-Xlog:cds=error")
  else
    echo "quickstart: this JDK has no class data sharing archive of its own (java -Xshare:on fails): no $CDS_ARCHIVE"
  fi
fi
cds_report() {
  if [ ${#CDS_DUMP[@]} -gt 0 ] && [ -s "$CDS_ARCHIVE" ]; then
    echo "class data sharing archive: $CDS_ARCHIVE ($(du -h "$CDS_ARCHIVE" | cut -f1)); later runs from $ROOT use it with"
    echo "  java -XX:SharedArchiveFile=$CDS_ARCHIVE -jar $JAR ...   (docs/tuning.md, \"Start-up\")"
  fi
}

declare -a STEP_NAMES STEP_SECS
step_start=0
begin() { printf '\n== %s\n' "$1"; STEP_NAMES+=("$1"); step_start=$(now); }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
end() { STEP_SECS+=("$(elapsed "$step_start")"); }
ch() { curl -sS --fail-with-body "$CH/" --data-binary "$1"; }
timings() {
  printf '\n== timings\n'
  for i in "${!STEP_SECS[@]}"; do printf '  %6.1f s  %s\n' "${STEP_SECS[$i]}" "${STEP_NAMES[$i]}"; done
}
failed() {
  # the last line says what failed, after the timings of the steps that ran
  timings >&2
  printf '\nFAILED: %s: %s\n' "${STEP_NAMES[-1]:-quickstart}" "$1" >&2
}
# a command that fails outside run_engine (build, services, produce, SQL) stops the script (set -e): say so
trap 'rc=$?; failed "a command exited with code $rc (its error is above)"' ERR

# run_engine CONFIG: the engine on a copy of CONFIG with a longer start-up wait for Kafka (the services are up, a
# loaded machine may just be slow to answer); on a non-zero exit prints FAILED with the reason and exits with its code
QS_HOME=${SLUICE_HOME:-$ROOT/.sluice}
run_engine() {
  local config=$1 copy rc=0
  mkdir -p "$QS_HOME"
  copy="$QS_HOME/quickstart-$(basename "$config")"
  cp "$config" "$copy"
  if ! grep -q '^\[engine\]' "$config"; then
    printf '\n# added by scripts/quickstart.sh: the services are known up; give a loaded machine time to answer\n[engine]\nkafka_check_timeout_ms = %s\n' \
      "${SLUICE_QS_KAFKA_CHECK_MS:-60000}" >>"$copy"
  fi
  t0=$(now)
  rm -f "$CDS_ARCHIVE"   # made afresh for this build's jar (a stale one would be ignored, not used)
  SLUICE_LOG_LEVEL=${SLUICE_LOG_LEVEL:-INFO} java ${CDS_DUMP[@]+"${CDS_DUMP[@]}"} -jar "$JAR" --config "$copy" \
    --until-caught-up || rc=$?
  ENGINE_SECS=$(elapsed "$t0")
  if [ "$rc" = 0 ]; then
    cds_report
  fi
  if [ "$rc" != 0 ]; then
    end
    case "$rc" in
      1) reason="a runtime failure (an unreachable service, a missing table, a refused record or a stalled partition: the engine's error is above)" ;;
      2) reason="the configuration $copy (a copy of $config) is invalid: the engine named each problem above" ;;
      *) reason="killed or crashed (exit code $rc, 128+N is signal N): see the lines above" ;;
    esac
    trap - ERR
    failed "the engine exited with code $rc: $reason"
    exit "$rc"
  fi
}

begin "build engine.jar (mvn package, tests skipped)"
mvn -B -q -Dstyle.color=never -DskipTests package -pl engine -am
end

begin "start Kafka, ClickHouse and PostgreSQL (scripts/services.sh start)"
scripts/services.sh start
end

if [ "$SINK" = postgres ]; then
  # --sink postgres: the same sample into the eight tables of examples/github-events-postgres.sql (database analytics)
  PG_CONFIG=examples/github-events-postgres.toml
  PG_SQL=examples/github-events-postgres.sql
  PG_GROUP=sluice-github-pg
  PG_DB=analytics
  PG_USER=sluice
  WAIT_SECS=${SLUICE_QS_WAIT_SECS:-60}
  # table <- the event types its branch takes (the order and `when` of the branches in $PG_CONFIG; other_events
  # takes every type the seven before it do not)
  PG_TABLES=(push_events watch_events create_events issues_events pull_request_events issue_comment_events fork_events other_events)
  PG_TYPES=(PushEvent WatchEvent CreateEvent IssuesEvent PullRequestEvent IssueCommentEvent ForkEvent '*')
  SECRETS=$(scripts/services.sh env | sed -n 's/^SLUICE_SECURE_DIR=//p')/secrets.env
  PGPASSWORD=$(grep '^SLUICE_TEST_POSTGRES_PASSWORD=' "$SECRETS" | cut -d= -f2- || true)
  [ -n "$PGPASSWORD" ] || { echo "quickstart: no SLUICE_TEST_POSTGRES_PASSWORD in $SECRETS (scripts/services.sh start writes it)" >&2; exit 1; }
  export PGPASSWORD   # read by psql and by $PG_CONFIG (password = "${PGPASSWORD}")
  PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$SLUICE_POSTGRES_PORT" -U "$PG_USER" -d "$PG_DB")
  pg() { "${PSQL[@]}" -At -c "$1"; }

  begin "create the tables in PostgreSQL database $PG_DB ($PG_SQL)"
  command -v psql >/dev/null || { echo "quickstart: no psql (Debian's postgresql package has it)" >&2; exit 1; }
  drop=$(printf '"public"."%s", ' "${PG_TABLES[@]}")
  pg "SET client_min_messages = warning; DROP TABLE IF EXISTS ${drop%, }" >/dev/null
  "${PSQL[@]}" -f "$PG_SQL"
  echo "tables: $(pg "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'")"
  end

  begin "produce the sample into topic $TOPIC (4 partitions)"
  LINES=$(zcat "$SAMPLE" | grep -c .)
  java -jar "$JAR" produce --bootstrap-servers "$KAFKA" --topic "$TOPIC" --partitions 4 --file "$SAMPLE" \
    --recreate --delete-group "$PG_GROUP"
  end

  begin "run the engine until the sample is drained"
  run_engine "$PG_CONFIG"
  end

  begin "check what landed in PostgreSQL"
  # events per table expected from the sample itself: its "type" field, mapped as the branches map it
  TYPES_SEEN=$(zcat "$SAMPLE" | grep -o '^{"id":"[0-9]*","type":"[A-Za-z]*"' | sed 's/.*"type":"//; s/"$//' | sort | uniq -c)
  declare -A EXPECT
  named=0
  for i in "${!PG_TABLES[@]}"; do
    [ "${PG_TYPES[$i]}" = '*' ] && continue
    EXPECT[${PG_TABLES[$i]}]=$(awk -v t="${PG_TYPES[$i]}" '$2 == t { print $1 }' <<<"$TYPES_SEEN")
    EXPECT[${PG_TABLES[$i]}]=${EXPECT[${PG_TABLES[$i]}]:-0}
    named=$((named + EXPECT[${PG_TABLES[$i]}]))
  done
  EXPECT[other_events]=$((LINES - named))
  UNION=$(printf 'SELECT id FROM "public"."%s" UNION ALL ' "${PG_TABLES[@]}")
  UNION=${UNION% UNION ALL }
  # the engine returns once every partition's offsets are committed, which it does only after the rows are in;
  # the bounded wait covers a slow server and says what is missing when it runs out
  deadline=$(( $(date +%s) + WAIT_SECS ))
  while :; do
    TOTAL=$(pg "SELECT count(*) FROM ($UNION) u")
    [ "$TOTAL" -ge "$LINES" ] && break
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "still only $TOTAL of $LINES rows in $PG_DB after ${WAIT_SECS}s (SLUICE_QS_WAIT_SECS); checking what is there" >&2
      break
    fi
    sleep 1
  done
  echo "rows per table (rows / distinct ids / events of its types in the sample):"
  bad=0
  for t in "${PG_TABLES[@]}"; do
    read -r rows ids <<<"$(pg "SELECT count(*), count(DISTINCT id) FROM \"public\".\"$t\"" | tr '|' ' ')"
    mark=ok
    if [ "$rows" != "$ids" ] || [ "$rows" != "${EXPECT[$t]}" ]; then mark=MISMATCH; bad=1; fi
    printf '  %-22s %6s / %6s / %6s  %s\n' "$t" "$rows" "$ids" "${EXPECT[$t]}" "$mark"
  done
  DISTINCT=$(pg "SELECT count(DISTINCT id) FROM ($UNION) u")
  SAMPLE_DISTINCT=$(zcat "$SAMPLE" | grep -o '^{"id":"[0-9]*"' | sort -u | wc -l)
  end

  timings
  printf '\nsample lines: %s   rows in %s.public: %s   distinct ids: %s (sample: %s)\n' "$LINES" "$PG_DB" "$TOTAL" "$DISTINCT" "$SAMPLE_DISTINCT"
  awk -v n="$LINES" -v s="$ENGINE_SECS" 'BEGIN { printf "engine wall time %.1f s (JVM start, group join and drain included): %.0f records/s\n", s, n / s }'
  echo "(8,502 records are too few to measure speed; scripts/bench.sh measures it, see the README's Performance section.)"
  if [ "$bad" = 0 ] && [ "$TOTAL" = "$LINES" ] && [ "$DISTINCT" = "$SAMPLE_DISTINCT" ]; then
    echo "OK: every sample event is in PostgreSQL exactly once, in the table of its type."
  else
    echo "MISMATCH: expected $LINES rows and $SAMPLE_DISTINCT distinct ids, each table as listed above" >&2
    echo "FAILED: check what landed in PostgreSQL: rows missing or doubled (see MISMATCH above)" >&2
    exit 1
  fi
  printf '\nLook at the rows (the password is in %s):\n' "$SECRETS"
  printf '  PGPASSWORD=$(grep ^SLUICE_TEST_POSTGRES_PASSWORD= %s | cut -d= -f2-) \\\n' "$SECRETS"
  printf '    psql -h 127.0.0.1 -p %s -U %s -d %s -c '\''SELECT id, created_at, actor_login, repo_name, size FROM push_events ORDER BY created_at LIMIT 5'\''\n' \
    "$SLUICE_POSTGRES_PORT" "$PG_USER" "$PG_DB"
  printf '\nKafka, ClickHouse and PostgreSQL are still running. Stop them with: scripts/services.sh stop\n'
  exit 0
fi

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
run_engine "$CONFIG"
end

begin "check what landed in ClickHouse"
echo "rows per table:"
ch "SELECT table, sum(rows) FROM system.parts WHERE database = 'github' AND active GROUP BY table ORDER BY table FORMAT PrettyCompactNoEscapes"
TOTAL=$(ch "SELECT sum(rows) FROM system.parts WHERE database = 'github' AND active")
UNION="SELECT id FROM github.push_events UNION ALL SELECT id FROM github.watch_events UNION ALL SELECT id FROM github.create_events UNION ALL SELECT id FROM github.issues_events UNION ALL SELECT id FROM github.pull_request_events UNION ALL SELECT id FROM github.issue_comment_events UNION ALL SELECT id FROM github.fork_events UNION ALL SELECT id FROM github.other_events"
DISTINCT=$(ch "SELECT uniqExact(id) FROM ($UNION)")
SAMPLE_DISTINCT=$(zcat "$SAMPLE" | grep -o '^{"id":"[0-9]*"' | sort -u | wc -l)
end

timings
printf '\nsample lines: %s   rows in github.*: %s   distinct ids: %s (sample: %s)\n' "$LINES" "$TOTAL" "$DISTINCT" "$SAMPLE_DISTINCT"
awk -v n="$LINES" -v s="$ENGINE_SECS" 'BEGIN { printf "engine wall time %.1f s (JVM start, group join and drain included): %.0f records/s\n", s, n / s }'
echo "(The engine's own summary above counts from its start, without the JVM's. 8,502 records are too few to measure"
echo " speed, and its latency includes the time the sample sat in Kafka before the engine ran: scripts/bench.sh"
echo " measures both, see the README's Performance section.)"
if [ "$TOTAL" = "$LINES" ] && [ "$DISTINCT" = "$SAMPLE_DISTINCT" ]; then
  echo "OK: every sample event is in ClickHouse exactly once."
else
  echo "MISMATCH: expected $LINES rows and $SAMPLE_DISTINCT distinct ids" >&2
  echo "FAILED: check what landed in ClickHouse: rows missing or doubled (see MISMATCH above)" >&2
  exit 1
fi
printf '\nKafka, ClickHouse and PostgreSQL are still running. Stop them with: scripts/services.sh stop\n'
