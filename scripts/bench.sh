#!/usr/bin/env bash
# Sluice benchmarks. Measures, on this machine, in the same run: the limits of the machine for the data (Kafka's
# consumer alone, ClickHouse's ingest of Sluice's RowBinary rows alone), a plain KafkaConsumer + Jackson + JSONEachRow
# baseline, Sluice, and ClickHouse's own Kafka table engine with one MATERIALIZED VIEW per table (kafka-engine), on the
# real GitHub events replicated into a topic of 4 partitions; verifies every run's rows against the input in
# ClickHouse, measures the CPU of each contender, of the ClickHouse server and of the broker (found by their ports)
# and the parts each run created, and prints a table and the ratios. See docs/benchmarks.md.
#
#   scripts/bench.sh                 # full run: 1,000,000 records, 3 rounds (about 8 minutes on 2 cores after the build)
#   scripts/bench.sh --quick         # 100,000 records, 1 round (about 2 minutes after the build)
#   scripts/bench.sh --jmh           # the JMH suites per stage (codecs, ring hop, sealer, ack tracker, RowBinary)
#   scripts/bench.sh --records 500000 --rounds 5 --live-rate 10000   # any BenchRun option (see --help)
#   scripts/bench.sh --quick --contenders sluice,kafka-engine --batch-sweep 1000,20000,100000
#   scripts/bench.sh --scale         # the cost curve: the three-line design at 10, 100, 1,000, 10,000 topics
#   scripts/bench.sh --scale --quick # 10 and 100 topics, 20,000 records each (2-3 minutes after the build)
#   scripts/bench.sh --sink postgres [--quick]   # into PostgreSQL: copy-limit, baseline, kafka-connect, sluice,
#                                                sluice-exactly-once
#   scripts/bench.sh --scale --quick --sink postgres   # the cost curve into PostgreSQL (rows per COPY)
#
# Environment: SKIP_BUILD=1 reuses the jars; SLUICE_KAFKA_PORT, SLUICE_CLICKHOUSE_HTTP_PORT and
# SLUICE_CLICKHOUSE_TCP_PORT as scripts/services.sh (which starts the services that do not answer there);
# JMH_ARGS adds JMH options; JMH_FILTER picks JMH benchmarks (a regular expression).
# SLUICE_POSTGRES_PORT as scripts/services.sh; PGPASSWORD (default: the sluice user's from the services' secrets.env).
# Results: bench/results/latest.txt and latest.json, every run's logs and JSON in bench/results/e2e-<time>/;
# --sink postgres: latest-postgres.txt and latest-postgres.json, bench/results/e2e-postgres-<time>/; each run's
# directory also holds records-per-s.svg and cpu-per-record.svg;
# --scale writes result.txt, result.json and cost-curve.svg into bench/results/scale-<time>/ (ScaleRun --help).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

KAFKA="127.0.0.1:${SLUICE_KAFKA_PORT:-19092}"
CH="http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}"
JAR=bench/target/benchmarks.jar
# shellcheck source=lib/jvm-flags.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/jvm-flags.sh"
FLAGS=$SLUICE_JVM_FLAGS

mode=e2e
sink=clickhouse
prev=
args=()
for a in "$@"; do
  [ "$prev" = --sink ] && sink=$a
  prev=$a
  case "$a" in
    --jmh) mode=jmh ;;
    --scale) mode=scale ;;
    -h|--help) mode=help ;;
    *) args+=("$a") ;;
  esac
done

# PGPASSWORD for the PostgreSQL runs: read by the configurations (password = "${PGPASSWORD}") and Kafka Connect
postgres_password() {
  if [ -z "${PGPASSWORD:-}" ]; then
    secrets=$(scripts/services.sh env | sed -n 's/^SLUICE_SECURE_DIR=//p')/secrets.env
    PGPASSWORD=$(grep '^SLUICE_TEST_POSTGRES_PASSWORD=' "$secrets" | cut -d= -f2- || true)
    [ -n "$PGPASSWORD" ] || { echo "bench.sh: no PGPASSWORD and none in $secrets" >&2; exit 1; }
  fi
  export PGPASSWORD
}
PG_URL="jdbc:postgresql://127.0.0.1:${SLUICE_POSTGRES_PORT:-15432}/sluice"

