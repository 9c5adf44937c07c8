#!/usr/bin/env bash
# Starts, stops and reports the two real services Sluice's quickstart, tests and benchmarks use, on loopback:
#   Kafka      - an Apache Kafka 4.x broker in KRaft mode (combined broker+controller), run from the broker jars
#                Maven resolves (org.apache.kafka:kafka_2.13, version = the parent pom's kafka.version).
#   ClickHouse - Debian's clickhouse-server package (installed with apt-get when missing), run as a plain
#                process with its own config and data directory.
#
# Usage: scripts/services.sh start|stop|status|restart|env|wipe [kafka|clickhouse]
#
# Environment (all optional):
#   SLUICE_KAFKA_PORT               broker listener, PLAINTEXT (default 19092; the controller uses port+1)
#   SLUICE_KAFKA_SASL_SSL_PORT      broker listener, SASL_SSL  (default SLUICE_KAFKA_PORT+2, i.e. 19094)
#   SLUICE_KAFKA_MTLS_PORT          broker listener, SASL_SSL requiring a client certificate (default +3, i.e. 19095)
#   SLUICE_CLICKHOUSE_HTTP_PORT     ClickHouse HTTP interface  (default 18123)
#   SLUICE_CLICKHOUSE_HTTPS_PORT    ClickHouse HTTPS interface (default SLUICE_CLICKHOUSE_HTTP_PORT+1, i.e. 18124)
#   SLUICE_CLICKHOUSE_TCP_PORT      ClickHouse native protocol (default 19000)
#   SLUICE_SECURE                   1 (default): also the SASL_SSL listener and HTTPS; 0: plaintext only
#   SLUICE_HOME                     state directory            (default <project>/.sluice, ignored by git)
#   SLUICE_KAFKA_HEAP               broker heap                (default 1g)
#
# Secured services (docs/security.md): at the first start the script makes, under $SLUICE_HOME/secure (mode 700),
# a test CA, a server certificate for 127.0.0.1/localhost (Kafka's SASL_SSL listener and ClickHouse's https_port),
# a client certificate, a second CA that signed nothing (the "wrong trust store"), a PKCS12 trust store, and random
# passwords in secure/secrets.env: SCRAM-SHA-512 users of the broker (one with ACLs on topics secure.* and groups
# secure-*, one read-only, one without ACLs; StandardAuthorizer, the plaintext listener's ANONYMOUS is the super
# user) and ClickHouse users (one with a password, one without rights to any database of the tests). Nothing of it
# is committed; `wipe` deletes it. `scripts/services.sh env` prints the ports and paths (never the passwords).
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
KAFKA_SASL_SSL_PORT=${SLUICE_KAFKA_SASL_SSL_PORT:-$((KAFKA_PORT + 2))}
KAFKA_MTLS_PORT=${SLUICE_KAFKA_MTLS_PORT:-$((KAFKA_PORT + 3))}
CH_HTTPS_PORT=${SLUICE_CLICKHOUSE_HTTPS_PORT:-$((CH_HTTP_PORT + 1))}
SECURE_ON=${SLUICE_SECURE:-1}
KAFKA_HEAP=${SLUICE_KAFKA_HEAP:-1g}

