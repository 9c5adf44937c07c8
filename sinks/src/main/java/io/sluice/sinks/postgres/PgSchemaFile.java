package io.sluice.sinks.postgres;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.sluice.codecs.pgcopy.PgType;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;

/**
 * Table schemas from PostgreSQL {@code CREATE TABLE} statements, for {@code engine.jar explain --schema FILE} of a
 * postgres sink ({@link PostgresProvider#schemaFile}): the destination catalog of a dry run that does not connect.
 *
 * <p>What it reads, as PostgreSQL 15's grammar has it ("CREATE TABLE", "Lexical Structure"):
 * <ul>
 *   <li>identifiers unquoted (folded to lower case, PostgreSQL's rule for ASCII letters) or double-quoted (verbatim,
 *       {@code ""} for a quote); {@code schema.table} or a bare table, which stands for a table of that name in every
 *       schema; {@code IF NOT EXISTS}; {@code TEMP}, {@code UNLOGGED};</li>
 *   <li>column types with modifiers and several words ({@code numeric(12,2)}, {@code character varying(20)},
 *       {@code timestamp(3) with time zone}, {@code double precision}, {@code float}, {@code pg_catalog.int4}),
 *       arrays as {@code int[]}, {@code int[3]}, {@code int[][]} or {@code integer ARRAY} (all one-dimensional),
 *       {@code serial}, {@code bigserial} and
 *       {@code smallserial} (an integer type, NOT NULL, DEFAULT {@code nextval}), and enums and domains declared
 *       earlier in the file ({@code CREATE TYPE name AS ENUM (...)}, {@code CREATE DOMAIN name AS type [NOT NULL]};
 *       a domain's own DEFAULT is not applied, as {@link PostgresCatalog} reads only the column's);</li>
 *   <li>column constraints {@code NOT NULL}, {@code NULL}, {@code DEFAULT expr}, {@code GENERATED ALWAYS AS (expr)
 *       STORED}, {@code GENERATED ALWAYS|BY DEFAULT AS IDENTITY [(options)]}, {@code PRIMARY KEY}, {@code UNIQUE},
 *       {@code CHECK (..)}, {@code REFERENCES ..}, {@code COLLATE}, {@code CONSTRAINT name}; table constraints
 *       ({@code PRIMARY KEY (a, b)} makes its columns NOT NULL, as PostgreSQL does; the others are skipped);</li>
 *   <li>a DEFAULT that is a constant (a number, a quoted string with or without a cast, {@code true}, {@code false})
 *       is written by Sluice, as for a catalog the server classifies ({@link PostgresCatalog}); any other expression
 *       ({@code now()}, {@code CURRENT_TIMESTAMP}, {@code nextval(..)}, {@code gen_random_uuid()}) and identity
 *       columns are left to the server; {@code DEFAULT NULL} is no default. Generated columns are not written.</li>
 * </ul>
 * Other statements, comments ({@code --}, {@code /* *}{@code /}) and what follows a table's columns
 * ({@code PARTITION BY}, {@code WITH (..)}, ...) are skipped. A statement it cannot read is an
 * {@link IllegalArgumentException} naming its line and what was wrong. Not thread-safe while loading; read-only after.
 */
public final class PgSchemaFile implements DestinationCatalog
{
    /** Words that end a column's type: the start of a column constraint. */
    private static final Set<String> CONSTRAINT_WORDS = Set.of("constraint", "not", "null", "default", "generated",
        "primary", "unique", "check", "references", "collate", "compression", "storage", "deferrable", "initially");
    private static final Set<String> TABLE_CONSTRAINTS = Set.of("constraint", "primary", "unique", "check", "foreign",
        "exclude");

    private final Map<String, Table> tables = new LinkedHashMap<>();
    private final Map<String, Domain> types = new HashMap<>();

    private PgSchemaFile()
    {
    }

    /**
     * Reads the statements of a file.
     *
     * @param text the file's text
     * @return the catalog of its tables
     * @throws IllegalArgumentException naming the line and what cannot be read
     */
    public static PgSchemaFile parse(final String text)
    {
        final PgSchemaFile f = new PgSchemaFile();
        final List<Token> all = new Lexer(text).tokens();
        int from = 0;
        for (int i = 0; i <= all.size(); i++)
        {
            if (i == all.size() || all.get(i).is(";"))
            {
                if (i > from)
                {
                    f.statement(new Cursor(all.subList(from, i), text));
                }
                from = i + 1;
            }
        }
        return f;
    }

