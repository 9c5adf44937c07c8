package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.clickhouse.client.api.Client;

import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;

/**
 * A ClickHouse sink's catalog: table existence and columns through {@code DESCRIBE TABLE … FORMAT TabSeparated}
 * (name, type, default kind, default expression — the first four columns on every server version), the table's
 * engine and version from its statement ({@code SHOW CREATE TABLE}, {@link #versionQuery}; many tables' versions
 * from {@code system.tables}, {@link #tableVersions}), table creation
 * from {@code create_table_ddl} (its {@code {database}} and {@code {table}} placeholders replaced by quoted identifiers
 * in one pass) or {@code create_table_like}, constant DEFAULT evaluation and the server's time zone. Creation that
 * races another process is not an error: TABLE_ALREADY_EXISTS, or any failure after which the table exists, counts
 * as created. Every identifier is quoted with {@link ClickHouseIdentifiers}, so no table or database name can change
 * a statement. Thread-safe.
 */
final class ClickHouseCatalog implements DestinationCatalog
{
    /** A number or a quoted string literal. */
    private static final String SCALAR = "-?[0-9][0-9._eE+-]*|'(?:[^'\\\\]|\\\\.)*'";
    /** An array literal of scalars and NULLs, as 18.16 describes {@code DEFAULT ['c1','c2']} ({@code [], [1, 2]}). */
    private static final String ARRAY = "\\[\\s*(?:(?:" + SCALAR + "|NULL)(?:\\s*,\\s*(?:" + SCALAR
        + "|NULL))*)?\\s*\\]";
    /**
     * A DEFAULT expression Sluice evaluates once: a literal, an array literal of literals, or a cast/conversion
     * function of one. The type argument may hold escaped quotes: 18.16 describes {@code DEFAULT 'b'} of an Enum8 column as
     * {@code CAST('b', 'Enum8(\\'a\\' = 1, \\'b\\' = 2)')}.
     */
    private static final Pattern CONSTANT = Pattern.compile("\\s*(?:" + SCALAR + "|NULL|" + ARRAY
        + "|(?:CAST|to[A-Za-z0-9]+)\\(\\s*(?:" + SCALAR + "|" + ARRAY
        + ")\\s*(?:,\\s*'(?:[^'\\\\]|\\\\.)*'\\s*)?\\))\\s*");

    private static final int TABLE_ALREADY_EXISTS = 57;
    private static final String DATABASE_PLACEHOLDER = "{database}";
    private static final String TABLE_PLACEHOLDER = "{table}";

    private final List<Client> shards;
    private final List<String> shardEndpoints;
    private final Client client;
    private final String endpoint;
    private final ClickHouseConfig config;
    private volatile String timeZone;
    private volatile Boolean legacyDates;

    /**
     * @param shards         one metadata client per shard (its first endpoint)
     * @param shardEndpoints the endpoint of each client
     * @param config         the sink's connection settings
     */
    ClickHouseCatalog(final List<Client> shards, final List<String> shardEndpoints,
        final ClickHouseConfig config)
    {
        this.shards = List.copyOf(shards);
        this.shardEndpoints = List.copyOf(shardEndpoints);
        this.client = shards.get(0);
        this.endpoint = shardEndpoints.get(0);
        this.config = config;
    }

    /**
     * The query of one table's CREATE statement: {@code SHOW CREATE TABLE db.t}. It reads that table's metadata only,
     * whatever the number of tables in the database (on 18.16 one metadata file: {@code FileOpen} 1 in
     * {@code system.query_log}, against one per table of the database for any {@code system.tables} query that
     * reads {@code create_table_query}; docs/schema-changes.md, section 3).
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @return the statement to send
     */
    static String versionQuery(final String database, final String table)
    {
        return "SHOW CREATE TABLE " + ClickHouseIdentifiers.qualified(database, table);
    }

