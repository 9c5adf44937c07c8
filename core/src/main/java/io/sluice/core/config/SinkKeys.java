package io.sluice.core.config;

import static io.sluice.core.config.ConfigKey.Type.BOOLEAN;
import static io.sluice.core.config.ConfigKey.Type.INT;
import static io.sluice.core.config.ConfigKey.Type.LONG;
import static io.sluice.core.config.ConfigKey.Type.STRING;

/**
 * The {@code [sinks.plugin_config]} keys every sink kind shares, because core reads their values (through
 * {@link SinkConnection}): batching, naming, table creation, retries, the breaker, schema watching. A kind lists
 * them among its {@link SinkKind#pluginConfigKeys()} next to its own keys, so each key has one name, one range and
 * one doc in every kind; {@link #identifier(String)} takes the kind's default identifier policy.
 *
 * <p>Immutable constants; thread-safe.
 */
public final class SinkKeys
{
    /** The section of every plugin_config key. */
    public static final String SECTION = "sinks[].plugin_config";

    /** {@code unknown_fields = "ignore"}: a JSON field no column reads is skipped (the default). */
    public static final String UNKNOWN_FIELDS_IGNORE = "ignore";
    /** {@code unknown_fields = "fail"}: a top-level JSON field no column reads fails the record. */
    public static final String UNKNOWN_FIELDS_FAIL = "fail";

    private SinkKeys()
    {
    }

    /**
     * The {@code identifier} key with a kind's default policy: {@code rewrite} (names that need no quotes) or
     * {@code quote} (names kept verbatim); both are allowed in every kind.
     *
     * @param defaultPolicy {@code rewrite} or {@code quote}
     * @return the key
     * @throws IllegalArgumentException for another policy
     */
    public static ConfigKey identifier(final String defaultPolicy)
    {
        if (!"rewrite".equals(defaultPolicy) && !"quote".equals(defaultPolicy))
        {
            throw new IllegalArgumentException("identifier policy must be rewrite or quote, was " + defaultPolicy);
        }
        return ConfigKey.in(SECTION, "identifier", STRING)
            .defaultValue(defaultPolicy).allowed("rewrite", "quote")
            .doc("How a resolved database or table name becomes an identifier: rewrite turns anything outside "
                + "[A-Za-z0-9_] into _ (and prefixes a leading digit), so the table can be queried without quotes; "
                + "quote keeps it verbatim. SQL always quotes identifiers. See docs/destinations.md.");
    }

    /** {@code insert_workers}. */
    public static final ConfigKey INSERT_WORKERS = ConfigKey.in(SECTION, "insert_workers", INT)
        .defaultValue("2").unit("threads").range(1, 64)
        .doc("Insert worker threads per shard; a destination's batches always go to the same worker, in order.");

    /** {@code database}. */
    public static final ConfigKey DATABASE = ConfigKey.in(SECTION, "database", STRING)
        .defaultValue("default").doc("Database of the tables; a literal or a template over the topic.");

    /** {@code target_table}. */
    public static final ConfigKey TARGET_TABLE = ConfigKey.in(SECTION, "target_table", STRING)
        .doc("Table for branches that name none (and for a sink without branches); a literal or a template over "
            + "the topic: {topic}, {topic_segment[n]}, {topic_segment[-n]}.");

    /** {@code max_rows}. */
    public static final ConfigKey MAX_ROWS = ConfigKey.in(SECTION, "max_rows", INT)
        .defaultValue("100000").unit("rows").range(1, 100_000_000)
        .doc("A batch is sealed and inserted when it holds this many rows.");

    /** {@code max_bytes}. */
    public static final ConfigKey MAX_BYTES = ConfigKey.in(SECTION, "max_bytes", LONG)
        .defaultValue("16777216").unit("bytes").range(1, 1L << 31)
        .doc("A batch is sealed when its encoded rows reach this many bytes; a single larger row is sealed alone.");

    /** {@code linger_ms}. */
    public static final ConfigKey LINGER_MS = ConfigKey.in(SECTION, "linger_ms", LONG)
        .defaultValue("1000").unit("ms").range(0, 3_600_000)
        .doc("A batch is sealed at the latest this long after its first row, so a trickle is written promptly.");

