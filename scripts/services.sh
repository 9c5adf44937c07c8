#!/usr/bin/env bash
# Starts, stops and reports the real services Sluice's quickstart, tests and benchmarks use, on loopback:
#   Kafka      - an Apache Kafka 4.x broker in KRaft mode (combined broker+controller), run from the broker jars
#                Maven resolves (org.apache.kafka:kafka_2.13, version = the parent pom's kafka.version).
#   ClickHouse - Debian's clickhouse-server package (installed with apt-get when missing), run as a plain
#                process with its own config and data directory.
#   PostgreSQL - Debian's postgresql package (installed with apt-get when missing), run as a plain server with its
#                own cluster under $SLUICE_HOME/postgres, as the package's system user `postgres` when run as root.
#
# Usage: scripts/services.sh start|stop|status|restart|env|wipe [kafka|clickhouse|postgres]
#
# Environment (all optional):
#   SLUICE_KAFKA_PORT               broker listener, PLAINTEXT (default 19092; the controller uses port+1)
#   SLUICE_KAFKA_SASL_SSL_PORT      broker listener, SASL_SSL  (default SLUICE_KAFKA_PORT+2, i.e. 19094)
#   SLUICE_KAFKA_MTLS_PORT          broker listener, SASL_SSL requiring a client certificate (default +3, i.e. 19095)
#   SLUICE_CLICKHOUSE_HTTP_PORT     ClickHouse HTTP interface  (default 18123)
#   SLUICE_CLICKHOUSE_HTTPS_PORT    ClickHouse HTTPS interface (default SLUICE_CLICKHOUSE_HTTP_PORT+1, i.e. 18124)
#   SLUICE_CLICKHOUSE_TCP_PORT      ClickHouse native protocol (default 19000)
#   SLUICE_POSTGRES_PORT            PostgreSQL, plain and TLS on the same port (default 15432)
#   SLUICE_SECURE                   1 (default): also the SASL_SSL listeners, HTTPS and PostgreSQL's TLS users;
#                                   0: plaintext only
#   SLUICE_HOME                     state directory            (default <project>/.sluice, ignored by git)
#   SLUICE_KAFKA_HEAP               broker heap                (default 1g)
#
# Secured services (docs/security.md): at the first start the script makes, under $SLUICE_HOME/secure (mode 700),
# a test CA, a server certificate for 127.0.0.1/localhost (Kafka's SASL_SSL listener and ClickHouse's https_port),
# a client certificate, a second CA that signed nothing (the "wrong trust store"), a PKCS12 trust store, and random
# passwords in secure/secrets.env: SCRAM-SHA-512 users of the broker (one with ACLs on topics secure.* and groups
# secure-*, one read-only, one without ACLs; StandardAuthorizer, the plaintext listener's ANONYMOUS is the super
# user) and ClickHouse users (one with a password, one without rights to any database of the tests). PostgreSQL gets
# TLS with the same server certificate and three users: sluice (a SCRAM password, with or without TLS; also with
# SLUICE_SECURE=0), sluice_scram (a SCRAM password over TLS only) and sluice_cert (a client certificate the test CA
# signed, client.pem with client.pk8), and the databases sluice (tests) and analytics (quickstart). Nothing of it
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

PG_PORT=${SLUICE_POSTGRES_PORT:-15432}

