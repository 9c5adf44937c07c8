package io.sluice.sinks.postgres;

import static io.sluice.sinks.postgres.PostgresKeys.CONNECT_TIMEOUT_MS;
import static io.sluice.sinks.postgres.PostgresKeys.CREATE_TABLE_DDL;
import static io.sluice.sinks.postgres.PostgresKeys.CREATE_TABLE_LIKE;
import static io.sluice.sinks.postgres.PostgresKeys.IDENTIFIER;
import static io.sluice.sinks.postgres.PostgresKeys.INSERT_MODE;
import static io.sluice.sinks.postgres.PostgresKeys.INSERT_TIMEOUT_MS;
import static io.sluice.sinks.postgres.PostgresKeys.KEY_COLUMNS;
import static io.sluice.sinks.postgres.PostgresKeys.OFFSETS_TABLE;
import static io.sluice.sinks.postgres.PostgresKeys.PASSWORD;
import static io.sluice.sinks.postgres.PostgresKeys.SCHEMA;
import static io.sluice.sinks.postgres.PostgresKeys.SETTINGS;
import static io.sluice.sinks.postgres.PostgresKeys.SSL_CA_FILE;
import static io.sluice.sinks.postgres.PostgresKeys.SSL_CERTIFICATE_FILE;
import static io.sluice.sinks.postgres.PostgresKeys.SSL_KEY_FILE;
import static io.sluice.sinks.postgres.PostgresKeys.SSL_MODE;
import static io.sluice.sinks.postgres.PostgresKeys.URL;
import static io.sluice.sinks.postgres.PostgresKeys.USERNAME;

import java.nio.file.Files;
import java.time.ZoneId;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.PluginConfigReader;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SinkKeys;
import io.sluice.core.config.SinkSettings;
import io.sluice.core.gather.RowText;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.SinkProvider;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;

/**
 * {@code kind = "postgres"}: PostgreSQL over pgJDBC, rows written by binary COPY. Its plugin_config keys are
 * {@link PostgresKeys#ALL}, read into a {@link PostgresConfig}; its driver is a {@link PostgresDriver}; names are
 * quoted verbatim ({@link PostgresIdentifiers}: {@code orders.eu} in schema {@code public} is
 * {@code "public"."orders.eu"}) and the default identifier policy is {@code quote}. Registered in
 * {@code META-INF/services/io.sluice.core.config.SinkKind}. Stateless and thread-safe.
 */
public final class PostgresProvider implements SinkProvider
{
    /** The {@code kind} value. */
    public static final String KIND = "postgres";

    /** libpq's or pgJDBC's URL: hosts, the database, then optional query parameters. */
    private static final Pattern URL_FORM = Pattern.compile("(?:jdbc:)?postgresql://([^/?#]*)(?:/([^?#]*))?"
        + "(\\?[^#]*)?");
    private static final Pattern HOST = Pattern.compile("(?:\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.-]+)(?::(\\d{1,5}))?");
    private static final Pattern SETTING_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");
    /** URL parameters that keys of this kind set: giving them in the URL too would be two values for one thing. */
    private static final Map<String, String> PARAMETER_KEYS = Map.of("user", "username", "password", "password",
        "sslmode", "ssl_mode", "sslrootcert", "ssl_ca_file", "sslcert", "ssl_certificate_file", "sslkey",
        "ssl_key_file", "currentschema", "schema", "connecttimeout", "connect_timeout_ms", "logintimeout",
        "connect_timeout_ms");

    /** A provider; the service loader calls this constructor. */
    public PostgresProvider()
    {
    }

    @Override
    public String kind()
    {
        return KIND;
    }

    /** @return {@code schema}: PostgreSQL's namespace of tables, which core calls "database" */
    @Override
    public String namespaceName()
    {
        return "schema";
    }

    @Override
    public List<ConfigKey> pluginConfigKeys()
    {
        return PostgresKeys.ALL;
    }

    @Override
    public SinkDriver driver()
    {
        return new PostgresDriver();
    }

