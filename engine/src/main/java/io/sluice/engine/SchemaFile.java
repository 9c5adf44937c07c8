package io.sluice.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;

/**
 * Table schemas from a file of {@code CREATE TABLE} statements, for {@code engine.jar explain --schema FILE}: the
 * destination catalog of a dry run that does not connect. Understands what {@code SHOW CREATE TABLE} and hand-written
 * DDL contain: {@code IF NOT EXISTS}, {@code db.table} or a bare table (which belongs to every database), back-quoted
 * or double-quoted names, column types with nested parentheses, {@code DEFAULT} / {@code MATERIALIZED} /
 * {@code ALIAS} / {@code EPHEMERAL} expressions, {@code CODEC(...)}, {@code COMMENT '...'}, {@code TTL ...}, and
 * skips {@code INDEX}, {@code CONSTRAINT} and {@code PROJECTION} lines; other statements are ignored. A DEFAULT that
 * is a literal (number, quoted string, NULL) is evaluated here; any other expression is left to the server, as
 * {@code ClickHouseCatalog} does when the server cannot evaluate it. Not thread-safe while loading; read-only after.
 */
final class SchemaFile implements DestinationCatalog
{
    private final Map<String, TableSchema> tables = new LinkedHashMap<>();
    private final String timeZone;

    private SchemaFile(final String timeZone)
    {
        this.timeZone = timeZone;
    }

    /**
     * @param file     the statements
     * @param timeZone the server time zone assumed for DateTime columns without their own
     * @return the catalog
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException naming the statement that cannot be read
     */
    static SchemaFile load(final Path file, final String timeZone) throws IOException
    {
        final SchemaFile s = new SchemaFile(timeZone);
        int line = 1;
        for (final String statement : statements(Files.readString(file)))
        {
            final String t = statement.strip();
            if (t.regionMatches(true, 0, "CREATE TABLE", 0, 12))
            {
                s.add(t, line + lines(statement, 0, statement.indexOf(t)));
            }
            line += lines(statement, 0, statement.length());
        }
        return s;
    }

    /** @return the line breaks in {@code s[from, to)} */
    private static int lines(final String s, final int from, final int to)
    {
        int n = 0;
        for (int i = from; i < to; i++)
        {
            if (s.charAt(i) == '\n')
            {
                n++;
            }
        }
        return n;
    }

    private void add(final String statement, final int firstLine)
    {
        final Lexer lx = new Lexer(statement);
        lx.word("CREATE");
        lx.word("TABLE");
        if (lx.peekWord("IF"))
        {
            lx.word("IF");
            lx.word("NOT");
            lx.word("EXISTS");
        }
        String database = "";
        String table = lx.identifier();
        if (lx.peek() == '.')
        {
            lx.pos++;
            database = table;
            table = lx.identifier();
        }
        lx.skipSpace();
        if (lx.peekWord("ON"))
        {
            // ON CLUSTER name
            lx.word("ON");
            lx.word("CLUSTER");
            lx.identifier();
        }
        lx.expect('(');
        final int bodyStart = lx.pos;
        final String body = lx.balancedBody();
        final String name = database.isEmpty() ? table : database + "." + table;
        final List<ColumnSpec> columns = new ArrayList<>();
        // the flattened name of each column (a Nested member as n.a) and the line it is declared on
        final Map<String, Integer> declared = new LinkedHashMap<>();
        int from = 0;
        for (final String def : splitTopLevel(body))
        {
            final int at = from + (def.length() - def.stripLeading().length());
            final int line = firstLine + lines(statement, 0, bodyStart + at);
            from += def.length() + 1;
            final ColumnSpec c = column(def.strip(), table);
            if (c == null)
            {
                continue;
            }
            final String where = "table " + name + ", line " + line + ": column " + c.name();
            checkElementNames(c.type(), where);
            for (final ColumnSpec flat : flattenNested(c))
            {
                final Integer first = declared.putIfAbsent(flat.name(), line);
                if (first != null)
                {
                    throw new IllegalArgumentException("table " + name + ", line " + line + ": column " + flat.name()
                        + " is declared twice (first on line " + first + ")"
                        + (flat.name().equals(c.name()) ? "" : ", as a member of Nested column " + c.name())
                        + "; ClickHouse refuses a table with a duplicate column");
                }
                columns.add(flat);
            }
        }
        tables.put(key(database, table), new TableSchema(database, table, columns));
    }

