package io.sluice.bench.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.core.config.SluiceConfig;

/**
 * Checks, row by row, what a contender wrote against the records it was given: every record of the input must be in
 * exactly one table, the one its branch names, once, with every column holding the value the configuration maps to
 * it. Independent of the contenders: the expected rows come from Jackson trees of the input records and the branches
 * and column mapping of the configuration, with the rules every contender follows (below); the written rows are read
 * back with {@code SELECT ... FORMAT TabSeparated}.
 *
 * <p>The input is the benchmark's: the lines of a sample, copy after copy, copy {@code c} with {@code c * idStep}
 * added to the leading {@code "id":"digits"} of each line (as {@code engine.jar produce --id-step} does), so record
 * {@code i} is line {@code i % lines} of copy {@code first + i / lines}.
 *
 * <p>The expected value of a column, from the JSON value at its path: missing or null → NULL for a Nullable column,
 * else the type's default (0, '', the zero DateTime); true/false → 1/0; an ISO-8601 text into a DateTime → its epoch
 * seconds (read back with {@code toUnixTimestamp}, whatever the server's time zone); a number or numeric text into
 * an integer → that number; an object or array into a String → its JSON text, compared as JSON (so the input's bytes
 * and a re-serialization both match); a text into a String → the text, decoded.
 *
 * <p>Not thread-safe; build once per configuration and sample, {@link #verify verify} once per run.
 */
final class RowVerifier
{
    /** Whose SQL the verifier writes and whose text rows it reads. */
    enum Dialect
    {
        /** {@code SELECT ... FORMAT TabSeparated}; types as DESCRIBE TABLE names them ({@code Nullable(Int64)}). */
        CLICKHOUSE,
        /**
         * {@code COPY (SELECT ...) TO STDOUT}, PostgreSQL's text format (tab-separated, {@code \N}, the same
         * backslash escapes); types as information_schema.columns' data_type names them, wrapped in
         * {@code Nullable(...)} where is_nullable is YES.
         */
        POSTGRES
    }

    /** Streams the result of a query (TabSeparated, or PostgreSQL's COPY text format). */
    interface Query
    {
        InputStream open(String sql) throws IOException, InterruptedException;
    }

    /** The outcome of one verification. {@code examples} holds the first few problems found, for the log. */
    record Result(long rows, long distinct, long lost, long duplicates, long wrong, long misplaced, long unknown,
        Map<String, Long> rowsPerTable, List<String> examples)
    {
        /** @return whether every record is in its table exactly once with the right values, and nothing else is */
        boolean exact(final long records)
        {
            return rows == records && distinct == records && lost == 0 && duplicates == 0 && wrong == 0
                && misplaced == 0 && unknown == 0;
        }

        /** @return whether every row written is right (a record may be missing or written twice) */
        boolean rowsRight()
        {
            return wrong == 0 && misplaced == 0 && unknown == 0;
        }

        @Override
        public String toString()
        {
            return String.format("rows %,d, distinct %,d, lost %,d, duplicates %,d, wrong %,d, misplaced %,d, "
                + "unknown %,d", rows, distinct, lost, duplicates, wrong, misplaced, unknown);
        }
    }

    /** The records of one run: record {@code i} is sample line {@code i % lines} of copy {@code firstCopy + i / lines}. */
    record Expected(long firstCopy, long records)
    {
    }

    private enum Kind
    {
        INTEGER, FLOAT, DATETIME, STRING
    }

    private record Column(String name, Kind kind, boolean nullable, String[] path, String select)
    {
    }

    private record Table(String name, List<Column> columns, int idColumn)
    {
    }

    private static final byte[] ID_PREFIX = "{\"id\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_EXAMPLES = 10;

    private final ObjectMapper mapper = new ObjectMapper();
    private final String database;
    private final Dialect dialect;
    private final long idStep;
    private final List<Table> tables = new ArrayList<>();
    private final int lines;
    private final long[] baseIds;
    private final int[] branchOf;
    /** per line, the expected text of each column of its branch's table (null = NULL) */
    private final String[][] expected;
    /** per line, which of those columns hold JSON text (compared as JSON) */
    private final boolean[][] jsonText;