    /**
     * @return e.g. {@code "public"."orders.eu"}
     * @throws IllegalArgumentException when a name is empty, holds a NUL or is over 63 bytes in UTF-8, naming it
     *                                  and its length
     */
    @Override
    public String qualifiedName(final String schema, final String table)
    {
        try
        {
            PostgresIdentifiers.requireValid("schema", schema);
            PostgresIdentifiers.requireValid("table", table);
        }
        catch (final SinkException e)
        {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return PostgresIdentifiers.qualified(schema, table);
    }

    /**
     * A reader of one binary COPY tuple as {@link PgJsonRowEncoder} writes it, printing each value as PostgreSQL prints
     * it in a UTC session ({@link PgCopyText}).
     *
     * @param row        the tuple: its int16 field count, then each field
     * @param serverZone not used: the sink's sessions always run in UTC, so {@code timestamptz} prints {@code +00}
     */
    @Override
    public RowText rowText(final byte[] row, final ZoneId serverZone)
    {
        return new PgCopyText(row);
    }

    /**
     * PostgreSQL {@code CREATE TABLE} statements ({@link PgSchemaFile}).
     *
     * @param serverZone not used: the sink's sessions always run in UTC
     */
    @Override
    public DestinationCatalog schemaFile(final String text, final ZoneId serverZone)
    {
        return PgSchemaFile.parse(text);
    }

    /**
     * Reads every key, each problem reported with its key and line: the URL's form, TLS files that exist and fit
     * the mode, the create_table rules, key_columns only with upsert, the session settings' names and values.
     */
    @Override
    public SinkConnection readPluginConfig(final PluginConfigReader pc)
    {
        final String url = pc.string(URL);
        final String jdbcUrl = url == null ? null : jdbcUrl(pc, url.strip());
        final String sslMode = pc.string(SSL_MODE);
        final String ca = file(pc, SSL_CA_FILE);
        final String cert = file(pc, SSL_CERTIFICATE_FILE);
        final String key = file(pc, SSL_KEY_FILE);
        if (PostgresKeys.SSL_DISABLE.equals(sslMode) && (ca != null || cert != null || key != null))
        {
            pc.problem(SSL_MODE.name(), "is disable, but TLS files are given (ssl_ca_file, ssl_certificate_file or "
                + "ssl_key_file): set ssl_mode = \"verify-full\" (or require, verify-ca)");
        }
        if (sslMode.startsWith("verify") && ca == null && !pc.has(SSL_CA_FILE))
        {
            pc.problem(SSL_MODE.name(), "\"" + sslMode + "\" checks the server's certificate against ssl_ca_file, "
                + "which is not given");
        }
        if (pc.has(SSL_CERTIFICATE_FILE) != pc.has(SSL_KEY_FILE))
        {
            pc.problem(pc.has(SSL_CERTIFICATE_FILE) ? SSL_KEY_FILE.name() : SSL_CERTIFICATE_FILE.name(),
                "missing: give ssl_certificate_file and ssl_key_file together");
        }
        final String ddl = pc.string(CREATE_TABLE_DDL);
        final String like = pc.string(CREATE_TABLE_LIKE);
        final boolean create = pc.bool(SinkKeys.CREATE_TABLE);
        if (create && ddl == null && like == null)
        {
            pc.problem(SinkKeys.CREATE_TABLE.name(), "create_table = true needs create_table_ddl or create_table_like");
        }
        if (ddl != null && like != null)
        {
            pc.problem(CREATE_TABLE_DDL.name(), "give create_table_ddl or create_table_like, not both");
        }
        if (ddl != null && !ddl.contains("{table}"))
        {
            pc.problem(CREATE_TABLE_DDL.name(), "has no {table} placeholder: every destination would create the same "
                + "table; write CREATE TABLE {schema}.{table} (...)");
        }
        final String mode = pc.string(INSERT_MODE);
        final List<String> keyColumns = pc.strings(KEY_COLUMNS);
        if (!keyColumns.isEmpty() && !PostgresKeys.UPSERT.equals(mode))
        {
            pc.problem(KEY_COLUMNS.name(), "is read only with insert_mode = \"upsert\" (insert_mode is \"" + mode
                + "\")");
        }
        if (keyColumns.size() != new java.util.HashSet<>(keyColumns).size())
        {
            pc.problem(KEY_COLUMNS.name(), "names a column twice: " + keyColumns);
        }
        if ("quote".equals(pc.string(IDENTIFIER)))
        {
            constantName(pc, SCHEMA, "schema");
            constantName(pc, SinkKeys.TARGET_TABLE, "table");
        }
        for (final String c : keyColumns)
        {
            if (c.isEmpty() || c.indexOf('\0') >= 0
                || PostgresIdentifiers.utf8Length(c) > PostgresIdentifiers.MAX_BYTES)
            {
                pc.problem(KEY_COLUMNS.name(), "\"" + c.replace("\0", "\\0") + "\" is not a PostgreSQL column name "
                    + "(1 to 63 bytes, no NUL)");
            }
        }
        final Map<String, String> session = pc.stringMap(SETTINGS);
        for (final Map.Entry<String, String> s : session.entrySet())
        {
            if (!SETTING_NAME.matcher(s.getKey()).matches())
            {
                pc.problem(SETTINGS.name() + "." + s.getKey(), "is not a parameter name ([A-Za-z0-9_.])");
            }
            else if ("timezone".equals(s.getKey().toLowerCase(Locale.ROOT)))
            {
                pc.problem(SETTINGS.name() + "." + s.getKey(), "the session time zone is always UTC (dates and times "
                    + "are read as docs/codecs.md says whatever the server's or JVM's zone); remove it");
            }
            else if ("extra_float_digits".equals(s.getKey().toLowerCase(Locale.ROOT)))
            {
                pc.problem(SETTINGS.name() + "." + s.getKey(), "the session always prints floats with every digit "
                    + "(extra_float_digits = 3): Sluice reads constant DEFAULTs back as text, and fewer digits would "
                    + "write a rounded DEFAULT; remove it");
            }
            else if ("client_encoding".equals(s.getKey().toLowerCase(Locale.ROOT)))
            {
                pc.problem(SETTINGS.name() + "." + s.getKey(), "the session's client encoding is always UTF8: the "
                    + "COPY rows carry UTF-8 text, and pgJDBC drops a connection whose encoding changes; remove it");
            }
            if (s.getValue().chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f))
            {
                pc.problem(SETTINGS.name() + "." + s.getKey(), "the value holds a control character");
            }
        }
        final String delivery = pc.string(SinkKeys.DELIVERY);
        final String offsetsTable = pc.string(OFFSETS_TABLE);
        checkExactlyOnce(pc, delivery, offsetsTable, jdbcUrl);
        final String server = jdbcUrl == null ? "" : serverOf(jdbcUrl);
        final SinkSettings neutral = new SinkSettings(KIND, pc.path(), List.of(List.of(server)),
            pc.intValue(SinkKeys.INSERT_WORKERS), pc.string(SCHEMA), pc.string(SinkKeys.TARGET_TABLE),
            pc.intValue(SinkKeys.MAX_ROWS), pc.longValue(SinkKeys.MAX_BYTES), pc.longValue(SinkKeys.LINGER_MS),
            pc.string(IDENTIFIER), create, pc.bool(SinkKeys.NULL_AS_DEFAULT),
            SinkKeys.UNKNOWN_FIELDS_FAIL.equals(pc.string(SinkKeys.UNKNOWN_FIELDS)),
            pc.longValue(SinkKeys.RETRY_BACKOFF_MS), pc.longValue(SinkKeys.RETRY_BACKOFF_MAX_MS),
            pc.intValue(SinkKeys.BREAKER_FAILURES), pc.longValue(SinkKeys.BREAKER_OPEN_MS),
            pc.longValue(SinkKeys.SCHEMA_REFRESH_MS));
        return new PostgresConfig(neutral, jdbcUrl, pc.string(USERNAME), pc.string(PASSWORD), sslMode, ca, cert, key,
            ddl, like, mode, keyColumns, session, pc.longValue(INSERT_TIMEOUT_MS), delivery, offsetsTable,
            pc.longValue(CONNECT_TIMEOUT_MS));
    }

