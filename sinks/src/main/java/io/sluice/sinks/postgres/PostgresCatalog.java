package io.sluice.sinks.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;

/**
 * A PostgreSQL sink's catalog. The schema plays the role core calls "database": every method takes a schema and a
 * table, two names used verbatim, never split on dots, checked by {@link PostgresIdentifiers#requireValid} (at most
 * 63 bytes in UTF-8) before any statement, and written only as quoted identifiers.
 *
 * <ul>
 * <li>Existence: schema and table are compared as bound values with {@code pg_namespace.nspname} and
 *     {@code pg_class.relname} (exact, case kept, no pattern, no parsing). A relation of kind {@code r} (table) or
 *     {@code p} (partitioned table) is a table; any other relation of that name (a view, which COPY cannot write, a
 *     sequence, an index, a composite type, ...) is an error naming its kind.</li>
 * <li>{@link #describe}: the columns in order ({@link #describeTable} gives everything read: base types under
 *     domains, array element types, enum labels, NOT NULL, default classes).</li>
 * <li>{@link #tableVersion}: the table's oid and an MD5 of its attributes ({@code attnum}, {@code attname},
 *     {@code atttypid}, {@code atttypmod}, {@code attisdropped}, {@code attnotnull}, {@code attidentity},
 *     {@code attgenerated}) and default expressions ({@code pg_attrdef.adbin}), read in one query.</li>
 * <li>{@link #create}: from {@code create_table_ddl} or {@code create_table_like}; never creates a schema. A
 *     creation that races another session is not an error (see {@link #create}).</li>
 * </ul>
 *
 * <p>Each call takes a connection from its {@link Connector} (the driver's keeps them open between calls:
 * {@code ReusedConnections}), works in autocommit and closes it: the catalog is
 * asked off the hot path. Failures are classified by {@link PostgresErrors}. Thread-safe.
 */
public final class PostgresCatalog implements DestinationCatalog
{
    /** Opens a new connection to the sink's database. */
    @FunctionalInterface
    public interface Connector
    {
        /**
         * @return a new connection; the catalog closes it
         * @throws SQLException when the server cannot be reached or refuses the session
         */
        Connection connect() throws SQLException;
    }

    /**
     * How missing tables are created.
     *
     * @param enabled {@code create_table}
     * @param ddl     {@code create_table_ddl}: a statement whose {@code {schema}} and {@code {table}} placeholders are
     *                replaced by the quoted identifiers, or {@code null}
     * @param like    {@code create_table_like}: a table name as SQL writes it (e.g. {@code public.orders_template}
     *                or {@code "Templates"."Orders"}), or {@code null}; the new table is
     *                {@code CREATE TABLE ... (LIKE template INCLUDING ALL)}
     */
    public record Creation(boolean enabled, String ddl, String like)
    {
        /** Tables are never created. */
        public static final Creation OFF = new Creation(false, null, null);
    }

