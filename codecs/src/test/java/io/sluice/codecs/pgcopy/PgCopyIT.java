package io.sluice.codecs.pgcopy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.testing.Buffers;

/**
 * The binary COPY codec against the real PostgreSQL 15 of scripts/services.sh: a table with a column of every
 * supported type (and arrays of them), encoders compiled from the table's own catalog rows (pg_attribute,
 * pg_type, pg_enum), records encoded into one off-heap batch buffer and sent by ONE {@code COPY ... FROM STDIN
 * (FORMAT binary)} through pgJDBC's CopyManager, then every value read back under {@code SET TimeZone='UTC'} and
 * compared with the text PostgreSQL prints. The engine's JVM runs in Asia/Shanghai (case P5): no value may depend
 * on it. Records with a value the server would refuse are refused per value (the others of the batch land), and
 * for each kind of refusal the server is shown to refuse the same value with the SQLSTATE the code names. Reaches
 * the server through {@code -Dsluice.postgres.url} with the password of {@code -Dsluice.secure.dir}/secrets.env.
 */
class PgCopyIT
{
    private static final String SCHEMA = "pgcopy_it_" + Long.toHexString(System.nanoTime());
    private static final String[] COLUMNS = {"id", "b", "i2", "i4", "i8", "f4", "f8", "n", "n52", "t", "vc", "c",
        "j", "jb", "u", "d", "ts", "tz", "m", "ai", "at", "an", "ats", "am"};

    private static Connection connection;
    private static TimeZone zoneBefore;