    /**
     * @param sink the sink whose branches route the records (their target tables, conditions, column mapping)
     * @param database the database the tables are in
     * @param schemas per target table, its columns as {@code {name, type}} (DESCRIBE TABLE)
     * @param sample the lines of the sample, in order; each must start with {@code {"id":"digits"}
     * @param idStep what each copy adds to the ids
     * @throws IllegalArgumentException if a line does not start with a decimal id, is not JSON, or matches no branch
     */
    RowVerifier(final SluiceConfig.Sink sink, final String database, final Map<String, List<String[]>> schemas,
        final List<byte[]> sample, final long idStep) throws IOException
    {
        this(Dialect.CLICKHOUSE, sink, database, schemas, sample, idStep);
    }

    /**
     * @param dialect whose SQL and types
     * @param sink the sink whose branches route the records
     * @param database the database (ClickHouse) or schema (PostgreSQL) the tables are in
     * @param schemas per target table, its columns as {@code {name, type}}
     * @param sample the lines of the sample, in order
     * @param idStep what each copy adds to the ids
     * @throws IllegalArgumentException as {@link #RowVerifier(SluiceConfig.Sink, String, Map, List, long)}
     */
    RowVerifier(final Dialect dialect, final SluiceConfig.Sink sink, final String database,
        final Map<String, List<String[]>> schemas, final List<byte[]> sample, final long idStep) throws IOException
    {
        this.dialect = dialect;
        this.database = database;
        this.idStep = idStep;
        for (final SluiceConfig.Branch b : sink.branches())
        {
            final List<String[]> schema = schemas.get(b.targetTable());
            if (schema == null)
            {
                throw new IllegalArgumentException("no schema for table " + b.targetTable());
            }
            final List<Column> cols = new ArrayList<>();
            int id = -1;
            for (final String[] c : schema)
            {
                final String type = c[1];
                final boolean nullable = type.startsWith("Nullable(");
                final String inner = nullable ? type.substring(9, type.length() - 1) : type;
                final Kind kind = kindOf(dialect, inner);
                final String select = dialect == Dialect.POSTGRES
                    ? postgresSelect(c[0], inner, kind)
                    : clickHouseSelect(c[0], kind, nullable);
                final String path = b.columns().getOrDefault(c[0], c[0]);
                if (c[0].equals("id"))
                {
                    id = cols.size();
                }
                cols.add(new Column(c[0], kind, nullable, path.split("\\."), select));
            }
            if (id < 0)
            {
                throw new IllegalArgumentException("table " + b.targetTable() + " has no id column");
            }
            tables.add(new Table(b.targetTable(), cols, id));
        }
        this.lines = sample.size();
        this.baseIds = new long[lines];
        this.branchOf = new int[lines];
        this.expected = new String[lines][];
        this.jsonText = new boolean[lines][];
        for (int i = 0; i < lines; i++)
        {
            final byte[] line = sample.get(i);
            baseIds[i] = leadingId(line);
            if (baseIds[i] < 0)
            {
                throw new IllegalArgumentException(
                    "sample line " + (i + 1) + " does not start with {\"id\":\"digits\"");
            }
            final JsonNode root = mapper.readTree(line);
            int branch = -1;
            for (int b = 0; b < sink.branches().size() && branch < 0; b++)
            {
                if (matches(sink.branches().get(b).when(), root))
                {
                    branch = b;
                }
            }
            if (branch < 0)
            {
                throw new IllegalArgumentException("sample line " + (i + 1) + " matches no branch");
            }
            branchOf[i] = branch;
            final List<Column> cols = tables.get(branch).columns();
            expected[i] = new String[cols.size()];
            jsonText[i] = new boolean[cols.size()];
            for (int c = 0; c < cols.size(); c++)
            {
                final JsonNode v = at(root, cols.get(c).path());
                expected[i][c] = expectedText(cols.get(c), v);
                jsonText[i][c] = v != null && v.isContainerNode() && cols.get(c).kind() == Kind.STRING;
            }
        }
    }

    private static Kind kindOf(final Dialect dialect, final String type)
    {
        if (dialect == Dialect.POSTGRES)
        {
            return type.startsWith("timestamp")
                ? Kind.DATETIME
                : type.equals("double precision") || type.equals("real") || type.equals("numeric")
                    ? Kind.FLOAT
                    : type.equals("bigint") || type.equals("integer") || type.equals("smallint")
                        || type.equals("boolean")
                            ? Kind.INTEGER
                            : Kind.STRING;
        }
        return type.startsWith("DateTime")
            ? Kind.DATETIME
            : type.startsWith("Float")
                ? Kind.FLOAT
                : type.matches("U?Int\\d+")
                    ? Kind.INTEGER
                    : Kind.STRING;
    }

