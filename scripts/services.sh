#!/usr/bin/env bash
# Starts, stops and reports the two real services Sluice's quickstart, tests and benchmarks use, on loopback:
#   Kafka      - an Apache Kafka 4.x broker in KRaft mode (combined broker+controller), run from the broker jars
#                Maven resolves (org.apache.kafka:kafka_2.13, version = the parent pom's kafka.version).
#   ClickHouse - Debian's clickhouse-server package (installed with apt-get when missing), run as a plain
#                process with its own config and data directory.
#
# Usage: scripts/services.sh start|stop|status|restart [kafka|clickhouse]
#
# Environment (all optional):
#   SLUICE_KAFKA_PORT               broker listener            (default 19092; the controller uses port+1)
#   SLUICE_CLICKHOUSE_HTTP_PORT     ClickHouse HTTP interface  (default 18123)
#   SLUICE_CLICKHOUSE_TCP_PORT      ClickHouse native protocol (default 19000)
#   SLUICE_HOME                     state directory            (default <project>/.sluice, ignored by git)
#   SLUICE_KAFKA_HEAP               broker heap                (default 1g)
#
# start is idempotent: a service that already answers is left alone. stop stops only processes this script
# started (it keeps their pids under $SLUICE_HOME/run). Data survives stop/start; `scripts/services.sh wipe`
# (after stop) deletes it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLUICE_HOME=${SLUICE_HOME:-$ROOT/.sluice}
KAFKA_PORT=${SLUICE_KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=$((KAFKA_PORT + 1))
CH_HTTP_PORT=${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}
CH_TCP_PORT=${SLUICE_CLICKHOUSE_TCP_PORT:-19000}
KAFKA_HEAP=${SLUICE_KAFKA_HEAP:-1g}

RUN=$SLUICE_HOME/run
KAFKA_DIR=$SLUICE_HOME/kafka
CH_DIR=$SLUICE_HOME/clickhouse

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pid_alive() {
  local f=$1
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------- Kafka

kafka_libs() {
  local libs=$KAFKA_DIR/libs stamp=$KAFKA_DIR/libs/.resolved-from
  local want
  want=$(sha1sum "$ROOT/pom.xml" "$ROOT/scripts/services/kafka-broker.pom.xml" | sha1sum | cut -c1-40)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  command -v mvn >/dev/null || die "mvn not found: Maven resolves the Kafka broker jars"
  log "resolving the Kafka broker jars with Maven into $libs"
  rm -rf "$libs" && mkdir -p "$libs"
  # The broker pom's parent is the project pom; install nothing, only copy the broker's runtime jars.
  mvn -B -q -f "$ROOT/scripts/services/kafka-broker.pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$libs" -DincludeScope=runtime >"$KAFKA_DIR/maven.log" 2>&1 \
      || { tail -30 "$KAFKA_DIR/maven.log" >&2; die "could not resolve the Kafka broker jars (see $KAFKA_DIR/maven.log)"; }
  # the broker decompresses what producers send: without a codec's jar every batch compressed with it fails
  local codec
  for codec in lz4-java zstd-jni snappy-java; do
    compgen -G "$libs/$codec-*.jar" >/dev/null || die "the resolved Kafka broker jars lack $codec (see $KAFKA_DIR/maven.log)"
  done
  echo "$want" >"$stamp"
}

kafka_java() {
  local main=$1; shift
  java -Xms128m -Xmx"$KAFKA_HEAP" -XX:+UseG1GC -Djava.awt.headless=true \
       -Dlog4j2.configurationFile="$ROOT/scripts/services/log4j2.properties" \
       -cp "$KAFKA_DIR/libs/*" "$main" "$@"
}

kafka_ready() {
  port_open "$KAFKA_PORT" || return 1
  # a broker this script did not start (another checkout's, or the machine's) has no log here: answering is enough
  pid_alive "$RUN/kafka.pid" || return 0
  grep -q 'Kafka Server started' "$KAFKA_DIR/broker.log" 2>/dev/null
}

kafka_start() {
  if port_open "$KAFKA_PORT"; then
    if pid_alive "$RUN/kafka.pid"; then log "kafka already running on 127.0.0.1:$KAFKA_PORT (pid $(cat "$RUN/kafka.pid"))"
    else log "something already answers on 127.0.0.1:$KAFKA_PORT; using it as the broker (not started by this script)"; fi
    return 0
  fi
  command -v java >/dev/null || die "java not found (Java 17 runs the Kafka broker)"
  kafka_libs
  mkdir -p "$KAFKA_DIR/data" "$RUN"
  local props=$KAFKA_DIR/server.properties
  cat >"$props" <<EOF
# Written by scripts/services.sh: single-node KRaft (broker + controller) on loopback.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DIR/data
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.retention.hours=168
log.segment.bytes=268435456
num.network.threads=2
num.io.threads=4
EOF
  if [ ! -f "$KAFKA_DIR/data/meta.properties" ]; then
    log "formatting the KRaft log directory $KAFKA_DIR/data"
    kafka_java kafka.tools.StorageTool format --standalone --ignore-formatted \
        -t "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" \
        -c "$props" >"$KAFKA_DIR/format.log" 2>&1 || { cat "$KAFKA_DIR/format.log" >&2; die "kafka storage format failed"; }
  fi
  log "starting kafka on 127.0.0.1:$KAFKA_PORT (controller :$KAFKA_CONTROLLER_PORT, data $KAFKA_DIR/data)"
  # keep the previous run's log (a failure is often diagnosed after the next start)
  [ -s "$KAFKA_DIR/broker.log" ] && mv -f "$KAFKA_DIR/broker.log" "$KAFKA_DIR/broker.log.1"
  : >"$KAFKA_DIR/broker.log"
  nohup setsid bash -c "exec java -Xms256m -Xmx$KAFKA_HEAP -XX:+UseG1GC -Djava.awt.headless=true \
      -Dlog4j2.configurationFile='$ROOT/scripts/services/log4j2.properties' \
      -cp '$KAFKA_DIR/libs/*' kafka.Kafka '$props'" >>"$KAFKA_DIR/broker.log" 2>&1 </dev/null &
  echo $! >"$RUN/kafka.pid"
}

kafka_stop() {
  if pid_alive "$RUN/kafka.pid"; then
    local pid; pid=$(cat "$RUN/kafka.pid")
    log "stopping kafka (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  else
    log "kafka: not started by this script; nothing to stop"
  fi
  rm -f "$RUN/kafka.pid"
}

# ---------------------------------------------------------------------------------------------- ClickHouse

clickhouse_install() {
  command -v clickhouse-server >/dev/null && return 0
  log "installing Debian's clickhouse-server package with apt-get"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q clickhouse-server clickhouse-client >"$SLUICE_HOME/apt.log" 2>&1 \
    || { $sudo apt-get update -q >>"$SLUICE_HOME/apt.log" 2>&1 && \
         $sudo apt-get install -y -q clickhouse-server clickhouse-client >>"$SLUICE_HOME/apt.log" 2>&1; } \
    || { tail -20 "$SLUICE_HOME/apt.log" >&2; die "apt-get could not install clickhouse-server"; }
  command -v clickhouse-server >/dev/null || die "clickhouse-server is still missing after apt-get"
}

clickhouse_ready() {
  [ "$(curl -s --max-time 2 "http://127.0.0.1:$CH_HTTP_PORT/ping" 2>/dev/null)" = "Ok." ]
}

clickhouse_start() {
  if port_open "$CH_HTTP_PORT"; then
    if pid_alive "$RUN/clickhouse.pid"; then log "clickhouse already running on 127.0.0.1:$CH_HTTP_PORT (pid $(cat "$RUN/clickhouse.pid"))"
    else log "something already answers on 127.0.0.1:$CH_HTTP_PORT; using it as ClickHouse (not started by this script)"; fi
    return 0
  fi
  clickhouse_install
  mkdir -p "$CH_DIR"/{data,tmp,user_files,format_schemas,log} "$RUN"
  sed -e "s#@DIR@#$CH_DIR#g" -e "s#@HTTP_PORT@#$CH_HTTP_PORT#g" -e "s#@TCP_PORT@#$CH_TCP_PORT#g" \
      "$ROOT/scripts/services/clickhouse-config.xml.tmpl" >"$CH_DIR/config.xml"
  cp "$ROOT/scripts/services/clickhouse-users.xml" "$CH_DIR/users.xml"
  # drop-in files ClickHouse merges into config.xml (config.d/) and users.xml (users.d/): the settings of the
  # server's own context that the benchmark's kafka-engine contender needs (see the files)
  mkdir -p "$CH_DIR/config.d" "$CH_DIR/users.d"
  cp "$ROOT"/scripts/services/clickhouse-config.d/*.xml "$CH_DIR/config.d/"
  cp "$ROOT"/scripts/services/clickhouse-users.d/*.xml "$CH_DIR/users.d/"
  log "starting clickhouse on 127.0.0.1:$CH_HTTP_PORT (native :$CH_TCP_PORT, data $CH_DIR/data)"
  # The background job must be the server command itself, so that $! is the server's pid (nohup and setsid exec
  # into it): backgrounding `cd ... && nohup ...` recorded the pid of a bash subshell, and stop killed only that.
  ( cd "$CH_DIR" || exit 1
    nohup setsid clickhouse-server --config-file="$CH_DIR/config.xml" \
        >>"$CH_DIR/log/stdout.log" 2>&1 </dev/null &
    echo $! >"$RUN/clickhouse.pid" )
}

clickhouse_stop() {
  if pid_alive "$RUN/clickhouse.pid"; then
    local pid; pid=$(cat "$RUN/clickhouse.pid")
    log "stopping clickhouse (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  else
    log "clickhouse: not started by this script; nothing to stop"
  fi
  rm -f "$RUN/clickhouse.pid"
}

# ---------------------------------------------------------------------------------------------- commands

wait_ready() {
  local what=$1 check=$2 logfile=$3 pidfile=$4 limit=${5:-120}
  local i
  for i in $(seq 1 $((limit * 2))); do
    if $check; then log "$what is ready"; return 0; fi
    if [ -f "$pidfile" ] && ! pid_alive "$pidfile"; then
      tail -40 "$logfile" >&2 || true
      die "$what exited during start-up (log: $logfile)"
    fi
    sleep 0.5
  done
  tail -40 "$logfile" >&2 || true
  die "$what did not answer within ${limit}s (log: $logfile)"
}

want() { [ -z "${TARGET:-}" ] || [ "$TARGET" = "$1" ]; }

cmd=${1:-status}
TARGET=${2:-}
mkdir -p "$SLUICE_HOME" "$RUN"
case "$cmd" in
  start)
    want clickhouse && clickhouse_start
    want kafka && kafka_start
    want clickhouse && wait_ready "clickhouse (http://127.0.0.1:$CH_HTTP_PORT)" clickhouse_ready "$CH_DIR/log/clickhouse-server.err.log" "$RUN/clickhouse.pid"
    want kafka && wait_ready "kafka (127.0.0.1:$KAFKA_PORT)" kafka_ready "$KAFKA_DIR/broker.log" "$RUN/kafka.pid"
    log "kafka bootstrap.servers=127.0.0.1:$KAFKA_PORT  clickhouse endpoint=http://127.0.0.1:$CH_HTTP_PORT"
    ;;
  stop)
    want kafka && kafka_stop
    want clickhouse && clickhouse_stop
    ;;
  restart)
    "$0" stop "$TARGET"
    "$0" start "$TARGET"
    ;;
  status)
    rc=0
    if want kafka; then
      if port_open "$KAFKA_PORT"; then echo "kafka: up on 127.0.0.1:$KAFKA_PORT$(pid_alive "$RUN/kafka.pid" && echo " (pid $(cat "$RUN/kafka.pid"), started by services.sh)")"
      else echo "kafka: down (127.0.0.1:$KAFKA_PORT)"; rc=3; fi
    fi
    if want clickhouse; then
      if clickhouse_ready; then echo "clickhouse: up on http://127.0.0.1:$CH_HTTP_PORT$(pid_alive "$RUN/clickhouse.pid" && echo " (pid $(cat "$RUN/clickhouse.pid"), started by services.sh)")"
      else echo "clickhouse: down (http://127.0.0.1:$CH_HTTP_PORT)"; rc=3; fi
    fi
    exit $rc
    ;;
  wipe)
    if pid_alive "$RUN/kafka.pid" || pid_alive "$RUN/clickhouse.pid"; then die "stop the services before wipe"; fi
    log "deleting $KAFKA_DIR/data and $CH_DIR"
    rm -rf "$KAFKA_DIR/data" "$KAFKA_DIR/server.properties" "$CH_DIR"
    ;;
  *)
    echo "usage: $0 start|stop|restart|status|wipe [kafka|clickhouse]" >&2
    exit 2
    ;;
esac