    /**
     * Refuses a {@code Nested(...)} or named {@code Tuple(...)} anywhere in a column's type (also inside
     * {@code Array}, {@code Nullable}, another {@code Nested}) that names one element twice, as ClickHouse does.
     *
     * @param type  the column's type
     * @param where the table, line and column, for the message
     */
    private static void checkElementNames(final String type, final String where)
    {
        for (int i = 0; i < type.length(); i++)
        {
            final char ch = type.charAt(i);
            if (ch == '\'' || ch == '`' || ch == '"')
            {
                i = skipQuoted(type, i, ch);
                continue;
            }
            final String kind = type.regionMatches(true, i, "Nested", 0, 6)
                ? "Nested"
                : type.regionMatches(true, i, "Tuple", 0, 5) ? "Tuple" : null;
            if (kind == null || i > 0 && (Character.isLetterOrDigit(type.charAt(i - 1)) || type.charAt(i - 1) == '_'))
            {
                continue;
            }
            int open = i + kind.length();
            while (open < type.length() && Character.isWhitespace(type.charAt(open)))
            {
                open++;
            }
            if (open >= type.length() || type.charAt(open) != '(')
            {
                continue;
            }
            final Lexer body = new Lexer(type.substring(open + 1));
            final String inner = body.balancedBody();
            final Map<String, Boolean> names = new LinkedHashMap<>();
            for (final String element : splitTopLevel(inner))
            {
                final String e = element.strip();
                if (e.isEmpty())
                {
                    continue;
                }
                final Lexer lx = new Lexer(e);
                final String name;
                try
                {
                    name = lx.identifier();
                }
                catch (final IllegalArgumentException notNamed)
                {
                    continue;
                }
                final String rest = e.substring(lx.pos).strip();
                if (rest.isEmpty() || rest.startsWith("("))
                {
                    // an unnamed element (a type, with or without parameters)
                    continue;
                }
                if (names.put(name, Boolean.TRUE) != null)
                {
                    throw new IllegalArgumentException(where + ": " + kind + " element " + name + " is declared twice"
                        + " in " + kind + "(" + inner.strip() + "); ClickHouse refuses a " + kind + " with a duplicate "
                        + "element name");
                }
            }
        }
    }

    /**
     * A {@code Nested(a T, b U)} column {@code n} as the server describes it (with {@code flatten_nested = 1}, the
     * default): the columns {@code n.a Array(T)} and {@code n.b Array(U)}; any other column as it is.
     */
    private static List<ColumnSpec> flattenNested(final ColumnSpec c)
    {
        final String type = c.type();
        if (!type.regionMatches(true, 0, "Nested", 0, 6) || !type.substring(6).strip().startsWith("(")
            || !type.endsWith(")"))
        {
            return List.of(c);
        }
        final String body = type.substring(type.indexOf('(') + 1, type.length() - 1);
        final List<ColumnSpec> members = new ArrayList<>();
        for (final String element : splitTopLevel(body))
        {
            final Lexer lx = new Lexer(element.strip());
            final String name = lx.identifier();
            final String elementType = element.strip().substring(lx.pos).strip();
            if (elementType.isEmpty())
            {
                throw new IllegalArgumentException("column " + c.name() + ": Nested member " + name + " has no type");
            }
            members.add(new ColumnSpec(c.name() + "." + name, "Array(" + elementType + ")", "", ""));
        }
        return members;
    }