    private static String clickHouseSelect(final String column, final Kind kind, final boolean nullable)
    {
        final String q = "`" + column + "`";
        return kind != Kind.DATETIME
            ? q
            : nullable
                ? "if(isNull(" + q + "), NULL, toUnixTimestamp(assumeNotNull(" + q + ")))"
                : "toUnixTimestamp(" + q + ")";
    }

    /** Booleans as 1/0, timestamps as epoch seconds (NULL stays NULL), everything else as its text. */
    private static String postgresSelect(final String column, final String type, final Kind kind)
    {
        final String q = "\"" + column.replace("\"", "\"\"") + "\"";
        return type.equals("boolean")
            ? q + "::int"
            : kind == Kind.DATETIME
                ? "extract(epoch FROM " + q + ")::bigint"
                : kind == Kind.STRING
                    ? q + "::text"
                    : q;
    }

    /**
     * @param line a record
     * @return the decimal id of its leading {@code {"id":"digits"}, or -1 if it has none (or one of over 18 digits)
     */
    static long leadingId(final byte[] line)
    {
        if (line.length < ID_PREFIX.length || !Arrays.equals(line, 0, ID_PREFIX.length, ID_PREFIX, 0, ID_PREFIX.length))
        {
            return -1;
        }
        long id = 0;
        int i = ID_PREFIX.length;
        for (; i < line.length && line[i] >= '0' && line[i] <= '9'; i++)
        {
            id = id * 10 + (line[i] - '0');
        }
        final int digits = i - ID_PREFIX.length;
        return digits == 0 || digits > 18 || i >= line.length || line[i] != '"' ? -1 : id;
    }

    /**
     * @param line a sample line
     * @return the index of the branch (in the sink's order) it goes to
     */
    int branchOf(final int line)
    {
        return branchOf[line];
    }

    /** @return the id of sample line {@code line} in copy {@code copy} */
    long idOf(final int line, final long copy)
    {
        return baseIds[line] + copy * idStep;
    }

    private static boolean matches(final SluiceConfig.Condition c, final JsonNode root)
    {
        if (c == null)
        {
            return true;
        }
        final JsonNode v = at(root, c.path().split("\\."));
        if (c.op() == SluiceConfig.Condition.Op.EXISTS)
        {
            return (v != null && !v.isNull()) == c.exists();
        }
        if (v == null || v.isNull() || v.isContainerNode())
        {
            return false;
        }
        final String text = v.asText();
        return switch (c.op())
        {
            case EQUALS -> text.equals(c.values().get(0));
            case IN -> c.values().contains(text);
            case PREFIX -> text.startsWith(c.values().get(0));
            case MATCHES -> Pattern.compile(c.values().get(0)).matcher(text).matches();
            default -> false;
        };
    }

    private static JsonNode at(final JsonNode root, final String[] path)
    {
        JsonNode n = root;
        for (final String p : path)
        {
            n = n.get(p);
            if (n == null)
            {
                return null;
            }
        }
        return n;
    }

    private static String expectedText(final Column c, final JsonNode v)
    {
        if (v == null || v.isNull())
        {
            if (c.nullable())
            {
                return null;
            }
            return c.kind() == Kind.STRING ? "" : "0";
        }
        return switch (c.kind())
        {
            case INTEGER -> v.isBoolean()
                ? (v.booleanValue() ? "1" : "0")
                : v.isIntegralNumber()
                    ? v.bigIntegerValue().toString()
                    : v.isTextual()
                        ? new java.math.BigInteger(v.textValue().strip()).toString()
                        : "0";
            case FLOAT -> v.isBoolean() ? (v.booleanValue() ? "1" : "0") : Double.toString(v.asDouble());
            case DATETIME -> v.isNumber() ? Long.toString(v.asLong()) : Long.toString(epochSeconds(v.asText()));
            case STRING -> v.isTextual() ? v.textValue() : v.isContainerNode() ? v.toString() : v.asText();
        };
    }

    private static long epochSeconds(final String iso)
    {
        try
        {
            return Instant.parse(iso).getEpochSecond();
        }
        catch (final DateTimeParseException e)
        {
            return Instant.parse(iso.replace(' ', 'T') + (iso.endsWith("Z") ? "" : "Z")).getEpochSecond();
        }
    }