    /** @return the tables read, keyed {@code schema.table} as SQL would quote them */
    public List<String> tableNames()
    {
        return tables.values().stream().map(t -> t.schema.isEmpty()
            ? PostgresIdentifiers.quote(t.name)
            : PostgresIdentifiers.qualified(t.schema, t.name)).toList();
    }

    private void statement(final Cursor c)
    {
        if (!c.word("create"))
        {
            return;
        }
        c.word("or");
        c.word("replace");
        if (c.word("type"))
        {
            enumType(c);
            return;
        }
        if (c.word("domain"))
        {
            domain(c);
            return;
        }
        if (c.word("global") || c.word("local"))
        {
            c.expectOneOf("temp", "temporary");
        }
        else if (!c.word("temp") && !c.word("temporary"))
        {
            c.word("unlogged");
        }
        if (!c.word("table"))
        {
            return;
        }
        table(c);
    }

    /** {@code CREATE TYPE name AS ENUM ('a', 'b')}; other types are skipped. */
    private void enumType(final Cursor c)
    {
        final String[] name = c.qualifiedName();
        if (!c.word("as") || !c.word("enum"))
        {
            return;
        }
        c.expect("(");
        final List<String> labels = new ArrayList<>();
        while (!c.peekIs(")"))
        {
            labels.add(c.string());
            if (!c.peekIs(")"))
            {
                c.expect(",");
            }
        }
        c.expect(")");
        final Domain d = new Domain(name[1], name[1], "e", labels, false);
        types.put(name[1], d);
        types.put(name[0] + "." + name[1], d);
    }

    /** {@code CREATE DOMAIN name [AS] type [COLLATE ..] [DEFAULT expr] [CONSTRAINT n] [NOT NULL | NULL | CHECK (..)]}. */
    private void domain(final Cursor c)
    {
        final String[] name = c.qualifiedName();
        c.word("as");
        final Column under = new Column(name[1], c.line());
        type(c, under);
        constraints(c, under, "domain " + name[1]);
        final Domain d = new Domain(name[1], under.baseType, under.typeKind, under.labels, under.notNull);
        types.put(name[1], d);
        types.put(name[0] + "." + name[1], d);
    }

    private void table(final Cursor c)
    {
        final int line = c.line();
        if (c.word("if"))
        {
            c.expectWord("not");
            c.expectWord("exists");
        }
        final String[] name = c.qualifiedName();
        final String shown = name[0].isEmpty()
            ? PostgresIdentifiers.quote(name[1])
            : PostgresIdentifiers.qualified(name[0], name[1]);
        if (c.peekWord("of") || c.peekWord("partition") || c.peekWord("as"))
        {
            throw c.error("table " + shown + " is made " + c.peek().text.toUpperCase(Locale.ROOT) + " ...: explain "
                + "--schema reads tables whose columns are listed; list them, or use --connect");
        }
        c.expect("(");
        final Map<String, Column> columns = new LinkedHashMap<>();
        final Set<String> primaryKey = new LinkedHashSet<>();
        while (!c.peekIs(")"))
        {
            final Cursor e = c.element();
            if (e.peekWord("like"))
            {
                throw e.error("table " + shown + ": LIKE is not read by explain --schema: list the columns, or use "
                    + "--connect");
            }
            if (TABLE_CONSTRAINTS.contains(e.peekLower()))
            {
                tableConstraint(e, primaryKey);
            }
            else
            {
                final Column col = column(e, shown);
                final Column first = columns.putIfAbsent(col.name, col);
                if (first != null)
                {
                    throw e.error("table " + shown + ": column " + PostgresIdentifiers.quote(col.name) + " is declared "
                        + "twice (first on line " + first.line + "); PostgreSQL refuses the table (42701)");
                }
            }
            if (!c.peekIs(")") && !c.peekIs(","))
            {
                throw c.error("table " + shown + ": expected , or ) but found "
                    + (c.atEnd() ? "the end of the statement" : c.peek().text));
            }
            if (c.peekIs(","))
            {
                c.expect(",");
            }
        }
        c.expect(")");
        for (final String k : primaryKey)
        {
            final Column col = columns.get(k);
            if (col == null)
            {
                throw new IllegalArgumentException("line " + line + ": table " + shown + ": PRIMARY KEY names column "
                    + PostgresIdentifiers.quote(k) + ", which the table does not have (its columns: "
                    + columns.keySet() + ")");
            }
            col.notNull = true;
        }
        if (columns.isEmpty())
        {
            throw new IllegalArgumentException("line " + line + ": table " + shown + " has no columns");
        }
        tables.put(name[0] + '\0' + name[1], new Table(name[0], name[1], List.copyOf(columns.values())));
    }