    private static ColumnSpec column(final String def, final String table)
    {
        if (def.isEmpty())
        {
            return null;
        }
        final Lexer lx = new Lexer(def);
        for (final String skip : new String[]{"INDEX", "CONSTRAINT", "PROJECTION", "PRIMARY"})
        {
            if (lx.peekWord(skip))
            {
                return null;
            }
        }
        final String name = lx.identifier();
        final String rest = def.substring(lx.pos).strip();
        // the type runs up to the first keyword outside parentheses
        int depth = 0;
        int end = rest.length();
        for (int i = 0; i < rest.length(); i++)
        {
            final char ch = rest.charAt(i);
            if (ch == '(')
            {
                depth++;
            }
            else if (ch == ')')
            {
                depth--;
            }
            else if (ch == '\'')
            {
                i = skipQuoted(rest, i, '\'');
            }
            else if (depth == 0 && Character.isWhitespace(ch))
            {
                final String after = rest.substring(i).strip().toUpperCase(Locale.ROOT);
                if (after.startsWith("DEFAULT") || after.startsWith("MATERIALIZED") || after.startsWith("ALIAS")
                    || after.startsWith("EPHEMERAL") || after.startsWith("CODEC") || after.startsWith("COMMENT")
                    || after.startsWith("TTL") || after.startsWith("NOT NULL") || after.startsWith("NULL"))
                {
                    end = i;
                    break;
                }
            }
        }
        final String type = canonicalType(rest.substring(0, end).strip());
        if (type.isEmpty())
        {
            throw new IllegalArgumentException("table " + table + ": column " + name + " has no type");
        }
        final String tail = rest.substring(end).strip();
        final String upper = tail.toUpperCase(Locale.ROOT);
        for (final String kind : new String[]{"DEFAULT", "MATERIALIZED", "ALIAS", "EPHEMERAL"})
        {
            if (upper.startsWith(kind))
            {
                String expr = tail.substring(kind.length()).strip();
                final int cut = topLevelKeyword(expr, "CODEC", "COMMENT", "TTL");
                expr = expr.substring(0, cut).strip();
                return new ColumnSpec(name, type, kind, expr);
            }
        }
        return new ColumnSpec(name, type, "", "");
    }

    /**
     * The SQL spellings ClickHouse 18.16 takes in a CREATE TABLE for its own types, case-insensitively, and that
     * DESCRIBE TABLE never returns: its {@code system.data_type_families} rows with an {@code alias_to}, and the
     * families it reads in any case ({@code case_insensitive = 1}).
     */
    private static final Map<String, String> BARE_ALIASES = Map.ofEntries(Map.entry("TINYINT", "Int8"),
        Map.entry("SMALLINT", "Int16"), Map.entry("INT", "Int32"), Map.entry("INTEGER", "Int32"),
        Map.entry("BIGINT", "Int64"), Map.entry("FLOAT", "Float32"), Map.entry("DOUBLE", "Float64"),
        Map.entry("CHAR", "String"), Map.entry("VARCHAR", "String"), Map.entry("TEXT", "String"),
        Map.entry("TINYTEXT", "String"), Map.entry("MEDIUMTEXT", "String"), Map.entry("LONGTEXT", "String"),
        Map.entry("BLOB", "String"), Map.entry("TINYBLOB", "String"), Map.entry("MEDIUMBLOB", "String"),
        Map.entry("LONGBLOB", "String"), Map.entry("TIMESTAMP", "DateTime"), Map.entry("DATE", "Date"),
        Map.entry("DATETIME", "DateTime"));

    /** The families with parameters 18.16 reads under another spelling or in any case (see {@link #BARE_ALIASES}). */
    private static final Map<String, String> FAMILY_ALIASES = Map.of("DEC", "Decimal", "DECIMAL", "Decimal",
        "DECIMAL32", "Decimal32", "DECIMAL64", "Decimal64", "DECIMAL128", "Decimal128", "BINARY", "FixedString",
        "DATETIME", "DateTime", "TIMESTAMP", "DateTime");