    /**
     * A table as {@link #describeTable} reads it.
     *
     * @param schema  schema name, verbatim
     * @param table   table name, verbatim
     * @param oid     the table's oid
     * @param kind    {@code r} table or {@code p} partitioned table
     * @param columns every column, in table order
     * @param version the table's version ({@link #tableVersion}), read before the columns
     */
    public record Table(String schema, String table, long oid, char kind, List<PostgresColumn> columns,
        String version)
    {
        /**
         * Copies the columns.
         *
         * @param schema  schema name
         * @param table   table name
         * @param oid     oid
         * @param kind    relkind
         * @param columns columns
         * @param version version
         */
        public Table
        {
            columns = List.copyOf(columns);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(PostgresCatalog.class);

    private static final String DUPLICATE_OBJECT = "42710";
    private static final String SCHEMA_PLACEHOLDER = "{schema}";
    private static final String TABLE_PLACEHOLDER = "{table}";
    private static final Set<String> RACE_INDEXES = Set.of("pg_type_typname_nsp_index", "pg_class_relname_nsp_index");

    private static final String RELATION_QUERY = "SELECT c.oid, c.relkind FROM pg_catalog.pg_class c"
        + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?";

    private static final String TYPE_QUERY = "SELECT t.typtype FROM pg_catalog.pg_type t"
        + " JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = ? AND t.typname = ?";

    /** A table's primary key columns, in key order; the table as a regclass text. */
    static final String PRIMARY_KEY_QUERY = "SELECT a.attname FROM pg_catalog.pg_index i"
        + " JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
        + " WHERE i.indrelid = ?::regclass AND i.indisprimary"
        + " ORDER BY pg_catalog.array_position(i.indkey::int2[], a.attnum)";

    private static final String SCHEMA_QUERY = "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?";

    private static final String VERSION_QUERY = "SELECT c.relkind, c.oid::text || ':' || pg_catalog.md5(coalesce("
        + "pg_catalog.string_agg(a.attnum::text || ',' || a.attname::text || ',' || a.atttypid || ',' || a.atttypmod || ','"
        + " || a.attisdropped || ',' || a.attnotnull || ',' || a.attidentity::text || ',' || a.attgenerated::text || ','"
        + " || coalesce(d.adbin::text, ''), ';' ORDER BY a.attnum), ''))"
        + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        + " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0"
        + " LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum"
        + " WHERE n.nspname = ? AND c.relname = ? GROUP BY c.oid, c.relkind";

    /** {@link #VERSION_QUERY} of the tables of a schema whose names are in an array: name, kind, version. */
    private static final String VERSIONS_QUERY = "SELECT c.relname, c.relkind::text, c.oid::text || ':' || "
        + "pg_catalog.md5(coalesce("
        + "pg_catalog.string_agg(a.attnum::text || ',' || a.attname::text || ',' || a.atttypid || ',' || a.atttypmod || ','"
        + " || a.attisdropped || ',' || a.attnotnull || ',' || a.attidentity::text || ',' || a.attgenerated::text || ','"
        + " || coalesce(d.adbin::text, ''), ';' ORDER BY a.attnum), ''))"
        + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        + " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0"
        + " LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum"
        + " WHERE n.nspname = ? AND c.relname = ANY (?) GROUP BY c.oid, c.relname, c.relkind";

    /**
     * Columns in order, each with its declared type, its type under every domain (a recursive walk of
     * {@code typbasetype}, collecting domains' NOT NULL), the element type of an array, the labels of an enum, and
     * its default ({@code pg_get_expr} text and {@code adbin} node tree). A column without a default of its own
     * takes the default of the nearest domain in its chain that has one ({@code pg_type.typdefaultbin}), as the
     * server does when a row leaves the column out (CREATE DOMAIN: "the column's own default overrides the domain's").
     */
    private static final String COLUMNS_QUERY = "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),"
        + " pg_catalog.format_type(b.oid, b.typmod), bt.typtype::text,"
        + " CASE WHEN bt.typcategory = 'A' AND bt.typelem <> 0 THEN pg_catalog.format_type(bt.typelem, b.typmod)"
        + " END,"
        + " (SELECT pg_catalog.array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum e"
        + " WHERE e.enumtypid = CASE WHEN bt.typcategory = 'A' THEN bt.typelem ELSE bt.oid END),"
        + " a.attnotnull OR b.nn,"
        + " CASE WHEN d.adbin IS NOT NULL THEN pg_catalog.pg_get_expr(d.adbin, d.adrelid)"
        + " ELSE pg_catalog.pg_get_expr(b.dflt, 0) END,"
        + " coalesce(d.adbin::text, b.dflt::text),"
        + " a.attidentity::text, a.attgenerated::text"
        + " FROM pg_catalog.pg_attribute a"
        + " LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
        + " CROSS JOIN LATERAL (WITH RECURSIVE chain(oid, typmod, nn, dflt, depth) AS ("
        + " SELECT a.atttypid, a.atttypmod, false, NULL::pg_catalog.pg_node_tree COLLATE pg_catalog.\"C\", 0 UNION ALL"
        + " SELECT t.typbasetype, t.typtypmod, chain.nn OR t.typnotnull,"
        + " CASE WHEN chain.dflt IS NULL THEN t.typdefaultbin ELSE chain.dflt END, chain.depth + 1 FROM chain"
        + " JOIN pg_catalog.pg_type t ON t.oid = chain.oid WHERE t.typtype = 'd')"
        + " SELECT chain.oid, chain.typmod, chain.nn, chain.dflt FROM chain ORDER BY chain.depth DESC LIMIT 1) b"
        + " JOIN pg_catalog.pg_type bt ON bt.oid = b.oid"
        + " WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";

    /** Node types of a default's tree that a constant may hold (others: Var, SQLValueFunction, SubLink...). */
    private static final Set<String> CONSTANT_NODES = Set.of("CONST", "FUNCEXPR", "OPEXPR", "RELABELTYPE",
        "COERCEVIAIO", "ARRAYEXPR", "ARRAYCOERCEEXPR", "COLLATEEXPR", "CASETESTEXPR", "COERCETODOMAIN");
    private static final Pattern NODE = Pattern.compile("\\{([A-Z_]+)");
    private static final Pattern FUNC_FORMAT = Pattern.compile(":funcformat (\\d+)");
    private static final Pattern FUNC_ID = Pattern.compile(":(?:funcid|opfuncid) (\\d+)");

    private final Connector connector;
    private final String server;
    private final Creation creation;
    /** {@code key_columns} of an upsert sink (empty: the primary key), or null for append. */
    private final List<String> upsertKey;
    /** The last {@link #describe} of each table, keyed by schema NUL table: what {@link #columnsOf} answers from. */
    private final Map<String, Table> described = new ConcurrentHashMap<>();
    /** Default expressions this catalog classified as constant: the only ones {@link #evaluateDefault} runs. */
    private final Set<String> constants = ConcurrentHashMap.newKeySet();

    /**
     * @param connector opens connections to the sink's database
     * @param server    the server and database for messages, without credentials (e.g.
     *                  {@code jdbc:postgresql://127.0.0.1:15432/sluice})
     * @param creation  how missing tables are created
     */
    public PostgresCatalog(final Connector connector, final String server, final Creation creation)
    {
        this(connector, server, creation, null);
    }

    /**
     * @param connector opens connections to the sink's database
     * @param server    the server and database for messages, without credentials
     * @param creation  how missing tables are created
     * @param upsertKey for {@code insert_mode = "upsert"}: {@code key_columns}, empty for each table's primary key;
     *                  {@code null} for append
     */
    public PostgresCatalog(final Connector connector, final String server, final Creation creation,
        final List<String> upsertKey)
    {
        this.connector = connector;
        this.server = server;
        this.creation = creation == null ? Creation.OFF : creation;
        this.upsertKey = upsertKey == null ? null : List.copyOf(upsertKey);
    }

    /** @return whether the sink upserts ({@code insert_mode = "upsert"}) */
    public boolean upsert()
    {
        return upsertKey != null;
    }

    /**
     * The columns an upsert matches rows on: {@code key_columns}, or else the table's primary key in key order.
     *
     * @param schema a description {@link #describe} returned
     * @return the key columns' names, verbatim; empty for append, or for a table without primary key when
     *     {@code key_columns} is not set (the writer refuses that batch)
     * @throws SinkException (retriable) when the server cannot be asked
     */
    public List<String> upsertKeyOf(final TableSchema schema) throws SinkException
    {
        if (upsertKey == null)
        {
            return List.of();
        }
        if (!upsertKey.isEmpty())
        {
            return upsertKey;
        }
        final String qualified = PostgresIdentifiers.qualified(schema.database(), schema.table());
        try (Connection c = connector.connect();
            PreparedStatement ps = c.prepareStatement(PRIMARY_KEY_QUERY))
        {
            ps.setString(1, qualified);
            final List<String> names = new ArrayList<>();
            try (ResultSet r = ps.executeQuery())
            {
                while (r.next())
                {
                    names.add(r.getString(1));
                }
            }
            return List.copyOf(names);
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify("read the primary key of " + qualified + " at " + server, e);
        }
    }

    @Override
    public TableSchema describe(final String schema, final String table) throws SinkException
    {
        final Table t = describeTable(schema, table);
        if (t == null)
        {
            return null;
        }
        described.put(schema + '\0' + table, t);
        return schemaOf(t);
    }

    private static TableSchema schemaOf(final Table t)
    {
        final List<ColumnSpec> specs = new ArrayList<>(t.columns().size());
        for (final PostgresColumn c : t.columns())
        {
            specs.add(new ColumnSpec(c.name(), c.type(), defaultKind(c.defaultClass()), c.defaultExpression()));
        }
        return new TableSchema(t.schema(), t.table(), specs, t.kind() == 'p' ? "partitioned table" : "table",
            t.version());
    }

    /**
     * The columns behind a table description of {@link #describe}, with what {@link ColumnSpec} does not carry (the
     * base type under domains, enum labels, NOT NULL, the default's class), for an encoder binding to it. Answered
     * from the last {@code describe} of the table when its version is the description's, else read again.
     *
     * @param schema a description {@link #describe} returned
     * @return the columns, in table order, exactly those of {@code schema}
     * @throws SinkException (retriable) when the table is gone or its columns are no longer those of {@code schema}
     *     (an ALTER TABLE meanwhile: describe it again), or when the server cannot be asked
     */
    public List<PostgresColumn> columnsOf(final TableSchema schema) throws SinkException
    {
        final String key = schema.database() + '\0' + schema.table();
        Table t = described.get(key);
        if (t == null || !t.version().equals(schema.version()) || !schemaOf(t).sameColumns(schema))
        {
            t = describeTable(schema.database(), schema.table());
            if (t == null || !schemaOf(t).sameColumns(schema))
            {
                throw new SinkException(PostgresIdentifiers.qualified(schema.database(), schema.table()) + " at "
                    + server + (t == null ? " is gone" : " changed") + " since it was described: describe it again",
                    true, 0, null);
            }
            described.put(key, t);
        }
        return t.columns();
    }

    /**
     * How a column's default appears in core's {@link ColumnSpec#defaultKind()}: {@code DEFAULT} for a constant
     * (Sluice evaluates and writes it), {@code EXPRESSION} for a per-row expression or identity (left to the server),
     * {@code MATERIALIZED} for a generated column (not insertable), empty for none.
     *
     * @param c a default class
     * @return the kind
     */
    public static String defaultKind(final PostgresColumn.DefaultClass c)
    {
        return switch (c)
        {
            case CONSTANT -> "DEFAULT";
            case EXPRESSION -> "EXPRESSION";
            case GENERATED -> "MATERIALIZED";
            case NONE -> "";
        };
    }

    /**
     * Reads a table: its version, then every column.
     *
     * @param schema schema name, verbatim
     * @param table  table name, verbatim
     * @return the table, or {@code null} when no relation of that name exists in the schema
     * @throws SinkException when a name is invalid ({@link PostgresIdentifiers#requireValid}), the name belongs to
     *     a relation that is not a table, or the server cannot be asked
     */
    public Table describeTable(final String schema, final String table) throws SinkException
    {
        checkNames(schema, table);
        final String what = "describe " + PostgresIdentifiers.qualified(schema, table) + " at " + server;
        try (Connection c = connector.connect())
        {
            final String[] version = version(c, schema, table);
            if (version == null)
            {
                return null;
            }
            final char kind = version[0].charAt(0);
            requireTable(schema, table, kind);
            final long oid = Long.parseLong(version[1].substring(0, version[1].indexOf(':')));
            final List<PostgresColumn> columns = new ArrayList<>();
            final List<String[]> candidates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(COLUMNS_QUERY))
            {
                ps.setLong(1, oid);
                try (ResultSet r = ps.executeQuery())
                {
                    while (r.next())
                    {
                        columns.add(column(r, candidates));
                    }
                }
            }
            if (columns.isEmpty() && relkind(c, schema, table) == null)
            {
                // dropped between the two queries
                return null;
            }
            return new Table(schema, table, oid, kind, confirmConstants(c, columns, candidates), version[1]);
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify(what, e);
        }
    }

    private static PostgresColumn column(final ResultSet r, final List<String[]> candidates) throws SQLException
    {
        final String name = r.getString(1);
        final Array labelArray = r.getArray(6);
        final List<String> labels = labelArray == null ? List.of() : Arrays.asList((String[])labelArray.getArray());
        final String expression = r.getString(8);
        final String tree = r.getString(9);
        final String identity = r.getString(10);
        final String generated = r.getString(11);
        PostgresColumn.DefaultClass cls = PostgresColumn.DefaultClass.NONE;
        String text = expression;
        if (generated != null && !generated.isEmpty())
        {
            cls = PostgresColumn.DefaultClass.GENERATED;
        }
        else if (identity != null && !identity.isEmpty())
        {
            cls = PostgresColumn.DefaultClass.EXPRESSION;
            text = "a".equals(identity) ? "GENERATED ALWAYS AS IDENTITY" : "GENERATED BY DEFAULT AS IDENTITY";
        }
        else if (tree != null)
        {
            final List<Long> functions = constantShape(tree);
            if (functions == null)
            {
                cls = PostgresColumn.DefaultClass.EXPRESSION;
            }
            else
            {
                cls = PostgresColumn.DefaultClass.CONSTANT;
                for (final Long f : functions)
                {
                    candidates.add(new String[]{name, Long.toString(f)});
                }
            }
        }
        return new PostgresColumn(name, r.getString(2), r.getString(3), r.getString(4), r.getString(5), labels,
            r.getBoolean(7), cls, text);
    }

    /**
     * Whether a default's node tree ({@code pg_attrdef.adbin} as text) has the shape of a constant: only constants,
     * casts (function calls written as casts, {@code funcformat} 1 or 2), operators, relabelings, I/O coercions and
     * array constructors. {@code now()} ({@code funcformat} 0), {@code CURRENT_TIMESTAMP} (SQLVALUEFUNCTION),
     * {@code nextval()}, column references and subqueries are not.
     *
     * @param tree the node tree's text
     * @return the oids of the functions it calls (to be checked immutable), or {@code null} when it is no constant
     */
    static List<Long> constantShape(final String tree)
    {
        final Matcher node = NODE.matcher(tree);
        while (node.find())
        {
            if (!CONSTANT_NODES.contains(node.group(1)))
            {
                return null;
            }
        }
        final Matcher format = FUNC_FORMAT.matcher(tree);
        while (format.find())
        {
            final String f = format.group(1);
            if (!"1".equals(f) && !"2".equals(f))
            {
                return null;
            }
        }
        final List<Long> ids = new ArrayList<>();
        final Matcher id = FUNC_ID.matcher(tree);
        while (id.find())
        {
            ids.add(Long.parseLong(id.group(1)));
        }
        return ids;
    }

    /** Demotes to EXPRESSION every constant-shaped default that calls a function that is not immutable. */
    private List<PostgresColumn> confirmConstants(final Connection c, final List<PostgresColumn> columns,
        final List<String[]> candidates) throws SQLException
    {
        final Set<String> notConstant = new HashSet<>();
        if (!candidates.isEmpty())
        {
            final Long[] ids = candidates.stream().map(x -> Long.valueOf(x[1])).distinct().toArray(Long[]::new);
            final Set<Long> mutable = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(
                "SELECT oid::bigint FROM pg_catalog.pg_proc WHERE oid::bigint = ANY(?) AND provolatile <> 'i'"))
            {
                ps.setArray(1, c.createArrayOf("int8", ids));
                try (ResultSet r = ps.executeQuery())
                {
                    while (r.next())
                    {
                        mutable.add(r.getLong(1));
                    }
                }
            }
            for (final String[] x : candidates)
            {
                if (mutable.contains(Long.valueOf(x[1])))
                {
                    notConstant.add(x[0]);
                }
            }
        }
        final List<PostgresColumn> out = new ArrayList<>(columns.size());
        for (final PostgresColumn p : columns)
        {
            if (p.defaultClass() == PostgresColumn.DefaultClass.CONSTANT && notConstant.contains(p.name()))
            {
                out.add(new PostgresColumn(p.name(), p.type(), p.baseType(), p.typeKind(), p.elementType(),
                    p.enumLabels(), p.notNull(), PostgresColumn.DefaultClass.EXPRESSION, p.defaultExpression()));
            }
            else
            {
                if (p.defaultClass() == PostgresColumn.DefaultClass.CONSTANT)
                {
                    constants.add(p.defaultExpression());
                }
                out.add(p);
            }
        }
        return out;
    }