RUN=$SLUICE_HOME/run
KAFKA_DIR=$SLUICE_HOME/kafka
CH_DIR=$SLUICE_HOME/clickhouse
SECURE=$SLUICE_HOME/secure
PG_DIR=$SLUICE_HOME/postgres
# the databases (tests, quickstart) and users (password, password over TLS only, client certificate)
PG_DB=sluice
PG_QS_DB=analytics
PG_USER=sluice
PG_SCRAM_USER=sluice_scram
PG_CERT_USER=sluice_cert
PG_BIN=""
PG_AS=()
PG_REAL="" PG_DATA="" PG_LOG="" PG_SOCK=""

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pid_alive() {
  local f=$1
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

# apt_install PACKAGE... : Debian packages, installed with apt-get (an update first only when the install fails)
apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  log "installing Debian's $* with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q "$@" >"$SLUICE_HOME/apt.log" 2>&1 \
    || { $sudo apt-get update -q >>"$SLUICE_HOME/apt.log" 2>&1 && \
         $sudo apt-get install -y -q "$@" >>"$SLUICE_HOME/apt.log" 2>&1; } \
    || { tail -20 "$SLUICE_HOME/apt.log" >&2; die "apt-get could not install $*"; }
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
  apt_install clickhouse-server clickhouse-client
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

# ---------------------------------------------------------------------------------------------- PostgreSQL

# The newest server of Debian's postgresql-N packages: /usr/lib/postgresql/N/bin. The script runs that directory's
# initdb, postgres, pg_isready and psql itself; neither postgresql-common's cluster wrappers (pg_ctlcluster, the
# 15/main cluster on port 5432 that the package makes) nor /usr/local/bin/pg_ctl (on some images a symlink into the
# same directory) are used.
postgres_bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$d" ] && [ -x "$d/postgres" ]; then echo "$d"; fi
}

postgres_install() {
  PG_BIN=$(postgres_bindir)
  if [ -n "$PG_BIN" ]; then return 0; fi
  apt_install postgresql
  PG_BIN=$(postgres_bindir)
  [ -n "$PG_BIN" ] || die "no /usr/lib/postgresql/*/bin/postgres after installing Debian's postgresql package"
}

# PostgreSQL refuses to run as root: run as root, the script starts it (and its initdb) as the package's system user
# `postgres` (setpriv, no fork: the pid recorded is the server's); run as another user, as that user.
pg_as() { "${PG_AS[@]}" "$@"; }
pg_own() { if [ "${#PG_AS[@]}" -gt 0 ]; then chown postgres:postgres "$@"; fi; }

postgres_user() {
  PG_AS=()
  if [ "$(id -u)" = 0 ]; then
    getent passwd postgres >/dev/null || die "no system user postgres (Debian's postgresql package makes it)"
    PG_AS=(setpriv --reuid=postgres --regid=postgres --init-groups --reset-env --)
  fi
}

# The paths the server is given are those of the directory $PG_DIR is or links to (see postgres_dirs): the server's
# user must not need to pass through a directory it cannot search.
postgres_paths() {
  PG_REAL=$PG_DIR
  if [ -L "$PG_DIR" ]; then PG_REAL=$(readlink -f "$PG_DIR"); fi
  PG_DATA=$PG_REAL/data
  PG_LOG=$PG_REAL/log/postgres.log
  # the server's Unix socket (for this script's own superuser session); a socket's path has at most 107 bytes
  PG_SOCK=$PG_REAL/run
  if [ "${#PG_SOCK}" -gt 90 ]; then PG_SOCK=/tmp/sluice-pg-$(printf '%s' "$PG_REAL" | sha1sum | cut -c1-12); fi
}

# $PG_DIR holds the cluster (data/), its TLS files (tls/), its socket (run/) and logs (log/), all the server user's.
# That user must be able to reach it: when a directory above $SLUICE_HOME is not searchable for it (a home directory
# of mode 700, a temporary directory), the files go to its own home instead, <home>/sluice/<hash of $SLUICE_HOME>,
# and $PG_DIR is a symlink there (wipe deletes both). Nothing else's permissions are changed.
postgres_dirs() {
  if [ ! -e "$PG_DIR" ] && [ ! -L "$PG_DIR" ]; then
    if pg_as test -x "$SLUICE_HOME"; then
      mkdir -p "$PG_DIR"
    else
      local home alt
      home=$(getent passwd postgres | cut -d: -f6)
      alt="$home/sluice/$(printf '%s' "$SLUICE_HOME" | sha1sum | cut -c1-12)"
      log "user postgres cannot reach $SLUICE_HOME (a directory above it is not searchable): PostgreSQL's files go to $alt, linked from $PG_DIR"
      mkdir -p "$alt"
      pg_own "$home/sluice" "$alt"
      ln -s "$alt" "$PG_DIR"
    fi
  fi
  postgres_paths
  mkdir -p "$PG_DATA" "$PG_REAL/tls" "$PG_REAL/log" "$PG_SOCK"
  pg_own "$PG_REAL" "$PG_DATA" "$PG_REAL/tls" "$PG_REAL/log" "$PG_SOCK"
  chmod 700 "$PG_REAL" "$PG_DATA" "$PG_REAL/tls" "$PG_REAL/log" "$PG_SOCK"
  pg_as test -w "$PG_DATA" || die "user postgres cannot write $PG_DATA (check the permissions of the directories above it)"
}

