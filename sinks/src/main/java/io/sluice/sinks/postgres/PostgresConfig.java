package io.sluice.sinks.postgres;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.sluice.core.config.Secrets;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SinkKeys;
import io.sluice.core.config.SinkSettings;

/**
 * {@code [sinks.plugin_config]} of a PostgreSQL sink, read and checked by {@link PostgresProvider}: the neutral
 * settings core reads (whose {@code database} is the {@code schema} key, and whose one shard is the server without
 * credentials) and PostgreSQL's own. Immutable; thread-safe.
 *
 * @param settings           the neutral settings ({@link SinkSettings}); {@code database} is the schema
 * @param jdbcUrl            {@code jdbc:postgresql://host:port/database[?params]}, without credentials
 * @param username           {@code username}
 * @param password           {@code password}, possibly empty
 * @param sslMode            {@code ssl_mode}: disable, require, verify-ca or verify-full
 * @param sslCaFile          {@code ssl_ca_file}, or null
 * @param sslCertificateFile {@code ssl_certificate_file}, or null
 * @param sslKeyFile         {@code ssl_key_file}, or null
 * @param createTableDdl     {@code create_table_ddl}, or null
 * @param createTableLike    {@code create_table_like}, or null
 * @param insertMode         {@code insert_mode}: append or upsert
 * @param keyColumns         {@code key_columns}, empty for the table's primary key
 * @param sessionSettings    {@code [sinks.plugin_config.settings]} in file order
 * @param insertTimeoutMs    {@code insert_timeout_ms}, ms
 * @param delivery           {@code delivery}: at_least_once or exactly_once
 * @param offsetsTable       {@code offsets_table}: the positions table's name in the schema (exactly_once)
 * @param connectTimeoutMs   {@code connect_timeout_ms}, ms: the longest TCP connect and, apart, the longest login
 */
