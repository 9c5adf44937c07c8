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
        for (final String statement : statements(Files.readString(file)))
        {
            final String t = statement.strip();
            if (t.regionMatches(true, 0, "CREATE TABLE", 0, 12))
            {
                s.add(t);
            }
        }
        return s;
    }

    private void add(final String statement)
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
        final List<ColumnSpec> columns = new ArrayList<>();
        for (final String def : splitTopLevel(lx.balancedBody()))
        {
            final ColumnSpec c = column(def.strip(), table);
            if (c != null)
            {
                columns.addAll(flattenNested(c));
            }
        }
        tables.put(key(database, table), new TableSchema(database, table, columns));
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
        final String type = rest.substring(0, end).strip();
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

    private static List<String> splitTopLevel(final String body)
    {
        final List<String> parts = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < body.length(); i++)
        {
            final char ch = body.charAt(i);
            if (ch == '(')
            {
                depth++;
            }
            else if (ch == ')')
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