    /**
     * Whether a failed {@link #versionQuery} says the table is not there: UNKNOWN_TABLE, UNKNOWN_DATABASE, or
     * CANNOT_GET_CREATE_TABLE_QUERY, which 18.16 answers for a table without a metadata file (a missing table, or one
     * a concurrent CREATE has not finished) and current releases for a table that does not exist. A denied right
     * (DATABASE_ACCESS_DENIED, ACCESS_DENIED) is not absence: it is thrown, naming the server's reason.
     *
     * @param code the server's error code
     * @return whether the table is absent
     */
    static boolean absent(final int code)
    {
        return code == ClickHouseErrors.UNKNOWN_TABLE || code == ClickHouseErrors.UNKNOWN_DATABASE
            || code == ClickHouseErrors.CANNOT_GET_CREATE_TABLE_QUERY;
    }

    /**
     * Runs {@link #versionQuery}: one round trip, one table's metadata.
     *
     * @return {engine ({@link TableStatement#engine}), version ({@link TableStatement#version})}, or null when the
     *         table does not exist
     * @throws SinkException when the server cannot be asked or refuses for another reason than absence
     */
    static String[] engineAndVersion(final Client client, final String endpoint, final String database,
        final String table) throws SinkException
    {
        final String body;
        try
        {
            body = ClickHouseConnections.query(client, versionQuery(database, table), "read the version of "
                + database + "." + table + " at " + endpoint, 30_000);
        }
        catch (final SinkException e)
        {
            if (absent(e.code()))
            {
                return null;
            }
            throw e;
        }
        final List<List<String>> rows = TabSeparated.parse(body);
        if (rows.isEmpty() || rows.get(0).isEmpty() || rows.get(0).get(0).isEmpty())
        {
            throw new SinkException("read the version of " + database + "." + table + " at " + endpoint
                + ": SHOW CREATE TABLE returned no statement", false, 0, null);
        }
        final String statement = rows.get(0).get(0);
        return new String[]{TableStatement.engine(statement), TableStatement.version(statement)};
    }

    @Override
    public String tableVersion(final String database, final String table) throws SinkException
    {
        final String[] v = engineAndVersion(client, endpoint, database, table);
        return v == null ? null : v[1];
    }

    /**
     * One {@code system.tables} query per call, the same version as {@link #tableVersion} (the hash of
     * {@code create_table_query}, which is the statement {@code SHOW CREATE TABLE} prints up to whitespace). Up to
     * {@value #VERSIONS_PER_QUERY} names go in {@code name IN (...)}; more read the whole database once and keep the
     * names asked for: on 18.16 every {@code system.tables} query builds {@code create_table_query} for every table of
     * the database before it filters, so one query per 500 names would read the database that many times.
     */
    @Override
    public Map<String, String> tableVersions(final String database, final Collection<String> tables)
        throws SinkException
    {
        final Map<String, String> out = new HashMap<>();
        if (tables.isEmpty())
        {
            return out;
        }
        final boolean filtered = tables.size() <= VERSIONS_PER_QUERY;
        final StringBuilder sql = new StringBuilder(filtered ? 64 * tables.size() + 128 : 128).append(
            "SELECT name, create_table_query FROM system.tables WHERE database = ")
            .append(ClickHouseIdentifiers.quoteString(database));
        if (filtered)
        {
            sql.append(" AND name IN (");
            boolean first = true;
            for (final String t : tables)
            {
                sql.append(first ? "" : ", ").append(ClickHouseIdentifiers.quoteString(t));
                first = false;
            }
            sql.append(')');
        }
        final Set<String> wanted = filtered ? null : new HashSet<>(tables);
        for (final List<String> row : TabSeparated.parse(ClickHouseConnections.query(client, sql.toString(),
            "read the versions of " + tables.size() + " tables of " + database + " at " + endpoint, 30_000)))
        {
            if (row.size() >= 2 && !row.get(1).isEmpty() && (wanted == null || wanted.contains(row.get(0))))
            {
                out.put(row.get(0), TableStatement.version(row.get(1)));
            }
        }
        return out;
    }