    /**
     * A column type with ClickHouse's SQL aliases written as the names DESCRIBE gives ({@code INT} as {@code Int32},
     * {@code VARCHAR} as {@code String}, {@code DEC(9, 2)} as {@code Decimal(9, 2)}), at any depth, as the server reads
     * them; anything else as it is (an alias 18.16 does not know, such as {@code BOOL}, or {@code VARCHAR(10)}, which
     * it refuses, stays and is refused as an unknown type).
     *
     * @param type a column type as written
     * @return the same type with the aliases replaced; {@code type} itself when it holds none
     */
    static String canonicalType(final String type)
    {
        final String t = type.strip();
        int n = 0;
        while (n < t.length() && (Character.isLetterOrDigit(t.charAt(n)) || t.charAt(n) == '_'))
        {
            n++;
        }
        if (n == 0 || Character.isDigit(t.charAt(0)))
        {
            return type;
        }
        final String name = t.substring(0, n);
        final String upper = name.toUpperCase(Locale.ROOT);
        final String rest = t.substring(n).strip();
        if (rest.isEmpty())
        {
            final String alias = BARE_ALIASES.get(upper);
            return alias == null ? type : alias;
        }
        if (!rest.startsWith("(") || !rest.endsWith(")"))
        {
            return type;
        }
        final String family = FAMILY_ALIASES.getOrDefault(upper, name);
        final boolean named = "NESTED".equals(upper) || "TUPLE".equals(upper);
        final StringBuilder sb = new StringBuilder(family).append('(');
        boolean changed = !family.equals(name);
        boolean first = true;
        for (final String element : splitTopLevel(rest.substring(1, rest.length() - 1)))
        {
            String e = element;
            final String stripped = element.strip();
            final String lead = element.substring(0, element.length() - element.stripLeading().length());
            final Lexer lx = new Lexer(stripped);
            final int space = firstSpace(stripped);
            if (named && space > 0 && !stripped.substring(space).strip().startsWith("(") && startsName(stripped))
            {
                // a named element: its name stays, its type is read as a type
                lx.identifier();
                final String elementType = stripped.substring(lx.pos);
                final String c = canonicalType(elementType);
                if (!c.equals(elementType))
                {
                    e = lead + stripped.substring(0, lx.pos) + " " + c.strip();
                }
            }
            else
            {
                final String c = canonicalType(element);
                if (!c.equals(element))
                {
                    e = lead + c;
                }
            }
            changed |= !e.equals(element);
            sb.append(first ? "" : ",").append(e);
            first = false;
        }
        return changed ? sb.append(')').toString() : type;
    }

    private static int firstSpace(final String s)
    {
        for (int i = 0; i < s.length(); i++)
        {
            if (Character.isWhitespace(s.charAt(i)))
            {
                return i;
            }
            if (s.charAt(i) == '(')
            {
                return -1;
            }
        }
        return -1;
    }

    private static boolean startsName(final String s)
    {
        final char c = s.charAt(0);
        return c == '`' || c == '"' || Character.isLetter(c) || c == '_';
    }

    private static int topLevelKeyword(final String s, final String... words)
    {
        int depth = 0;
        for (int i = 0; i < s.length(); i++)
        {
            final char ch = s.charAt(i);
            if (ch == '(')
            {
                depth++;
            }
            else if (ch == ')')
            {
                depth--;
            }
            else if (ch == '\'')
            {
                i = skipQuoted(s, i, '\'');
            }
            else if (depth == 0 && (i == 0 || Character.isWhitespace(s.charAt(i - 1))))
            {
                for (final String w : words)
                {
                    if (s.regionMatches(true, i, w, 0, w.length()))
                    {
                        return i;
                    }
                }
            }
        }
        return s.length();
    }

    private static String key(final String database, final String table)
    {
        return database + "\u0000" + table;
    }

    @Override
    public TableSchema describe(final String database, final String table)
    {
        TableSchema t = tables.get(key(database, table));
        if (t == null)
        {
            t = tables.get(key("", table));
        }
        return t == null ? null : new TableSchema(database, table, t.columns());
    }

    @Override
    public void create(final String database, final String table) throws SinkException
    {
        throw new SinkException("table " + database + "." + table + " is not in the --schema file (explain never "
            + "creates tables)", false, 0, null);
    }

    @Override
    public String evaluateDefault(final ColumnSpec column)
    {
        final String e = column.defaultExpression().strip();
        if (e.equalsIgnoreCase("NULL"))
        {
            return "null";
        }
        if (e.matches("-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?"))
        {
            return e;
        }
        if (e.length() >= 2 && e.charAt(0) == '\'' && e.charAt(e.length() - 1) == '\'')
        {
            final String body = e.substring(1, e.length() - 1).replace("\\'", "'").replace("\\\\", "\\");
            final StringBuilder sb = new StringBuilder("\"");
            for (final char ch : body.toCharArray())
            {
                if (ch == '"' || ch == '\\')
                {
                    sb.append('\\');
                }
                sb.append(ch);
            }
            return sb.append('"').toString();
        }
        return null;
    }