# The passwords of the PostgreSQL users, in the same secrets file (also with SLUICE_SECURE=0: the plain user has a
# password too), added when missing so that an existing secure/ keeps its certificates and other passwords. With
# SLUICE_SECURE=1 also the client keys as pgJDBC reads them: PKCS#8 DER, unencrypted (client.pk8, rogue-client.pk8).
postgres_secrets() {
  mkdir -p "$SECURE" && chmod 700 "$SECURE"
  if ! grep -q '^SLUICE_TEST_POSTGRES_PASSWORD=' "$SECURE/secrets.env" 2>/dev/null; then
    pw() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
    ( umask 077
      [ -s "$SECURE/secrets.env" ] || echo "# Written by scripts/services.sh: passwords of the local services (random, made at first start)" >"$SECURE/secrets.env"
      { echo "SLUICE_TEST_POSTGRES_USER=$PG_USER"
        echo "SLUICE_TEST_POSTGRES_PASSWORD=$(pw)"
        echo "SLUICE_TEST_POSTGRES_SCRAM_USER=$PG_SCRAM_USER"
        echo "SLUICE_TEST_POSTGRES_SCRAM_PASSWORD=$(pw)"
        echo "SLUICE_TEST_POSTGRES_CERT_USER=$PG_CERT_USER"
      } >>"$SECURE/secrets.env" )
  fi
  if [ "$SECURE_ON" = 1 ]; then
    local k
    for k in client rogue-client; do
      if [ ! -s "$SECURE/$k.pk8" ]; then
        ( umask 077; openssl pkcs8 -topk8 -nocrypt -outform DER -in "$SECURE/$k.key" -out "$SECURE/$k.pk8" ) \
          || die "openssl could not write $SECURE/$k.pk8"
      fi
    done
  fi
}

# postgresql.conf, pg_hba.conf and pg_ident.conf, rewritten at every start (edits there are lost): loopback TCP on
# $PG_PORT, a socket only the server's user (and root) can open, TLS on the same port with SLUICE_SECURE=1.
postgres_config() {
  local conf=$PG_DATA/postgresql.conf hba=$PG_DATA/pg_hba.conf ident=$PG_DATA/pg_ident.conf ssl=off
  if [ "$SECURE_ON" = 1 ]; then
    ssl=on
    local f
    for f in server.pem server.key ca.pem; do
      install -m 600 "$SECURE/$f" "$PG_REAL/tls/$f"
      pg_own "$PG_REAL/tls/$f"
    done
  fi
  cat >"$conf" <<EOF
# Written by scripts/services.sh at every start: the local test server (edits here are lost).
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_SOCK'
unix_socket_permissions = 0700
max_connections = 100
shared_buffers = 128MB
dynamic_shared_memory_type = posix
password_encryption = scram-sha-256
ssl = $ssl
ssl_cert_file = '$PG_REAL/tls/server.pem'
ssl_key_file = '$PG_REAL/tls/server.key'
ssl_ca_file = '$PG_REAL/tls/ca.pem'
ssl_min_protocol_version = 'TLSv1.2'
lc_messages = 'C'
timezone = 'UTC'
log_timezone = 'UTC'
datestyle = 'iso, mdy'
log_destination = 'stderr'
logging_collector = off
log_line_prefix = '%m [%p] %q%u@%d '
EOF
  {
    echo "# Written by scripts/services.sh at every start. The first line that matches type, database, user and address"
    echo "# decides; a connection no line matches is refused (28000)."
    echo "# TYPE   DATABASE  USER              ADDRESS       METHOD"
    echo "# the superuser, for this script only: the socket's directory and the socket are the server user's, mode 700"
    echo "local    all       postgres                        trust"
    echo "# the plain user of the tests and the quickstart: a SCRAM password, with or without TLS"
    echo "host     all       $PG_USER            127.0.0.1/32  scram-sha-256"
    if [ "$SECURE_ON" = 1 ]; then
      echo "# a SCRAM password over TLS only (hostssl: the same user without TLS matches no line)"
      echo "hostssl  all       $PG_SCRAM_USER      127.0.0.1/32  scram-sha-256"
      echo "# a client certificate that the test CA signed; its CN is mapped to the user by pg_ident.conf"
      echo "hostssl  all       $PG_CERT_USER       127.0.0.1/32  cert map=sluice"
    fi
  } >"$hba"
  {
    echo "# Written by scripts/services.sh: the client certificate's CN -> the database user it may log in as"
    echo "# MAPNAME  SYSTEM-USERNAME  PG-USERNAME"
    echo "sluice     sluice-client    $PG_CERT_USER"
  } >"$ident"
  chmod 600 "$conf" "$hba" "$ident"
  pg_own "$conf" "$hba" "$ident"
}

