package io.sluice.sinks.clickhouse;

import static io.sluice.core.config.ConfigKey.Type.BOOLEAN;
import static io.sluice.core.config.ConfigKey.Type.LONG;
import static io.sluice.core.config.ConfigKey.Type.STRING;
import static io.sluice.core.config.ConfigKey.Type.STRING_LIST_LIST;
import static io.sluice.core.config.ConfigKey.Type.STRING_MAP;
import static io.sluice.core.config.ConfigKey.Type.STRING_OR_LIST;

import java.util.List;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.SinkKeys;

/**
 * The {@code [sinks.plugin_config]} keys of {@code kind = "clickhouse"}: ClickHouse's own (endpoints, credentials,
 * TLS, compression, table creation statements, server settings, the insert timeout) and the neutral keys of
 * {@link SinkKeys}, in the order docs/configuration.md lists them ({@link #ALL}).
 *
 * <p>Immutable constants; thread-safe.
 */
public final class ClickHouseKeys
{
    /** The default of plugin_config.compression, chosen from the benchmark in docs/benchmarks.md. */
    static final String DEFAULT_COMPRESSION = "lz4";

    private ClickHouseKeys()
    {
    }

    /** {@code endpoint}. */
    public static final ConfigKey ENDPOINT = ConfigKey.in(SinkKeys.SECTION, "endpoint", STRING_OR_LIST)
        .doc("ClickHouse HTTP endpoint(s) of a single shard, e.g. \"http://127.0.0.1:8123\"; a list is the shard's "
            + "replicas (a failed insert moves to the next). Give endpoint or shards.");

    /** {@code shards}. */
    public static final ConfigKey SHARDS = ConfigKey.in(SinkKeys.SECTION, "shards", STRING_LIST_LIST)
        .doc("Several shards, each a list of replica endpoints: [[\"http://a:8123\"], [\"http://b:8123\"]]. Each shard "
            + "has its own queue and insert workers; a branch's shard_by (or round robin) picks the shard of each row.");

    /** {@code username}. */
    public static final ConfigKey USERNAME = ConfigKey.in(SinkKeys.SECTION, "username", STRING)
        .defaultValue("default")
        .doc("ClickHouse user. An endpoint may carry it instead (http://user:password@host:8123); the endpoints' user "
            + "info is then taken off the URL and never printed.");

    /** {@code password}. */
    public static final ConfigKey PASSWORD = ConfigKey.in(SinkKeys.SECTION, "password", STRING).secret()
        .defaultValue("")
        .doc("ClickHouse password; a secret: write \"${CLICKHOUSE_PASSWORD}\" to read it from the environment.");

    /** {@code ssl_ca_file}. */
    public static final ConfigKey SSL_CA_FILE = ConfigKey.in(SinkKeys.SECTION, "ssl_ca_file", STRING)
        .doc("https:// endpoints: PEM file of the certificate authorities that sign the server's certificate; without "
            + "it the JVM's default CAs are used.");

    /** {@code ssl_certificate_file}. */
    public static final ConfigKey SSL_CERTIFICATE_FILE = ConfigKey
        .in(SinkKeys.SECTION, "ssl_certificate_file", STRING)
        .doc("https:// endpoints: this client's certificate (PEM), for servers that verify clients; give it with "
            + "ssl_key_file.");

    /** {@code ssl_key_file}. */
    public static final ConfigKey SSL_KEY_FILE = ConfigKey.in(SinkKeys.SECTION, "ssl_key_file", STRING)
        .doc("The private key of ssl_certificate_file (PEM, unencrypted PKCS#8 or RSA).");

    /** {@code ssl_verify_hostname}. */
    public static final ConfigKey SSL_VERIFY_HOSTNAME = ConfigKey
        .in(SinkKeys.SECTION, "ssl_verify_hostname", BOOLEAN).defaultValue("true")
        .doc("https:// endpoints: check that the server's certificate names the endpoint's host. false checks only "
            + "that a trusted CA signed it.");

    /** {@code compression}. */
    public static final ConfigKey COMPRESSION = ConfigKey.in(SinkKeys.SECTION, "compression", STRING)
        .defaultValue(DEFAULT_COMPRESSION).allowed("none", "lz4", "gzip")
        .doc("Compression of INSERT bodies: lz4 is ClickHouse's own block format (decompress=1), gzip is HTTP "
            + "Content-Encoding; every server version takes both. See docs/benchmarks.md for what each costs per MB.");

    /** {@code identifier}: ClickHouse keeps the rewrite policy as its default (names that need no quotes). */
    public static final ConfigKey IDENTIFIER = SinkKeys.identifier("rewrite");

    /** {@code create_table_ddl}. */
    public static final ConfigKey CREATE_TABLE_DDL = ConfigKey
        .in(SinkKeys.SECTION, "create_table_ddl", STRING)
        .doc("CREATE TABLE statement with {database} and {table} placeholders (replaced by quoted identifiers in one "
            + "pass; {table} is required). Without IF NOT EXISTS a concurrent creation by another process is still fine.");

    /** {@code create_table_like}. */
    public static final ConfigKey CREATE_TABLE_LIKE = ConfigKey
        .in(SinkKeys.SECTION, "create_table_like", STRING)
        .doc("Existing table whose structure and engine a new table copies (CREATE TABLE IF NOT EXISTS … AS template): "
            + "\"db.table\", or \"table\" in the destination's database (the first . separates database and table).");

    /** {@code settings}. */
    public static final ConfigKey SETTINGS = ConfigKey.in(SinkKeys.SECTION, "settings", STRING_MAP)
        .doc("ClickHouse settings sent with every INSERT of this sink, as [sinks.plugin_config.settings] name = "
            + "\"value\" (e.g. insert_quorum = \"2\", async_insert = \"1\", max_insert_block_size = \"1048576\"): "
            + "names of [A-Za-z0-9_], values without control characters. The engine asks each shard at start "
            + "whether it takes them (a SELECT 1 with the settings), so a setting the server does not know, or a "
            + "value it cannot parse, fails the start naming it. See docs/effectively-once.md.");

    /** {@code insert_timeout_ms}. */
    public static final ConfigKey INSERT_TIMEOUT_MS = ConfigKey
        .in(SinkKeys.SECTION, "insert_timeout_ms", LONG)
        .defaultValue("60000").unit("ms").range(100, 3_600_000).doc("Timeout of one INSERT request.");

    /** Every key of a ClickHouse sink's plugin_config, in docs order. */
    public static final List<ConfigKey> ALL = List.of(ENDPOINT, SHARDS, SinkKeys.INSERT_WORKERS, SinkKeys.DATABASE,
        SinkKeys.TARGET_TABLE, USERNAME, PASSWORD, SSL_CA_FILE, SSL_CERTIFICATE_FILE, SSL_KEY_FILE, SSL_VERIFY_HOSTNAME,
        COMPRESSION, SinkKeys.MAX_ROWS, SinkKeys.MAX_BYTES, SinkKeys.LINGER_MS, IDENTIFIER, SinkKeys.CREATE_TABLE,
        CREATE_TABLE_DDL, CREATE_TABLE_LIKE, SinkKeys.DELIVERY, SinkKeys.NULL_AS_DEFAULT, SinkKeys.UNKNOWN_FIELDS,
        SETTINGS,
        SinkKeys.SCHEMA_REFRESH_MS, INSERT_TIMEOUT_MS, SinkKeys.RETRY_BACKOFF_MS, SinkKeys.RETRY_BACKOFF_MAX_MS,
        SinkKeys.BREAKER_FAILURES, SinkKeys.BREAKER_OPEN_MS);
}