    /**
     * @return the table's version: its oid and an MD5 of its attributes and defaults (see the class comment), read in
     *     one query; {@code null} when no relation of that name exists
     * @throws SinkException when a name is invalid, the relation is not a table, or the server cannot be asked
     */
    @Override
    public String tableVersion(final String schema, final String table) throws SinkException
    {
        checkNames(schema, table);
        try (Connection c = connector.connect())
        {
            final String[] v = version(c, schema, table);
            if (v == null)
            {
                return null;
            }
            requireTable(schema, table, v[0].charAt(0));
            return v[1];
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify("read the version of " + PostgresIdentifiers.qualified(schema, table)
                + " at " + server, e);
        }
    }

    /**
     * {@link #VERSION_QUERY} for many tables of one schema at once ({@code relname = ANY (?)}), one connection and one
     * query per {@value #VERSIONS_PER_QUERY} tables, instead of a connection and a query per table. A relation of
     * that name that is not a table is left out (its inserts say what it is).
     */
    @Override
    public Map<String, String> tableVersions(final String schema, final Collection<String> tables)
        throws SinkException
    {
        final Map<String, String> out = new HashMap<>();
        final List<String> names = new ArrayList<>();
        for (final String t : tables)
        {
            checkNames(schema, t);
            names.add(t);
        }
        try (Connection c = connector.connect())
        {
            for (int from = 0; from < names.size(); from += VERSIONS_PER_QUERY)
            {
                final List<String> chunk = names.subList(from, Math.min(names.size(), from + VERSIONS_PER_QUERY));
                try (PreparedStatement ps = c.prepareStatement(VERSIONS_QUERY))
                {
                    ps.setString(1, schema);
                    ps.setArray(2, c.createArrayOf("text", chunk.toArray()));
                    try (ResultSet r = ps.executeQuery())
                    {
                        while (r.next())
                        {
                            final String kind = r.getString(2);
                            if ("r".equals(kind) || "p".equals(kind))
                            {
                                out.put(r.getString(1), r.getString(3));
                            }
                        }
                    }
                }
            }
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify("read the versions of " + names.size() + " tables of schema "
                + PostgresIdentifiers.quote(schema) + " at " + server, e);
        }
        return out;
    }