postgres_ours() {
  pid_alive "$RUN/postgres.pid" && [ -f "$PG_DATA/postmaster.pid" ] \
    && [ "$(head -1 "$PG_DATA/postmaster.pid")" = "$(cat "$RUN/postgres.pid")" ]
}

postgres_ready() {
  port_open "$PG_PORT" || return 1
  pid_alive "$RUN/postgres.pid" || return 0
  "$PG_BIN/pg_isready" -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d postgres
}

postgres_start() {
  if port_open "$PG_PORT"; then
    if pid_alive "$RUN/postgres.pid"; then log "postgres already running on 127.0.0.1:$PG_PORT (pid $(cat "$RUN/postgres.pid"))"
    else log "something already answers on 127.0.0.1:$PG_PORT; using it as PostgreSQL (not started by this script)"; fi
    return 0
  fi
  postgres_install
  postgres_dirs
  if [ -s "$PG_DATA/PG_VERSION" ]; then
    local have want_major
    have=$(cat "$PG_DATA/PG_VERSION"); want_major=$(basename "$(dirname "$PG_BIN")")
    [ "$have" = "$want_major" ] || die "$PG_DATA holds a PostgreSQL $have cluster and the server here is $want_major: scripts/services.sh wipe (after stop) makes a new one"
  else
    log "initialising the PostgreSQL cluster in $PG_DATA"
    rm -rf "$PG_DATA" && mkdir -p "$PG_DATA" && pg_own "$PG_DATA" && chmod 700 "$PG_DATA"
    pg_as "$PG_BIN/initdb" -D "$PG_DATA" -U postgres -E UTF8 --locale=C --auth-local=trust --auth-host=reject \
        >"$PG_REAL/log/initdb.log" 2>&1 || { tail -20 "$PG_REAL/log/initdb.log" >&2; die "initdb failed (see $PG_REAL/log/initdb.log)"; }
  fi
  postgres_config
  log "starting postgres on 127.0.0.1:$PG_PORT$([ "$SECURE_ON" = 1 ] && echo " (TLS on the same port)" || true) as user $(if [ "${#PG_AS[@]}" -gt 0 ]; then echo postgres; else id -un; fi) (data $PG_DATA)"
  if [ -s "$PG_LOG" ]; then mv -f "$PG_LOG" "$PG_LOG.1"; fi
  : >"$PG_LOG"
  # as for ClickHouse: the background job is the server itself (nohup, setsid and setpriv exec), so $! is its pid
  ( cd "$PG_REAL" || exit 1
    nohup setsid "${PG_AS[@]}" "$PG_BIN/postgres" -D "$PG_DATA" >>"$PG_LOG" 2>&1 </dev/null &
    echo $! >"$RUN/postgres.pid" )
}

# The users and databases, once per server start or change of the passwords (idempotent; the passwords go to psql
# on its standard input, never on a command line, and the session turns off the statement logging that could write
# them to the server's log).
postgres_setup() {
  pid_alive "$RUN/postgres.pid" || return 0
  local stamp=$RUN/postgres.setup mark
  mark="$(cat "$RUN/postgres.pid"):$SECURE_ON:$(sha1sum <"$SECURE/secrets.env" | cut -c1-40)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$mark" ]; then return 0; fi
  log "creating the PostgreSQL users and databases ($PG_DB, $PG_QS_DB)"
  postgres_setup_sql | "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d postgres \
      >"$PG_REAL/log/setup.log" 2>&1 \
    || { tail -20 "$PG_REAL/log/setup.log" >&2; die "could not create the PostgreSQL users and databases (see $PG_REAL/log/setup.log)"; }
  echo "$mark" >"$stamp"
}