    /**
     * A schema or target_table without a template placeholder is the name every topic resolves to (identifier =
     * "quote" keeps it verbatim): one PostgreSQL would not keep whole is a problem now, with its line, rather than
     * an error for each topic at run time.
     */
    private static void constantName(final PluginConfigReader pc, final ConfigKey key, final String what)
    {
        final String name = pc.string(key);
        if (name == null || name.indexOf('{') >= 0)
        {
            return;
        }
        try
        {
            PostgresIdentifiers.requireValid(what, name);
        }
        catch (final SinkException e)
        {
            pc.problem(key.name(), e.getMessage());
        }
    }

    /**
     * {@code delivery = "exactly_once"} holds only where a batch's rows and positions are in one database: refused with
     * several hosts in the URL unless pgJDBC may only write to the primary ({@code targetServerType=primary}), and
     * with a schema template (the positions table lives in one schema). {@code offsets_table} must be a name
     * PostgreSQL keeps whole.
     */
    private static void checkExactlyOnce(final PluginConfigReader pc, final String delivery,
        final String offsetsTable, final String jdbcUrl)
    {
        if (pc.has(OFFSETS_TABLE) && (offsetsTable.isEmpty() || offsetsTable.indexOf('\0') >= 0
            || PostgresIdentifiers.utf8Length(offsetsTable) > PostgresIdentifiers.MAX_BYTES))
        {
            pc.problem(OFFSETS_TABLE.name(), "is not a PostgreSQL table name (1 to 63 bytes in UTF-8, no NUL)");
        }
        else if (pc.has(OFFSETS_TABLE) && offsetsTable.indexOf('{') >= 0)
        {
            pc.problem(OFFSETS_TABLE.name(), "is not a template: \"" + offsetsTable + "\" would be one table named so, "
                + "braces included; the positions of every topic and table of the sink go in one table of the sink's "
                + "schema: give a plain name (default \"sluice_offsets\")");
        }
        if (!SinkKeys.EXACTLY_ONCE.equals(delivery))
        {
            if (pc.has(OFFSETS_TABLE))
            {
                pc.problem(OFFSETS_TABLE.name(), "is read only with delivery = \"exactly_once\"");
            }
            return;
        }
        final String target = pc.string(SinkKeys.TARGET_TABLE);
        if (target != null && target.equals(offsetsTable))
        {
            pc.problem(OFFSETS_TABLE.name(), "\"" + offsetsTable + "\" is also this sink's target_table: the rows "
                + "and the positions would share one table (a write into it would find no table_name column); give "
                + "offsets_table or target_table another name");
        }
        final String schema = pc.string(SCHEMA);
        if (schema != null && schema.contains("{"))
        {
            pc.problem(SinkKeys.DELIVERY.name(), "\"exactly_once\" keeps the positions in offsets_table of the "
                + "sink's schema, which must then be one schema: schema = \"" + schema + "\" is a template");
        }
        if (jdbcUrl == null)
        {
            return;
        }
        final String hosts = jdbcUrl.substring("jdbc:postgresql://".length(), jdbcUrl.indexOf('/',
            "jdbc:postgresql://".length()));
        final String query = jdbcUrl.contains("?")
            ? jdbcUrl.substring(jdbcUrl.indexOf('?') + 1).toLowerCase(Locale.ROOT)
            : "";
        if (hosts.contains(",") && !query.matches("(.*&)?targetservertype=(primary|master)(&.*)?"))
        {
            pc.problem(SinkKeys.DELIVERY.name(), "\"exactly_once\" needs every batch's rows and positions in one "
                + "database, but url names several hosts (" + hosts + ") and pgJDBC may write to any of them: if they "
                + "are replicas of one primary add targetServerType=primary to the URL; if they are separate servers "
                + "exactly_once cannot hold across them");
        }
    }