    private static void tableConstraint(final Cursor e, final Set<String> primaryKey)
    {
        if (e.word("constraint"))
        {
            e.identifier();
        }
        if (e.word("primary"))
        {
            e.expectWord("key");
            e.expect("(");
            while (!e.peekIs(")"))
            {
                primaryKey.add(e.identifier());
                if (!e.peekIs(")"))
                {
                    e.expect(",");
                }
            }
            e.expect(")");
        }
        // UNIQUE, CHECK, FOREIGN KEY and EXCLUDE say nothing of the values written
    }

    private Column column(final Cursor e, final String table)
    {
        final Column col = new Column(e.identifier(), e.line());
        type(e, col);
        constraints(e, col, "table " + table + ": column " + PostgresIdentifiers.quote(col.name));
        return col;
    }

    /** Reads a type up to the first constraint word: its text as {@code format_type} prints it, and its base. */
    private void type(final Cursor e, final Column col)
    {
        final int line = e.line();
        final StringBuilder words = new StringBuilder();
        String modifier = null;
        int dims = 0;
        String last = null;
        while (!e.atEnd() && !CONSTRAINT_WORDS.contains(e.peekLower()))
        {
            if (e.peekIs("("))
            {
                final int from = e.position();
                e.skipGroup();
                modifier = e.source(from, e.position()).replaceAll("\\s+", "");
                if (words.length() > 0)
                {
                    words.append(modifier);
                }
                continue;
            }
            if (e.peekIs("[") || e.peekWord("array"))
            {
                final boolean keyword = e.word("array");
                if (keyword && !e.peekIs("["))
                {
                    dims++;
                    continue;
                }
                e.expect("[");
                if (!e.peekIs("]"))
                {
                    e.number();
                }
                e.expect("]");
                dims++;
                continue;
            }
            if (e.peekIs("."))
            {
                // a schema-qualified type: keep the type's own name
                e.expect(".");
                words.setLength(0);
                continue;
            }
            final String w = e.identifier();
            if (words.length() > 0)
            {
                words.append(' ');
            }
            words.append(w);
            last = w;
        }
        if (words.length() == 0)
        {
            throw new IllegalArgumentException("line " + line + ": column " + PostgresIdentifiers.quote(col.name)
                + " has no type");
        }
        String base = words.toString();
        final String lower = base.toLowerCase(Locale.ROOT);
        switch (lower)
        {
            case "serial", "serial4", "bigserial", "serial8", "smallserial", "serial2" -> {
                base = lower.startsWith("big") || lower.equals("serial8")
                    ? "bigint"
                    : lower.startsWith("small") || lower.equals("serial2") ? "smallint" : "integer";
                col.notNull = true;
                col.defaultClass = PostgresColumn.DefaultClass.EXPRESSION;
                col.defaultExpression = "nextval('" + col.name + "_seq'::regclass)";
            }
            case "float" -> base = "double precision";
            default -> {
                if (lower.startsWith("float(") && modifier != null)
                {
                    final int p = Integer.parseInt(modifier.substring(1, modifier.length() - 1));
                    if (p < 1 || p > 53)
                    {
                        throw new IllegalArgumentException("line " + line + ": column "
                            + PostgresIdentifiers.quote(col.name) + ": precision for type float must be 1 to 53");
                    }
                    base = p <= 24 ? "real" : "double precision";
                }
            }
        }
        final Domain d = last == null ? null : types.get(base);
        // PostgreSQL ignores declared dimensions and sizes: int[][], int[3][4] and int ARRAY[4] are all integer[]
        final String arrays = dims == 0 ? "" : "[]";
        if (d != null)
        {
            col.type = d.name + arrays;
            col.baseType = d.baseType + arrays;
            col.typeKind = dims == 0 ? d.typeKind : "e".equals(d.typeKind) ? "b" : d.typeKind;
            col.labels = d.labels;
            col.notNull |= dims == 0 && d.notNull;
            return;
        }
        String canonical = base;
        try
        {
            canonical = PgType.parse(base).toString();
        }
        catch (final IllegalArgumentException | IllegalStateException unsupported)
        {
            // a type Sluice does not write (time, bytea, inet, ...): kept as written, refused when the table binds
        }
        col.type = canonical + arrays;
        col.baseType = col.type;
        col.typeKind = "b";
    }

