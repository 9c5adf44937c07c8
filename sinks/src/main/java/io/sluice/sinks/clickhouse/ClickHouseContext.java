package io.sluice.sinks.clickhouse;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SinkKeys;

/**
 * The settings of a ClickHouse sink ({@code [sinks.plugin_config]}), set by name; {@link ClickHouseConfig}
 * is the class to use ({@code new ClickHouseConfig().endpoints(List.of(url)).maxRows(10_000).conclude()}).
 * Every field starts at the default of its key ({@link ClickHouseKeys}). {@link #conclude()} checks every value
 * against its key's range and allowed values and the create_table rules, naming the key
 * ({@code sinks[0].plugin_config.max_rows: must be >= 1, was -1}), derives {@code shards} (one shard of
 * {@code endpoints} when none is given) and copies the collections; call it once before use. The TOML loader
 * reports the same rules as problems with their lines, then concludes.
 *
 * <p>Thread-safety: built and concluded on one thread; after {@link #conclude()} it is read-only and may be read from
 * any thread that received it through a safe publication.
 *
 * @param <S> the concrete type the setters return
 */
public abstract class ClickHouseContext<S extends ClickHouseContext<S>> implements SinkConnection
{
    private String configPath = "sinks[].plugin_config";
    private List<String> endpoints = List.of();
    private List<List<String>> shards = List.of();
    private int insertWorkers = (int)longOf(SinkKeys.INSERT_WORKERS);
    private String database = SinkKeys.DATABASE.defaultValue();
    private String targetTable = null;
    private String username = ClickHouseKeys.USERNAME.defaultValue();
    private String password = ClickHouseKeys.PASSWORD.defaultValue();
    private int maxRows = (int)longOf(SinkKeys.MAX_ROWS);
    private long maxBytes = longOf(SinkKeys.MAX_BYTES);
    private long lingerMs = longOf(SinkKeys.LINGER_MS);
    private String identifier = ClickHouseKeys.IDENTIFIER.defaultValue();
    private boolean createTable = Boolean.parseBoolean(SinkKeys.CREATE_TABLE.defaultValue());
    private String createTableDdl = null;
    private String createTableLike = null;
    private boolean nullAsDefault = Boolean.parseBoolean(SinkKeys.NULL_AS_DEFAULT.defaultValue());
    private long insertTimeoutMs = longOf(ClickHouseKeys.INSERT_TIMEOUT_MS);
    private long retryBackoffMs = longOf(SinkKeys.RETRY_BACKOFF_MS);
    private long retryBackoffMaxMs = longOf(SinkKeys.RETRY_BACKOFF_MAX_MS);
    private int breakerFailures = (int)longOf(SinkKeys.BREAKER_FAILURES);
    private long breakerOpenMs = longOf(SinkKeys.BREAKER_OPEN_MS);
    private String unknownFields = SinkKeys.UNKNOWN_FIELDS.defaultValue();
    private String sslCaFile = null;
    private String sslCertificateFile = null;
    private String sslKeyFile = null;
    private boolean sslVerifyHostname = Boolean.parseBoolean(ClickHouseKeys.SSL_VERIFY_HOSTNAME.defaultValue());
    private String compression = ClickHouseKeys.COMPRESSION.defaultValue();
    private Map<String, String> settings = Map.of();
    private long schemaRefreshMs = longOf(SinkKeys.SCHEMA_REFRESH_MS);
    private boolean concluded;

    /** @return this object as its concrete type */
    protected abstract S self();

    /** @return {@value ClickHouseProvider#KIND} */
    @Override
    public String kind()
    {
        return ClickHouseProvider.KIND;
    }

    /** @return whether a top-level JSON field that no column reads fails its record */
    @Override
    public boolean failOnUnknownFields()
    {
        return SinkKeys.UNKNOWN_FIELDS_FAIL.equals(unknownFields());
    }