    /**
     * A tombstone deletes in upsert mode only: there the table has a key (key_columns or its primary key) that a
     * Kafka key can name; in append mode a table need not have one, and rows are only ever added.
     */
    @Override
    public String deletesRefused(final SinkConnection connection)
    {
        if (connection instanceof PostgresConfig c && !c.upsert())
        {
            return "kind \"postgres\" deletes rows in insert_mode = \"upsert\" only, where the table's key "
                + "(key_columns or its primary key) names the row; insert_mode is \"" + c.insertMode() + "\"";
        }
        return null;
    }

    /**
     * @param pc  the table, for problems
     * @param url {@code postgresql://...} or {@code jdbc:postgresql://...}
     * @return pgJDBC's form of it, or null after reporting a problem
     */
    static String jdbcUrl(final PluginConfigReader pc, final String url)
    {
        final Matcher m = URL_FORM.matcher(url);
        if (!m.matches())
        {
            pc.problem(URL.name(), "\"" + io.sluice.core.config.Secrets.redact(url) + "\" is not a "
                + "postgresql://host:port/database (or jdbc:postgresql://host:port/database) URL");
            return null;
        }
        final String hosts = m.group(1);
        if (hosts.contains("@"))
        {
            pc.problem(URL.name(), "holds a user (user@host): give username and password as their own keys, so the "
                + "password is a secret that never prints");
            return null;
        }
        for (final String h : hosts.split(",", -1))
        {
            final Matcher hm = HOST.matcher(h);
            if (!hm.matches() || hm.group(1) != null && (Integer.parseInt(hm.group(1)) < 1
                || Integer.parseInt(hm.group(1)) > 65535))
            {
                pc.problem(URL.name(), "\"" + h + "\" is not a host or host:port (port 1 to 65535)");
                return null;
            }
        }
        final String database = m.group(2);
        if (database == null || database.isEmpty())
        {
            pc.problem(URL.name(), "names no database: write postgresql://host:port/database");
            return null;
        }
        final String query = m.group(3);
        if (query != null)
        {
            for (final String p : query.substring(1).split("&"))
            {
                final String name = p.contains("=") ? p.substring(0, p.indexOf('=')) : p;
                final String k = PARAMETER_KEYS.get(name.toLowerCase(Locale.ROOT));
                if (k != null)
                {
                    pc.problem(URL.name(), "sets " + name + " in the URL: use the key " + k + " instead");
                    return null;
                }
            }
        }
        return "jdbc:postgresql://" + hosts + "/" + database + (query == null ? "" : query);
    }

    /** @return the URL without its query, what messages and the shard list name */
    static String serverOf(final String jdbcUrl)
    {
        final int q = jdbcUrl.indexOf('?');
        return q < 0 ? jdbcUrl : jdbcUrl.substring(0, q);
    }

    private static String file(final PluginConfigReader pc, final ConfigKey key)
    {
        final String f = pc.string(key);
        if (f == null)
        {
            return null;
        }
        if (!Files.isReadable(Path.of(f)))
        {
            pc.problem(key.name(), "\"" + f + "\" is not a readable file");
            return null;
        }
        return f;
    }
}