    private static void constraints(final Cursor e, final Column col, final String where)
    {
        while (!e.atEnd())
        {
            if (e.word("constraint"))
            {
                e.identifier();
            }
            else if (e.word("not"))
            {
                if (e.word("deferrable"))
                {
                    continue;
                }
                e.expectWord("null");
                col.notNull = true;
            }
            else if (e.word("null"))
            {
                continue;
            }
            else if (e.word("default"))
            {
                defaultValue(e, col);
            }
            else if (e.word("generated"))
            {
                generated(e, col);
            }
            else if (e.word("primary"))
            {
                e.expectWord("key");
                col.notNull = true;
            }
            else if (e.word("unique"))
            {
                if (e.word("nulls"))
                {
                    e.word("not");
                    e.expectWord("distinct");
                }
            }
            else if (e.word("check"))
            {
                e.skipGroup();
                if (e.word("no"))
                {
                    e.expectWord("inherit");
                }
            }
            else if (e.word("references"))
            {
                references(e);
            }
            else if (e.word("collate") || e.word("compression") || e.word("storage"))
            {
                e.qualifiedName();
            }
            else if (e.word("deferrable"))
            {
                continue;
            }
            else if (e.word("initially"))
            {
                e.expectOneOf("deferred", "immediate");
            }
            else
            {
                throw e.error(where + ": unexpected " + e.peek().text + " where a column constraint (NOT NULL, "
                    + "DEFAULT, PRIMARY KEY, ...) or the end of the column was expected");
            }
        }
    }

    private static void references(final Cursor e)
    {
        e.qualifiedName();
        if (e.peekIs("("))
        {
            e.skipGroup();
        }
        if (e.word("match"))
        {
            e.identifier();
        }
        while (e.word("on"))
        {
            e.expectOneOf("delete", "update");
            if (e.word("no"))
            {
                e.expectWord("action");
            }
            else if (e.word("set"))
            {
                e.expectOneOf("null", "default");
                if (e.peekIs("("))
                {
                    e.skipGroup();
                }
            }
            else
            {
                e.expectOneOf("restrict", "cascade");
            }
        }
    }

    /** {@code GENERATED ALWAYS AS (expr) STORED} or {@code GENERATED ALWAYS | BY DEFAULT AS IDENTITY [(..)]}. */
    private static void generated(final Cursor e, final Column col)
    {
        final boolean always = e.word("always");
        if (!always)
        {
            e.expectWord("by");
            e.expectWord("default");
        }
        e.expectWord("as");
        if (e.word("identity"))
        {
            if (e.peekIs("("))
            {
                e.skipGroup();
            }
            col.notNull = true;
            col.defaultClass = PostgresColumn.DefaultClass.EXPRESSION;
            col.defaultExpression = always ? "GENERATED ALWAYS AS IDENTITY" : "GENERATED BY DEFAULT AS IDENTITY";
            return;
        }
        if (!always)
        {
            throw e.error("GENERATED BY DEFAULT AS must be followed by IDENTITY");
        }
        final int from = e.position();
        e.skipGroup();
        col.defaultExpression = e.source(from, e.position());
        e.expectWord("stored");
        col.defaultClass = PostgresColumn.DefaultClass.GENERATED;
    }