    /**
     * Checks every value (range and allowed values of its key, the create_table rules), derives {@code shards} from
     * {@code endpoints} when none are given, and copies the collections. Call once, after the last setter.
     *
     * @return this context
     * @throws ConfigException naming the key of the first value that cannot be used
     * @throws IllegalStateException when called twice
     */
    public S conclude()
    {
        checkOpen();
        range(SinkKeys.INSERT_WORKERS, insertWorkers);
        range(SinkKeys.MAX_ROWS, maxRows);
        range(SinkKeys.MAX_BYTES, maxBytes);
        range(SinkKeys.LINGER_MS, lingerMs);
        allowed(ClickHouseKeys.IDENTIFIER, identifier);
        range(ClickHouseKeys.INSERT_TIMEOUT_MS, insertTimeoutMs);
        range(SinkKeys.RETRY_BACKOFF_MS, retryBackoffMs);
        range(SinkKeys.RETRY_BACKOFF_MAX_MS, retryBackoffMaxMs);
        range(SinkKeys.BREAKER_FAILURES, breakerFailures);
        range(SinkKeys.BREAKER_OPEN_MS, breakerOpenMs);
        allowed(SinkKeys.UNKNOWN_FIELDS, unknownFields);
        allowed(ClickHouseKeys.COMPRESSION, compression);
        range(SinkKeys.SCHEMA_REFRESH_MS, schemaRefreshMs);
        if (createTable && createTableDdl == null && createTableLike == null)
        {
            throw problem(SinkKeys.CREATE_TABLE,
                "create_table = true needs create_table_ddl or create_table_like");
        }
        if (createTableDdl != null && createTableLike != null)
        {
            throw problem(ClickHouseKeys.CREATE_TABLE_DDL, "give create_table_ddl or create_table_like, not both");
        }
        if (createTableDdl != null && !createTableDdl.contains("{table}"))
        {
            throw problem(ClickHouseKeys.CREATE_TABLE_DDL,
                "has no {table} placeholder: every destination would create "
                    + "the same table; write CREATE TABLE {database}.{table} (...)");
        }
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        shards = shards == null || shards.isEmpty()
            ? (endpoints.isEmpty() ? List.of() : List.of(endpoints))
            : shards.stream().map(List::copyOf).toList();
        settings = settings == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        concluded = true;
        return self();
    }

    /** @return whether {@link #conclude()} has run */
    public boolean concluded()
    {
        return concluded;
    }

    /**
     * @param configPath where these keys live in the configuration, for messages, e.g. {@code sinks[0].plugin_config}
     * @return this context
     */
    public S configPath(final String configPath)
    {
        checkOpen();
        this.configPath = configPath;
        return self();
    }

    /** @return where these keys live in the configuration */
    @Override
    public String configPath()
    {
        return configPath;
    }

    /**
     * @param endpoints endpoints of the first shard ({@code endpoint})
     * @return this context
     */
    public S endpoints(final List<String> endpoints)
    {
        checkOpen();
        this.endpoints = endpoints;
        return self();
    }

    /** @return endpoints of the first shard ({@code endpoint}) */
    public List<String> endpoints()
    {
        return endpoints;
    }

    /**
     * @param shards endpoint lists, one per shard ({@code shards}, or one shard of {@code endpoint})
     * @return this context
     */
    public S shards(final List<List<String>> shards)
    {
        checkOpen();
        this.shards = shards;
        return self();
    }

    /** @return endpoint lists, one per shard ({@code shards}, or one shard of {@code endpoint}) */
    public List<List<String>> shards()
    {
        return shards;
    }

    /**
     * @param insertWorkers {@code insert_workers}: insert worker threads per shard
     * @return this context
     */
    public S insertWorkers(final int insertWorkers)
    {
        checkOpen();
        this.insertWorkers = insertWorkers;
        return self();
    }

    /** @return {@code insert_workers}: insert worker threads per shard */
    @Override
    public int insertWorkers()
    {
        return insertWorkers;
    }

    /**
     * @param database {@code database}, literal or template
     * @return this context
     */
    public S database(final String database)
    {
        checkOpen();
        this.database = database;
        return self();
    }

    /** @return {@code database}, literal or template */
    @Override
    public String database()
    {
        return database;
    }

    /**
     * @param targetTable {@code target_table}, literal or template, or null
     * @return this context
     */
    public S targetTable(final String targetTable)
    {
        checkOpen();
        this.targetTable = targetTable;
        return self();
    }

    /** @return {@code target_table}, literal or template, or null */
    @Override
    public String targetTable()
    {
        return targetTable;
    }

    /**
     * @param username {@code username}: the ClickHouse user
     * @return this context
     */
    public S username(final String username)
    {
        checkOpen();
        this.username = username;
        return self();
    }

    /** @return {@code username}: the ClickHouse user */
    public String username()
    {
        return username;
    }

    /**
     * @param password {@code password}: the ClickHouse password (a secret)
     * @return this context
     */
    public S password(final String password)
    {
        checkOpen();
        this.password = password;
        return self();
    }

    /** @return {@code password}: the ClickHouse password (a secret) */
    public String password()
    {
        return password;
    }

    /**
     * @param maxRows {@code max_rows}: rows per batch
     * @return this context
     */
    public S maxRows(final int maxRows)
    {
        checkOpen();
        this.maxRows = maxRows;
        return self();
    }

    /** @return {@code max_rows}: rows per batch */
    @Override
    public int maxRows()
    {
        return maxRows;
    }

    /**
     * @param maxBytes {@code max_bytes}: bytes per batch
     * @return this context
     */
    public S maxBytes(final long maxBytes)
    {
        checkOpen();
        this.maxBytes = maxBytes;
        return self();
    }

