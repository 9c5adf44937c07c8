package io.sluice.sinks.postgres;

import static io.sluice.core.config.ConfigKey.Type.LONG;
import static io.sluice.core.config.ConfigKey.Type.STRING;
import static io.sluice.core.config.ConfigKey.Type.STRING_LIST;
import static io.sluice.core.config.ConfigKey.Type.STRING_MAP;

import java.util.List;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.SinkKeys;

/**
 * The {@code [sinks.plugin_config]} keys of {@code kind = "postgres"} (issue 22's names): PostgreSQL's own (the URL,
 * credentials, TLS, the schema, table creation statements, the insert mode and key, session parameters, the
 * statement timeout) and the neutral keys of {@link SinkKeys} (batching, retries, the breaker, schema watching), in
 * the order docs/configuration.md lists them ({@link #ALL}). The schema plays the part core calls the destination's
 * database, so the neutral {@code database} key is not among them.
 *
 * <p>Immutable constants; thread-safe.
 */
public final class PostgresKeys
{
    /** {@code insert_mode = "append"}: every record is a new row (COPY). */
    public static final String APPEND = "append";
    /** {@code insert_mode = "upsert"}: a record whose key exists replaces that row's other columns. */
    public static final String UPSERT = "upsert";

    /** {@code ssl_mode = "disable"}: no TLS. */
    public static final String SSL_DISABLE = "disable";

    private PostgresKeys()
    {
    }

    /** {@code url}. */
    public static final ConfigKey URL = ConfigKey.in(SinkKeys.SECTION, "url", STRING).required()
        .doc("The server and database: postgresql://host:port/database (libpq's form) or "
            + "jdbc:postgresql://host:port/database (pgJDBC's), e.g. \"postgresql://127.0.0.1:15432/analytics\"; "
            + "several hosts as host1:5432,host2:5432. Query parameters are passed to pgJDBC; the user and password "
            + "go in username and password, never in the URL.");

    /** {@code username}. */
    public static final ConfigKey USERNAME = ConfigKey.in(SinkKeys.SECTION, "username", STRING).required()
        .doc("The PostgreSQL role the sink logs in as.");

    /** {@code password}. */
    public static final ConfigKey PASSWORD = ConfigKey.in(SinkKeys.SECTION, "password", STRING).secret()
        .defaultValue("")
        .doc("The role's password (SCRAM or md5 as the server asks); a secret: write \"${PGPASSWORD}\" to read it "
            + "from the environment. Empty for a role that logs in with a client certificate.");

    /** {@code schema}. */
    public static final ConfigKey SCHEMA = ConfigKey.in(SinkKeys.SECTION, "schema", STRING).defaultValue("public")
        .doc("Schema of the tables; a literal or a template over the topic. Kept verbatim and always quoted, never "
            + "split on dots and never created by Sluice.");

    /** {@code identifier}: PostgreSQL keeps names verbatim by default ({@code orders.eu} is one table). */
    public static final ConfigKey IDENTIFIER = SinkKeys.identifier("quote");

    /** {@code create_table_ddl}. */
    public static final ConfigKey CREATE_TABLE_DDL = ConfigKey.in(SinkKeys.SECTION, "create_table_ddl", STRING)
        .doc("CREATE TABLE statement with {schema} and {table} placeholders, replaced by the quoted identifiers in one "
            + "pass ({table} is required), e.g. \"CREATE TABLE {schema}.{table} (id bigint PRIMARY KEY, doc jsonb, at "
            + "timestamptz)\". Several engines creating the same table at once all succeed.");

    /** {@code create_table_like}. */
    public static final ConfigKey CREATE_TABLE_LIKE = ConfigKey.in(SinkKeys.SECTION, "create_table_like", STRING)
        .doc("An existing table as SQL names it (public.orders_template, or \"Templates\".\"Orders\") that a new "
            + "table copies: CREATE TABLE {schema}.{table} (LIKE template INCLUDING ALL).");

    /** {@code insert_mode}. */
    public static final ConfigKey INSERT_MODE = ConfigKey.in(SinkKeys.SECTION, "insert_mode", STRING)
        .defaultValue(APPEND).allowed(APPEND, UPSERT)
        .doc("append: each batch is one binary COPY into the table. upsert: each batch is copied into a temporary "
            + "table and merged with one INSERT ... ON CONFLICT (key_columns) DO UPDATE, the batch first reduced by "
            + "key (the latest record by offset wins), so a key repeated in a batch never fails it. See "
            + "docs/postgres.md.");

    /** {@code key_columns}. */
    public static final ConfigKey KEY_COLUMNS = ConfigKey.in(SinkKeys.SECTION, "key_columns", STRING_LIST)
        .doc("upsert: the columns that identify a row (a unique index or the primary key must cover exactly them); "
            + "by default the table's primary key.");

    /** {@code ssl_mode}. */
    public static final ConfigKey SSL_MODE = ConfigKey.in(SinkKeys.SECTION, "ssl_mode", STRING)
        .defaultValue(SSL_DISABLE).allowed(SSL_DISABLE, "require", "verify-ca", "verify-full")
        .doc("TLS as libpq's sslmode: disable (none), require (encrypted, the certificate not checked), verify-ca "
            + "(signed by ssl_ca_file), verify-full (signed and naming the host).");