    /**
     * Reads the table's engine and version with {@code SHOW CREATE TABLE} (first: a change between the two reads
     * shows as a version that moved later), then, when the table is there, its columns with DESCRIBE: two round
     * trips for a table, one for a missing one. A user without rights on the database gets the server's reason
     * (DATABASE_ACCESS_DENIED) from SHOW CREATE TABLE as from DESCRIBE, never "does not exist"
     * (SecuredClickHouseIT).
     */
    @Override
    public TableSchema describe(final String database, final String table) throws SinkException
    {
        final String[] engineVersion = engineAndVersion(client, endpoint, database, table);
        if (engineVersion == null)
        {
            return null;
        }
        final String sql = "DESCRIBE TABLE " + qualifiedName(database, table);
        final String body;
        try
        {
            body = ClickHouseConnections.query(client, sql, "describe " + database + "." + table + " at " + endpoint,
                30_000);
        }
        catch (final SinkException e)
        {
            if (e.code() == ClickHouseErrors.UNKNOWN_TABLE || e.code() == ClickHouseErrors.UNKNOWN_DATABASE)
            {
                return null;
            }
            throw e;
        }
        final List<ColumnSpec> columns = new ArrayList<>();
        for (final List<String> row : TabSeparated.parse(body))
        {
            if (row.size() < 2)
            {
                continue;
            }
            columns.add(new ColumnSpec(row.get(0), row.get(1), row.size() > 2 ? row.get(2) : "",
                row.size() > 3 ? row.get(3) : ""));
        }
        if (columns.isEmpty())
        {
            throw new SinkException("describe " + database + "." + table + " at " + endpoint + " returned no columns",
                false, 0, null);
        }
        return new TableSchema(database, table, columns, engineVersion[0], engineVersion[1]);
    }

    @Override
    public void create(final String database, final String table) throws SinkException
    {
        final String sql;
        if (config.createTableDdl() != null)
        {
            sql = ddl(config.createTableDdl(), database, table);
        }
        else if (config.createTableLike() != null)
        {
            final String like = config.createTableLike();
            final String template = like.contains(".") ? like : database + "." + like;
            final int dot = template.indexOf('.');
            sql = "CREATE TABLE IF NOT EXISTS " + qualifiedName(database, table) + " AS "
                + qualifiedName(template.substring(0, dot), template.substring(dot + 1));
        }
        else
        {
            throw new SinkException("table " + database + "." + table + " is missing and neither create_table_ddl nor "
                + "create_table_like is configured", false, 0, null);
        }
        // every shard gets the table; describing uses the first shard
        for (int i = 0; i < shards.size(); i++)
        {
            try
            {
                ClickHouseConnections.execute(shards.get(i), sql, "create table " + database + "." + table + " at "
                    + shardEndpoints.get(i), 60_000);
            }
            catch (final SinkException e)
            {
                // TABLE_ALREADY_EXISTS: another process created it meanwhile (what 18.16 and current servers answer to
                // a concurrent CREATE); any other failure counts as a race lost only if the table now exists there
                if (e.code() != TABLE_ALREADY_EXISTS && !exists(shards.get(i), database, table))
                {
                    throw e;
                }
            }
        }
    }

    /**
     * The {@code create_table_ddl} statement for one table: {@code {database}} and {@code {table}} replaced by the
     * quoted identifiers in one pass, so a name that itself contains {@code {table}} is never substituted again.
     *
     * @param template the configured statement
     * @param database the database, verbatim
     * @param table    the table, verbatim
     * @return the statement to send
     */
    static String ddl(final String template, final String database, final String table)
    {
        final StringBuilder sb = new StringBuilder(template.length() + database.length() + table.length() + 16);
        int i = 0;
        while (i < template.length())
        {
            if (template.startsWith(DATABASE_PLACEHOLDER, i))
            {
                sb.append(ClickHouseIdentifiers.quote(database));
                i += DATABASE_PLACEHOLDER.length();
            }
            else if (template.startsWith(TABLE_PLACEHOLDER, i))
            {
                sb.append(ClickHouseIdentifiers.quote(table));
                i += TABLE_PLACEHOLDER.length();
            }
            else
            {
                sb.append(template.charAt(i++));
            }
        }
        return sb.toString();
    }