RUN=$SLUICE_HOME/run
KAFKA_DIR=$SLUICE_HOME/kafka
CH_DIR=$SLUICE_HOME/clickhouse
SECURE=$SLUICE_HOME/secure

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pid_alive() {
  local f=$1
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------- secure material

# Certificates and passwords of the secured services, made once (openssl and keytool; nothing is committed).
secure_material() {
  [ "$SECURE_ON" = 1 ] || return 0
  if [ -s "$SECURE/secrets.env" ] && [ -s "$SECURE/server.pem" ] && [ -s "$SECURE/truststore.p12" ] \
     && [ -s "$SECURE/client.p12" ] && [ -s "$SECURE/rogue-client.pem" ]; then return 0; fi
  MATERIAL_NEW=1
  command -v openssl >/dev/null || die "openssl not found (it makes the test certificates)"
  command -v keytool >/dev/null || die "keytool not found (it makes the test trust store; it comes with the JDK)"
  log "making the test CA, certificates and passwords under $SECURE"
  rm -rf "$SECURE" && mkdir -p "$SECURE" && chmod 700 "$SECURE"
  (
    cd "$SECURE"
    umask 077
    local ext=san.ext
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' >"$ext"
    ca() { # name subject
      openssl req -x509 -newkey rsa:2048 -noenc -keyout "$1.key" -out "$1.pem" -days 3650 -subj "/CN=$2" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    }
    signed() { # name subject
      openssl req -newkey rsa:2048 -noenc -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
      openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days 825 \
        -extfile "$ext" 2>/dev/null
      rm -f "$1.csr"
    }
    ca ca "Sluice test CA"
    ca other-ca "Sluice unrelated test CA"
    signed server localhost
    signed client sluice-client
    # a client certificate no CA of ours signed: the servers must refuse it (proves the client sends its certificate)
    openssl req -x509 -newkey rsa:2048 -noenc -keyout rogue-client.key -out rogue-client.pem -days 3650 \
      -subj "/CN=rogue-client" 2>/dev/null
    rm -f other-ca.key ca.srl "$ext"
    # Kafka's PEM key store: the key and its certificate chain in one file
    cat server.key server.pem >server.keystore.pem
    pw() { openssl rand -hex 16; }
    local truststore_pw; truststore_pw=$(pw)
    # keytool reads the store password from the environment variable named after -storepass:env, not argv
    local keystore_pw; keystore_pw=$(pw)
    SLUICE_KEYSTORE_PW=$keystore_pw openssl pkcs12 -export -in client.pem -inkey client.key -certfile ca.pem \
      -name sluice-client -out client.p12 -passout env:SLUICE_KEYSTORE_PW
    SLUICE_TRUSTSTORE_PW=$truststore_pw keytool -importcert -noprompt -alias sluice-test-ca -file ca.pem \
      -keystore truststore.p12 -storetype PKCS12 -storepass:env SLUICE_TRUSTSTORE_PW >/dev/null 2>&1
    {
      echo "# Written by scripts/services.sh: passwords of the local secured services (random, made at first start)"
      echo "SLUICE_TEST_KAFKA_USER=sluice"
      echo "SLUICE_TEST_KAFKA_PASSWORD=$(pw)"
      echo "SLUICE_TEST_KAFKA_READONLY_USER=sluice-readonly"
      echo "SLUICE_TEST_KAFKA_READONLY_PASSWORD=$(pw)"
      echo "SLUICE_TEST_KAFKA_NOACL_USER=sluice-noacl"
      echo "SLUICE_TEST_KAFKA_NOACL_PASSWORD=$(pw)"
      echo "SLUICE_TEST_TRUSTSTORE_PASSWORD=$truststore_pw"
      echo "SLUICE_TEST_KEYSTORE_PASSWORD=$keystore_pw"
      echo "SLUICE_TEST_CLICKHOUSE_USER=sluice_writer"
      echo "SLUICE_TEST_CLICKHOUSE_PASSWORD=$(pw)"
      echo "SLUICE_TEST_CLICKHOUSE_NORIGHTS_USER=sluice_norights"
      echo "SLUICE_TEST_CLICKHOUSE_NORIGHTS_PASSWORD=$(pw)"
    } >secrets.env
  )
  [ -s "$SECURE/truststore.p12" ] || die "keytool could not write $SECURE/truststore.p12"
}

secret() { grep "^$1=" "$SECURE/secrets.env" | cut -d= -f2-; }

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
  local listeners="PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT"
  local advertised="PLAINTEXT://127.0.0.1:$KAFKA_PORT"
  local protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
  if [ "$SECURE_ON" = 1 ]; then
    listeners="$listeners,SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT,MTLS://127.0.0.1:$KAFKA_MTLS_PORT"
    advertised="$advertised,SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT,MTLS://127.0.0.1:$KAFKA_MTLS_PORT"
    protocols="$protocols,SASL_SSL:SASL_SSL,MTLS:SASL_SSL"
  fi
  cat >"$props" <<EOF
# Written by scripts/services.sh: single-node KRaft (broker + controller) on loopback.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=$listeners
advertised.listeners=$advertised
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
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
  if [ "$SECURE_ON" = 1 ]; then
    cat >>"$props" <<EOF
# The SASL_SSL listeners of the secured tests (docs/security.md): SCRAM-SHA-512 users made after start by
# KafkaSecuritySetup.java, TLS with the certificates under $SECURE. SASL_SSL takes no client certificate; MTLS (the
# same protocol on its own port) requires one that the test CA signed.
# Authorization: StandardAuthorizer; the plaintext and controller listeners' ANONYMOUS principal (the broker itself
# and every plaintext test client) is the super user, SASL users get only their ACLs.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$SECURE/server.keystore.pem
listener.name.sasl_ssl.ssl.truststore.type=PEM
listener.name.sasl_ssl.ssl.truststore.location=$SECURE/ca.pem
listener.name.sasl_ssl.ssl.client.auth=none
listener.name.mtls.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.mtls.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.mtls.ssl.keystore.type=PEM
listener.name.mtls.ssl.keystore.location=$SECURE/server.keystore.pem
listener.name.mtls.ssl.truststore.type=PEM
listener.name.mtls.ssl.truststore.location=$SECURE/ca.pem
listener.name.mtls.ssl.client.auth=required
EOF
  fi
  if [ ! -f "$KAFKA_DIR/data/meta.properties" ]; then
    log "formatting the KRaft log directory $KAFKA_DIR/data"
    kafka_java kafka.tools.StorageTool format --standalone --ignore-formatted \
        -t "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" \
        -c "$props" >"$KAFKA_DIR/format.log" 2>&1 || { cat "$KAFKA_DIR/format.log" >&2; die "kafka storage format failed"; }
  fi
  log "starting kafka on 127.0.0.1:$KAFKA_PORT (controller :$KAFKA_CONTROLLER_PORT, data $KAFKA_DIR/data)"
  # keep the previous run's log (a failure is often diagnosed after the next start)
  if [ -s "$KAFKA_DIR/broker.log" ]; then mv -f "$KAFKA_DIR/broker.log" "$KAFKA_DIR/broker.log.1"; fi
  : >"$KAFKA_DIR/broker.log"
  nohup setsid bash -c "exec java -Xms256m -Xmx$KAFKA_HEAP -XX:+UseG1GC -Djava.awt.headless=true \
      -Dlog4j2.configurationFile='$ROOT/scripts/services/log4j2.properties' \
      -cp '$KAFKA_DIR/libs/*' kafka.Kafka '$props'" >>"$KAFKA_DIR/broker.log" 2>&1 </dev/null &
  echo $! >"$RUN/kafka.pid"
}