public record PostgresConfig(SinkSettings settings, String jdbcUrl, String username, String password,
    String sslMode, String sslCaFile, String sslCertificateFile, String sslKeyFile, String createTableDdl,
    String createTableLike, String insertMode, List<String> keyColumns, Map<String, String> sessionSettings,
    long insertTimeoutMs, String delivery, String offsetsTable, long connectTimeoutMs) implements SinkConnection
{
    /**
     * Copies the lists and maps.
     *
     * @param settings           neutral settings
     * @param jdbcUrl            pgJDBC URL without credentials
     * @param username           user
     * @param password           password
     * @param sslMode            ssl_mode
     * @param sslCaFile          ssl_ca_file
     * @param sslCertificateFile ssl_certificate_file
     * @param sslKeyFile         ssl_key_file
     * @param createTableDdl     create_table_ddl
     * @param createTableLike    create_table_like
     * @param insertMode         insert_mode
     * @param keyColumns         key_columns
     * @param sessionSettings    settings
     * @param insertTimeoutMs    insert_timeout_ms
     * @param delivery           delivery
     * @param offsetsTable       offsets_table
     * @param connectTimeoutMs   connect_timeout_ms, at least 1
     * @throws IllegalArgumentException when connectTimeoutMs is not positive (pgJDBC would read 0 as no limit)
     */
    public PostgresConfig
    {
        if (connectTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("connect_timeout_ms must be positive, not " + connectTimeoutMs);
        }
        keyColumns = List.copyOf(keyColumns);
        sessionSettings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sessionSettings));
    }

    /** The default of {@code connect_timeout_ms}, ms. */
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

    /**
     * A sink with the default {@code connect_timeout_ms} ({@value #DEFAULT_CONNECT_TIMEOUT_MS} ms).
     *
     * @param settings           neutral settings
     * @param jdbcUrl            pgJDBC URL without credentials
     * @param username           user
     * @param password           password
     * @param sslMode            ssl_mode
     * @param sslCaFile          ssl_ca_file
     * @param sslCertificateFile ssl_certificate_file
     * @param sslKeyFile         ssl_key_file
     * @param createTableDdl     create_table_ddl
     * @param createTableLike    create_table_like
     * @param insertMode         insert_mode
     * @param keyColumns         key_columns
     * @param sessionSettings    settings
     * @param insertTimeoutMs    insert_timeout_ms
     * @param delivery           delivery
     * @param offsetsTable       offsets_table
     */
    public PostgresConfig(final SinkSettings settings, final String jdbcUrl, final String username,
        final String password, final String sslMode, final String sslCaFile, final String sslCertificateFile,
        final String sslKeyFile, final String createTableDdl, final String createTableLike, final String insertMode,
        final List<String> keyColumns, final Map<String, String> sessionSettings, final long insertTimeoutMs,
        final String delivery, final String offsetsTable)
    {
        this(settings, jdbcUrl, username, password, sslMode, sslCaFile, sslCertificateFile, sslKeyFile, createTableDdl,
            createTableLike, insertMode, keyColumns, sessionSettings, insertTimeoutMs, delivery, offsetsTable,
            DEFAULT_CONNECT_TIMEOUT_MS);
    }

    /**
     * An at-least-once sink, positions table {@code sluice_offsets}, the default {@code connect_timeout_ms}.
     *
     * @param settings           neutral settings
     * @param jdbcUrl            pgJDBC URL without credentials
     * @param username           user
     * @param password           password
     * @param sslMode            ssl_mode
     * @param sslCaFile          ssl_ca_file
     * @param sslCertificateFile ssl_certificate_file
     * @param sslKeyFile         ssl_key_file
     * @param createTableDdl     create_table_ddl
     * @param createTableLike    create_table_like
     * @param insertMode         insert_mode
     * @param keyColumns         key_columns
     * @param sessionSettings    settings
     * @param insertTimeoutMs    insert_timeout_ms
     */
    public PostgresConfig(final SinkSettings settings, final String jdbcUrl, final String username,
        final String password, final String sslMode, final String sslCaFile, final String sslCertificateFile,
        final String sslKeyFile, final String createTableDdl, final String createTableLike, final String insertMode,
        final List<String> keyColumns, final Map<String, String> sessionSettings, final long insertTimeoutMs)
    {
        this(settings, jdbcUrl, username, password, sslMode, sslCaFile, sslCertificateFile, sslKeyFile, createTableDdl,
            createTableLike, insertMode, keyColumns, sessionSettings, insertTimeoutMs, SinkKeys.AT_LEAST_ONCE,
            "sluice_offsets");
    }

    /** @return whether {@code delivery = "exactly_once"} */
    @Override
    public boolean exactlyOnce()
    {
        return SinkKeys.EXACTLY_ONCE.equals(delivery);
    }

    /**
     * @return the positions table as SQL names it ({@code "schema"."offsets_table"}) and the server, as
     *     {@link PostgresPositions#describe()} names the place without its group; null unless exactly-once
     */
    @Override
    public String positionsPlace()
    {
        return exactlyOnce()
            ? PostgresIdentifiers.qualified(database(), offsetsTable()) + " at "
                + PostgresProvider.serverOf(jdbcUrl())
            : null;
    }

    /** @return {@code offsets_table} when exactly-once, else null */
    @Override
    public String positionsTable()
    {
        return exactlyOnce() ? offsetsTable() : null;
    }

    /** @return whether {@code insert_mode = "upsert"} */
    public boolean upsert()
    {
        return PostgresKeys.UPSERT.equals(insertMode);
    }

    /** @return how missing tables are created */
    public PostgresCatalog.Creation creation()
    {
        return new PostgresCatalog.Creation(createTable(), createTableDdl, createTableLike);
    }

    /**
     * The pgJDBC connection properties: credentials, TLS, bounded waits (the TCP connect and the login each
     * {@code connect_timeout_ms} rounded up to whole seconds, as pgJDBC's {@code connectTimeout} and
     * {@code loginTimeout} count them; the socket timeout {@code insert_timeout_ms} + 10 s), the application name.
     *
     * @return new properties (they hold the password: never print them)
     */
    public Properties connectionProperties()
    {
        final Properties p = new Properties();
        p.setProperty("user", username);
        if (password != null && !password.isEmpty())
        {
            p.setProperty("password", password);
        }
        p.setProperty("sslmode", sslMode);
        if (sslCaFile != null)
        {
            p.setProperty("sslrootcert", sslCaFile);
        }
        if (sslCertificateFile != null)
        {
            p.setProperty("sslcert", sslCertificateFile);
        }
        if (sslKeyFile != null)
        {
            p.setProperty("sslkey", sslKeyFile);
        }
        final String connectSeconds = Long.toString(connectTimeoutSeconds());
        p.setProperty("connectTimeout", connectSeconds);
        p.setProperty("loginTimeout", connectSeconds);
        p.setProperty("socketTimeout", Long.toString((insertTimeoutMs + 999) / 1000 + 10));
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("ApplicationName", "sluice");
        return p;
    }

    /** @return {@code connect_timeout_ms} in pgJDBC's unit: whole seconds, rounded up, at least 1 */
    public long connectTimeoutSeconds()
    {
        return (connectTimeoutMs + 999) / 1000;
    }

    @Override
    public String kind()
    {
        return PostgresProvider.KIND;
    }

    @Override
    public String configPath()
    {
        return settings.configPath();
    }

    @Override
    public List<List<String>> shards()
    {
        return settings.shards();
    }

    @Override
    public int insertWorkers()
    {
        return settings.insertWorkers();
    }

    /** @return {@code schema}: a literal or a template over the topic */
    @Override
    public String database()
    {
        return settings.database();
    }

    @Override
    public String targetTable()
    {
        return settings.targetTable();
    }

    @Override
    public int maxRows()
    {
        return settings.maxRows();
    }

    @Override
    public long maxBytes()
    {
        return settings.maxBytes();
    }

    @Override
    public long lingerMs()
    {
        return settings.lingerMs();
    }

    @Override
    public String identifier()
    {
        return settings.identifier();
    }

    @Override
    public boolean createTable()
    {
        return settings.createTable();
    }

    @Override
    public boolean nullAsDefault()
    {
        return settings.nullAsDefault();
    }

    @Override
    public boolean failOnUnknownFields()
    {
        return settings.failOnUnknownFields();
    }

    @Override
    public long retryBackoffMs()
    {
        return settings.retryBackoffMs();
    }

    @Override
    public long retryBackoffMaxMs()
    {
        return settings.retryBackoffMaxMs();
    }

    @Override
    public int breakerFailures()
    {
        return settings.breakerFailures();
    }

    @Override
    public long breakerOpenMs()
    {
        return settings.breakerOpenMs();
    }

    @Override
    public long schemaRefreshMs()
    {
        return settings.schemaRefreshMs();
    }

    /** @return a description without the password (which prints as {@value Secrets#MASK}) */
    @Override
    public String toString()
    {
        return "PostgreSQL[url=" + Secrets.redact(jdbcUrl) + ", schema=" + database() + ", targetTable="
            + targetTable() + ", username=" + username + ", password="
            + (password == null || password.isEmpty() ? "" : Secrets.MASK) + ", ssl_mode=" + sslMode
            + ", insert_mode=" + insertMode + ", delivery=" + delivery + "]";
    }
}