    @BeforeAll
    static void connect() throws IOException, SQLException
    {
        zoneBefore = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
        final Path secure = Path.of(System.getProperty("sluice.secure.dir", ".sluice/secure"));
        final Path file = secure.resolve("secrets.env");
        assertTrue(Files.isRegularFile(file), file + " is missing: start the services with scripts/services.sh start");
        final Map<String, String> secrets = new HashMap<>();
        for (final String line : Files.readAllLines(file))
        {
            final int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0)
            {
                secrets.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertTrue(secrets.containsKey("SLUICE_TEST_POSTGRES_USER"), "SLUICE_TEST_POSTGRES_USER missing in " + file);
        final Properties p = new Properties();
        p.setProperty("user", secrets.get("SLUICE_TEST_POSTGRES_USER"));
        p.setProperty("password", secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
        p.setProperty("sslmode", "disable");
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        connection = DriverManager.getConnection(System.getProperty("sluice.postgres.url",
            "jdbc:postgresql://127.0.0.1:15432/sluice"), p);
        try (Statement s = connection.createStatement())
        {
            s.execute("CREATE SCHEMA " + SCHEMA);
            s.execute("CREATE TYPE " + SCHEMA + ".mood AS ENUM ('sad', 'ok', 'happy')");
            s.execute("CREATE TABLE " + SCHEMA + ".t (id integer NOT NULL, b boolean, i2 smallint, i4 integer, "
                + "i8 bigint, f4 real, f8 double precision, n numeric, n52 numeric(5,2), t text, vc varchar(5), "
                + "c char(4), j json, jb jsonb, u uuid, d date, ts timestamp, tz timestamptz, m " + SCHEMA + ".mood, "
                + "ai integer[], at text[], an numeric(6,2)[], ats timestamptz[], am " + SCHEMA + ".mood[])");
        }
    }

    @AfterAll
    static void dropSchema() throws SQLException
    {
        TimeZone.setDefault(zoneBefore);
        if (connection != null)
        {
            try (Statement s = connection.createStatement())
            {
                s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
            connection.close();
        }
    }

    /** The encoders of the table's columns, from its catalog rows, as the sink's binding reads them once. */
    private static Map<String, PgColumnEncoder> encodersFromCatalog() throws SQLException
    {
        final Map<String, PgColumnEncoder> encoders = new LinkedHashMap<>();
        final String sql = "SELECT a.attname, t.typname, t.typtype, a.atttypmod, a.attnotnull, t.oid, "
            + "e.oid, e.typname, e.typtype FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
            + "LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' "
            + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";
        try (PreparedStatement ps = connection.prepareStatement(sql))
        {
            ps.setString(1, SCHEMA + ".t");
            try (ResultSet r = ps.executeQuery())
            {
                while (r.next())
                {
                    final boolean array = r.getString(8) != null;
                    final String base = array ? r.getString(8) : r.getString(2);
                    final boolean isEnum = "e".equals(array ? r.getString(9) : r.getString(3));
                    PgType type = isEnum
                        ? PgType.enumeration(array ? r.getInt(7) : r.getInt(6), labels(array
                            ? r.getInt(7)
                            : r.getInt(6)))
                        : PgType.fromCatalog(base, r.getInt(4));
                    if (array)
                    {
                        type = type.arrayOf();
                    }
                    encoders.put(r.getString(1), PgColumnEncoder.forType(type, !r.getBoolean(5)));
                }
            }
        }
        return encoders;
    }

    private static List<String> labels(final int enumOid) throws SQLException
    {
        final List<String> labels = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(
            "SELECT enumlabel FROM pg_enum WHERE enumtypid = ? ORDER BY enumsortorder"))
        {
            ps.setInt(1, enumOid);
            try (ResultSet r = ps.executeQuery())
            {
                while (r.next())
                {
                    labels.add(r.getString(1));
                }
            }
        }
        return labels;
    }

    private static final String[] RECORDS = {
        // 1: every column
        "{\"id\":1,\"b\":true,\"i2\":-32768,\"i4\":\"42\",\"i8\":9223372036854775807,\"f4\":1.5,\"f8\":0.1,"
            + "\"n\":\"-12345.678900\",\"n52\":2.345,\"t\":\"h\\u00e9llo \\ud83d\\ude00\",\"vc\":\"abcde   \","
            + "\"c\":\"ab\",\"j\":{ \"a\" : [1, 2.50] },\"jb\":{\"b\":1,\"a\":[true,null]},"
            + "\"u\":\"F562AC3B-2224-4E25-A0AB-56094E10C239\",\"d\":\"2024-02-29\","
            + "\"ts\":\"2024-03-10T12:00:00+02:00\",\"tz\":\"2024-03-10T12:00:00+02:00\",\"m\":\"happy\","
            + "\"ai\":[1,null,3],\"at\":[\"x\",\"y z\"],\"an\":[1.005,-2],"
            + "\"ats\":[1710064800,\"2024-03-10 12:00:00\"],\"am\":[\"sad\",\"happy\"]}",
        // 2: case P5's other values, the rest null or absent
        "{\"id\":2,\"tz\":1659386157.403862,\"ts\":\"2024-03-10T10:00:00Z\",\"n\":1e-3,\"d\":0,\"b\":null}",
        // 3-9, 11: refused per value
        "{\"id\":3,\"t\":\"a\\u0000b\"}",
        "{\"id\":4,\"vc\":\"abcdef\"}",
        "{\"id\":5,\"n52\":999.995}",
        "{\"id\":6,\"jb\":{\"a\":\"\\u0000\"}}",
        "{\"id\":7,\"i2\":40000}",
        "{\"id\":8,\"u\":\"not-a-uuid\"}",
        "{\"id\":9,\"d\":\"0000-01-01\"}",
        // 10: what the server keeps as it is
        "{\"id\":10,\"j\":{\"a\":\"\\u0000\"},\"t\":\"\\\\u0000 literally\",\"ai\":[],\"at\":[null],"
            + "\"c\":\"abcd    \",\"f8\":\"-inf\",\"n\":0.000,\"ts\":-1.5}",
        "{\"t\":\"no id\"}"};

    @Test
    void shouldCopyEveryTypeAndReadItBack() throws Exception
    {
        final Map<String, PgColumnEncoder> encoders = encodersFromCatalog();
        assertEquals(List.of(COLUMNS), new ArrayList<>(encoders.keySet()));
        final PgColumnEncoder[] columns = encoders.values().toArray(new PgColumnEncoder[0]);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of(COLUMNS)),
            JsonScanner.DEFAULT_MAX_DEPTH);
        final JsonValueView value = new JsonValueView();
        final PgScratch scratch = new PgScratch(1 << 16);
        final Bytes<?> batch = Bytes.allocateElasticDirect(1 << 16);
        final Map<Integer, String> refused = new LinkedHashMap<>();
        int rows = 0;
        try
        {
            PgCopy.writeHeader(batch);
            for (int r = 0; r < RECORDS.length; r++)
            {
                final byte[] record = RECORDS[r].getBytes(StandardCharsets.UTF_8);
                final UnsafeBuffer slot = Buffers.offHeap(record);
                assertEquals(JsonError.NONE, scanner.scan(slot, Buffers.PAD, record.length), RECORDS[r]);
                final long tupleStart = batch.writePosition();
                PgCopy.beginTuple(batch, columns.length);
                for (int c = 0; c < columns.length; c++)
                {
                    scanner.value(c, value);
                    final int code = columns[c].encode(value, batch, scratch);
                    if (code != ConversionError.NONE)
                    {
                        batch.writePosition(tupleStart);
                        refused.put(r + 1, columns[c].describeFailure(COLUMNS[c], COLUMNS[c], code));
                        break;
                    }
                }
                if (!refused.containsKey(r + 1))
                {
                    rows++;
                }
            }
            PgCopy.writeTrailer(batch);
            final CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + SCHEMA
                + ".t (" + String.join(", ", COLUMNS) + ") FROM STDIN (FORMAT binary)");
            final byte[] chunk = new byte[4096];
            while (batch.readRemaining() > 0)
            {
                final int n = (int)Math.min(chunk.length, batch.readRemaining());
                batch.read(chunk, 0, n);
                copy.writeToCopy(chunk, 0, n);
            }
            assertEquals(rows, copy.endCopy(), "rows the server counted");
        }
        finally
        {
            batch.releaseLast();
        }