    /**
     * Reads every target table and checks it against the expected records.
     *
     * @param e the records of the run
     * @param query runs the SELECTs
     * @return the outcome
     * @throws IllegalArgumentException if the run is too big to index (over 2^28 records)
     */
    Result verify(final Expected e, final Query query) throws IOException, InterruptedException
    {
        if (e.records() > 1 << 28)
        {
            throw new IllegalArgumentException("row verification indexes at most " + (1 << 28) + " records");
        }
        final int n = (int)e.records();
        final IdIndex index = new IdIndex(e.firstCopy(), n);
        final BitSet seen = new BitSet(n);
        long rows = 0;
        long duplicates = 0;
        long wrong = 0;
        long misplaced = 0;
        long unknown = 0;
        final List<String> examples = new ArrayList<>();
        final Map<String, Long> perTable = new LinkedHashMap<>();
        for (int t = 0; t < tables.size(); t++)
        {
            final Table table = tables.get(t);
            final StringBuilder sql = new StringBuilder(dialect == Dialect.POSTGRES ? "COPY (SELECT " : "SELECT ");
            for (int c = 0; c < table.columns().size(); c++)
            {
                sql.append(c > 0 ? ", " : "").append(table.columns().get(c).select());
            }
            if (dialect == Dialect.POSTGRES)
            {
                sql.append(" FROM \"").append(database.replace("\"", "\"\"")).append("\".\"")
                    .append(table.name().replace("\"", "\"\"")).append("\") TO STDOUT");
            }
            else
            {
                sql.append(" FROM `").append(database).append("`.`").append(table.name())
                    .append("` FORMAT TabSeparated");
            }
            long tableRows = 0;
            try (BufferedReader r = new BufferedReader(
                new InputStreamReader(query.open(sql.toString()), StandardCharsets.UTF_8), 1 << 16))
            {
                String line;
                while ((line = r.readLine()) != null)
                {
                    tableRows++;
                    final String[] f = fields(line, table.columns().size());
                    final long id = parseId(f[table.idColumn()]);
                    final int record = index.record(id);
                    if (record < 0)
                    {
                        unknown++;
                        example(examples, table.name() + ": a row with id " + f[table.idColumn()]
                            + " that is not in the input");
                        continue;
                    }
                    if (seen.get(record))
                    {
                        duplicates++;
                        example(examples, table.name() + ": id " + id + " written more than once");
                        continue;
                    }
                    seen.set(record);
                    final int sampleLine = record % lines;
                    if (branchOf[sampleLine] != t)
                    {
                        misplaced++;
                        example(examples, table.name() + ": id " + id + " belongs in "
                            + tables.get(branchOf[sampleLine]).name());
                        continue;
                    }
                    final String mismatch = compare(table, f, sampleLine, id);
                    if (mismatch != null)
                    {
                        wrong++;
                        example(examples, table.name() + ": id " + id + ": " + mismatch);
                    }
                }
            }
            perTable.put(table.name(), tableRows);
            rows += tableRows;
        }
        final long distinct = seen.cardinality();
        for (int i = seen.nextClearBit(0); i < n && examples.size() < MAX_EXAMPLES; i = seen.nextClearBit(i + 1))
        {
            examples.add("lost: id " + idOf(i % lines, e.firstCopy() + i / lines) + " (record " + i + ", for "
                + tables.get(branchOf[i % lines]).name() + ") is in no table");
        }
        return new Result(rows, distinct, n - distinct, duplicates, wrong, misplaced, unknown, perTable,
            examples);
    }

    private String compare(final Table table, final String[] f, final int line, final long id)
    {
        final List<Column> cols = table.columns();
        for (int c = 0; c < cols.size(); c++)
        {
            final String want = c == table.idColumn() ? Long.toString(id) : expected[line][c];
            final String got = f[c];
            if (want == null ? got == null : want.equals(got))
            {
                continue;
            }
            if (want != null && got != null && jsonText[line][c] && sameJson(want, got))
            {
                continue;
            }
            if (want != null && got != null && cols.get(c).kind() == Kind.FLOAT && sameDouble(want, got))
            {
                continue;
            }
            return cols.get(c).name() + " is " + shorten(got) + ", not " + shorten(want);
        }
        return null;
    }