    private boolean exists(final Client shard, final String database, final String table)
    {
        try
        {
            final String body = ClickHouseConnections.query(shard, "EXISTS TABLE " + qualifiedName(database, table),
                "check table " + database + "." + table, 30_000);
            return "1".equals(body.strip());
        }
        catch (final SinkException e)
        {
            return false;
        }
    }

    /**
     * ClickHouse before 19 (Debian's 18.16) stores Date and DateTime past 2105-12-31 but reads them back wrong (its
     * documentation of the types' ranges): on such a server the options refuse those values.
     */
    @Override
    public EncoderOptions encoderOptions(final EncoderOptions configured) throws SinkException
    {
        return legacyDateRange() ? configured.withDateRange(EncoderOptions.DateRange.CLICKHOUSE_18_16) : configured;
    }

    /**
     * @return whether the server is older than 19 (asked once: {@code SELECT version()})
     * @throws SinkException when the server cannot be asked
     */
    boolean legacyDateRange() throws SinkException
    {
        Boolean legacy = legacyDates;
        if (legacy == null)
        {
            final String version = ClickHouseConnections.query(client, "SELECT version()", "version of " + endpoint,
                30_000).strip();
            final int dot = version.indexOf('.');
            int major;
            try
            {
                major = Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
            }
            catch (final NumberFormatException e)
            {
                major = Integer.MAX_VALUE;
            }
            legacy = major < 19;
            legacyDates = legacy;
        }
        return legacy;
    }

    @Override
    public String serverTimeZone() throws SinkException
    {
        String zone = timeZone;
        if (zone == null)
        {
            final List<List<String>> rows = TabSeparated.parse(ClickHouseConnections.query(client, "SELECT timezone()",
                "time zone of " + endpoint, 30_000));
            zone = rows.isEmpty() || rows.get(0).isEmpty() || rows.get(0).get(0).isEmpty() ? "UTC" : rows.get(0).get(0);
            timeZone = zone;
        }
        return zone;
    }

    @Override
    public String evaluateDefault(final ColumnSpec column) throws SinkException
    {
        final String sql = defaultEvaluation(column);
        if (sql == null)
        {
            return null;
        }
        final String body = ClickHouseConnections.query(client, sql, "evaluate default of " + column.name(), 30_000);
        return defaultJson(column, TabSeparated.parse(body));
    }