    /** {@code create_table}. */
    public static final ConfigKey CREATE_TABLE = ConfigKey.in(SECTION, "create_table", BOOLEAN)
        .defaultValue("false")
        .doc("Create a missing table on its first batch (from create_table_ddl or create_table_like).");

    /** {@code null_as_default}. */
    public static final ConfigKey NULL_AS_DEFAULT = ConfigKey.in(SECTION, "null_as_default", BOOLEAN)
        .defaultValue("false")
        .doc("A JSON null into a non-Nullable column takes the column's DEFAULT (or the type's zero "
            + "when it has none) instead of failing the record.");

    /** {@code unknown_fields}. */
    public static final ConfigKey UNKNOWN_FIELDS = ConfigKey.in(SECTION, "unknown_fields", STRING)
        .defaultValue("ignore").allowed("ignore", "fail")
        .doc("A top-level JSON field that no column reads (by its name or as the first part of a mapped path): ignore "
            + "skips it; fail fails the record naming the field (then on_error decides), like ClickHouse's "
            + "input_format_skip_unknown_fields = 0. fail costs one more pass over each record's top-level keys; "
            + "nested objects are not checked.");

    /** {@code delivery = "at_least_once"}: the default; a crash or a failed batch may write a record again. */
    public static final String AT_LEAST_ONCE = "at_least_once";
    /** {@code delivery = "exactly_once"}: rows and source positions in one transaction (kinds with transactions). */
    public static final String EXACTLY_ONCE = "exactly_once";

    /** {@code delivery}. */
    public static final ConfigKey DELIVERY = ConfigKey.in(SECTION, "delivery", STRING)
        .defaultValue(AT_LEAST_ONCE).allowed(AT_LEAST_ONCE, EXACTLY_ONCE)
        .doc("at_least_once: an offset commits once every table wrote its record; a crash, a rebalance or a failed "
            + "batch may write a record again. exactly_once: each batch's transaction also moves, per source "
            + "partition, the position its table reached (offsets_table), and a record below a table's position is "
            + "never written to it again; only kinds with transactions take it (postgres; ClickHouse refuses it). "
            + "See docs/effectively-once.md.");

    /** {@code schema_refresh_ms}. */
    public static final ConfigKey SCHEMA_REFRESH_MS = ConfigKey
        .in(SECTION, "schema_refresh_ms", LONG)
        .defaultValue("10000").unit("ms").range(100, 86_400_000)
        .doc("How often the version of each destination table is read (the kind's catalog says how; ClickHouse "
            + "hashes each table's create_table_query, one system.tables query per database and period): a table changed by ALTER TABLE (a column added, dropped or retyped) is "
            + "described again and its branch rebound within this time, without a restart. An insert the server "
            + "refuses because the table changed (a retyped column) is not written: its records are re-read from "
            + "Kafka (after retry_backoff_ms) and encoded for the new columns, whatever this period. See "
            + "docs/schema-changes.md.");

    /** {@code retry_backoff_ms}. */
    public static final ConfigKey RETRY_BACKOFF_MS = ConfigKey.in(SECTION, "retry_backoff_ms", LONG)
        .defaultValue("200").unit("ms").range(1, 600_000)
        .doc("First wait before retrying a retriable insert failure; doubles each time.");

    /** {@code retry_backoff_max_ms}. */
    public static final ConfigKey RETRY_BACKOFF_MAX_MS = ConfigKey
        .in(SECTION, "retry_backoff_max_ms", LONG)
        .defaultValue("5000").unit("ms").range(1, 3_600_000).doc("Longest wait between retries.");

    /** {@code breaker_failures}. */
    public static final ConfigKey BREAKER_FAILURES = ConfigKey.in(SECTION, "breaker_failures", INT)
        .defaultValue("5").unit("failures").range(1, 1_000_000)
        .doc("Consecutive failed inserts that open a shard's circuit breaker.");

    /** {@code breaker_open_ms}. */
    public static final ConfigKey BREAKER_OPEN_MS = ConfigKey.in(SECTION, "breaker_open_ms", LONG)
        .defaultValue("5000").unit("ms").range(1, 3_600_000)
        .doc("How long an open breaker waits before letting one trial insert through (half-open).");
}
