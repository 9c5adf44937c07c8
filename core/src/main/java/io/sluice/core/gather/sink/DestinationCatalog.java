package io.sluice.core.gather.sink;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import io.sluice.codecs.rowbinary.EncoderOptions;

/**
 * What a sink knows about its destinations: whether a table exists, its columns, and how to create it. Called off
 * the hot path, once per new destination (results are cached by the caller). Implementations are thread-safe.
 */
public interface DestinationCatalog
{
    /**
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @return the table's columns, or {@code null} when the table does not exist
     * @throws SinkException when the destination cannot be asked (unreachable, no permission…)
     */
    TableSchema describe(String database, String table) throws SinkException;

    /**
     * The version of a table: a token that changes whenever the table's definition changes (a column added,
     * dropped or retyped, a default changed), read cheaply and often (every {@code schema_refresh_ms}) to notice an
     * {@code ALTER TABLE} without describing the table each time. ClickHouse: a hash of the table's statement
     * ({@code SHOW CREATE TABLE}, whitespace normalised), whose cost does not grow with the tables of the database.
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @return the token, empty when the destination keeps none, or {@code null} when the table does not exist
     * @throws SinkException when the destination cannot be asked
     */
    default String tableVersion(final String database, final String table) throws SinkException
    {
        return "";
    }

    /**
     * The versions of many tables of one database at once ({@link #tableVersion} of each): what the schema watch reads
     * every {@code schema_refresh_ms}, so that a pipeline of many tables asks one query per database and period, not
     * one per table. ClickHouse: one {@code system.tables} query (up to {@value #VERSIONS_PER_QUERY} names in it, more read
     * the whole database);
     * PostgreSQL: one {@code pg_catalog} query. The default asks {@link #tableVersion} once per table.
     *
     * @param database database (or schema) name, verbatim
     * @param tables   table names, verbatim
     * @return each existing table's version token (empty when the destination keeps none), by table name; a table
     *     that does not exist (or is not a table) is absent
     * @throws SinkException when the destination cannot be asked
     */
    default Map<String, String> tableVersions(final String database, final Collection<String> tables)
        throws SinkException
    {
        final Map<String, String> out = new HashMap<>();
        for (final String t : tables)
        {
            final String v = tableVersion(database, t);
            if (v != null)
            {
                out.put(t, v);
            }
        }
        return out;
    }

    /** The most table names a catalog puts in one version query's list of names ({@link #tableVersions}). */
    int VERSIONS_PER_QUERY = 500;

    /**
     * Creates a table as the sink's configuration says ({@code create_table_ddl} or {@code create_table_like}).
     * Creating a table that meanwhile exists is not an error.
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @throws SinkException when creation fails or is not configured
     */
    void create(String database, String table) throws SinkException;

    /**
     * Evaluates a column's constant DEFAULT expression once, so rows that lack the value can carry it.
     *
     * @param column the column
     * @return the value as JSON text (e.g. {@code 0}, {@code "x"}, {@code null}), or {@code null} when it cannot be
     *     evaluated as a constant
     * @throws SinkException when the destination cannot be asked
     */
    String evaluateDefault(ColumnSpec column) throws SinkException;

    /**
     * The destination server's time zone, for DEFAULT expressions that depend on it ({@code today()}). Asked once per
     * destination, off the hot path.
     *
     * @return a zone id {@code java.time} knows, e.g. {@code Etc/UTC}; {@code UTC} unless the catalog knows better
     * @throws SinkException when the destination cannot be asked
     */
    default String serverTimeZone() throws SinkException
    {
        return "UTC";
    }

    /**
     * The value encoding options for this destination's server: the configured options, narrowed where the server
     * cannot store what they allow, so that encoders refuse such a value (a record error naming column and value)
     * instead of writing a row the server reads back wrong. Each kind knows its servers' limits (ClickHouse 18.x:
     * Date and DateTime end at 2105-12-31). Asked once per destination when its encoder is bound, off the hot path.
     *
     * @param configured the options the sink's configuration gives
     * @return the options to encode with; {@code configured} unless the catalog knows better
     * @throws SinkException when the destination cannot be asked
     */
    default EncoderOptions encoderOptions(final EncoderOptions configured) throws SinkException
    {
        return configured;
    }

    /**
     * Turns a database and table name into the text an INSERT names them by, quoted as the destination requires.
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @return e.g. {@code `github`.`push_events`}
     */
    String qualifiedName(String database, String table);

    /**
     * Says that a table is missing, in the destination's own words (its quoting, and what it calls the namespace a
     * table lives in: a ClickHouse database, a PostgreSQL schema).
     *
     * @param database database (or schema) name, verbatim
     * @param table    table name, verbatim
     * @return e.g. {@code table github.push_events does not exist in database github}
     */
    default String missingTable(final String database, final String table)
    {
        return "table " + database + "." + table + " does not exist in database " + database;
    }

    /**
     * @param column column name, verbatim
     * @return the column name as written in SQL, quoted
     */
    String quoteColumn(String column);
}