    /** {@code ssl_ca_file}. */
    public static final ConfigKey SSL_CA_FILE = ConfigKey.in(SinkKeys.SECTION, "ssl_ca_file", STRING)
        .doc("PEM file of the certificate authorities that sign the server's certificate; required by verify-ca and "
            + "verify-full.");

    /** {@code ssl_certificate_file}. */
    public static final ConfigKey SSL_CERTIFICATE_FILE = ConfigKey
        .in(SinkKeys.SECTION, "ssl_certificate_file", STRING)
        .doc("This client's certificate (PEM), for roles that log in with a certificate; give it with ssl_key_file.");

    /** {@code ssl_key_file}. */
    public static final ConfigKey SSL_KEY_FILE = ConfigKey.in(SinkKeys.SECTION, "ssl_key_file", STRING)
        .doc("The private key of ssl_certificate_file, unencrypted PKCS#8 DER (.pk8) or PKCS#12 (.p12), as pgJDBC "
            + "reads it (openssl pkcs8 -topk8 -outform DER -nocrypt makes one from a PEM key).");

    /** {@code settings}. */
    public static final ConfigKey SETTINGS = ConfigKey.in(SinkKeys.SECTION, "settings", STRING_MAP)
        .doc("Session parameters set on every connection of this sink with set_config, as "
            + "[sinks.plugin_config.settings] name = \"value\" (e.g. synchronous_commit = \"off\"): names of "
            + "[A-Za-z0-9_.], values without control characters. A parameter the server does not know fails the start "
            + "naming it. TimeZone (always UTC), extra_float_digits (always 3) and client_encoding (always UTF8) "
            + "are the engine's own and cannot be set here.");

    /** {@code insert_timeout_ms}. */
    public static final ConfigKey INSERT_TIMEOUT_MS = ConfigKey.in(SinkKeys.SECTION, "insert_timeout_ms", LONG)
        .defaultValue("60000").unit("ms").range(100, 3_600_000)
        .doc("Longest a batch's statement may run and a session may sit idle inside a transaction: the session's "
            + "statement_timeout and idle_in_transaction_session_timeout (each unless settings gives it: the server "
            + "ends the transaction of a client that froze in it, and its locks go) and, with 10 s more, the socket "
            + "timeout that notices a server that stopped answering.");

    /**
     * {@code connect_timeout_ms}: pgJDBC's {@code connectTimeout} and {@code loginTimeout}, which count whole seconds
     * (pgJDBC's "Connection Parameters"), so the value is rounded up to the next second.
     */
    public static final ConfigKey CONNECT_TIMEOUT_MS = ConfigKey.in(SinkKeys.SECTION, "connect_timeout_ms", LONG)
        .defaultValue("10000").unit("ms").range(1_000, 600_000)
        .doc("Longest wait for a new connection (writers, the catalog, the start-up check, the positions table): the "
            + "TCP connect, then the whole login (TLS, authentication, the session's start), each bounded by it "
            + "(pgJDBC's connectTimeout and loginTimeout, whole seconds: rounded up). A server that refuses the login "
            + "(class 28) or names a missing database (3D000) answers at once, whatever this is. Raise it on a "
            + "starved machine where a login can take longer than 10 s.");

    /** {@code offsets_table}. */
    public static final ConfigKey OFFSETS_TABLE = ConfigKey.in(SinkKeys.SECTION, "offsets_table", STRING)
        .defaultValue("sluice_offsets")
        .doc("delivery = \"exactly_once\": the table, in the sink's schema (a literal schema), that holds per "
            + "(consumer group, destination table, topic, partition) the next offset the table has not written; "
            + "created when missing. Clear a group's rows there after resetting its offsets backwards (see "
            + "docs/effectively-once.md).");

    /** Every key of a PostgreSQL sink's plugin_config, in docs order. */
    public static final List<ConfigKey> ALL = List.of(URL, SinkKeys.INSERT_WORKERS, SCHEMA, SinkKeys.TARGET_TABLE,
        USERNAME, PASSWORD, SSL_MODE, SSL_CA_FILE, SSL_CERTIFICATE_FILE, SSL_KEY_FILE, SinkKeys.MAX_ROWS,
        SinkKeys.MAX_BYTES, SinkKeys.LINGER_MS, IDENTIFIER, SinkKeys.CREATE_TABLE, CREATE_TABLE_DDL, CREATE_TABLE_LIKE,
        INSERT_MODE, KEY_COLUMNS, SinkKeys.DELIVERY, OFFSETS_TABLE, SinkKeys.NULL_AS_DEFAULT, SinkKeys.UNKNOWN_FIELDS,
        SETTINGS,
        SinkKeys.SCHEMA_REFRESH_MS, CONNECT_TIMEOUT_MS, INSERT_TIMEOUT_MS, SinkKeys.RETRY_BACKOFF_MS,
        SinkKeys.RETRY_BACKOFF_MAX_MS,
        SinkKeys.BREAKER_FAILURES, SinkKeys.BREAKER_OPEN_MS);
}