    @Override
    public String serverTimeZone()
    {
        return timeZone;
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

    /** Splits SQL text into statements at semicolons outside quotes and comments. */
    static List<String> statements(final String sql)
    {
        final List<String> out = new ArrayList<>();
        final StringBuilder cur = new StringBuilder();
        for (int i = 0; i < sql.length(); i++)
        {
            final char ch = sql.charAt(i);
            if (ch == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-')
            {
                while (i < sql.length() && sql.charAt(i) != '\n')
                {
                    i++;
                }
                cur.append('\n');
                continue;
            }
            if (ch == '\'' || ch == '`' || ch == '"')
            {
                final int end = skipQuoted(sql, i, ch);
                cur.append(sql, i, Math.min(sql.length(), end + 1));
                i = end;
                continue;
            }
            if (ch == ';')
            {
                out.add(cur.toString());
                cur.setLength(0);
                continue;
            }
            cur.append(ch);
        }
        if (!cur.toString().isBlank())
        {
            out.add(cur.toString());
        }
        return out;
    }

    private static int skipQuoted(final String s, final int start, final char quote)
    {
        int i = start + 1;
        while (i < s.length())
        {
            final char ch = s.charAt(i);
            if (ch == '\\')
            {
                i += 2;
                continue;
            }
            if (ch == quote)
            {
                return i;
            }
            i++;
        }
        return s.length() - 1;
    }

    /**
     * Splits at the commas outside parentheses, brackets, braces and quotes: a column list, a type's arguments. An
     * array or map literal in a DEFAULT ({@code [1, 2]}, {@code {'a': 1}}) is one part, as the server reads it.
     */
    private static List<String> splitTopLevel(final String body)
    {
        final List<String> parts = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < body.length(); i++)
        {
            final char ch = body.charAt(i);
            if (ch == '(' || ch == '[' || ch == '{')
            {
                depth++;
            }
            else if (ch == ')' || ch == ']' || ch == '}')
            {
                depth--;
            }
            else if (ch == '\'' || ch == '`' || ch == '"')
            {
                i = skipQuoted(body, i, ch);
            }
            else if (ch == ',' && depth == 0)
            {
                parts.add(body.substring(from, i));
                from = i + 1;
            }
        }
        parts.add(body.substring(from));
        return parts;
    }

    /** A cursor over one statement. */
    private static final class Lexer
    {
        private final String s;
        private int pos;

        Lexer(final String s)
        {
            this.s = s;
        }

        void skipSpace()
        {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos)))
            {
                pos++;
            }
        }

        char peek()
        {
            skipSpace();
            return pos < s.length() ? s.charAt(pos) : 0;
        }

        boolean peekWord(final String w)
        {
            skipSpace();
            return s.regionMatches(true, pos, w, 0, w.length())
                && (pos + w.length() == s.length() || !Character.isLetterOrDigit(s.charAt(pos + w.length())));
        }

        void word(final String w)
        {
            if (!peekWord(w))
            {
                throw new IllegalArgumentException("expected " + w + " at \"" + near() + "\"");
            }
            pos += w.length();
        }

        void expect(final char ch)
        {
            if (peek() != ch)
            {
                throw new IllegalArgumentException("expected '" + ch + "' at \"" + near() + "\"");
            }
            pos++;
        }

        String identifier()
        {
            skipSpace();
            if (pos >= s.length())
            {
                throw new IllegalArgumentException("expected a name at the end of \"" + s + "\"");
            }
            final char q = s.charAt(pos);
            if (q == '`' || q == '"')
            {
                final int end = skipQuoted(s, pos, q);
                final String raw = s.substring(pos + 1, end);
                pos = end + 1;
                return raw.replace("\\" + q, String.valueOf(q)).replace("\\\\", "\\");
            }
            final int start = pos;
            while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_'))
            {
                pos++;
            }
            if (start == pos)
            {
                throw new IllegalArgumentException("expected a name at \"" + near() + "\"");
            }
            return s.substring(start, pos);
        }

        /** @return the text up to the parenthesis that closes the one just read */
        String balancedBody()
        {
            int depth = 1;
            final int start = pos;
            for (; pos < s.length(); pos++)
            {
                final char ch = s.charAt(pos);
                if (ch == '\'' || ch == '`' || ch == '"')
                {
                    pos = skipQuoted(s, pos, ch);
                }
                else if (ch == '(')
                {
                    depth++;
                }
                else if (ch == ')' && --depth == 0)
                {
                    return s.substring(start, pos++);
                }
            }
            throw new IllegalArgumentException("unbalanced parentheses in \"" + near() + "\"");
        }

        private String near()
        {
            return s.substring(Math.max(0, pos - 10), Math.min(s.length(), pos + 30)).replace('\n', ' ');
        }
    }
}