        assertEquals(List.of(3, 4, 5, 6, 7, 8, 9, 11), new ArrayList<>(refused.keySet()), refused.toString());
        assertTrue(refused.get(3).startsWith("column 't' (text) at path 't': NUL character") &&
            refused.get(3).contains("22021"), refused.get(3));
        assertTrue(refused.get(4).contains("'vc' (character varying(5))") && refused.get(4).contains("22001"),
            refused.get(4));
        assertTrue(refused.get(5).contains("'n52' (numeric(5,2))") && refused.get(5).contains("22003"),
            refused.get(5));
        assertTrue(refused.get(6).contains("'jb' (jsonb)") && refused.get(6).contains("NUL"), refused.get(6));
        assertTrue(refused.get(7).contains("'i2' (smallint)") && refused.get(7).contains("out of range"),
            refused.get(7));
        assertTrue(refused.get(8).contains("'u' (uuid)") && refused.get(8).contains("UUID"), refused.get(8));
        assertTrue(refused.get(9).contains("'d' (date)") && refused.get(9).contains("22008"), refused.get(9));
        assertTrue(refused.get(11).contains("'id' (integer)") && refused.get(11).contains("missing"),
            refused.get(11));

        final Map<Integer, Map<String, String>> stored = readBack();
        assertEquals(List.of(1, 2, 10), new ArrayList<>(stored.keySet()));
        final Map<String, String> one = stored.get(1);
        assertEquals("t", one.get("b"));
        assertEquals("-32768", one.get("i2"));
        assertEquals("42", one.get("i4"));
        assertEquals("9223372036854775807", one.get("i8"));
        assertEquals("1.5", one.get("f4"));
        assertEquals("0.1", one.get("f8"));
        assertEquals("-12345.678900", one.get("n"));
        assertEquals("2.35", one.get("n52"), "half away from zero, as PostgreSQL rounds");
        assertEquals("h\u00e9llo \uD83D\uDE00", one.get("t"));
        assertEquals("abcde", one.get("vc"));
        assertEquals("ab  ", one.get("c"), "the server pads char(4)");
        assertEquals("{ \"a\" : [1, 2.50] }", one.get("j"), "json keeps the original text");
        assertEquals("{\"a\": [true, null], \"b\": 1}", one.get("jb"));
        assertEquals("f562ac3b-2224-4e25-a0ab-56094e10c239", one.get("u"));
        assertEquals("2024-02-29", one.get("d"));
        assertEquals("2024-03-10 10:00:00", one.get("ts"), "the UTC wall time, never 12:00 with the offset dropped");
        assertEquals("2024-03-10 10:00:00+00", one.get("tz"));
        assertEquals("happy", one.get("m"));
        assertEquals("{1,NULL,3}", one.get("ai"));
        assertEquals("{x,\"y z\"}", one.get("at"));
        assertEquals("{1.01,-2.00}", one.get("an"));
        assertEquals("{\"2024-03-10 10:00:00+00\",\"2024-03-10 12:00:00+00\"}", one.get("ats"));
        assertEquals("{sad,happy}", one.get("am"));