postgres_setup_sql() {
  local roles="'$PG_USER'"
  if [ "$SECURE_ON" = 1 ]; then roles="$roles, '$PG_SCRAM_USER', '$PG_CERT_USER'"; fi
  cat <<EOF
\set VERBOSITY terse
SET log_statement = 'none';
SET log_min_error_statement = panic;
SELECT format('CREATE ROLE %I LOGIN', r) FROM unnest(ARRAY[$roles]) AS r
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) \gexec
ALTER ROLE $PG_USER LOGIN PASSWORD '$(secret SLUICE_TEST_POSTGRES_PASSWORD)';
SELECT format('CREATE DATABASE %I OWNER %I', d, '$PG_USER') FROM unnest(ARRAY['$PG_DB', '$PG_QS_DB']) AS d
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d) \gexec
EOF
  if [ "$SECURE_ON" = 1 ]; then
    cat <<EOF
ALTER ROLE $PG_SCRAM_USER LOGIN PASSWORD '$(secret SLUICE_TEST_POSTGRES_SCRAM_PASSWORD)';
ALTER ROLE $PG_CERT_USER LOGIN PASSWORD NULL;
\connect $PG_DB
GRANT ALL ON SCHEMA public TO $PG_SCRAM_USER, $PG_CERT_USER;
EOF
  fi
}

postgres_stop() {
  if postgres_ours; then
    local pid; pid=$(cat "$RUN/postgres.pid")
    log "stopping postgres (pid $pid, fast shutdown)"
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
      log "postgres did not stop within 30 s: immediate shutdown"
      kill -QUIT "$pid" 2>/dev/null || true
      for _ in $(seq 1 10); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  elif pid_alive "$RUN/postgres.pid"; then
    log "postgres: pid $(cat "$RUN/postgres.pid") is not the server of $PG_DATA (postmaster.pid); not stopping it"
  else
    log "postgres: not started by this script; nothing to stop"
  fi
  rm -f "$RUN/postgres.pid"
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

usage() { echo "usage: $0 start|stop|restart|status|env|wipe [kafka|clickhouse|postgres]   ($0 --help for more)" >&2; exit 2; }

help() {
  cat <<HELP
usage: $0 start|stop|restart|status|env|wipe [kafka|clickhouse|postgres]

Runs the services of Sluice's quickstart, tests and benchmarks on 127.0.0.1, each as a plain process.

Commands (without a service name: every service):
  start     start what does not answer yet (idempotent), then print the endpoints
  stop      stop the processes this script started (pids under \$SLUICE_HOME/run)
  restart   stop, then start
  status    say which services answer (the default command; exit 3 when one is down)
  env       print the endpoints and paths the tests read (never the passwords)
  wipe      after stop: delete the data, the certificates and the passwords
  --help    this text

Services:
  kafka       Apache Kafka 4.x broker, KRaft mode (the broker jars Maven resolves)
  clickhouse  Debian's clickhouse-server (apt-get installs it when missing)
  postgres    Debian's postgresql (apt-get installs it when missing); databases sluice and analytics

Environment (all optional; the value in use now is in brackets):
  SLUICE_KAFKA_PORT              Kafka PLAINTEXT listener; the controller uses port+1  (default 19092)  [$KAFKA_PORT]
  SLUICE_KAFKA_SASL_SSL_PORT     Kafka SASL_SSL listener       (default SLUICE_KAFKA_PORT+2)      [$KAFKA_SASL_SSL_PORT]
  SLUICE_KAFKA_MTLS_PORT         Kafka SASL_SSL + client cert  (default SLUICE_KAFKA_PORT+3)      [$KAFKA_MTLS_PORT]
  SLUICE_CLICKHOUSE_HTTP_PORT    ClickHouse HTTP               (default 18123)                    [$CH_HTTP_PORT]
  SLUICE_CLICKHOUSE_HTTPS_PORT   ClickHouse HTTPS              (default SLUICE_CLICKHOUSE_HTTP_PORT+1) [$CH_HTTPS_PORT]
  SLUICE_CLICKHOUSE_TCP_PORT     ClickHouse native protocol    (default 19000)                    [$CH_TCP_PORT]
  SLUICE_POSTGRES_PORT           PostgreSQL, plain and TLS     (default 15432)                    [$PG_PORT]
  SLUICE_SECURE                  1: also the TLS/SASL listeners and users; 0: plaintext only (default 1) [$SECURE_ON]
  SLUICE_HOME                    state directory: data, logs, pids, secure/  (default <project>/.sluice) [$SLUICE_HOME]
  SLUICE_KAFKA_HEAP              Kafka broker heap             (default 1g)                       [$KAFKA_HEAP]

A second, separate set of services: give other ports and another SLUICE_HOME (see README "Services").
HELP
}

case "${1:-}" in
  -h|--help|help) help; exit 0 ;;