    /**
     * The query that evaluates a constant DEFAULT as a value of the column's type, in a form the column's encoder
     * reads back exactly: {@code SELECT isNull(v), text} with {@code v = CAST((expression) AS type)}. Dates and times
     * do not travel as the server's text: 18.16 prints a zero DateTime as {@code 0000-00-00 00:00:00} (so
     * {@code DateTime DEFAULT 0} could not be read back and was reported as "without a default"), and a DateTime's
     * text is in the server's time zone, which the encoder would read as UTC. So DateTime travels as epoch seconds,
     * Date and Date32 as day numbers and DateTime64 as UTC text.
     *
     * @param column a column with a DEFAULT
     * @return the query, or null when the expression is not a constant Sluice evaluates once
     */
    static String defaultEvaluation(final ColumnSpec column)
    {
        if (!CONSTANT.matcher(column.defaultExpression()).matches()
            || column.type().startsWith("Array(") && column.type().contains("Date"))
        {
            // an Array's elements travel as the server's text, which for dates and times is not what the encoder reads
            return null;
        }
        String type = column.type();
        if (type.startsWith("LowCardinality(") && type.endsWith(")"))
        {
            type = type.substring("LowCardinality(".length(), type.length() - 1);
        }
        final String base = type.startsWith("Nullable(") && type.endsWith(")")
            ? type.substring("Nullable(".length(), type.length() - 1)
            : type;
        final String value = "CAST((" + column.defaultExpression() + ") AS " + type + ")";
        final String text;
        if (base.equals("DateTime") || base.startsWith("DateTime("))
        {
            text = "toString(toUnixTimestamp(" + value + "))";
        }
        else if (base.startsWith("DateTime64("))
        {
            text = "toString(" + value + ", 'UTC')";
        }
        else if (base.equals("Date"))
        {
            text = "toString(toUInt16(" + value + "))";
        }
        else if (base.equals("Date32"))
        {
            text = "toString(toInt32(" + value + "))";
        }
        else
        {
            text = "toString(" + value + ")";
        }
        // isNull first: TabSeparated writes NULL as \N, which reads back like the text "N"
        return "SELECT isNull(" + value + "), ifNull(" + text + ", '')";
    }

    /**
     * The JSON value the column's encoder takes for the evaluated default (see {@link #defaultEvaluation}).
     *
     * @param column the column
     * @param rows   the evaluation's TabSeparated rows
     * @return JSON text ({@code null}, a number, or a string), or null when the server gave no row
     */
    static String defaultJson(final ColumnSpec column, final List<List<String>> rows)
    {
        if (rows.isEmpty() || rows.get(0).size() < 2)
        {
            return null;
        }
        if ("1".equals(rows.get(0).get(0)))
        {
            return "null";
        }
        final String text = rows.get(0).get(1);
        final String type = column.type().replace("LowCardinality(", "").replace("Nullable(", "");
        if (type.startsWith("Array("))
        {
            return arrayJson(text);
        }
        if (type.startsWith("DateTime64("))
        {
            return jsonString(text + "Z");
        }
        if (type.startsWith("DateTime"))
        {
            // seconds with a fraction are seconds whatever the encoder's epoch unit
            return text + ".0";
        }
        if (type.startsWith("Date"))
        {
            return text;
        }
        return jsonString(text);
    }

    /**
     * An array as the server prints it ({@code toString}: {@code ['c1','c\'2']}, {@code [1,-2.5]}, {@code [NULL,3]})
     * as JSON: each quoted string, its backslash escapes undone, becomes a JSON string; numbers, {@code NULL} (as
     * {@code null}), brackets and commas are kept.
     *
     * @param text the server's text of an Array value
     * @return JSON text of the array
     */
    static String arrayJson(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length() + 8);
        int i = 0;
        while (i < text.length())
        {
            final char c = text.charAt(i++);
            if (c == 'N' && text.startsWith("ULL", i))
            {
                out.append("null");
                i += 3;
                continue;
            }
            if (c != '\'')
            {
                out.append(c);
                continue;
            }
            final StringBuilder value = new StringBuilder();
            while (i < text.length() && text.charAt(i) != '\'')
            {
                char v = text.charAt(i++);
                if (v == '\\' && i < text.length())
                {
                    v = switch (text.charAt(i++))
                    {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        case 'r' -> '\r';
                        case 'b' -> '\b';
                        case 'f' -> '\f';
                        case '0' -> '\0';
                        default -> text.charAt(i - 1);
                    };
                }
                value.append(v);
            }
            i++; // the closing quote
            out.append(jsonString(value.toString()));
        }
        return out.toString();
    }

    private static String jsonString(final String text)
    {
        final StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                sb.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                sb.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    @Override
    public String qualifiedName(final String database, final String table)
    {
        return ClickHouseIdentifiers.qualified(database, table);
    }

    @Override
    public String quoteColumn(final String column)
    {
        return ClickHouseIdentifiers.quote(column);
    }
}
