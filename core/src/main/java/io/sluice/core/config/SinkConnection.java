package io.sluice.core.config;

import java.util.List;

/**
 * A sink's {@code [sinks.plugin_config]} as the database-neutral part of Sluice sees it, whatever the kind: where the
 * shards are, how rows are batched, named and retried. The kind's own settings (credentials, TLS, compression, its
 * server settings) live in the kind's implementation, which only the kind's driver reads. Made by
 * {@link SinkKind#readPluginConfig(PluginConfigReader)} (or by an embedder through the kind's own class) and
 * concluded before use: every value has been checked against its key.
 *
 * <p>Thread-safety: read-only once concluded; implementations are immutable after that and may be read from any
 * thread that received them through a safe publication.
 */
public interface SinkConnection
{
    /** @return the {@code kind} this connection is of, e.g. {@code clickhouse} */
    String kind();

    /** @return where these keys live in the configuration, for messages, e.g. {@code sinks[0].plugin_config} */
    String configPath();

    /**
     * @return one list of replica addresses per shard, at least one shard once concluded (for ClickHouse the HTTP
     *     endpoints); core keys insert workers by these lists and never reads the addresses otherwise
     */
    List<List<String>> shards();

    /**
     * @return whether the sink writes with {@code delivery = "exactly_once"}: each batch's rows and its source
     *     positions in one transaction (only kinds whose writers store positions accept it)
     */
    default boolean exactlyOnce()
    {
        return false;
    }

    /**
     * @return where an exactly-once sink keeps its source positions, independent of the consumer group (for
     *     PostgreSQL the positions table, as SQL names it, and the server), or null when the kind keeps none: two
     *     sinks that answer the same keep one positions row per (group, table, partition) for both, so within one
     *     split their branches may not write one table
     */
    default String positionsPlace()
    {
        return null;
    }

    /**
     * @return the name of the table an exactly-once sink keeps its positions in, within its {@link #database()} (for
     *     PostgreSQL {@code offsets_table}), or null when the kind keeps none: no branch may write rows into it
     */
    default String positionsTable()
    {
        return null;
    }

    /** @return {@code insert_workers}: insert worker threads per shard, 1..64 */
    int insertWorkers();

    /** @return {@code database}: a literal or a template over the topic */
    String database();

    /** @return {@code target_table}: a literal or a template over the topic, or null when branches name theirs */
    String targetTable();

    /** @return {@code max_rows}: rows per batch (the branches' default) */
    int maxRows();

    /** @return {@code max_bytes}: encoded bytes per batch (the branches' default) */
    long maxBytes();

    /** @return {@code linger_ms}: the longest a batch waits to fill, ms (the branches' default) */
    long lingerMs();

    /** @return {@code identifier}: {@code rewrite} or {@code quote} (the kind's default when not configured) */
    String identifier();

    /** @return {@code create_table}: whether a missing table is created on its first batch */
    boolean createTable();

    /** @return {@code null_as_default}: whether a JSON null into a non-nullable column takes the column's default */
    boolean nullAsDefault();

    /** @return whether a top-level JSON field that no column reads fails its record ({@code unknown_fields}) */
    boolean failOnUnknownFields();

    /** @return {@code retry_backoff_ms}: first wait before a retriable failure is retried, ms */
    long retryBackoffMs();

    /** @return {@code retry_backoff_max_ms}: longest wait between retries, ms */
    long retryBackoffMaxMs();

    /** @return {@code breaker_failures}: consecutive failed writes that open a shard's circuit breaker */
    int breakerFailures();

    /** @return {@code breaker_open_ms}: how long an open breaker waits before one trial write, ms */
    long breakerOpenMs();

    /** @return {@code schema_refresh_ms}: how often each destination table's version is read, ms */
    long schemaRefreshMs();
}