esac

cmd=${1:-status}
TARGET=${2:-}
case "$TARGET" in
  ""|kafka|clickhouse|postgres) ;;
  *) echo "[services] error: unknown service '$TARGET'" >&2; usage ;;
esac
mkdir -p "$SLUICE_HOME" "$RUN"
postgres_paths
if want postgres; then
  postgres_user
  PG_BIN=$(postgres_bindir)
fi
case "$cmd" in
  start)
    MATERIAL_NEW=0
    secure_material
    if want postgres; then postgres_secrets; fi
    if [ "$MATERIAL_NEW" = 1 ]; then
      # running servers of ours hold the old certificates and users: restart them with the new ones
      if want kafka && pid_alive "$RUN/kafka.pid"; then kafka_stop; fi
      if want clickhouse && pid_alive "$RUN/clickhouse.pid"; then clickhouse_stop; fi
      if want postgres && pid_alive "$RUN/postgres.pid"; then postgres_stop; fi
    fi
    if want clickhouse; then clickhouse_start; fi
    if want postgres; then postgres_start; fi
    if want kafka; then kafka_start; fi
    if want clickhouse; then
      wait_ready "clickhouse (http://127.0.0.1:$CH_HTTP_PORT)" clickhouse_ready "$CH_DIR/log/clickhouse-server.err.log" "$RUN/clickhouse.pid"
    fi
    if want postgres; then
      wait_ready "postgres (127.0.0.1:$PG_PORT)" postgres_ready "$PG_LOG" "$RUN/postgres.pid" 60
      postgres_setup
    fi
    if want kafka; then
      wait_ready "kafka (127.0.0.1:$KAFKA_PORT)" kafka_ready "$KAFKA_DIR/broker.log" "$RUN/kafka.pid"
      kafka_security_setup
    fi
    if [ "$SECURE_ON" = 1 ] && want clickhouse && pid_alive "$RUN/clickhouse.pid"; then
      wait_ready "clickhouse (https://127.0.0.1:$CH_HTTPS_PORT)" clickhouse_https_ready "$CH_DIR/log/clickhouse-server.err.log" "$RUN/clickhouse.pid" 30
    fi
    plain="" secured=""
    if want kafka; then
      plain+="  kafka bootstrap.servers=127.0.0.1:$KAFKA_PORT"
      secured+="  kafka SASL_SSL 127.0.0.1:$KAFKA_SASL_SSL_PORT (client certificate required: :$KAFKA_MTLS_PORT)"
    fi
    if want clickhouse; then
      plain+="  clickhouse endpoint=http://127.0.0.1:$CH_HTTP_PORT"
      secured+="  clickhouse https://127.0.0.1:$CH_HTTPS_PORT"
    fi
    if want postgres; then
      plain+="  postgres jdbc:postgresql://127.0.0.1:$PG_PORT/$PG_DB"
      secured+="  postgres TLS on :$PG_PORT"
    fi
    log "${plain#  }"
    if [ "$SECURE_ON" = 1 ]; then
      log "secured: ${secured#  }  (certificates and passwords: $SECURE)"
    else
      log "SLUICE_SECURE=0: plaintext listeners only (no SASL_SSL, MTLS, HTTPS or PostgreSQL TLS)"
    fi
    ;;
  env)
    # what the tests and docs/security.md's examples read; the passwords stay in $SECURE/secrets.env
    # (with SLUICE_SECURE=0 the secured endpoints and users are not printed: nothing listens there)
    echo "SLUICE_KAFKA_BOOTSTRAP=127.0.0.1:$KAFKA_PORT"
    echo "SLUICE_CLICKHOUSE_URL=http://127.0.0.1:$CH_HTTP_PORT"
    if [ "$SECURE_ON" = 1 ]; then
      echo "SLUICE_KAFKA_SASL_SSL_BOOTSTRAP=127.0.0.1:$KAFKA_SASL_SSL_PORT"
      echo "SLUICE_KAFKA_MTLS_BOOTSTRAP=127.0.0.1:$KAFKA_MTLS_PORT"
      echo "SLUICE_CLICKHOUSE_HTTPS_URL=https://127.0.0.1:$CH_HTTPS_PORT"
    fi
    echo "SLUICE_POSTGRES_URL=jdbc:postgresql://127.0.0.1:$PG_PORT/$PG_DB"
    echo "SLUICE_POSTGRES_PORT=$PG_PORT"
    echo "SLUICE_POSTGRES_DATABASE=$PG_DB"
    echo "SLUICE_POSTGRES_QUICKSTART_DATABASE=$PG_QS_DB"
    echo "SLUICE_POSTGRES_USER=$PG_USER"
    if [ "$SECURE_ON" = 1 ]; then
      echo "SLUICE_POSTGRES_SCRAM_USER=$PG_SCRAM_USER"
      echo "SLUICE_POSTGRES_CERT_USER=$PG_CERT_USER"
    fi
    echo "SLUICE_SECURE_DIR=$SECURE"
    ;;
  stop)
    if want kafka; then kafka_stop; fi
    if want clickhouse; then clickhouse_stop; fi
    if want postgres; then postgres_stop; fi
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
    if want postgres; then
      if port_open "$PG_PORT"; then echo "postgres: up on 127.0.0.1:$PG_PORT$(pid_alive "$RUN/postgres.pid" && echo " (pid $(cat "$RUN/postgres.pid"), started by services.sh)")"
      else echo "postgres: down (127.0.0.1:$PG_PORT)"; rc=3; fi
    fi
    exit $rc
    ;;
  wipe)
    if pid_alive "$RUN/kafka.pid" || pid_alive "$RUN/clickhouse.pid" || pid_alive "$RUN/postgres.pid"; then
      die "stop the services before wipe"
    fi
    log "deleting $KAFKA_DIR/data, $CH_DIR, $PG_DIR and $SECURE"
    if [ -L "$PG_DIR" ]; then rm -rf "$(readlink "$PG_DIR")"; fi
    case "$PG_SOCK" in /tmp/sluice-pg-*) rm -rf "$PG_SOCK" ;; esac
    rm -rf "$KAFKA_DIR/data" "$KAFKA_DIR/server.properties" "$CH_DIR" "$PG_DIR" "$SECURE" "$RUN/postgres.setup"
    ;;
  *)
    usage
    ;;
esac