    /** A DEFAULT: a constant Sluice writes, or an expression the server evaluates. */
    private static void defaultValue(final Cursor e, final Column col)
    {
        final int from = e.position();
        if (e.atEnd())
        {
            throw e.error("DEFAULT without an expression");
        }
        // the first token may be a constraint word itself (DEFAULT NULL)
        do
        {
            if (e.peekIs("("))
            {
                e.skipGroup();
            }
            else
            {
                e.next();
            }
        }
        while (!e.atEnd() && !CONSTRAINT_WORDS.contains(e.peekLower()));
        final List<Token> t = e.tokens(from, e.position());
        col.defaultExpression = e.source(from, e.position());
        col.constant = constant(t);
        if (col.constant != null && col.constant.equals("null"))
        {
            col.defaultClass = PostgresColumn.DefaultClass.NONE;
            col.defaultExpression = "";
            col.constant = null;
            return;
        }
        col.defaultClass = col.constant == null
            ? PostgresColumn.DefaultClass.EXPRESSION
            : PostgresColumn.DefaultClass.CONSTANT;
    }

    /**
     * @return the JSON text of a constant expression ({@code 5}, {@code -1.5}, {@code 'x'}, {@code 'x'::text},
     *     {@code DATE '2024-01-01'}, {@code true}, {@code NULL}), or null for any other expression
     */
    private static String constant(final List<Token> t)
    {
        int from = 0;
        int to = t.size();
        while (to - from >= 2 && t.get(from).is("(") && t.get(to - 1).is(")"))
        {
            from++;
            to--;
        }
        // a cast of the literal (::type with modifiers and brackets) says how the server reads it; the encoder
        // applies the column's own rules to the literal's text
        int end = from;
        for (int i = from; i < to; i++)
        {
            if (t.get(i).is("::"))
            {
                break;
            }
            end = i + 1;
        }
        final List<Token> v = t.subList(from, end);
        if (v.size() == 1 && v.get(0).kind == Kind.STRING)
        {
            return jsonString(v.get(0).text);
        }
        if (v.size() == 2 && v.get(0).kind == Kind.WORD && v.get(1).kind == Kind.STRING
            && Set.of("date", "timestamp", "timestamptz", "text", "uuid", "json", "jsonb")
                .contains(v.get(0).text.toLowerCase(Locale.ROOT)))
        {
            return jsonString(v.get(1).text);
        }
        final boolean signed = v.size() == 2 && (v.get(0).is("-") || v.get(0).is("+"));
        if ((v.size() == 1 || signed) && v.get(v.size() - 1).kind == Kind.NUMBER)
        {
            final BigDecimal n = new BigDecimal(v.get(v.size() - 1).text);
            return (v.get(0).is("-") ? n.negate() : n).toString();
        }
        if (v.size() == 1 && v.get(0).kind == Kind.WORD)
        {
            final String w = v.get(0).text.toLowerCase(Locale.ROOT);
            if (w.equals("true") || w.equals("false") || w.equals("null"))
            {
                return w;
            }
        }
        return null;
    }