    /** @return {@code max_bytes}: bytes per batch */
    @Override
    public long maxBytes()
    {
        return maxBytes;
    }

    /**
     * @param lingerMs {@code linger_ms}: the longest a batch waits to fill, ms
     * @return this context
     */
    public S lingerMs(final long lingerMs)
    {
        checkOpen();
        this.lingerMs = lingerMs;
        return self();
    }

    /** @return {@code linger_ms}: the longest a batch waits to fill, ms */
    @Override
    public long lingerMs()
    {
        return lingerMs;
    }

    /**
     * @param identifier {@code identifier}: rewrite or quote
     * @return this context
     */
    public S identifier(final String identifier)
    {
        checkOpen();
        this.identifier = identifier;
        return self();
    }

    /** @return {@code identifier}: rewrite or quote */
    @Override
    public String identifier()
    {
        return identifier;
    }

    /**
     * @param createTable {@code create_table}: whether missing tables are created
     * @return this context
     */
    public S createTable(final boolean createTable)
    {
        checkOpen();
        this.createTable = createTable;
        return self();
    }

    /** @return {@code create_table}: whether missing tables are created */
    @Override
    public boolean createTable()
    {
        return createTable;
    }

    /**
     * @param createTableDdl {@code create_table_ddl}: CREATE TABLE template, or null
     * @return this context
     */
    public S createTableDdl(final String createTableDdl)
    {
        checkOpen();
        this.createTableDdl = createTableDdl;
        return self();
    }

    /** @return {@code create_table_ddl}: CREATE TABLE template, or null */
    public String createTableDdl()
    {
        return createTableDdl;
    }

    /**
     * @param createTableLike {@code create_table_like}: template table, or null
     * @return this context
     */
    public S createTableLike(final String createTableLike)
    {
        checkOpen();
        this.createTableLike = createTableLike;
        return self();
    }

    /** @return {@code create_table_like}: template table, or null */
    public String createTableLike()
    {
        return createTableLike;
    }

    /**
     * @param nullAsDefault {@code null_as_default}: whether null into a non-Nullable column takes the default
     * @return this context
     */
    public S nullAsDefault(final boolean nullAsDefault)
    {
        checkOpen();
        this.nullAsDefault = nullAsDefault;
        return self();
    }

    /** @return {@code null_as_default}: whether null into a non-Nullable column takes the default */
    @Override
    public boolean nullAsDefault()
    {
        return nullAsDefault;
    }

    /**
     * @param insertTimeoutMs {@code insert_timeout_ms}: timeout of one INSERT, ms
     * @return this context
     */
    public S insertTimeoutMs(final long insertTimeoutMs)
    {
        checkOpen();
        this.insertTimeoutMs = insertTimeoutMs;
        return self();
    }

    /** @return {@code insert_timeout_ms}: timeout of one INSERT, ms */
    public long insertTimeoutMs()
    {
        return insertTimeoutMs;
    }

    /**
     * @param retryBackoffMs {@code retry_backoff_ms}: first retry wait, ms
     * @return this context
     */
    public S retryBackoffMs(final long retryBackoffMs)
    {
        checkOpen();
        this.retryBackoffMs = retryBackoffMs;
        return self();
    }

    /** @return {@code retry_backoff_ms}: first retry wait, ms */
    @Override
    public long retryBackoffMs()
    {
        return retryBackoffMs;
    }

    /**
     * @param retryBackoffMaxMs {@code retry_backoff_max_ms}: longest retry wait, ms
     * @return this context
     */
    public S retryBackoffMaxMs(final long retryBackoffMaxMs)
    {
        checkOpen();
        this.retryBackoffMaxMs = retryBackoffMaxMs;
        return self();
    }

    /** @return {@code retry_backoff_max_ms}: longest retry wait, ms */
    @Override
    public long retryBackoffMaxMs()
    {
        return retryBackoffMaxMs;
    }

    /**
     * @param breakerFailures {@code breaker_failures}: failures that open the breaker
     * @return this context
     */
    public S breakerFailures(final int breakerFailures)
    {
        checkOpen();
        this.breakerFailures = breakerFailures;
        return self();
    }

    /** @return {@code breaker_failures}: failures that open the breaker */
    @Override
    public int breakerFailures()
    {
        return breakerFailures;
    }

    /**
     * @param breakerOpenMs {@code breaker_open_ms}: how long the breaker stays open, ms
     * @return this context
     */
    public S breakerOpenMs(final long breakerOpenMs)
    {
        checkOpen();
        this.breakerOpenMs = breakerOpenMs;
        return self();
    }

    /** @return {@code breaker_open_ms}: how long the breaker stays open, ms */
    @Override
    public long breakerOpenMs()
    {
        return breakerOpenMs;
    }