# SCRAM users and ACLs of the secured tests, once per broker start (idempotent; passwords go by environment)
kafka_security_setup() {
  [ "$SECURE_ON" = 1 ] || return 0
  pid_alive "$RUN/kafka.pid" || return 0
  local stamp=$RUN/kafka.security-setup want
  want="$(cat "$RUN/kafka.pid"):$(sha1sum <"$SECURE/secrets.env" | cut -c1-40)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "creating the SCRAM-SHA-512 users and ACLs of the secured tests"
  ( set -a; . "$SECURE/secrets.env"; set +a
    SLUICE_SETUP_BOOTSTRAP=127.0.0.1:$KAFKA_PORT exec java -Xmx256m -cp "$KAFKA_DIR/libs/*" \
      -Dlog4j2.configurationFile="$ROOT/scripts/services/log4j2.properties" \
      "$ROOT/scripts/services/KafkaSecuritySetup.java" ) >"$KAFKA_DIR/security-setup.log" 2>&1 \
    || { tail -20 "$KAFKA_DIR/security-setup.log" >&2; die "could not create the SCRAM users and ACLs (see $KAFKA_DIR/security-setup.log)"; }
  echo "$want" >"$stamp"
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
  local https="" https_note=""
  if [ "$SECURE_ON" = 1 ]; then https="-e s#<!--@HTTPS@##g -e s#@HTTPS@-->##g"; https_note=", https :$CH_HTTPS_PORT"; fi
  # shellcheck disable=SC2086
  sed -e "s#@DIR@#$CH_DIR#g" -e "s#@HTTP_PORT@#$CH_HTTP_PORT#g" -e "s#@TCP_PORT@#$CH_TCP_PORT#g" \
      -e "s#@HTTPS_PORT@#$CH_HTTPS_PORT#g" -e "s#@SECURE@#$SECURE#g" $https \
      "$ROOT/scripts/services/clickhouse-config.xml.tmpl" >"$CH_DIR/config.xml"
  clickhouse_users >"$CH_DIR/users.xml"
  chmod 600 "$CH_DIR/users.xml"
  # drop-in files ClickHouse merges into config.xml (config.d/) and users.xml (users.d/): the settings of the
  # server's own context that the benchmark's kafka-engine contender needs (see the files)
  mkdir -p "$CH_DIR/config.d" "$CH_DIR/users.d"
  cp "$ROOT"/scripts/services/clickhouse-config.d/*.xml "$CH_DIR/config.d/"
  cp "$ROOT"/scripts/services/clickhouse-users.d/*.xml "$CH_DIR/users.d/"
  log "starting clickhouse on 127.0.0.1:$CH_HTTP_PORT (native :$CH_TCP_PORT$https_note, data $CH_DIR/data)"
  # The background job must be the server command itself, so that $! is the server's pid (nohup and setsid exec
  # into it): backgrounding `cd ... && nohup ...` recorded the pid of a bash subshell, and stop killed only that.
  ( cd "$CH_DIR" || exit 1
    nohup setsid clickhouse-server --config-file="$CH_DIR/config.xml" \
        >>"$CH_DIR/log/stdout.log" 2>&1 </dev/null &
    echo $! >"$RUN/clickhouse.pid" )
}

# users.xml: the passwordless default user, and with SLUICE_SECURE=1 the users of the secured tests: one with a
# password, one with a password and no rights to any database the tests use (allow_databases names one that is
# never created). Passwords as SHA-256 (password_sha256_hex): the plain text stays in secure/secrets.env.
clickhouse_users() {
  local users=""
  if [ "$SECURE_ON" = 1 ]; then
    local u p nu np
    u=$(secret SLUICE_TEST_CLICKHOUSE_USER); p=$(secret SLUICE_TEST_CLICKHOUSE_PASSWORD)
    nu=$(secret SLUICE_TEST_CLICKHOUSE_NORIGHTS_USER); np=$(secret SLUICE_TEST_CLICKHOUSE_NORIGHTS_PASSWORD)
    users="<$u><password_sha256_hex>$(printf '%s' "$p" | sha256sum | cut -c1-64)</password_sha256_hex>"
    users+="<networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></$u>"
    users+="<$nu><password_sha256_hex>$(printf '%s' "$np" | sha256sum | cut -c1-64)</password_sha256_hex>"
    users+="<networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota>"
    users+="<allow_databases><database>sluice_no_such_database</database></allow_databases></$nu>"
  fi
  sed -e "s#<!--@SECURE_USERS@-->#$users#" "$ROOT/scripts/services/clickhouse-users.xml"
}

clickhouse_https_ready() {
  [ "$SECURE_ON" = 1 ] || return 0
  [ "$(curl -s --max-time 2 --cacert "$SECURE/ca.pem" "https://127.0.0.1:$CH_HTTPS_PORT/ping" 2>/dev/null)" = "Ok." ]
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
    MATERIAL_NEW=0
    secure_material
    if [ "$MATERIAL_NEW" = 1 ]; then
      # running servers of ours hold the old certificates and users: restart them with the new ones
      if want kafka && pid_alive "$RUN/kafka.pid"; then kafka_stop; fi
      if want clickhouse && pid_alive "$RUN/clickhouse.pid"; then clickhouse_stop; fi
    fi
    if want clickhouse; then clickhouse_start; fi
    if want kafka; then kafka_start; fi
    if want clickhouse; then
      wait_ready "clickhouse (http://127.0.0.1:$CH_HTTP_PORT)" clickhouse_ready "$CH_DIR/log/clickhouse-server.err.log" "$RUN/clickhouse.pid"
    fi
    if want kafka; then
      wait_ready "kafka (127.0.0.1:$KAFKA_PORT)" kafka_ready "$KAFKA_DIR/broker.log" "$RUN/kafka.pid"
      kafka_security_setup
    fi
    if [ "$SECURE_ON" = 1 ] && want clickhouse && pid_alive "$RUN/clickhouse.pid"; then
      wait_ready "clickhouse (https://127.0.0.1:$CH_HTTPS_PORT)" clickhouse_https_ready "$CH_DIR/log/clickhouse-server.err.log" "$RUN/clickhouse.pid" 30
    fi
    log "kafka bootstrap.servers=127.0.0.1:$KAFKA_PORT  clickhouse endpoint=http://127.0.0.1:$CH_HTTP_PORT"
    if [ "$SECURE_ON" = 1 ]; then
      log "secured: kafka SASL_SSL 127.0.0.1:$KAFKA_SASL_SSL_PORT (client certificate required: :$KAFKA_MTLS_PORT)  clickhouse https://127.0.0.1:$CH_HTTPS_PORT  (certificates and passwords: $SECURE)"
    else
      log "SLUICE_SECURE=0: plaintext listeners only (no SASL_SSL, MTLS or HTTPS)"
    fi
    ;;
  env)
    # what the secured tests and docs/security.md's examples read; the passwords stay in $SECURE/secrets.env
    # (with SLUICE_SECURE=0 the secured endpoints are not printed: nothing listens there)
    echo "SLUICE_KAFKA_BOOTSTRAP=127.0.0.1:$KAFKA_PORT"
    echo "SLUICE_CLICKHOUSE_URL=http://127.0.0.1:$CH_HTTP_PORT"
    if [ "$SECURE_ON" = 1 ]; then
      echo "SLUICE_KAFKA_SASL_SSL_BOOTSTRAP=127.0.0.1:$KAFKA_SASL_SSL_PORT"
      echo "SLUICE_KAFKA_MTLS_BOOTSTRAP=127.0.0.1:$KAFKA_MTLS_PORT"
      echo "SLUICE_CLICKHOUSE_HTTPS_URL=https://127.0.0.1:$CH_HTTPS_PORT"
    fi
    echo "SLUICE_SECURE_DIR=$SECURE"
    ;;
  stop)
    if want kafka; then kafka_stop; fi
    if want clickhouse; then clickhouse_stop; fi
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
    log "deleting $KAFKA_DIR/data, $CH_DIR and $SECURE"
    rm -rf "$KAFKA_DIR/data" "$KAFKA_DIR/server.properties" "$CH_DIR" "$SECURE"
    ;;
  *)
    echo "usage: $0 start|stop|restart|status|env|wipe [kafka|clickhouse]" >&2
    exit 2
    ;;
esac
