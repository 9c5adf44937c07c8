package io.sluice.core.config;

import java.util.List;

/**
 * The database-neutral settings of a sink ({@link SinkKeys}) as a value: what a kind without settings of its own
 * needs, what the loader keeps of a sink whose kind is unknown (so its batching keys are still checked), and a part a
 * kind may compose into its own connection class.
 *
 * @param kind                the sink kind
 * @param configPath          where the keys live, e.g. {@code sinks[0].plugin_config}
 * @param shards              replica addresses per shard
 * @param insertWorkers       {@code insert_workers}
 * @param database            {@code database}
 * @param targetTable         {@code target_table}, or null
 * @param maxRows             {@code max_rows}
 * @param maxBytes            {@code max_bytes}
 * @param lingerMs            {@code linger_ms}, ms
 * @param identifier          {@code identifier}
 * @param createTable         {@code create_table}
 * @param nullAsDefault       {@code null_as_default}
 * @param failOnUnknownFields {@code unknown_fields = "fail"}
 * @param retryBackoffMs      {@code retry_backoff_ms}, ms
 * @param retryBackoffMaxMs   {@code retry_backoff_max_ms}, ms
 * @param breakerFailures     {@code breaker_failures}
 * @param breakerOpenMs       {@code breaker_open_ms}, ms
 * @param schemaRefreshMs     {@code schema_refresh_ms}, ms
 */
public record SinkSettings(
    String kind,
    String configPath,
    List<List<String>> shards,
    int insertWorkers,
    String database,
    String targetTable,
    int maxRows,
    long maxBytes,
    long lingerMs,
    String identifier,
    boolean createTable,
    boolean nullAsDefault,
    boolean failOnUnknownFields,
    long retryBackoffMs,
    long retryBackoffMaxMs,
    int breakerFailures,
    long breakerOpenMs,
    long schemaRefreshMs) implements SinkConnection
{
    /**
     * Copies the shard lists.
     *
     * @param kind                the sink kind
     * @param configPath          where the keys live
     * @param shards              replica addresses per shard
     * @param insertWorkers       {@code insert_workers}
     * @param database            {@code database}
     * @param targetTable         {@code target_table}, or null
     * @param maxRows             {@code max_rows}
     * @param maxBytes            {@code max_bytes}
     * @param lingerMs            {@code linger_ms}, ms
     * @param identifier          {@code identifier}
     * @param createTable         {@code create_table}
     * @param nullAsDefault       {@code null_as_default}
     * @param failOnUnknownFields {@code unknown_fields = "fail"}
     * @param retryBackoffMs      {@code retry_backoff_ms}, ms
     * @param retryBackoffMaxMs   {@code retry_backoff_max_ms}, ms
     * @param breakerFailures     {@code breaker_failures}
     * @param breakerOpenMs       {@code breaker_open_ms}, ms
     * @param schemaRefreshMs     {@code schema_refresh_ms}, ms
     */
    public SinkSettings
    {
        shards = shards.stream().map(List::copyOf).toList();
    }

    /**
     * Reads the neutral keys of a plugin_config table (each checked by the reader against its key).
     *
     * @param pc         the table
     * @param kind       the sink kind
     * @param identifier the {@code identifier} key of the kind (its default)
     * @param shards     replica addresses per shard, as the kind read them
     * @return the settings
     */
    public static SinkSettings read(final PluginConfigReader pc, final String kind, final ConfigKey identifier,
        final List<List<String>> shards)
    {
        return new SinkSettings(kind, pc.path(), shards, pc.intValue(SinkKeys.INSERT_WORKERS),
            pc.string(SinkKeys.DATABASE), pc.string(SinkKeys.TARGET_TABLE), pc.intValue(SinkKeys.MAX_ROWS),
            pc.longValue(SinkKeys.MAX_BYTES), pc.longValue(SinkKeys.LINGER_MS), pc.string(identifier),
            pc.bool(SinkKeys.CREATE_TABLE), pc.bool(SinkKeys.NULL_AS_DEFAULT),
            SinkKeys.UNKNOWN_FIELDS_FAIL.equals(pc.string(SinkKeys.UNKNOWN_FIELDS)),
            pc.longValue(SinkKeys.RETRY_BACKOFF_MS), pc.longValue(SinkKeys.RETRY_BACKOFF_MAX_MS),
            pc.intValue(SinkKeys.BREAKER_FAILURES), pc.longValue(SinkKeys.BREAKER_OPEN_MS),
            pc.longValue(SinkKeys.SCHEMA_REFRESH_MS));
    }

    /**
     * @param identifier the {@code identifier} key of a kind
     * @return the neutral keys in docs order, with that identifier key among them
     */
    public static List<ConfigKey> keys(final ConfigKey identifier)
    {
        return List.of(SinkKeys.INSERT_WORKERS, SinkKeys.DATABASE, SinkKeys.TARGET_TABLE, SinkKeys.MAX_ROWS,
            SinkKeys.MAX_BYTES, SinkKeys.LINGER_MS, identifier, SinkKeys.CREATE_TABLE, SinkKeys.NULL_AS_DEFAULT,
            SinkKeys.UNKNOWN_FIELDS, SinkKeys.SCHEMA_REFRESH_MS, SinkKeys.RETRY_BACKOFF_MS,
            SinkKeys.RETRY_BACKOFF_MAX_MS, SinkKeys.BREAKER_FAILURES, SinkKeys.BREAKER_OPEN_MS);
    }
}