    static String[] version(final Connection c, final String schema, final String table) throws SQLException
    {
        try (PreparedStatement ps = c.prepareStatement(VERSION_QUERY))
        {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet r = ps.executeQuery())
            {
                return r.next() ? new String[]{r.getString(1), r.getString(2)} : null;
            }
        }
    }

    /**
     * Creates a missing table from {@code create_table_ddl} or {@code create_table_like}, in an existing schema.
     * Several sessions creating the same table at once all succeed: 42P07 duplicate_table, and 23505 on
     * {@code pg_type_typname_nsp_index} or {@code pg_class_relname_nsp_index} (two sessions inserting the same
     * catalog row, PostgreSQL's way of losing that race), mean another session made it; the table is looked up
     * again and, if it is not there yet, the statement is run once more (logged once). 42710 duplicate_object is
     * looked at the same way, as a creator can find the winner's row type before its table: when the table then
     * exists, it is used. A name taken by a type with no table (42710 and no relation) or by a relation that is not
     * a table is an error, never retried.
     *
     * @throws SinkException when a name is invalid, creation is off, the schema does not exist (Sluice never creates
     *     a schema), the name is taken, the statement fails, or it ran and no table of that name exists
     */
    @Override
    public void create(final String schema, final String table) throws SinkException
    {
        checkNames(schema, table);
        final String qualified = PostgresIdentifiers.qualified(schema, table);
        final String what = "create " + qualified + " at " + server;
        try (Connection c = connector.connect())
        {
            c.setAutoCommit(true);
            final Character existing = relkind(c, schema, table);
            if (existing != null)
            {
                requireTable(schema, table, existing);
                return;
            }
            if (!creation.enabled())
            {
                throw new SinkException(what + ": the table does not exist and create_table is off", false,
                    PostgresErrors.code("42P01"), null);
            }
            if (!schemaExists(c, schema))
            {
                throw new SinkException(what + ": schema " + PostgresIdentifiers.quote(schema) + " does not exist;"
                    + " Sluice never creates a schema (CREATE SCHEMA it, or change the sink's schema)", false,
                    PostgresErrors.code("3F000"), null);
            }
            final String sql = statement(c, schema, table);
            for (int attempt = 0;; attempt++)
            {
                try (Statement s = c.createStatement())
                {
                    s.execute(sql);
                }
                catch (final SQLException e)
                {
                    final SQLException real = PostgresErrors.firstReal(e);
                    // 42710 too: a creator that finds the winner's row type committed before its table is visible
                    if (!lostRace(real) && !DUPLICATE_OBJECT.equals(real.getSQLState()))
                    {
                        throw refusal(c, what, schema, table, real);
                    }
                    final Character now = relkind(c, schema, table);
                    if (now != null)
                    {
                        requireTable(schema, table, now);
                        LOG.info("{}: another session created it meanwhile (SQLSTATE {}); using it", what,
                            real.getSQLState());
                        return;
                    }
                    if (attempt > 0 || typeKind(c, schema, table) != null)
                    {
                        throw refusal(c, what, schema, table, real);
                    }
                    LOG.info("{}: lost a race with another session creating it (SQLSTATE {}) and the table is not "
                        + "there yet; running the statement once more", what, real.getSQLState());
                    continue;
                }
                final Character made = relkind(c, schema, table);
                if (made == null)
                {
                    throw new SinkException(what + ": the create statement ran but no relation " + qualified
                        + " exists: does create_table_ddl name {schema}.{table}?", false, 0, null);
                }
                requireTable(schema, table, made);
                return;
            }
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify(what, e);
        }
    }

    /**
     * @param e a failure of a CREATE TABLE
     * @return whether it says another session created the same name at the same time
     */
    static boolean lostRace(final SQLException e)
    {
        if ("42P07".equals(e.getSQLState()))
        {
            return true;
        }
        if (!"23505".equals(e.getSQLState()))
        {
            return false;
        }
        final ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        final String constraint = server == null ? null : server.getConstraint();
        if (constraint != null)
        {
            return RACE_INDEXES.contains(constraint);
        }
        final String m = String.valueOf(e.getMessage());
        return RACE_INDEXES.stream().anyMatch(i -> m.contains('"' + i + '"'));
    }

    private SinkException refusal(final Connection c, final String what, final String schema, final String table,
        final SQLException e) throws SQLException
    {
        final String state = e.getSQLState();
        if ("42710".equals(state) || "42P07".equals(state) || "23505".equals(state))
        {
            final String type = typeKind(c, schema, table);
            if (type != null)
            {
                return new SinkException(what + ": the name is taken by " + type + " type "
                    + PostgresIdentifiers.qualified(schema, table) + " (a table needs a type of its own name): "
                    + "drop the type or write to another table", false, PostgresErrors.code("42710"), e);
            }
        }
        return PostgresErrors.classify(what, e);
    }

    private String statement(final Connection c, final String schema, final String table)
        throws SQLException, SinkException
    {
        final String qSchema = PostgresIdentifiers.quote(schema);
        final String qTable = PostgresIdentifiers.quote(table);
        if (creation.ddl() != null && !creation.ddl().isBlank())
        {
            return replacePlaceholders(creation.ddl(), qSchema, qTable);
        }
        if (creation.like() != null && !creation.like().isBlank())
        {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.to_regclass(?) IS NOT NULL"))
            {
                ps.setString(1, creation.like());
                try (ResultSet r = ps.executeQuery())
                {
                    if (!r.next() || !r.getBoolean(1))
                    {
                        throw new SinkException("create " + qSchema + '.' + qTable + " at " + server
                            + ": create_table_like names no table the server knows: " + creation.like(), false,
                            PostgresErrors.code("42P01"), null);
                    }
                }
            }
            return "CREATE TABLE " + qSchema + '.' + qTable + " (LIKE " + creation.like() + " INCLUDING ALL)";
        }
        throw new SinkException("create " + qSchema + '.' + qTable + " at " + server
            + ": create_table = true needs create_table_ddl or create_table_like", false, 0, null);
    }

    /**
     * Replaces {@code {schema}} and {@code {table}} in one left-to-right pass, so a name that itself contains
     * {@code {table}} is never replaced again.
     *
     * @param template the statement
     * @param schema   the quoted schema
     * @param table    the quoted table
     * @return the statement
     */
    static String replacePlaceholders(final String template, final String schema, final String table)
    {
        final StringBuilder out = new StringBuilder(template.length() + schema.length() + table.length());
        int i = 0;
        while (i < template.length())
        {
            if (template.startsWith(SCHEMA_PLACEHOLDER, i))
            {
                out.append(schema);
                i += SCHEMA_PLACEHOLDER.length();
            }
            else if (template.startsWith(TABLE_PLACEHOLDER, i))
            {
                out.append(table);
                i += TABLE_PLACEHOLDER.length();
            }
            else
            {
                out.append(template.charAt(i++));
            }
        }
        return out.toString();
    }

    private static Character relkind(final Connection c, final String schema, final String table)
        throws SQLException
    {
        try (PreparedStatement ps = c.prepareStatement(RELATION_QUERY))
        {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet r = ps.executeQuery())
            {
                return r.next() ? r.getString(2).charAt(0) : null;
            }
        }
    }

    private static String typeKind(final Connection c, final String schema, final String table) throws SQLException
    {
        try (PreparedStatement ps = c.prepareStatement(TYPE_QUERY))
        {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet r = ps.executeQuery())
            {
                if (!r.next())
                {
                    return null;
                }
                return switch (r.getString(1))
                {
                    case "e" -> "enum";
                    case "d" -> "domain";
                    case "c" -> "composite";
                    case "r" -> "range";
                    case "m" -> "multirange";
                    default -> "base";
                };
            }
        }
    }

    private static boolean schemaExists(final Connection c, final String schema) throws SQLException
    {
        try (PreparedStatement ps = c.prepareStatement(SCHEMA_QUERY))
        {
            ps.setString(1, schema);
            try (ResultSet r = ps.executeQuery())
            {
                return r.next();
            }
        }
    }

    private void requireTable(final String schema, final String table, final char relkind) throws SinkException
    {
        if (relkind == 'r' || relkind == 'p')
        {
            return;
        }
        throw new SinkException(PostgresIdentifiers.qualified(schema, table) + " at " + server + " is a "
            + relationKind(relkind) + ", not a table: Sluice writes with COPY, which only a table takes; write to "
            + "another table", false, PostgresErrors.code("42809"), null);
    }

    /**
     * @param relkind {@code pg_class.relkind}
     * @return what PostgreSQL calls that kind of relation
     */
    static String relationKind(final char relkind)
    {
        return switch (relkind)
        {
            case 'r' -> "table";
            case 'p' -> "partitioned table";
            case 'v' -> "view";
            case 'm' -> "materialized view";
            case 'f' -> "foreign table";
            case 'S' -> "sequence";
            case 'i' -> "index";
            case 'I' -> "partitioned index";
            case 'c' -> "composite type";
            case 't' -> "TOAST table";
            default -> "relation of kind '" + relkind + "'";
        };
    }

    private static void checkNames(final String schema, final String table) throws SinkException
    {
        PostgresIdentifiers.requireValid("schema", schema);
        PostgresIdentifiers.requireValid("table", table);
    }

    /**
     * Evaluates a constant default this catalog classified ({@link PostgresColumn.DefaultClass#CONSTANT}) on the
     * server, once: {@code SELECT to_json(expression)}.
     *
     * @return the value as JSON text, or {@code null} for any column whose default this catalog did not classify as
     *     constant
     */
    @Override
    public String evaluateDefault(final ColumnSpec column) throws SinkException
    {
        if (!"DEFAULT".equals(column.defaultKind()) || !constants.contains(column.defaultExpression()))
        {
            return null;
        }
        try (Connection c = connector.connect();
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT pg_catalog.to_json(" + column.defaultExpression() + ")::text"))
        {
            return r.next() ? r.getString(1) : null;
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify("evaluate the default " + column.defaultExpression() + " of column "
                + PostgresIdentifiers.quote(column.name()) + " at " + server, e);
        }
    }

    /**
     * @return schema and table quoted, e.g. {@code "public"."orders.eu"}; names are not checked here (every other
     *     method checks them first)
     */
    @Override
    public String qualifiedName(final String schema, final String table)
    {
        return PostgresIdentifiers.qualified(schema, table);
    }

    /** @return e.g. {@code table "hpg_s"."Nope.x" does not exist in schema "hpg_s"}, names quoted as SQL reads them */
    @Override
    public String missingTable(final String schema, final String table)
    {
        return "table " + PostgresIdentifiers.qualified(schema, table) + " does not exist in schema "
            + PostgresIdentifiers.quote(schema);
    }

    @Override
    public String quoteColumn(final String column)
    {
        return PostgresIdentifiers.quote(column);
    }
}
