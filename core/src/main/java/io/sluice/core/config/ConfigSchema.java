package io.sluice.core.config;

import static io.sluice.core.config.ConfigKey.Type.BOOLEAN;
import static io.sluice.core.config.ConfigKey.Type.INT;
import static io.sluice.core.config.ConfigKey.Type.INT_LIST;
import static io.sluice.core.config.ConfigKey.Type.LONG;
import static io.sluice.core.config.ConfigKey.Type.RULE;
import static io.sluice.core.config.ConfigKey.Type.STRING;
import static io.sluice.core.config.ConfigKey.Type.STRING_LIST;
import static io.sluice.core.config.ConfigKey.Type.STRING_LIST_LIST;
import static io.sluice.core.config.ConfigKey.Type.STRING_MAP;
import static io.sluice.core.config.ConfigKey.Type.STRING_OR_LIST;
import static io.sluice.core.config.ConfigKey.Type.TABLE;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every configuration key Sluice reads, in one place: type, default, unit, allowed values and doc. The loader
 * validates against it (unknown keys are errors), and {@link #markdown()} renders docs/configuration.md from it.
 */
public final class ConfigSchema
{
    private ConfigSchema()
    {
    }

    // ------------------------------------------------------------------------------------------------ root tables
    static final ConfigKey KAFKA = ConfigKey.in("", "kafka", TABLE).required()
        .doc("Connection to the Kafka cluster shared by every source and sink.");
    static final ConfigKey CHECKPOINT = ConfigKey.in("", "checkpoint", TABLE)
        .doc("When offsets are committed and when a stalled partition ends the run.");
    static final ConfigKey ENGINE = ConfigKey.in("", "engine", TABLE)
        .doc("Sizes of the record path: rings, slots, windows. All memory the engine uses follows from these.");
    static final ConfigKey TUNING = ConfigKey.in("", "tuning", TABLE)
        .doc("Threads, wait strategies and CPU pinning per stage (see docs/tuning.md).");
    static final ConfigKey METRICS = ConfigKey.in("", "metrics", TABLE)
        .doc("Prometheus scrape endpoint and the periodic status line.");
    static final ConfigKey SINKS = ConfigKey.in("", "sinks", TABLE)
        .doc("Gather pipelines: each follows topics in a consumer group and writes records into the tables of "
            + "its kind's database.");
    static final ConfigKey SOURCES = ConfigKey.in("", "sources", TABLE)
        .doc("Scatter pipelines: each reads records (from Kafka, a file, stdin or the embedded API) and produces each "
            + "one into the Kafka topic its routing rule picks (see docs/routing.md).");

    // ------------------------------------------------------------------------------------------------ [kafka]
    static final ConfigKey KAFKA_BOOTSTRAP_SERVERS = ConfigKey.in("kafka", "bootstrap_servers", STRING)
        .required()
        .doc("Comma-separated host:port list of brokers, as Kafka's bootstrap.servers.");
    static final ConfigKey KAFKA_SECURITY_PROTOCOL = ConfigKey.in("kafka", "security_protocol", STRING)
        .defaultValue("PLAINTEXT").allowed("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
        .doc("How every Kafka client Sluice makes (consumers, producers, admin clients, the produce command) talks "
            + "to the brokers, as Kafka's security.protocol: SSL and SASL_SSL encrypt (ssl_* keys), SASL_PLAINTEXT "
            + "and SASL_SSL authenticate (sasl_* keys). See docs/security.md.");
    static final ConfigKey KAFKA_SASL_MECHANISM = ConfigKey.in("kafka", "sasl_mechanism", STRING)
        .allowed("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
        .doc("SASL mechanism (required with SASL_PLAINTEXT and SASL_SSL), as Kafka's sasl.mechanism. PLAIN and "
            + "SCRAM-* take sasl_username and sasl_password; OAUTHBEARER takes them as client id and secret with "
            + "sasl_oauthbearer_token_endpoint_url; GSSAPI (Kerberos) takes sasl_jaas_config.");
    static final ConfigKey KAFKA_SASL_USERNAME = ConfigKey.in("kafka", "sasl_username", STRING)
        .doc("SASL user name (OAUTHBEARER: the client id). Give it with sasl_password, or give sasl_jaas_config.");
    static final ConfigKey KAFKA_SASL_PASSWORD = ConfigKey.in("kafka", "sasl_password", STRING).secret()
        .doc("SASL password (OAUTHBEARER: the client secret); a secret: write \"${KAFKA_PASSWORD}\" to read it from "
            + "the environment. Sluice writes the JAAS configuration of the mechanism from user name and password.");
    static final ConfigKey KAFKA_SASL_JAAS_CONFIG = ConfigKey.in("kafka", "sasl_jaas_config", STRING).secret()
        .doc("A complete JAAS login configuration, as Kafka's sasl.jaas.config, instead of sasl_username and "
            + "sasl_password (for login modules Sluice does not write itself, e.g. Kerberos or a cloud's IAM module).");
    static final ConfigKey KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL = ConfigKey
        .in("kafka", "sasl_oauthbearer_token_endpoint_url", STRING)
        .doc("OAUTHBEARER: the OAuth token endpoint (client credentials grant), as Kafka's "
            + "sasl.oauthbearer.token.endpoint.url. Sluice adds it to the JVM's list of allowed URLs "
            + "(org.apache.kafka.sasl.oauthbearer.allowed.urls), which Kafka 4 requires.");
    static final ConfigKey KAFKA_SASL_OAUTHBEARER_SCOPE = ConfigKey
        .in("kafka", "sasl_oauthbearer_scope", STRING)
        .doc("OAUTHBEARER: the scope requested with the token (optional).");
    static final ConfigKey KAFKA_SSL_CA_FILE = ConfigKey.in("kafka", "ssl_ca_file", STRING)
        .doc("SSL, SASL_SSL: PEM file of the certificate authorities that sign the brokers' certificates (one or more "
            + "BEGIN CERTIFICATE blocks). Or give ssl_truststore_file; with neither the JVM's default CAs are used.");
    static final ConfigKey KAFKA_SSL_TRUSTSTORE_FILE = ConfigKey.in("kafka", "ssl_truststore_file", STRING)
        .doc("SSL, SASL_SSL: trust store file (JKS, PKCS12 or PEM, see ssl_truststore_type), instead of ssl_ca_file.");
    static final ConfigKey KAFKA_SSL_TRUSTSTORE_TYPE = ConfigKey.in("kafka", "ssl_truststore_type", STRING)
        .allowed("JKS", "PKCS12", "PEM")
        .doc("Type of ssl_truststore_file; default: PKCS12 for a .p12/.pfx file, PEM for .pem/.crt, else JKS.");
    static final ConfigKey KAFKA_SSL_TRUSTSTORE_PASSWORD = ConfigKey
        .in("kafka", "ssl_truststore_password", STRING).secret()
        .doc("Password of ssl_truststore_file (JKS and PKCS12; optional for reading certificates).");
    static final ConfigKey KAFKA_SSL_CERTIFICATE_FILE = ConfigKey.in("kafka", "ssl_certificate_file", STRING)
        .doc("SSL, SASL_SSL: this client's certificate chain as a PEM file, for brokers that require client "
            + "certificates (ssl.client.auth); give it with ssl_key_file. Or give ssl_keystore_file.");
    static final ConfigKey KAFKA_SSL_KEY_FILE = ConfigKey.in("kafka", "ssl_key_file", STRING)
        .doc("The private key of ssl_certificate_file: a PEM file in PKCS#8 (BEGIN PRIVATE KEY, or BEGIN ENCRYPTED "
            + "PRIVATE KEY with ssl_key_password), the form Kafka reads; openssl pkcs8 -topk8 converts other forms.");
    static final ConfigKey KAFKA_SSL_KEY_PASSWORD = ConfigKey.in("kafka", "ssl_key_password", STRING).secret()
        .doc("Password of an encrypted ssl_key_file, or of the key inside ssl_keystore_file.");
    static final ConfigKey KAFKA_SSL_KEYSTORE_FILE = ConfigKey.in("kafka", "ssl_keystore_file", STRING)
        .doc("SSL, SASL_SSL: key store (JKS, PKCS12 or PEM) with this client's key and certificate, instead of "
            + "ssl_certificate_file and ssl_key_file.");
    static final ConfigKey KAFKA_SSL_KEYSTORE_TYPE = ConfigKey.in("kafka", "ssl_keystore_type", STRING)
        .allowed("JKS", "PKCS12", "PEM")
        .doc("Type of ssl_keystore_file; default: PKCS12 for a .p12/.pfx file, PEM for .pem, else JKS.");
    static final ConfigKey KAFKA_SSL_KEYSTORE_PASSWORD = ConfigKey
        .in("kafka", "ssl_keystore_password", STRING).secret()
        .doc("Password of ssl_keystore_file.");
    static final ConfigKey KAFKA_SSL_ENDPOINT_IDENTIFICATION = ConfigKey
        .in("kafka", "ssl_endpoint_identification", BOOLEAN).defaultValue("true")
        .doc("SSL, SASL_SSL: check that each broker's certificate names the host it was reached at (HTTPS rules). "
            + "false accepts any certificate the CAs signed, as Kafka's ssl.endpoint.identification.algorithm = \"\".");
    static final ConfigKey KAFKA_CONSUMER = ConfigKey.in("kafka", "consumer", STRING_MAP)
        .doc("Extra KafkaConsumer properties passed through verbatim (e.g. \"fetch.max.bytes\" = \"52428800\"). "
            + "Every key must be one kafka-clients' ConsumerConfig defines, with a value of its type (check names "
            + "the key otherwise). Sluice owns group.id, enable.auto.commit, key/value deserializers, "
            + "auto.offset.reset and bootstrap.servers, and the security keys when the security block sets them.");
    static final ConfigKey KAFKA_PRODUCER = ConfigKey.in("kafka", "producer", STRING_MAP)
        .doc("Extra KafkaProducer properties passed through verbatim, checked against ProducerConfig. Sluice owns "
            + "acks, enable.idempotence, key/value serializers and bootstrap.servers.");
    static final ConfigKey KAFKA_ADMIN = ConfigKey.in("kafka", "admin", STRING_MAP)
        .doc("Extra Admin client properties passed through verbatim, checked against AdminClientConfig.");

    // ------------------------------------------------------------------------------------------------ [checkpoint]
    static final ConfigKey CHECKPOINT_COMMIT_INTERVAL_MS = ConfigKey.in("checkpoint", "commit_interval_ms", LONG)
        .defaultValue("1000").unit("ms").range(10, 3_600_000)
        .doc(
            "How often each source commits its partitions' watermarks (the next offset not yet durably written everywhere).");
    static final ConfigKey CHECKPOINT_STALLED_FAIL_AFTER_MS = ConfigKey
        .in("checkpoint", "stalled_fail_after_ms", LONG)
        .defaultValue("300000").unit("ms").range(100, Long.MAX_VALUE / 2)
        .doc("A partition whose watermark has not moved for this long while it has records in flight ends the run "
            + "with exit code 1 and names the table, partition and error that hold it.");
    static final ConfigKey CHECKPOINT_DRAIN_TIMEOUT_MS = ConfigKey.in("checkpoint", "drain_timeout_ms", LONG)
        .defaultValue("30000").unit("ms").range(0, 3_600_000)
        .doc(
            "On shutdown or rebalance, how long to wait for in-flight batches to be written before committing what is "
                + "acknowledged. A rebalance's drain runs inside the consumer's poll, so it is also bounded by half of "
                + "max.poll.interval.ms (the consumer is never evicted for it). A stop that times out ends the run "
                + "with exit 1 naming what did not drain.");

    // ------------------------------------------------------------------------------------------------ [engine]
    static final ConfigKey ENGINE_RING_SIZE = ConfigKey.in("engine", "ring_size", INT)
        .defaultValue("4096").unit("slots").range(2, 1 << 24)
        .doc("Slots in each source's ingest ring; a power of two. A full ring pauses the consumer (back-pressure). "
            + "ring_size x slot_bytes is at most 2 GiB - 1 (one off-heap slab).");
    static final ConfigKey ENGINE_SLOT_BYTES = ConfigKey.in("engine", "slot_bytes", INT)
        .defaultValue("8192").unit("bytes").range(64, 64 << 20)
        .doc(
            "Off-heap bytes per ring slot (key + value + headers), a multiple of 64. Larger records take an overflow buffer.");
    static final ConfigKey ENGINE_MAX_RECORD_BYTES = ConfigKey.in("engine", "max_record_bytes", INT)
        .defaultValue("8388608").unit("bytes").range(64, Integer.MAX_VALUE / 2)
        .doc("Largest record accepted; a larger record is a record error (see on_error).");
    static final ConfigKey ENGINE_OVERFLOW_BUFFERS = ConfigKey.in("engine", "overflow_buffers", INT)
        .defaultValue("16").unit("buffers").range(1, 1 << 16)
        .doc("Pooled buffers for records larger than a slot; each grows up to max_record_bytes and is reused. At "
            + "least 1: a record larger than a slot waits for one.");
    static final ConfigKey ENGINE_ACK_WINDOW = ConfigKey.in("engine", "ack_window", INT)
        .defaultValue("262144").unit("offsets").range(64, 1 << 26)
        .doc("Offsets a partition may have in flight (registered but not yet committable); a power of two. "
            + "A full window pauses that partition. Costs ack_window/2 bytes of heap per assigned partition (the start line "
            + "gives the figure), freed when the partition is revoked or its topic deleted.");
    static final ConfigKey ENGINE_QUEUE_DEPTH = ConfigKey.in("engine", "queue_depth", INT)
        .defaultValue("4").unit("batches").range(1, 1024)
        .doc(
            "Sealed batches that may wait per shard for its insert worker; beyond it the route stage waits (back-pressure).");
    static final ConfigKey ENGINE_DESTINATION_SETUP_THREADS = ConfigKey.in("engine", "destination_setup_threads", INT)
        .defaultValue("4").unit("threads").range(0, 64)
        .doc("New destination tables a gather pipeline sets up at once (exists, create, read columns), on threads of "
            + "their own, while the records of tables already set up keep flowing; a record of a table not set up yet "
            + "waits in its partition and is read again once it is. 0: each new table is set up on the route stage, "
            + "one at a time, and every record waits behind it.");
    static final ConfigKey ENGINE_KAFKA_CHECK_TIMEOUT_MS = ConfigKey.in("engine", "kafka_check_timeout_ms", LONG)
        .defaultValue("10000").unit("ms").range(1_000, 600_000)
        .doc("How long start-up waits for each Kafka cluster to answer, with the pipelines' own security settings, "
            + "before the run ends with exit 1 naming the address and the reason (consumers alone would retry an "
            + "unreachable broker or refused credentials silently for ever). Raise it on a starved machine.");
    static final ConfigKey ENGINE_STATUS_INTERVAL_MS = ConfigKey.in("engine", "status_interval_ms", LONG)
        .defaultValue("10000").unit("ms").range(0, 86_400_000)
        .doc("Period of the one-line status log (records, rows, checkpoint lag); 0 turns it off.");

    // ------------------------------------------------------------------------------------------------ [tuning]
    static final ConfigKey TUNING_CPUS = ConfigKey.in("tuning", "cpus", INT_LIST)
        .doc("CPUs given to the engine's stage threads. Empty: all available, unpinned.");
    static final ConfigKey TUNING_WAIT = ConfigKey.in("tuning", "wait", STRING)
        .allowed("busy-spin", "yielding", "sleeping", "blocking", "phased")
        .doc("Default wait strategy of every stage thread: phased (spin about 10 µs, yield about 50 µs, then block) "
            + "unless set. busy-spin and yielding occupy a CPU each and are refused beyond the CPUs given.");
    static final ConfigKey TUNING_LAYOUT = ConfigKey.in("tuning", "layout", STRING).allowed("split", "fused")
        .doc("split: source, route and insert workers on their own threads; fused: the route stage runs on the source "
            + "thread (one hand-off and one thread fewer). Default: fused on two CPUs or fewer, split otherwise.");
    static final ConfigKey TUNING_STAGES = ConfigKey.in("tuning", "stages", TABLE)
        .doc(
            "Per-stage overrides: [tuning.stages.source|route|sink] with wait and cpu (route only in the split layout).");

    // ------------------------------------------------------------------------------------------------ [metrics]
    static final ConfigKey METRICS_LISTEN = ConfigKey.in("metrics", "listen", STRING).defaultValue("")
        .doc("host:port of the Prometheus scrape endpoint (path /metrics), or [ipv6]:port; empty turns it off. An "
            + "empty host (\":9464\") listens on every interface; port 0 takes a free port, which the engine logs.");
    static final ConfigKey METRICS_READY_STALLED_PERCENT = ConfigKey
        .in("metrics", "ready_stalled_percent", INT).defaultValue("50").unit("%").range(1, 100)
        .doc("/ready answers 503 while a partition's watermark has not moved for this share of "
            + "checkpoint.stalled_fail_after_ms with records in flight: a warning before the stall ends the run.");

    static final ConfigKey METRICS_TABLE_HISTOGRAMS = ConfigKey.in("metrics", "table_histograms", BOOLEAN)
        .defaultValue("true")
        .doc("The insert duration, batch rows and batch bytes histograms per table (true), or summed per pipeline and "
            + "sink kind without the table label (false). Per table they are about 11 KiB of /metrics text per table "
            + "on every scrape; with thousands of tables (a table per topic) turn them off: the per-table counters "
            + "(rows, bytes, inserts, failures) stay.");

    // ------------------------------------------------------------------------------------------------ [[sinks]]
    static final ConfigKey SINK_NAME = ConfigKey.in("sinks[]", "name", STRING).required()
        .doc("Unique name of the sink; used in logs, metrics and the CLI.");
    static final ConfigKey SINK_KIND = ConfigKey.in("sinks[]", "kind", STRING).required()
        .doc("The destination system: one of the installed sink kinds (each has its own plugin_config keys, listed "
            + "below by kind). An unknown kind is an error that lists the kinds there are.");
    static final ConfigKey SINK_PATTERN = ConfigKey.in("sinks[]", "pattern", STRING)
        .doc("Regular expression over topic names (RE2/J syntax, linear time: see Regular expressions); the "
            + "whole name must match. New matching topics are followed within topic_refresh_ms. Give pattern or "
            + "topics; a sink with neither, no group_id and no branches consumes nothing and is only a target: "
            + "branches of other sinks write to it (branch key sink).");
    static final ConfigKey SINK_TOPICS = ConfigKey.in("sinks[]", "topics", STRING_LIST)
        .doc("Literal topic names to consume. Give pattern or topics.");
    static final ConfigKey SINK_GROUP_ID = ConfigKey.in("sinks[]", "group_id", STRING)
        .doc("Kafka consumer group (required for a sink with pattern or topics); several engine processes with the "
            + "same group share the partitions.");
    static final ConfigKey SINK_UNMATCHED = ConfigKey.in("sinks[]", "unmatched", STRING)
        .defaultValue("fail").allowed("fail", "skip", "dead_letter")
        .doc("What happens to a record that no branch matches: fail stops the pipeline with the reason "
            + "(nothing is committed past it); skip drops it, counts records_dropped_total{reason=\"unrouted\"} and "
            + "lets its offset commit; dead_letter writes it to dead_letter_topic (docs/dead-letters.md) and commits "
            + "its offset once the broker acknowledged it.");
    static final ConfigKey SINK_ON_ERROR = ConfigKey.in("sinks[]", "on_error", STRING)
        .defaultValue("fail").allowed("fail", "skip", "dead_letter")
        .doc("What happens to a record that cannot be written (malformed JSON, a value that does not convert to "
            + "its column type, a record above max_record_bytes): fail stops the pipeline naming topic, partition, "
            + "offset, path and type; skip drops it and counts records_dropped_total{reason=...}; dead_letter writes "
            + "it to dead_letter_topic with the reason in its headers, also when ClickHouse refuses a batch for its "
            + "data (a conversion or constraint error; a missing table still stops the partition): see "
            + "docs/dead-letters.md.");
    static final ConfigKey SINK_DEAD_LETTER_TOPIC = ConfigKey.in("sinks[]", "dead_letter_topic", STRING)
        .doc("Where a dead_letter policy sends records: a topic name, or a template over the record's topic "
            + "({topic}, {topic_segment[n]}, {topic_segment[-n]}, e.g. \"dlq.{topic}\"), sanitised as routed topic "
            + "names are. Each dead letter carries the record's key, value and headers byte for byte and headers "
            + "that say why (docs/dead-letters.md). Required when a policy is dead_letter.");
    static final ConfigKey SINK_CREATE_TOPICS = ConfigKey.in("sinks[]", "create_topics", BOOLEAN)
        .defaultValue("false")
        .doc("Create the dead-letter topic through the admin API the first time a dead letter needs it (cached), as "
            + "a source's create_topics creates routed topics. false: a dead letter for a topic that does not exist "
            + "stops its partition, naming the topic.");
    static final ConfigKey SINK_PARTITIONS = ConfigKey.in("sinks[]", "partitions", INT)
        .defaultValue("1").unit("partitions").range(-1, 100_000)
        .doc("Partitions of a dead-letter topic created by create_topics; -1 takes the broker's num.partitions.");
    static final ConfigKey SINK_REPLICATION_FACTOR = ConfigKey.in("sinks[]", "replication_factor", INT)
        .defaultValue("-1").unit("replicas").range(-1, Short.MAX_VALUE)
        .doc("Replication factor of a dead-letter topic created by create_topics; -1 takes the broker's "
            + "default.replication.factor.");
    static final ConfigKey SINK_TOMBSTONES = ConfigKey.in("sinks[]", "tombstones", STRING)
        .defaultValue("skip").allowed("skip", "fail", "dead_letter", "delete")
        .doc("What happens to a tombstone (a record whose Kafka value is null; compacted topics use them to delete a "
            + "key): it is never a row. skip drops it, counts records_dropped_total{reason=\"tombstone\"} and lets its "
            + "offset commit; fail stops the pipeline naming the record (nothing is committed past it); dead_letter writes it "
            + "(its key and headers, a null value) to dead_letter_topic with reason tombstone; delete deletes the row "
            + "its Kafka key names from the table the topic's branches write to, in the same transaction and offset "
            + "order as the rows around it (only a kind that deletes rows: postgres with insert_mode = \"upsert\"; "
            + "a key that names no row follows on_error; docs/postgres.md, \"Delete\"). An empty or "
            + "blank value is not a tombstone: it is invalid JSON (on_error).");
    static final ConfigKey SINK_DUPLICATE_KEYS = ConfigKey.in("sinks[]", "duplicate_keys", STRING)
        .defaultValue("fail").allowed("fail", "first", "last")
        .doc("A JSON object that holds the same key twice at a path a branch condition, shard_by or column reads: "
            + "fail makes the record an error naming the key (then on_error decides), as ClickHouse's JSONEachRow "
            + "input; first or last takes that occurrence. One policy per record, so the branch chosen and the row "
            + "always read the same value. Duplicates of keys nothing reads are not looked for.");
    static final ConfigKey SINK_AUTO_OFFSET_RESET = ConfigKey.in("sinks[]", "auto_offset_reset", STRING)
        .defaultValue("earliest").allowed("earliest", "latest")
        .doc("Where a partition without a committed offset starts (also for topics that appear while running), and "
            + "where one whose committed offset is out of range goes (its records deleted by retention or truncated): "
            + "the log start, or with latest the log end, past records still in Kafka too (a WARN names the gap).");
    static final ConfigKey SINK_ISOLATION_LEVEL = ConfigKey.in("sinks[]", "isolation_level", STRING)
        .defaultValue("read_committed").allowed("read_committed", "read_uncommitted")
        .doc("Which records of transactional producers the sink reads (Kafka's isolation.level): read_committed "
            + "reads only committed transactions, so no row of an aborted transaction is written; read_uncommitted "
            + "reads every record as soon as it is in the log. Either way the transaction markers are no records, and "
            + "the committed offset reaches the consumer's position (the lag reaches 0 on a topic that ends in a "
            + "marker).");
    static final ConfigKey SINK_TOPIC_REFRESH_MS = ConfigKey.in("sinks[]", "topic_refresh_ms", LONG)
        .defaultValue("2000").unit("ms").range(100, 3_600_000)
        .doc("The longest a new topic matching the pattern waits before the sink consumes it (from its earliest "
            + "offset with auto_offset_reset = earliest): the consumer re-reads the broker's topic list every half of it "
            + "(Kafka's metadata.max.age.ms), the other half is left for the rebalance that adds the topic. See "
            + "docs/destinations.md for measured pick-up times.");
    static final ConfigKey SINK_KAFKA = ConfigKey.in("sinks[]", "kafka", TABLE)
        .doc("This sink's own Kafka connection, when it reads another cluster or with other credentials: any key of "
            + "[kafka]. A key not given here is [kafka]'s; the consumer, producer and admin tables are merged key by "
            + "key.");
    static final ConfigKey SINK_PLUGIN_CONFIG = ConfigKey.in("sinks[]", "plugin_config", TABLE).required()
        .doc("Settings of the destination and its batching; the keys depend on kind (see [sinks.plugin_config] "
            + "below, one table per kind).");
    static final ConfigKey SINK_BRANCHES = ConfigKey.in("sinks[]", "branches", TABLE)
        .doc("The split: each record goes to the first branch whose when matches. Without branches every record "
            + "goes to plugin_config.target_table.");

    // ------------------------------------------------------------------------------------------------ [[sinks.branches]]
    static final ConfigKey BR_NAME = ConfigKey.in("sinks[].branches[]", "name", STRING).required()
        .doc("Unique name of the branch within its sink.");
    static final ConfigKey BR_WHEN = ConfigKey.in("sinks[].branches[]", "when", RULE)
        .doc("Condition on a JSON path: { path = \"type\", equals = \"PushEvent\" }; also in = [..], prefix = \"..\", "
            + "matches = \"regex\" (the whole value, RE2/J syntax: see Regular expressions), exists = true|false. "
            + "A branch without when takes every record and must be last.");
    static final ConfigKey BR_SINK = ConfigKey.in("sinks[].branches[]", "sink", STRING)
        .doc("Name of the [[sinks]] this branch writes to (its kind, connection and plugin_config), default the "
            + "sink the branch belongs to. The branch stays in its own sink's split, consumer group, on_error and "
            + "dead letters: its records share the commit with the other branches (docs/sinks.md, A split across "
            + "kinds).");
    static final ConfigKey BR_TARGET_TABLE = ConfigKey.in("sinks[].branches[]", "target_table", STRING)
        .doc("Table of this branch (literal or template); default plugin_config.target_table of the sink it "
            + "writes to.");
    static final ConfigKey BR_DATABASE = ConfigKey.in("sinks[].branches[]", "database", STRING)
        .doc("Database of this branch; default plugin_config.database of the sink it writes to.");
    static final ConfigKey BR_COLUMNS = ConfigKey.in("sinks[].branches[]", "columns", STRING_MAP)
        .doc("column = \"json.path\" for columns whose path differs from their name; other columns are read from "
            + "the JSON field of the same name. A value starting with $ fills the column from the record's Kafka "
            + "metadata ($topic, $partition, $offset, $timestamp, $timestamp_type, $key, $header.NAME, $headers, "
            + "$header_names, $header_values); columns named like the Kafka engine's virtual columns (_topic, "
            + "_partition, _offset, _timestamp, _timestamp_ms, _key, _headers.name, _headers.value) are filled so "
            + "without a mapping; a path starting with $ is written \\$ (docs/effectively-once.md).");
    static final ConfigKey BR_SHARD_BY = ConfigKey.in("sinks[].branches[]", "shard_by", STRING)
        .doc("JSON path whose value picks the shard (murmur2, as Kafka's default partitioner); without it rows take "
            + "the shards in turn.");
    static final ConfigKey BR_MAX_ROWS = ConfigKey.in("sinks[].branches[]", "max_rows", INT)
        .unit("rows").range(1, 100_000_000)
        .doc("Overrides plugin_config.max_rows (of the sink it writes to) for this branch.");
    static final ConfigKey BR_MAX_BYTES = ConfigKey.in("sinks[].branches[]", "max_bytes", LONG)
        .unit("bytes").range(1, 1L << 31)
        .doc("Overrides plugin_config.max_bytes (of the sink it writes to) for this branch.");
    static final ConfigKey BR_LINGER_MS = ConfigKey.in("sinks[].branches[]", "linger_ms", LONG)
        .unit("ms").range(0, 3_600_000)
        .doc("Overrides plugin_config.linger_ms (of the sink it writes to) for this branch.");

    // ------------------------------------------------------------------------------------------------ [[sources]]
    static final ConfigKey SRC_NAME = ConfigKey.in("sources[]", "name", STRING).required()
        .doc("Unique name of the source; used in logs, metrics and the CLI (route --source NAME).");
    static final ConfigKey SRC_KIND = ConfigKey.in("sources[]", "kind", STRING).required()
        .allowed("kafka", "file", "stdin", "embedded")
        .doc("Where records come from: kafka consumes input_topics or pattern in group_id and re-routes them; file "
            + "reads JSON lines from path (gzip is detected); stdin reads JSON lines from standard input (a run "
            + "refuses two stdin sources: the process has one); embedded records are offered by a host application through the Java API (ScatterRouter) and are not run by the "
            + "command line.");
    static final ConfigKey SRC_INPUT_TOPICS = ConfigKey.in("sources[]", "input_topics", STRING_LIST)
        .doc("kind = kafka: literal topic names to consume. Give pattern or input_topics. (Not topics: "
            + "[[sources.topics]] is the routing block.)");
    static final ConfigKey SRC_PATTERN = ConfigKey.in("sources[]", "pattern", STRING)
        .doc("kind = kafka: regular expression over topic names to consume (RE2/J syntax, linear time: see Regular "
            + "expressions); the whole name must match. Give pattern or input_topics.");
    static final ConfigKey SRC_GROUP_ID = ConfigKey.in("sources[]", "group_id", STRING)
        .doc("kind = kafka (required there): the consumer group whose committed offsets say where the source resumes.");
    static final ConfigKey SRC_AUTO_OFFSET_RESET = ConfigKey.in("sources[]", "auto_offset_reset", STRING)
        .defaultValue("earliest").allowed("earliest", "latest")
        .doc("kind = kafka: where a partition without a committed offset starts, and where one whose committed "
            + "offset is out of range goes (the log start, or the log end with latest; a WARN names the gap).");
    static final ConfigKey SRC_ISOLATION_LEVEL = ConfigKey.in("sources[]", "isolation_level", STRING)
        .defaultValue("read_committed").allowed("read_committed", "read_uncommitted")
        .doc("kind = kafka: which records of transactional producers are read (Kafka's isolation.level): "
            + "read_committed only those of committed transactions (no record of an aborted one is routed), "
            + "read_uncommitted every record. The committed offset reaches the consumer's position either way.");
    static final ConfigKey SRC_TOPIC_REFRESH_MS = ConfigKey.in("sources[]", "topic_refresh_ms", LONG)
        .defaultValue("2000").unit("ms").range(100, 3_600_000)
        .doc("kind = kafka: the longest a new topic matching the pattern waits before it is consumed; the topic "
            + "list is re-read every half of it.");
    static final ConfigKey SRC_DUPLICATE_KEYS = ConfigKey.in("sources[]", "duplicate_keys", STRING)
        .defaultValue("fail").allowed("fail", "first", "last")
        .doc("A JSON object that holds the key of the routing rule's path twice: fail treats the record as one "
            + "whose routing value is missing (the rule's fallback, else the record fails naming the key); first or "
            + "last routes by that occurrence.");
    static final ConfigKey SRC_PATH = ConfigKey.in("sources[]", "path", STRING)
        .doc("kind = file (required there): the JSON-lines file, one record per line; gzip is detected by its magic "
            + "bytes. Blank lines are skipped. The run ends (exit 0) once every line is in Kafka.");
    static final ConfigKey SRC_CREATE_TOPICS = ConfigKey.in("sources[]", "create_topics", BOOLEAN)
        .defaultValue("false")
        .doc("Create a routed topic through the admin API the first time a record needs it (cached: one round trip "
            + "per new topic over the life of the process). false: a record for a topic that does not exist fails "
            + "its batch, naming the topic.");
    static final ConfigKey SRC_PARTITIONS = ConfigKey.in("sources[]", "partitions", INT)
        .defaultValue("1").unit("partitions").range(-1, 100_000)
        .doc("Partitions of a topic created by create_topics; -1 takes the broker's num.partitions.");
    static final ConfigKey SRC_REPLICATION_FACTOR = ConfigKey.in("sources[]", "replication_factor", INT)
        .defaultValue("-1").unit("replicas").range(-1, Short.MAX_VALUE)
        .doc(
            "Replication factor of a topic created by create_topics; -1 takes the broker's default.replication.factor.");
    static final ConfigKey SRC_MAX_NEW_TOPICS_PER_MINUTE = ConfigKey
        .in("sources[]", "max_new_topics_per_minute", INT)
        .defaultValue("100").unit("topics").range(1, 100_000)
        .doc("Guard against a topic explosion: at most this many topics are created in any 60 s. Beyond it a record "
            + "that needs a new topic takes the fallback, or fails its batch (re-read later).");
    static final ConfigKey SRC_RETRY_BACKOFF_MS = ConfigKey.in("sources[]", "retry_backoff_ms", LONG)
        .defaultValue("200").unit("ms").range(1, 600_000)
        .doc("First wait before a nacked batch is re-read (a kafka source seeks back, a file or stdin source replays "
            + "from the failed line); doubles each time up to retry_backoff_max_ms.");
    static final ConfigKey SRC_RETRY_BACKOFF_MAX_MS = ConfigKey.in("sources[]", "retry_backoff_max_ms", LONG)
        .defaultValue("5000").unit("ms").range(1, 3_600_000)
        .doc("Longest wait between re-reads of a nacked batch.");
    static final ConfigKey SRC_REPLAY_BUFFER_BYTES = ConfigKey.in("sources[]", "replay_buffer_bytes", LONG)
        .defaultValue("67108864").unit("bytes").range(1 << 16, 1L << 30)
        .doc("kind = file or stdin: lines not yet acknowledged by Kafka are kept here so a nacked batch can be "
            + "replayed (stdin cannot seek); when full, reading waits for acknowledgements. Must hold two records of "
            + "engine.max_record_bytes.");
    static final ConfigKey SRC_CHECKPOINT_FILE = ConfigKey.in("sources[]", "checkpoint_file", STRING)
        .doc("kind = file: where the source keeps its position, so that a new run resumes after the last line Kafka "
            + "acknowledged instead of reading the file from line 1 again. Written atomically (temporary file, then "
            + "rename) every checkpoint.commit_interval_ms and at the end of a run; it records the line and a SHA-256 "
            + "of the input's first 64 KiB, and a run refuses (exit 1) an input that does not match it or has fewer "
            + "lines, rather than skip the wrong lines. Lines appended to the file since are read. Delete the file to "
            + "start over. Unset: every run reads from line 1 (at-least-once: a restart produces the lines again).");
    static final ConfigKey SRC_ON_ERROR = ConfigKey.in("sources[]", "on_error", STRING)
        .defaultValue("fail").allowed("fail", "dead_letter")
        .doc("What happens to a record that cannot be produced and has no fallback (its rule finds no value, its "
            + "topic cannot be created, the broker refuses it for good, it exceeds max_record_bytes): fail nacks its "
            + "batch, which is re-read until it goes through or checkpoint.stalled_fail_after_ms ends the run; "
            + "dead_letter writes it to dead_letter_topic with the reason in its headers (docs/dead-letters.md) and "
            + "moves on once the broker acknowledged it.");
    static final ConfigKey SRC_DEAD_LETTER_TOPIC = ConfigKey.in("sources[]", "dead_letter_topic", STRING)
        .doc("Where on_error = \"dead_letter\" sends records: a topic name, or for kind = kafka a template over the "
            + "record's input topic ({topic}, {topic_segment[n]}, e.g. \"dlq.{topic}\"), sanitised as routed "
            + "topic names are; created on first use when create_topics = true (with partitions and "
            + "replication_factor).");
    static final ConfigKey SRC_KAFKA = ConfigKey.in("sources[]", "kafka", TABLE)
        .doc("This source's own Kafka connection (for its consumer, producer and admin client), when it talks to "
            + "another cluster or with other credentials: any key of [kafka]. A key not given here is [kafka]'s; the "
            + "consumer, producer and admin tables are merged key by key.");
    static final ConfigKey SRC_TOPICS = ConfigKey.in("sources[]", "topics", TABLE).required()
        .doc("The routing block: exactly one [[sources.topics]] with topic = \"literal\" or a rule.");

    // ------------------------------------------------------------------------------------------------ [[sources.topics]]
    static final ConfigKey ST_TOPIC = ConfigKey.in("sources[].topics[]", "topic", RULE).required()
        .doc("The routing rule: a literal topic name (\"orders\"), or an inline table { strategy, path | header, "
            + "template, fallback, buckets } whose keys are listed under [sources.topics.topic].");

    // ------------------------------------------------------------------------------------------------ topic = { ... }
    static final ConfigKey RULE_STRATEGY = ConfigKey.in("sources[].topics[].topic", "strategy", STRING)
        .required()
        .allowed("static", "field", "header", "key", "hash")
        .doc("static: a fixed name (name or template without {value}); field: the value at path in the JSON record; "
            + "header: the record header named header, as UTF-8; key: the record key, as UTF-8; hash: murmur2 of the "
            + "field (path), header (header) or key (neither) bytes, masked to 31 bits, modulo buckets.");
    static final ConfigKey RULE_PATH = ConfigKey.in("sources[].topics[].topic", "path", STRING)
        .doc(
            "field (required), hash: JSON path, dotted for nested objects, numeric for array indices (user.id, items.0.sku).");
    static final ConfigKey RULE_HEADER = ConfigKey.in("sources[].topics[].topic", "header", STRING)
        .doc("header (required), hash: the header name; the last header with that name wins.");
    static final ConfigKey RULE_TEMPLATE = ConfigKey.in("sources[].topics[].topic", "template", STRING)
        .defaultValue("{value}")
        .doc("The topic name with {value} where the derived value (for hash: the bucket number) goes; the result is "
            + "sanitised. {{ and }} are literal braces.");
    static final ConfigKey RULE_NAME = ConfigKey.in("sources[].topics[].topic", "name", STRING)
        .doc("static: the literal topic name (the same as writing topic = \"name\").");
    static final ConfigKey RULE_FALLBACK = ConfigKey.in("sources[].topics[].topic", "fallback", STRING)
        .doc("Topic for a record whose value is missing (null, object, array, absent, blank, or a name Kafka "
            + "rejects). Without it such a record fails its batch: nothing of it is acknowledged and the source "
            + "re-reads it.");
    static final ConfigKey RULE_BUCKETS = ConfigKey.in("sources[].topics[].topic", "buckets", INT)
        .unit("buckets").range(1, 1_000_000)
        .doc("hash (required): the number of buckets; a key lands in the bucket Kafka's default partitioner would "
            + "give it among that many partitions. Fixed once data flows: changing it moves most keys.");

    /** Keys that name the same thing in a user's words and were renamed or misspelt often; maps to the right key. */
    static final Map<String, String> SYNONYMS = Map.of(
        "linger", "linger_ms",
        "max_batch_rows", "max_rows",
        "max_batch_bytes", "max_bytes",
        "table", "target_table",
        "bootstrap.servers", "bootstrap_servers",
        "group.id", "group_id",
        "topic_pattern", "pattern",
        "rule", "strategy",
        "bucket_count", "buckets",
        "default", "fallback");

    private static final Map<String, List<ConfigKey>> BY_SECTION = index();

    private static Map<String, List<ConfigKey>> index()
    {
        final Map<String, List<ConfigKey>> map = new LinkedHashMap<>();
        for (final Field f : ConfigSchema.class.getDeclaredFields())
        {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == ConfigKey.class)
            {
                try
                {
                    final ConfigKey k = (ConfigKey)f.get(null);
                    map.computeIfAbsent(k.section(), s -> new ArrayList<>()).add(k);
                }
                catch (final IllegalAccessException e)
                {
                    throw new IllegalStateException(e);
                }
            }
        }
        map.replaceAll((s, l) -> Collections.unmodifiableList(l));
        return Collections.unmodifiableMap(map);
    }

    /**
     * @param section a section id such as {@code sinks[].plugin_config}
     * @return the keys defined in that section, in declaration order (empty when none)
     */
    public static List<ConfigKey> keys(final String section)
    {
        return BY_SECTION.getOrDefault(section, List.of());
    }

    /** @return every section id, in declaration order */
    public static List<String> sections()
    {
        return List.copyOf(BY_SECTION.keySet());
    }

    /**
     * Renders the reference of every key as Markdown (the body of docs/configuration.md's reference part), with the
     * plugin_config keys of the installed sink kinds.
     *
     * @return Markdown text
     */
    public static String markdown()
    {
        return markdown(SinkKinds.installed());
    }

    /**
     * Renders the reference of every key as Markdown, with one {@code [sinks.plugin_config]} table per sink kind
     * (after the keys of {@code [[sinks]]}, in the registry's order).
     *
     * @param kinds the sink kinds whose plugin_config keys are listed
     * @return Markdown text
     */
    public static String markdown(final SinkKinds kinds)
    {
        final StringBuilder sb = new StringBuilder();
        for (final Map.Entry<String, List<ConfigKey>> e : BY_SECTION.entrySet())
        {
            final String section = e.getKey();
            if (section.equals("sinks[].branches[]"))
            {
                for (final SinkKind kind : kinds.all())
                {
                    sb.append("### `[sinks.plugin_config]` (kind = \"").append(kind.kind()).append("\")\n\n");
                    table(sb, kind.pluginConfigKeys());
                }
            }
            sb.append("### ").append(section.isEmpty()
                ? "top level"
                : "`[" + section.replace("[]", "") + "]`"
                    + (section.endsWith("[]") ? " (array of tables)" : ""))
                .append("\n\n");
            table(sb, e.getValue());
        }
        return sb.toString();
    }

    private static void table(final StringBuilder sb, final List<ConfigKey> keys)
    {
        sb.append("| key | type | default | unit | description |\n|---|---|---|---|---|\n");
        for (final ConfigKey k : keys)
        {
            sb.append("| `").append(k.name()).append("` | ").append(typeText(k)).append(" | ")
                .append(k.required() ? "**required**" : k.defaultValue() == null ? "—" : "`" + k.defaultValue() + "`")
                .append(" | ").append(k.unit().isEmpty() ? "" : k.unit()).append(" | ")
                .append(k.doc().replace("|", "\\|")).append(" |\n");
        }
        sb.append('\n');
    }

    private static String typeText(final ConfigKey k)
    {
        final String base = switch (k.type())
        {
            case STRING -> "string";
            case INT, LONG -> "integer";
            case BOOLEAN -> "boolean";
            case STRING_LIST -> "array of strings";
            case INT_LIST -> "array of integers";
            case STRING_OR_LIST -> "string or array of strings";
            case STRING_LIST_LIST -> "array of arrays of strings";
            case STRING_MAP -> "table of strings";
            case TABLE -> "table";
            case RULE -> "inline table";
        };
        final String type = k.secret() ? base + " (secret)" : base;
        return k.allowed().isEmpty()
            ? type
            : type + ": " + String.join(" \\| ", k.allowed().stream().map(a -> "`" + a + "`").toList());
    }
}