build() {
  if [ -z "${SKIP_BUILD:-}" ]; then
    echo "== building engine.jar and benchmarks.jar (mvn package, tests skipped)"
    mvn -B -q -DskipTests package -pl engine,bench -am
  fi
}

if [ "$mode" = help ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  if [ -f "$JAR" ]; then
    java -cp "$JAR" io.sluice.bench.e2e.BenchRun --help 2>&1 | sed 1d || true
    echo; java -cp "$JAR" io.sluice.bench.e2e.ScaleRun --help 2>&1 || true
  else
    echo "(BenchRun's options are listed here once $JAR is built: any scripts/bench.sh run builds it, or"
    echo " mvn -B -q -DskipTests package -pl engine,bench -am; docs/benchmarks.md lists them too)"
  fi
  exit 0
fi

if [ "$mode" = jmh ]; then
  build
  out=bench/results/jmh-$(date -u +%Y%m%d-%H%M%S)
  mkdir -p "$out"
  filter=${JMH_FILTER:-'io\.sluice\.bench\.(codecs\.(Extraction|Murmur2|RowBinary)|ring\.RingHop|route\.(Sealer|Regex)|ack\.AckTracker)Benchmark'}
  echo "== JMH suites: $(nproc) cores, $(java -version 2>&1 | head -1), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "   filter: $filter   results: $out"
  # short iterations for a 2-core machine (about 3-8 minutes in all); JMH_ARGS="-wi 5 -i 10" for longer runs
  # shellcheck disable=SC2086
  java $FLAGS -jar "$JAR" "$filter" -f 1 -wi 2 -w 1s -i 3 -r 2s -prof gc ${JMH_ARGS:-} \
    -jvmArgsAppend "$FLAGS -Dsluice.bench.out=$ROOT/$out" -rf json -rff "$out/jmh.json" | tee "$out/jmh.txt"
  # shellcheck disable=SC2086
  java $FLAGS -cp "$JAR" io.sluice.bench.codecs.CodecsBenchReport "=$out/jmh.json" | tee -a "$out/jmh.txt"
  if ls "$out"/ringhop-*.txt >/dev/null 2>&1; then
    echo; echo "ring hop latency (paced, coordinated-omission safe: from each event's intended send time):"
    cat "$out"/ringhop-*.txt | tee -a "$out/jmh.txt"
  fi
  exit 0
fi

if [ "$mode" = scale ]; then
  build
  scripts/services.sh status >/dev/null 2>&1 || scripts/services.sh start
  [ "$sink" = postgres ] && postgres_password
  # shellcheck disable=SC2086
  exec java -Xmx1g $FLAGS -cp "$JAR" io.sluice.bench.e2e.ScaleRun --root "$ROOT" --bootstrap-servers "$KAFKA" \
    --clickhouse "$CH" --postgres "$PG_URL" --command "scripts/bench.sh${*:+ $*}" "${args[@]}"
fi

build
# services started by another checkout (or by hand) count too: start only what does not answer
scripts/services.sh status >/dev/null 2>&1 || scripts/services.sh start
if [ "$sink" = postgres ]; then
  postgres_password
  # the kafka-connect contender's classpath: Kafka Connect and Debezium's JDBC sink from Maven Central (online once)
  cp_file=bench/kafka-connect/target/classpath.txt
  if [ ! -s "$cp_file" ]; then
    echo "== resolving the kafka-connect contender (bench/kafka-connect/pom.xml)"
    mkdir -p bench/kafka-connect/target
    ( cd bench/kafka-connect && { mvn -o -B -q dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
        || mvn -B -q -s settings.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt; } ) \
      || echo "   could not resolve it: the kafka-connect contender will fail and the others run"
  fi
  # shellcheck disable=SC2086
  exec java -Xmx3g $FLAGS -cp "$JAR" io.sluice.bench.e2e.BenchRun --root "$ROOT" --bootstrap-servers "$KAFKA" \
    --postgres "$PG_URL" \
    --command "scripts/bench.sh${*:+ $*}" "${args[@]}"
fi
# shellcheck disable=SC2086
exec java -Xmx3g $FLAGS -cp "$JAR" io.sluice.bench.e2e.BenchRun --root "$ROOT" --bootstrap-servers "$KAFKA" \
  --clickhouse "$CH" --command "scripts/bench.sh${*:+ $*}" "${args[@]}"