    /**
     * @param unknownFields {@code unknown_fields}: ignore or fail
     * @return this context
     */
    public S unknownFields(final String unknownFields)
    {
        checkOpen();
        this.unknownFields = unknownFields;
        return self();
    }

    /** @return {@code unknown_fields}: ignore or fail */
    public String unknownFields()
    {
        return unknownFields;
    }

    /**
     * @param sslCaFile {@code ssl_ca_file}: CA file, or null
     * @return this context
     */
    public S sslCaFile(final String sslCaFile)
    {
        checkOpen();
        this.sslCaFile = sslCaFile;
        return self();
    }

    /** @return {@code ssl_ca_file}: CA file, or null */
    public String sslCaFile()
    {
        return sslCaFile;
    }

    /**
     * @param sslCertificateFile {@code ssl_certificate_file}: client certificate, or null
     * @return this context
     */
    public S sslCertificateFile(final String sslCertificateFile)
    {
        checkOpen();
        this.sslCertificateFile = sslCertificateFile;
        return self();
    }

    /** @return {@code ssl_certificate_file}: client certificate, or null */
    public String sslCertificateFile()
    {
        return sslCertificateFile;
    }

    /**
     * @param sslKeyFile {@code ssl_key_file}: client key, or null
     * @return this context
     */
    public S sslKeyFile(final String sslKeyFile)
    {
        checkOpen();
        this.sslKeyFile = sslKeyFile;
        return self();
    }

    /** @return {@code ssl_key_file}: client key, or null */
    public String sslKeyFile()
    {
        return sslKeyFile;
    }

    /**
     * @param sslVerifyHostname {@code ssl_verify_hostname}: whether the server's certificate must name the host
     * @return this context
     */
    public S sslVerifyHostname(final boolean sslVerifyHostname)
    {
        checkOpen();
        this.sslVerifyHostname = sslVerifyHostname;
        return self();
    }

    /** @return {@code ssl_verify_hostname}: whether the server's certificate must name the host */
    public boolean sslVerifyHostname()
    {
        return sslVerifyHostname;
    }

    /**
     * @param compression {@code compression}: none, lz4 or gzip
     * @return this context
     */
    public S compression(final String compression)
    {
        checkOpen();
        this.compression = compression;
        return self();
    }

    /** @return {@code compression}: none, lz4 or gzip */
    public String compression()
    {
        return compression;
    }

    /**
     * @param settings {@code settings}: ClickHouse settings sent with every insert, in order
     * @return this context
     */
    public S settings(final Map<String, String> settings)
    {
        checkOpen();
        this.settings = settings;
        return self();
    }

    /** @return {@code settings}: ClickHouse settings sent with every insert, in order */
    public Map<String, String> settings()
    {
        return settings;
    }

    /**
     * @param schemaRefreshMs {@code schema_refresh_ms}: how often each destination table's version is read, ms
     * @return this context
     */
    public S schemaRefreshMs(final long schemaRefreshMs)
    {
        checkOpen();
        this.schemaRefreshMs = schemaRefreshMs;
        return self();
    }

    /** @return {@code schema_refresh_ms}: how often each destination table's version is read, ms */
    @Override
    public long schemaRefreshMs()
    {
        return schemaRefreshMs;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o != null && o.getClass() == getClass()
            && Arrays.equals(components(), ((ClickHouseContext<?>)o).components());
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(components());
    }

    private Object[] components()
    {
        return new Object[]{endpoints, shards, insertWorkers, database, targetTable, username, password, maxRows,
            maxBytes, lingerMs, identifier, createTable, createTableDdl, createTableLike, nullAsDefault,
            insertTimeoutMs, retryBackoffMs, retryBackoffMaxMs, breakerFailures, breakerOpenMs, unknownFields,
            sslCaFile, sslCertificateFile, sslKeyFile, sslVerifyHostname, compression, settings, schemaRefreshMs};
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException(configPath + ": concluded (read-only)");
        }
    }

    private void range(final ConfigKey key, final long value)
    {
        if (value < key.min())
        {
            throw problem(key, "must be >= " + key.min() + ", was " + value);
        }
        if (value > key.max())
        {
            throw problem(key, "must be <= " + key.max() + ", was " + value);
        }
    }

    private void allowed(final ConfigKey key, final String value)
    {
        if (!key.allowed().contains(value))
        {
            throw problem(key, "expected one of " + key.allowed() + ", was " + value);
        }
    }

    private ConfigException problem(final ConfigKey key, final String message)
    {
        return new ConfigException(configPath + "." + key.name(), message);
    }

    private static long longOf(final ConfigKey key)
    {
        return Long.parseLong(key.defaultValue());
    }
}