    private static String jsonString(final String s)
    {
        final StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++)
        {
            final char ch = s.charAt(i);
            if (ch == '"' || ch == '\\')
            {
                sb.append('\\').append(ch);
            }
            else if (ch < 0x20)
            {
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int)ch));
            }
            else
            {
                sb.append(ch);
            }
        }
        return sb.append('"').toString();
    }

    /**
     * A table's columns as a {@link PostgresCatalog} would read them from the server, for {@link PgJsonRowEncoder}.
     *
     * @param schema a description {@link #describe} returned
     * @return the columns, in table order
     * @throws IllegalArgumentException when the table is not in the file
     */
    List<PostgresColumn> columnsOf(final TableSchema schema)
    {
        final Table t = find(schema.database(), schema.table());
        if (t == null)
        {
            throw new IllegalArgumentException("table " + qualifiedName(schema.database(), schema.table())
                + " is not in the --schema file");
        }
        return t.columns.stream().map(c -> new PostgresColumn(c.name, c.type, c.baseType, c.typeKind, "", c.labels,
            c.notNull, c.defaultClass == null ? PostgresColumn.DefaultClass.NONE : c.defaultClass,
            c.defaultExpression)).toList();
    }

    private Table find(final String schema, final String table)
    {
        final Table t = tables.get(schema + '\0' + table);
        return t != null ? t : tables.get("\0" + table);
    }

    @Override
    public TableSchema describe(final String schema, final String table)
    {
        final Table t = find(schema, table);
        if (t == null)
        {
            return null;
        }
        final List<ColumnSpec> specs = new ArrayList<>();
        for (final Column c : t.columns)
        {
            specs.add(new ColumnSpec(c.name, c.type, PostgresCatalog.defaultKind(
                c.defaultClass == null ? PostgresColumn.DefaultClass.NONE : c.defaultClass), c.defaultExpression));
        }
        return new TableSchema(schema, table, specs);
    }

    @Override
    public void create(final String schema, final String table) throws SinkException
    {
        throw new SinkException("table " + qualifiedName(schema, table) + " is not in the --schema file (explain "
            + "never creates tables)", false, 0, null);
    }

    /** @return the JSON text of a constant DEFAULT read from the file, or null for any other column */
    @Override
    public String evaluateDefault(final ColumnSpec column)
    {
        for (final Table t : tables.values())
        {
            for (final Column c : t.columns)
            {
                if (c.name.equals(column.name()) && c.defaultExpression.equals(column.defaultExpression())
                    && c.defaultClass == PostgresColumn.DefaultClass.CONSTANT)
                {
                    return c.constant;
                }
            }
        }
        return null;
    }

    /** @return UTC: the sink's sessions always run in UTC */
    @Override
    public String serverTimeZone()
    {
        return "UTC";
    }

    @Override
    public String qualifiedName(final String schema, final String table)
    {
        return PostgresIdentifiers.qualified(schema, table);
    }

    @Override
    public String missingTable(final String schema, final String table)
    {
        return "table " + qualifiedName(schema, table) + " is not in the --schema file (its tables: " + tableNames()
            + ")";
    }

    @Override
    public String quoteColumn(final String column)
    {
        return PostgresIdentifiers.quote(column);
    }

    /** A table read. */
    private record Table(String schema, String name, List<Column> columns)
    {
    }

    /** An enum or a domain declared in the file. */
    private record Domain(String name, String baseType, String typeKind, List<String> labels, boolean notNull)
    {
    }

    /** A column while it is read. */
    private static final class Column
    {
        final String name;
        final int line;
        String type;
        String baseType;
        String typeKind = "b";
        List<String> labels = List.of();
        boolean notNull;
        PostgresColumn.DefaultClass defaultClass;
        String defaultExpression = "";
        String constant;

        Column(final String name, final int line)
        {
            this.name = name;
            this.line = line;
        }
    }

    /** Kinds of token. */
    private enum Kind
    {
        WORD, QUOTED, STRING, NUMBER, PUNCT
    }

    /** A token: its kind, its text (a quoted identifier or string unescaped), its place in the source. */
    private record Token(Kind kind, String text, int line, int start, int end)
    {
        boolean is(final String punct)
        {
            return kind == Kind.PUNCT && text.equals(punct);
        }
    }

    /** Splits SQL text into tokens, PostgreSQL's lexical rules: comments, quoted identifiers, strings, numbers. */
    private static final class Lexer
    {
        private final String s;
        private int pos;
        private int line = 1;

        Lexer(final String s)
        {
            this.s = s;
        }

        List<Token> tokens()
        {
            final List<Token> out = new ArrayList<>();
            while (true)
            {
                skipSpaceAndComments();
                if (pos >= s.length())
                {
                    return out;
                }
                final int start = pos;
                final int at = line;
                final char ch = s.charAt(pos);
                if (ch == '"')
                {
                    out.add(new Token(Kind.QUOTED, quoted('"', at), at, start, pos));
                }
                else if (ch == '\'' || (ch == 'E' || ch == 'e') && pos + 1 < s.length() && s.charAt(pos + 1) == '\'')
                {
                    final boolean escapes = ch != '\'';
                    if (escapes)
                    {
                        pos++;
                    }
                    final String v = quoted('\'', at);
                    out.add(new Token(Kind.STRING, escapes ? v.replaceAll("\\\\(.)", "$1") : v, at, start, pos));
                }
                else if (ch == '$' && dollarTag() != null)
                {
                    final String tag = dollarTag();
                    pos += tag.length();
                    final int close = s.indexOf(tag, pos);
                    if (close < 0)
                    {
                        throw new IllegalArgumentException("line " + at + ": the string quoted with " + tag
                            + " is not closed");
                    }
                    final String v = s.substring(pos, close);
                    count(pos, close + tag.length());
                    pos = close + tag.length();
                    out.add(new Token(Kind.STRING, v, at, start, pos));
                }
                else if (Character.isDigit(ch) || ch == '.' && pos + 1 < s.length()
                    && Character.isDigit(s.charAt(pos + 1)))
                {
                    while (pos < s.length() && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '.'))
                    {
                        pos++;
                    }
                    if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E'))
                    {
                        pos++;
                        if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-'))
                        {
                            pos++;
                        }
                        while (pos < s.length() && Character.isDigit(s.charAt(pos)))
                        {
                            pos++;
                        }
                    }
                    final String n = s.substring(start, pos);
                    out.add(new Token(Kind.NUMBER, n.startsWith(".") ? "0" + n : n, at, start, pos));
                }
                else if (Character.isLetter(ch) || ch == '_')
                {
                    while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_'
                        || s.charAt(pos) == '$'))
                    {
                        pos++;
                    }
                    out.add(new Token(Kind.WORD, s.substring(start, pos), at, start, pos));
                }
                else if (ch == ':' && pos + 1 < s.length() && s.charAt(pos + 1) == ':')
                {
                    pos += 2;
                    out.add(new Token(Kind.PUNCT, "::", at, start, pos));
                }
                else
                {
                    pos++;
                    out.add(new Token(Kind.PUNCT, String.valueOf(ch), at, start, pos));
                }
            }
        }

        /** @return {@code $tag$} starting at pos, or null */
        private String dollarTag()
        {
            int i = pos + 1;
            while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_'))
            {
                i++;
            }
            return i < s.length() && s.charAt(i) == '$' && (i == pos + 1 || !Character.isDigit(s.charAt(pos + 1)))
                ? s.substring(pos, i + 1)
                : null;
        }

        /** A quoted identifier or string; a doubled quote is one quote. */
        private String quoted(final char q, final int at)
        {
            final StringBuilder sb = new StringBuilder();
            pos++;
            while (true)
            {
                if (pos >= s.length())
                {
                    throw new IllegalArgumentException("line " + at + ": the " + (q == '"' ? "identifier" : "string")
                        + " opened with " + q + " is not closed");
                }
                final char ch = s.charAt(pos++);
                if (ch == '\n')
                {
                    line++;
                }
                if (ch == q)
                {
                    if (pos < s.length() && s.charAt(pos) == q)
                    {
                        sb.append(q);
                        pos++;
                        continue;
                    }
                    return sb.toString();
                }
                sb.append(ch);
            }
        }

        private void count(final int from, final int to)
        {
            for (int i = from; i < to; i++)
            {
                if (s.charAt(i) == '\n')
                {
                    line++;
                }
            }
        }

        private void skipSpaceAndComments()
        {
            while (pos < s.length())
            {
                final char ch = s.charAt(pos);
                if (ch == '\n')
                {
                    line++;
                    pos++;
                }
                else if (Character.isWhitespace(ch))
                {
                    pos++;
                }
                else if (s.startsWith("--", pos))
                {
                    while (pos < s.length() && s.charAt(pos) != '\n')
                    {
                        pos++;
                    }
                }
                else if (s.startsWith("/*", pos))
                {
                    // block comments nest in PostgreSQL
                    final int at = line;
                    int depth = 0;
                    do
                    {
                        if (pos >= s.length())
                        {
                            throw new IllegalArgumentException("line " + at + ": the comment opened with /* is not "
                                + "closed");
                        }
                        if (s.startsWith("/*", pos))
                        {
                            depth++;
                            pos += 2;
                        }
                        else if (s.startsWith("*/", pos))
                        {
                            depth--;
                            pos += 2;
                        }
                        else
                        {
                            if (s.charAt(pos) == '\n')
                            {
                                line++;
                            }
                            pos++;
                        }
                    }
                    while (depth > 0);
                }
                else
                {
                    return;
                }
            }
        }
    }

    /** Reads the tokens of one statement or one element of a table. */
    private static final class Cursor
    {
        private final List<Token> t;
        private final String source;
        private int i;

        Cursor(final List<Token> tokens, final String source)
        {
            this.t = tokens;
            this.source = source;
        }

        boolean atEnd()
        {
            return i >= t.size();
        }

        Token peek()
        {
            if (atEnd())
            {
                throw error("the statement ends early");
            }
            return t.get(i);
        }

        String peekLower()
        {
            return atEnd() || t.get(i).kind != Kind.WORD ? "" : t.get(i).text.toLowerCase(Locale.ROOT);
        }

        boolean peekIs(final String punct)
        {
            return !atEnd() && t.get(i).is(punct);
        }

        boolean peekWord(final String w)
        {
            return peekLower().equals(w);
        }

        int position()
        {
            return i;
        }

        int line()
        {
            return atEnd() ? (t.isEmpty() ? 1 : t.get(t.size() - 1).line) : t.get(i).line;
        }

        Token next()
        {
            final Token k = peek();
            i++;
            return k;
        }

        boolean word(final String w)
        {
            if (peekWord(w))
            {
                i++;
                return true;
            }
            return false;
        }

        void expectWord(final String w)
        {
            if (!word(w))
            {
                throw error("expected " + w.toUpperCase(Locale.ROOT) + " but found " + found());
            }
        }

        void expectOneOf(final String... words)
        {
            for (final String w : words)
            {
                if (word(w))
                {
                    return;
                }
            }
            throw error("expected " + String.join(" or ", words).toUpperCase(Locale.ROOT) + " but found " + found());
        }

        void expect(final String punct)
        {
            if (!peekIs(punct))
            {
                throw error("expected " + punct + " but found " + found());
            }
            i++;
        }

        private String found()
        {
            return atEnd() ? "the end of the statement" : "\"" + t.get(i).text + "\"";
        }

        /** An identifier: a quoted one verbatim, an unquoted one folded to lower case. */
        String identifier()
        {
            final Token k = peek();
            if (k.kind == Kind.QUOTED)
            {
                i++;
                if (k.text.isEmpty())
                {
                    throw error("a zero-length delimited identifier (\"\")");
                }
                return k.text;
            }
            if (k.kind == Kind.WORD)
            {
                i++;
                return fold(k.text);
            }
            throw error("expected a name but found " + found());
        }

        /** @return {schema or "", name} */
        String[] qualifiedName()
        {
            final String first = identifier();
            if (peekIs("."))
            {
                i++;
                final String second = identifier();
                if (peekIs("."))
                {
                    // database.schema.table: the database is the sink's own
                    i++;
                    return new String[]{second, identifier()};
                }
                return new String[]{first, second};
            }
            return new String[]{"", first};
        }

        String string()
        {
            final Token k = peek();
            if (k.kind != Kind.STRING)
            {
                throw error("expected a quoted string but found " + found());
            }
            i++;
            return k.text;
        }

        void number()
        {
            if (peek().kind != Kind.NUMBER)
            {
                throw error("expected a number but found " + found());
            }
            i++;
        }

        /** Skips a parenthesised group, nested groups included. */
        void skipGroup()
        {
            expect("(");
            int depth = 1;
            while (depth > 0)
            {
                final Token k = next();
                if (k.is("("))
                {
                    depth++;
                }
                else if (k.is(")"))
                {
                    depth--;
                }
            }
        }

        /** @return the tokens of the next table element (up to a comma or the closing parenthesis), consumed */
        Cursor element()
        {
            final int from = i;
            int depth = 0;
            while (!atEnd())
            {
                final Token k = t.get(i);
                if (depth == 0 && (k.is(",") || k.is(")")))
                {
                    break;
                }
                depth += k.is("(") || k.is("[") ? 1 : k.is(")") || k.is("]") ? -1 : 0;
                i++;
            }
            if (i == from)
            {
                throw error("expected a column or a table constraint but found " + found());
            }
            return new Cursor(t.subList(from, i), source);
        }

        List<Token> tokens(final int from, final int to)
        {
            return t.subList(from, to);
        }

        String source(final int from, final int to)
        {
            return source.substring(t.get(from).start, t.get(to - 1).end);
        }

        IllegalArgumentException error(final String what)
        {
            return new IllegalArgumentException("line " + line() + ": " + what);
        }

        /** PostgreSQL's folding of an unquoted identifier: ASCII upper-case letters to lower case. */
        private static String fold(final String w)
        {
            final StringBuilder sb = new StringBuilder(w.length());
            for (int k = 0; k < w.length(); k++)
            {
                final char ch = w.charAt(k);
                sb.append(ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch);
            }
            return sb.toString();
        }
    }
}