        final Map<String, String> two = stored.get(2);
        assertEquals("2022-08-01 20:35:57.403862+00", two.get("tz"));
        assertEquals("2024-03-10 10:00:00", two.get("ts"));
        assertEquals("0.001", two.get("n"));
        assertEquals("1970-01-01", two.get("d"));
        for (final String column : new String[]{"b", "i2", "t", "j", "jb", "u", "m", "ai", "am"})
        {
            assertEquals(null, two.get(column), column + " of record 2 is NULL");
        }

        final Map<String, String> ten = stored.get(10);
        assertEquals("{\"a\":\"\\u0000\"}", ten.get("j"), "json stores \\u0000 as text, as the server's json_in");
        assertEquals("\\u0000 literally", ten.get("t"));
        assertEquals("{}", ten.get("ai"));
        assertEquals("{NULL}", ten.get("at"));
        assertEquals("abcd", ten.get("c"));
        assertEquals("-Infinity", ten.get("f8"));
        assertEquals("0.000", ten.get("n"));
        assertEquals("1969-12-31 23:59:58.5", ten.get("ts"), "epoch -1.5 s");
    }

    private static Map<Integer, Map<String, String>> readBack() throws SQLException
    {
        final Map<Integer, Map<String, String>> rows = new LinkedHashMap<>();
        try (Statement s = connection.createStatement())
        {
            s.execute("SET TimeZone = 'UTC'");
            try (ResultSet r = s.executeQuery("SELECT " + String.join(", ", COLUMNS) + " FROM " + SCHEMA
                + ".t ORDER BY id"))
            {
                while (r.next())
                {
                    final Map<String, String> row = new HashMap<>();
                    for (int c = 0; c < COLUMNS.length; c++)
                    {
                        row.put(COLUMNS[c], r.getString(c + 1));
                    }
                    rows.put(r.getInt(1), row);
                }
            }
        }
        return rows;
    }

    /** Each kind of value the codec refuses, the server refuses too when it gets it as text, with this SQLSTATE. */
    @Test
    void shouldRefuseWhatTheServerRefuses() throws SQLException
    {
        final String[][] cases = {
            {"character varying(5)", "\"abcdef\"", "abcdef", "22001"},
            {"numeric(5,2)", "999.995", "999.995", "22003"},
            {"smallint", "40000", "40000", "22003"},
            {"jsonb", "{\"a\":\"\\u0000\"}", "{\"a\":\"\\u0000\"}", "22P05"},
            {"uuid", "\"not-a-uuid\"", "not-a-uuid", "22P02"},
            {"uuid", "\"{f562ac3b-2224-4e25-a0ab-56094e10c239}\"", null, null},
            {"date", "\"0000-01-01\"", "0000-01-01", "22008"},
            {"date", "\"2023-02-29\"", "2023-02-29", "22008"},
            {"char(2)", "\"abc\"", "abc", "22001"}};
        int tables = 0;
        for (final String[] c : cases)
        {
            assertTrue(PgValues.code(c[0], c[1]) != ConversionError.NONE, c[0] + " <- " + c[1] + " refused");
            if (c[2] == null)
            {
                continue; // the server takes braces; the codec keeps to the canonical form on purpose
            }
            // an INSERT, not a cast: an explicit cast to varchar(n) or char(n) truncates, assignment refuses
            final String table = SCHEMA + ".refused_" + (++tables);
            try (Statement s = connection.createStatement())
            {
                s.execute("CREATE TABLE " + table + " (v " + c[0] + ")");
            }
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + table + " (v) VALUES (?)"))
            {
                ps.setObject(1, c[2], Types.OTHER);
                final SQLException e = assertThrows(SQLException.class, ps::executeUpdate, c[0] + " <- " + c[2]);
                assertEquals(c[3], e.getSQLState(), c[0] + " <- " + c[2] + ": " + e.getMessage());
            }
        }
    }

    /**
     * The server's own text input as the oracle: random numbers and date-times are COPYed both through the codec
     * (numeric, numeric(12,4), double precision, timestamptz, timestamp) and as their JSON text (a text column),
     * then PostgreSQL casts the text and compares: not one row may differ. Values the codec refuses for
     * numeric(12,4) must be refused by the server's cast too.
     */
    @Test
    void shouldAgreeWithTheServersTextInputOnRandomValues() throws Exception
    {
        try (Statement s = connection.createStatement())
        {
            s.execute("CREATE TABLE " + SCHEMA + ".r (id integer, src text, n numeric, n124 numeric(12,4), "
                + "f8 double precision, tsrc text, tz timestamptz, ts timestamp)");
        }
        final String[] columns = {"id", "src", "n", "n124", "f8", "tsrc", "tz", "ts"};
        final String[] types = {"integer", "text", "numeric", "numeric(12,4)", "double precision", "text",
            "timestamptz", "timestamp"};
        final PgColumnEncoder[] encoders = new PgColumnEncoder[types.length];
        for (int c = 0; c < types.length; c++)
        {
            encoders[c] = PgColumnEncoder.forType(types[c], true);
        }
        final java.util.Random random = new java.util.Random(15);
        final PgScratch scratch = new PgScratch(1 << 12);
        final Bytes<?> batch = Bytes.allocateElasticDirect(1 << 20);
        final List<String> overflowing = new ArrayList<>();
        int rows = 0;
        try
        {
            PgCopy.writeHeader(batch);
            for (int id = 0; id < 5_000; id++)
            {
                final String number = randomNumber(random);
                final String time = randomDateTime(random);
                final String record = "{\"id\":" + id + ",\"src\":" + number + ",\"n\":" + number + ",\"n124\":"
                    + number + ",\"f8\":" + number + ",\"tsrc\":\"" + time + "\",\"tz\":\"" + time + "\",\"ts\":\""
                    + time + "\"}";
                final byte[] bytes = record.getBytes(StandardCharsets.UTF_8);
                final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of(columns)),
                    JsonScanner.DEFAULT_MAX_DEPTH);
                assertEquals(JsonError.NONE, scanner.scan(Buffers.offHeap(bytes), Buffers.PAD, bytes.length), record);
                final long start = batch.writePosition();
                PgCopy.beginTuple(batch, columns.length);
                final JsonValueView value = new JsonValueView();
                for (int c = 0; c < columns.length; c++)
                {
                    scanner.value(c, value);
                    final int code = encoders[c].encode(value, batch, scratch);
                    if (code != ConversionError.NONE)
                    {
                        assertEquals("n124", columns[c], record + ": " + encoders[c].describeFailure(columns[c],
                            columns[c], code));
                        assertEquals(PgCopyError.NUMERIC_OVERFLOW, code, record);
                        overflowing.add(number);
                        batch.writePosition(start);
                        break;
                    }
                    if (c == columns.length - 1)
                    {
                        rows++;
                    }
                }
            }
            PgCopy.writeTrailer(batch);
            final byte[] all = new byte[(int)batch.readRemaining()];
            batch.read(all);
            final CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + SCHEMA
                + ".r (" + String.join(", ", columns) + ") FROM STDIN (FORMAT binary)");
            copy.writeToCopy(all, 0, all.length);
            assertEquals(rows, copy.endCopy());
        }
        finally
        {
            batch.releaseLast();
        }
        assertTrue(rows > 4_000 && !overflowing.isEmpty(), rows + " rows, " + overflowing.size() + " overflowing");
        try (Statement s = connection.createStatement())
        {
            s.execute("SET TimeZone = 'UTC'");
            try (ResultSet r = s.executeQuery("SELECT id, src, n::text, src::numeric::text, n124::text, "
                + "src::numeric(12,4)::text, f8, src::float8, tsrc, tz::text, tsrc::timestamptz::text, ts::text, "
                + "(tsrc::timestamptz AT TIME ZONE 'UTC')::text FROM " + SCHEMA + ".r WHERE n::text <> "
                + "src::numeric::text OR n124::text <> src::numeric(12,4)::text OR f8 <> src::float8 OR tz <> "
                + "tsrc::timestamptz OR ts <> tsrc::timestamptz AT TIME ZONE 'UTC' LIMIT 5"))
            {
                final StringBuilder differing = new StringBuilder();
                while (r.next())
                {
                    for (int c = 1; c <= 13; c++)
                    {
                        differing.append(r.getString(c)).append(c < 13 ? " | " : "\n");
                    }
                }
                assertEquals("", differing.toString(), "rows where the codec and the server's text input differ");
            }
        }
        for (final String number : overflowing.subList(0, Math.min(20, overflowing.size())))
        {
            try (PreparedStatement ps = connection.prepareStatement("SELECT ?::numeric(12,4)"))
            {
                ps.setString(1, number);
                final SQLException e = assertThrows(SQLException.class, ps::executeQuery, number);
                assertEquals("22003", e.getSQLState(), number + ": " + e.getMessage());
            }
        }
    }

    private static String randomNumber(final java.util.Random random)
    {
        final StringBuilder text = new StringBuilder();
        if (random.nextBoolean())
        {
            text.append('-');
        }
        final int intDigits = random.nextInt(11);
        text.append(intDigits == 0 ? "0" : String.valueOf(1 + random.nextInt(9)));
        for (int d = 1; d < intDigits; d++)
        {
            text.append(random.nextInt(10));
        }
        final int fracDigits = random.nextInt(9);
        if (fracDigits > 0)
        {
            text.append('.');
            for (int d = 0; d < fracDigits; d++)
            {
                // fives and nines make ties and carries common
                final int pick = random.nextInt(5);
                text.append(pick == 0 ? '5' : pick == 1 ? '9' : pick == 2 ? '0' : (char)('0' + random.nextInt(10)));
            }
        }
        if (random.nextInt(5) == 0)
        {
            text.append(random.nextBoolean() ? 'e' : 'E').append(random.nextInt(13) - 6);
        }
        return text.toString();
    }

    private static String randomDateTime(final java.util.Random random)
    {
        final StringBuilder t = new StringBuilder(String.format("%04d-%02d-%02d", 1 + random.nextInt(9999),
            1 + random.nextInt(12), 1 + random.nextInt(28)));
        t.append(random.nextBoolean() ? 'T' : ' ').append(String.format("%02d:%02d:%02d", random.nextInt(24),
            random.nextInt(60), random.nextInt(60)));
        final int fraction = random.nextInt(7);
        if (fraction > 0)
        {
            t.append('.');
            for (int d = 0; d < fraction; d++)
            {
                t.append(random.nextInt(10));
            }
        }
        switch (random.nextInt(4))
        {
            case 0 :
                t.append('Z');
                break;
            case 1 :
                t.append(String.format("%c%02d:%02d", random.nextBoolean() ? '+' : '-', random.nextInt(15),
                    random.nextInt(4) * 15));
                break;
            case 2 :
                t.append(String.format("%c%02d", random.nextBoolean() ? '+' : '-', random.nextInt(15)));
                break;
            default :
                break;
        }
        return t.toString();
    }
}
