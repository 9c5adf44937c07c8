package io.sluice.sinks.clickhouse;

import static io.sluice.sinks.clickhouse.ClickHouseKeys.COMPRESSION;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.CREATE_TABLE_DDL;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.CREATE_TABLE_LIKE;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.ENDPOINT;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.IDENTIFIER;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.INSERT_TIMEOUT_MS;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.PASSWORD;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.SETTINGS;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.SHARDS;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.SSL_CA_FILE;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.SSL_CERTIFICATE_FILE;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.SSL_KEY_FILE;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.SSL_VERIFY_HOSTNAME;
import static io.sluice.sinks.clickhouse.ClickHouseKeys.USERNAME;

import java.time.ZoneId;
import java.util.List;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.PluginConfigReader;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SinkKeys;
import io.sluice.core.gather.RowText;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.SinkProvider;

/**
 * {@code kind = "clickhouse"}: ClickHouse over its HTTP interface (client-v2). Its plugin_config keys are
 * {@link ClickHouseKeys#ALL}, read into a {@link ClickHouseConfig}; its driver is a {@link ClickHouseDriver}
 * (catalog: DESCRIBE as TabSeparated, CREATE; writer: Native blocks); names are backquoted
 * ({@link ClickHouseIdentifiers}) and the default identifier policy is {@code rewrite}. Registered in
 * {@code META-INF/services/io.sluice.core.config.SinkKind}. Stateless and thread-safe.
 */
public final class ClickHouseProvider implements SinkProvider
{
    /** The {@code kind} value. */
    public static final String KIND = "clickhouse";

    /** A provider; the service loader calls this constructor. */
    public ClickHouseProvider()
    {
    }

    @Override
    public String kind()
    {
        return KIND;
    }

    @Override
    public List<ConfigKey> pluginConfigKeys()
    {
        return ClickHouseKeys.ALL;
    }

    @Override
    public SinkDriver driver()
    {
        return new ClickHouseDriver();
    }

    /**
     * A row the ClickHouse encoders wrote (RowBinary), printed as ClickHouse's TabSeparated output prints each type.
     */
    @Override
    public RowText rowText(final byte[] row, final ZoneId serverZone)
    {
        return new RowBinaryText(row, serverZone);
    }

    @Override
    public String qualifiedName(final String database, final String table)
    {
        return ClickHouseIdentifiers.qualified(database, table);
    }

    /**
     * Reads endpoints (taking credentials off their URLs), every key, the TLS files and the create_table rules, each
     * problem reported with its key and line; concludes the settings when there was none.
     */
    @Override
    public SinkConnection readPluginConfig(final PluginConfigReader pc)
    {
        if (SinkKeys.EXACTLY_ONCE.equals(pc.string(SinkKeys.DELIVERY)))
        {
            pc.problem(SinkKeys.DELIVERY.name(), "\"exactly_once\" needs a database whose transaction covers a "
                + "batch's rows and its source positions together; ClickHouse has none (an INSERT is not atomic with "
                + "any other statement, and shards are separate servers). Keep at_least_once and key the tables on "
                + "the Kafka coordinates (ReplacingMergeTree, docs/effectively-once.md), or write to kind = "
                + "\"postgres\"");
        }
        final List<String> endpoints = pc.strings(ENDPOINT);
        final List<List<String>> configuredShards = pc.stringLists(SHARDS);
        if (endpoints.isEmpty() == configuredShards.isEmpty())
        {
            pc.problem(ENDPOINT.name(), endpoints.isEmpty()
                ? "missing: give endpoint (one shard) or shards"
                : "give either endpoint or shards, not both");
        }
        final ClickHouseEndpoints.Parsed parsed = ClickHouseEndpoints.parse(pc,
            endpoints.isEmpty() ? SHARDS : ENDPOINT,
            configuredShards.isEmpty()
                ? (endpoints.isEmpty() ? List.of() : List.of(endpoints))
                : configuredShards);
        final List<List<String>> shards = parsed.shards();
        final String username = parsed.username() != null ? parsed.username() : pc.string(USERNAME);
        final String password = parsed.password() != null ? parsed.password() : pc.string(PASSWORD);
        final ClickHouseConfig plugin = new ClickHouseConfig()
            .configPath(pc.path())
            .endpoints(shards.isEmpty() ? List.of() : shards.get(0))
            .shards(shards)
            .insertWorkers(pc.intValue(SinkKeys.INSERT_WORKERS))
            .database(pc.string(SinkKeys.DATABASE))
            .targetTable(pc.string(SinkKeys.TARGET_TABLE))
            .username(username)
            .password(password)
            .maxRows(pc.intValue(SinkKeys.MAX_ROWS))
            .maxBytes(pc.longValue(SinkKeys.MAX_BYTES))
            .lingerMs(pc.longValue(SinkKeys.LINGER_MS))
            .identifier(pc.string(IDENTIFIER))
            .createTable(pc.bool(SinkKeys.CREATE_TABLE))
            .createTableDdl(pc.string(CREATE_TABLE_DDL))
            .createTableLike(pc.string(CREATE_TABLE_LIKE))
            .nullAsDefault(pc.bool(SinkKeys.NULL_AS_DEFAULT))
            .insertTimeoutMs(pc.longValue(INSERT_TIMEOUT_MS))
            .retryBackoffMs(pc.longValue(SinkKeys.RETRY_BACKOFF_MS))
            .retryBackoffMaxMs(pc.longValue(SinkKeys.RETRY_BACKOFF_MAX_MS))
            .breakerFailures(pc.intValue(SinkKeys.BREAKER_FAILURES))
            .breakerOpenMs(pc.longValue(SinkKeys.BREAKER_OPEN_MS))
            .unknownFields(pc.string(SinkKeys.UNKNOWN_FIELDS))
            .sslCaFile(pc.string(SSL_CA_FILE))
            .sslCertificateFile(pc.string(SSL_CERTIFICATE_FILE))
            .sslKeyFile(pc.string(SSL_KEY_FILE))
            .sslVerifyHostname(pc.bool(SSL_VERIFY_HOSTNAME))
            .compression(pc.string(COMPRESSION))
            .settings(InsertSettingsConfig.read(pc, SETTINGS))
            .schemaRefreshMs(pc.longValue(SinkKeys.SCHEMA_REFRESH_MS));
        ClickHouseEndpoints.checkTls(pc, plugin);
        if (plugin.createTable() && plugin.createTableDdl() == null && plugin.createTableLike() == null)
        {
            pc.problem(SinkKeys.CREATE_TABLE.name(), "create_table = true needs create_table_ddl or create_table_like");
        }
        if (plugin.createTableDdl() != null && plugin.createTableLike() != null)
        {
            pc.problem(CREATE_TABLE_DDL.name(), "give create_table_ddl or create_table_like, not both");
        }
        if (plugin.createTableDdl() != null && !plugin.createTableDdl().contains("{table}"))
        {
            pc.problem(CREATE_TABLE_DDL.name(),
                "has no {table} placeholder: every destination would create the same "
                    + "table; write CREATE TABLE {database}.{table} (...)");
        }
        if (!pc.hasProblems())
        {
            // the loader's checks have passed with their lines: conclude() checks the same rules for embedders
            plugin.conclude();
        }
        return plugin;
    }
}