    private boolean sameJson(final String a, final String b)
    {
        try
        {
            return mapper.readTree(a).equals(mapper.readTree(b));
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    private static boolean sameDouble(final String a, final String b)
    {
        try
        {
            return Double.parseDouble(a) == Double.parseDouble(b);
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
    }

    private static String shorten(final String s)
    {
        if (s == null)
        {
            return "NULL";
        }
        return "'" + (s.length() > 80 ? s.substring(0, 77) + "..." : s) + "'";
    }

    private static void example(final List<String> examples, final String s)
    {
        if (examples.size() < MAX_EXAMPLES)
        {
            examples.add(s);
        }
    }

    /**
     * The run's ids, each with its record number, in an open-addressing hash table (linear probing, at most half
     * full): 12 bytes per slot, 48 MiB for a 2,000,000-record run. Any id indexes, so a run of many copies (236 for
     * 2,000,000 records, ids 2.36 x 10^12 apart) or of late copies does as well as the first; an id two records share
     * (copies overlap) keeps the first record.
     */
    private final class IdIndex
    {
        private final long[] ids;
        private final int[] records;
        private final int mask;

        IdIndex(final long firstCopy, final int n)
        {
            final int slots = Integer.highestOneBit(Math.max(2, n) * 2 - 1) << 1;
            ids = new long[slots];
            records = new int[slots];
            Arrays.fill(records, -1);
            mask = slots - 1;
            for (int i = 0; i < n; i++)
            {
                final long id = idOf(i % lines, firstCopy + i / lines);
                int at = slot(id);
                while (records[at] >= 0 && ids[at] != id)
                {
                    at = (at + 1) & mask;
                }
                if (records[at] < 0)
                {
                    ids[at] = id;
                    records[at] = i;
                }
            }
        }

        private int slot(final long id)
        {
            final long h = id * 0x9E3779B97F4A7C15L;
            return (int)(h ^ (h >>> 32)) & mask;
        }

        /** @return the record number of {@code id} in this run, or -1 if no record of the run has it */
        int record(final long id)
        {
            int at = slot(id);
            while (records[at] >= 0)
            {
                if (ids[at] == id)
                {
                    return records[at];
                }
                at = (at + 1) & mask;
            }
            return -1;
        }
    }

    private static long parseId(final String s)
    {
        if (s == null || s.isEmpty() || s.length() > 18)
        {
            return -1;
        }
        long id = 0;
        for (int i = 0; i < s.length(); i++)
        {
            final char ch = s.charAt(i);
            if (ch < '0' || ch > '9')
            {
                return -1;
            }
            id = id * 10 + (ch - '0');
        }
        return id;
    }

    /**
     * @param line a TabSeparated row
     * @param columns the number of columns
     * @return its fields, unescaped; null for {@code \N}
     * @throws IllegalStateException if the row has another number of fields
     */
    static String[] fields(final String line, final int columns)
    {
        final String[] f = new String[columns];
        int start = 0;
        for (int c = 0; c < columns; c++)
        {
            int end = line.indexOf('\t', start);
            if (end < 0)
            {
                end = line.length();
            }
            if (c < columns - 1 && end == line.length() || c == columns - 1 && end != line.length())
            {
                throw new IllegalStateException("a row of " + columns + " columns expected, got: " + shorten(line));
            }
            f[c] = unescape(line, start, end);
            start = end + 1;
        }
        return f;
    }

    /** @return the TabSeparated field {@code s[start, end)} unescaped (ClickHouse's escapes), or null for {@code \N} */
    static String unescape(final String s, final int start, final int end)
    {
        if (end - start == 2 && s.charAt(start) == '\\' && s.charAt(start + 1) == 'N')
        {
            return null;
        }
        final int slash = s.indexOf('\\', start);
        if (slash < 0 || slash >= end)
        {
            return s.substring(start, end);
        }
        final StringBuilder b = new StringBuilder(end - start);
        for (int i = start; i < end; i++)
        {
            final char c = s.charAt(i);
            if (c != '\\' || i + 1 >= end)
            {
                b.append(c);
                continue;
            }
            final char e = s.charAt(++i);
            b.append(switch (e)
            {
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                case '0' -> '\0';
                case 'a' -> '\u0007';
                case 'v' -> '\u000b';
                default -> e; // \\ \' and any other character stand for themselves
            });
        }
        return b.toString();
    }
}
