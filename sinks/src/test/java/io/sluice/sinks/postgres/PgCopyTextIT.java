package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
import io.sluice.codecs.pgcopy.PgColumnEncoder;
import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.pgcopy.PgScratch;
import io.sluice.codecs.pgcopy.PgType;
import io.sluice.codecs.rowbinary.ConversionError;

/**
 * {@link PgCopyText} (what {@code explain} shows for a postgres sink) against the real PostgreSQL 15 of
 * scripts/services.sh: for every type the encoders write, values of many shapes are encoded by the sink's own column
 * encoders, read back by the reader, and the same bytes sent by binary COPY into a column of that type; the server's
 * output function (what psql shows, session zone UTC) must print exactly what the reader printed. SQL NULL is
 * {@code \N}.
 */
class PgCopyTextIT
{
    private static final String SCHEMA = "pgtext_" + Long.toString(System.currentTimeMillis(), 36);

    /**
     * The text of the type's output function ({@code boolout}'s {@code t}, {@code bpcharout}'s padding), as psql
     * shows it: {@code format('%s', v)} calls it, where a cast to text would print {@code true} and trim char(n).
     */
    private static final String OUTPUT = "CASE WHEN v IS NULL THEN NULL ELSE format('%s', v) END";

    private static Connection connection;

    /** Per column type: JSON values the encoder takes. */
    private static final Map<String, List<String>> CASES = new LinkedHashMap<>();

    static
    {
        CASES.put("boolean", List.of("true", "false", "\"1\"", "0", "\"FALSE\"", "null"));
        CASES.put("smallint", List.of("0", "-32768", "32767", "\"12\"", "1e2"));
        CASES.put("integer", List.of("-2147483648", "2147483647", "5.0", "-1"));
        CASES.put("bigint", List.of("-9223372036854775808", "9223372036854775807", "1e3", "\"42\""));
        CASES.put("real", List.of("0", "-0.0", "1", "0.1", "1e6", "123456", "1234567", "999999", "1e-5", "0.0001",
            "3.4028235e38", "1.4e-45", "\"nan\"", "\"inf\"", "\"-inf\"", "100000", "-2.5", "16777217", "0.3"));
        CASES.put("double precision", List.of("0", "-0.0", "0.1", "1e15", "123456789012345", "999999999999999",
            "1e-5", "0.0001", "0.00012345", "1.7976931348623157e308", "4.9e-324", "1e22", "2.5",
            "1234567890123456789", "-3.14", "\"nan\"", "\"-inf\"", "1e100", "0.1e-4", "5e-324", "100"));
        CASES.put("numeric", List.of("0", "0.000", "1.50", "-2.5", "1e2", "1.5e-3", "-0",
            "123456789012345678901234567890.123456789", "-0.0001", "10000", "99990000", "0.00001", "1e-20",
            "\"77.70\"", "12345.6789e4"));
        CASES.put("numeric(12,2)", List.of("1.005", "-1.005", "1234567890.12", "0.5", "-0.004", "7", "1e3"));
        CASES.put("numeric(5,-2)", List.of("12345", "-149", "0"));
        CASES.put("numeric(3,5)", List.of("0.001", "0.00999"));
        CASES.put("text", List.of("\"\"", "\"a b\"", "\"é ü 日本 🎉\"", "\"tab\\there\"", "\"line\\nnext\"",
            "\"\\\\N\"", "\"quote\\\"\"", "12.50", "{\"a\": 1}", "true", "[1,2]", "null"));
        CASES.put("character varying(5)", List.of("\"abc\"", "\"abc    \"", "\"日本語\"", "\"\""));
        CASES.put("character(4)", List.of("\"ab\"", "\"\"", "\"abcd\"", "\"é\"", "\"ab      \""));
        CASES.put("bpchar", List.of("\"ab \"", "\"x\""));
        CASES.put("json", List.of("{\"b\":1,\"a\":[1,2.50]}", "\"str\"", "1e2", "{\"a\":\"\\u0000\"}",
            "[ 1 , {} ]", "{\"a\":1,\"a\":2}"));
        CASES.put("jsonb", List.of("{\"b\":1,\"a\":2,\"aa\":3}", "{\"a\":1,\"a\":2}", "[1,1e2,1.50,-0,1E-3,-0.0]",
            "\"\\u0041\\/x\"", "{\"k\":\"tab\\tx\\u001f\\u007f\"}", "1.0e1", "{}", "[]", "true", "\"é\\u00e9\"",
            "{\"nested\":{\"z\":null,\"y\":[{}],\"é\":1,\"e\":2}}", "12345678901234567890", "1.2E+3",
            "\"\\ud83c\\udf89\"", "\"a\\\"b\\\\c\\bd\\fe\\nf\\rg\"", "null", "0.000100", "-12.5e-1"));
        CASES.put("uuid",
            List.of("\"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\"", "\"00000000-0000-0000-0000-000000000000\"",
                "\"ffffffff-ffff-ffff-ffff-ffffffffffff\""));
        CASES.put("date", List.of("\"2024-02-29\"", "\"0001-01-01\"", "\"9999-12-31\"", "-719528", "-719529",
            "-2440587", "2932897", "19000", "0", "\"1970-01-01\""));
        for (final String ts : List.of("timestamp without time zone", "timestamp with time zone"))
        {
            CASES.put(ts, List.of("\"2024-03-10T12:00:00+02:00\"", "1659386157.403862", "\"0001-01-01 00:00:00\"",
                "-62135596801", "1e10", "\"2024-03-10 12:00:00.5\"", "253402300800", "0", "-0.000001",
                "\"1999-12-31T23:59:59.999999Z\"", "-62198755200.5"));
        }
        // the server rounds to the column's precision, half away from zero, also before 2000 (negative micros)
        final List<String> fractions = List.of("\"2024-03-10T12:00:00.123Z\"", "\"2024-01-01T00:00:00.123456Z\"",
            "\"2024-01-01T00:00:00.1235Z\"", "\"2024-01-01T00:00:00.9999995Z\"", "\"1999-12-31T23:59:59.4995Z\"",
            "\"1999-12-31T23:59:59.0005Z\"", "\"0001-01-01T00:00:00.5Z\"", "1659386157.403862", "-0.0005");
        for (final String ts : List.of("timestamp(3) with time zone", "timestamp(0) without time zone",
            "timestamp(5) with time zone", "timestamp(1) without time zone[]"))
        {
            CASES.put(ts, ts.endsWith("[]")
                ? List.of("[\"2024-01-01T00:00:00.25Z\", \"2024-01-01T00:00:00.35Z\"]")
                : fractions);
        }
        CASES.put("integer[]", List.of("[1,null,3]", "[]", "[null]", "[-2147483648]"));
        CASES.put("text[]", List.of("[\"a b\",\"\",null,\"NULL\",\"null\",\"q\\\"x\",\"b\\\\s\",\"{x}\",\"c,d\","
            + "\"plain\"]", "[\"é\", \"tab\\tx\", \"nl\\nx\"]", "[\"Null\", \" lead\"]", "[1, true]"));
        CASES.put("numeric(5,1)[]", List.of("[1.25, -0.05, null]"));
        CASES.put("timestamp with time zone[]", List.of("[\"2024-01-01T00:00:00Z\", 1.5]"));
        CASES.put("date[]", List.of("[\"2024-01-01\", -719529]"));
        CASES.put("boolean[]", List.of("[true,false,null]"));
        CASES.put("jsonb[]", List.of("[{\"b\":1,\"a\":2}, \"x\", [1, 2]]"));
        CASES.put("json[]", List.of("[{\"b\":1}, \"x\"]"));
        CASES.put("uuid[]", List.of("[\"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\"]"));
        CASES.put("double precision[]", List.of("[1e300, 0.1, \"nan\", \"-inf\"]"));
        CASES.put("real[]", List.of("[1e7, 0.5]"));
        CASES.put("character varying(3)[]", List.of("[\"ab\", \"a,\"]"));
        CASES.put("character(3)[]", List.of("[\"a\", \"abc\"]"));
        CASES.put("bigint[]", List.of("[9223372036854775807]"));
        CASES.put("smallint[]", List.of("[1, -1]"));
        CASES.put("numeric[]", List.of("[1e-3, 100]"));
    }

    @BeforeAll
    static void connect() throws IOException, SQLException
    {
        connection = PgTestServer.open();
        try (Statement s = connection.createStatement())
        {
            s.execute("SET TimeZone = 'UTC'");
            s.execute("CREATE SCHEMA " + SCHEMA);
        }
    }

    @AfterAll
    static void drop() throws SQLException
    {
        if (connection != null)
        {
            try (Statement s = connection.createStatement())
            {
                s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
            connection.close();
        }
    }

    @Test
    void shouldPrintEveryTypeAsTheServerPrintsIt() throws Exception
    {
        final List<String> mismatches = new ArrayList<>();
        int compared = 0;
        int table = 0;
        for (final Map.Entry<String, List<String>> c : CASES.entrySet())
        {
            final String name = SCHEMA + ".t" + table++;
            final String type = c.getKey();
            sql("CREATE TABLE " + name + " (n integer, v " + type + ")");
            final List<String> shown = copy(name, PgType.parse(type), c.getValue(), type);
            final List<String> server = new ArrayList<>();
            try (Statement s = connection.createStatement();
                ResultSet r = s.executeQuery("SELECT " + OUTPUT + " FROM " + name + " ORDER BY n"))
            {
                while (r.next())
                {
                    server.add(r.getString(1) == null ? "\\N" : r.getString(1));
                }
            }
            assertEquals(c.getValue().size(), server.size(), type + ": rows landed");
            for (int i = 0; i < server.size(); i++)
            {
                compared++;
                if (!server.get(i).equals(shown.get(i)))
                {
                    mismatches.add(type + " " + c.getValue().get(i) + ": server " + server.get(i) + ", reader "
                        + shown.get(i));
                }
            }
        }
        assertEquals(List.of(), mismatches, "of " + compared + " values");
        assertTrue(compared > 150, "values compared: " + compared);
    }

    @Test
    void shouldPrintAnEnumAsItsLabelAndRefuseShortOrExcessBytes() throws Exception
    {
        sql("CREATE TYPE " + SCHEMA + ".mood AS ENUM ('sad', 'so so', 'ok')", "CREATE TABLE " + SCHEMA
            + ".e (n integer, v " + SCHEMA + ".mood)");
        final List<String> shown = copy(SCHEMA + ".e", PgType.enumeration(0, List.of("sad", "so so", "ok")),
            List.of("\"so so\"", "\"ok\""), "text");
        assertEquals(List.of("so so", "ok"), shown);
        // a tuple that ends inside a value, or holds more values than read, is said so
        final byte[] cut = {0, 1, 0, 0, 0, 8, 0, 0, 0, 1};
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new PgCopyText(cut).next("bigint"));
        assertTrue(e.getMessage().contains("ends inside a bigint"), e.getMessage());
        final byte[] two = {0, 2, 0, 0, 0, 4, 0, 0, 0, 7, -1, -1, -1, -1};
        final PgCopyText t = new PgCopyText(two);
        assertEquals("7", t.next("integer"));
        assertEquals(4, t.remaining());
        assertEquals("\\N", t.next("integer"));
        assertEquals(0, t.remaining());
        assertThrows(IllegalArgumentException.class, () -> t.next("integer"));
        final IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
            () -> new PgCopyText(new byte[]{0, 1, 0, 0, 0, 4, 0, 0, 0, 7}).next("bigint"));
        assertTrue(wrong.getMessage().contains("ends inside"), wrong.getMessage());
        final IllegalArgumentException excess = assertThrows(IllegalArgumentException.class,
            () -> new PgCopyText(new byte[]{0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 7}).next("integer"));
        assertTrue(excess.getMessage().contains("4 bytes left"), excess.getMessage());
    }

    /**
     * Encodes the values with the column encoder of {@code type}, COPYs them (with their index as n) into
     * {@code table}, and returns what the reader prints for each.
     */
    private static List<String> copy(final String table, final PgType type, final List<String> values,
        final String readAs) throws Exception
    {
        final PgColumnEncoder n = PgColumnEncoder.forType("integer", false);
        final PgColumnEncoder v = PgColumnEncoder.forType(type, true);
        final PgScratch scratch = new PgScratch(1 << 16);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("n", "v")),
            JsonScanner.DEFAULT_MAX_DEPTH);
        final JsonValueView value = new JsonValueView();
        final Bytes<?> batch = Bytes.allocateElasticDirect(1 << 16);
        final Bytes<?> row = Bytes.allocateElasticOnHeap(256);
        final List<String> shown = new ArrayList<>();
        try
        {
            PgCopy.writeHeader(batch);
            for (int i = 0; i < values.size(); i++)
            {
                final byte[] json = ("{\"n\":" + i + ",\"v\":" + values.get(i) + "}").getBytes(StandardCharsets.UTF_8);
                final UnsafeBuffer slot = new UnsafeBuffer(ByteBuffer.allocateDirect(json.length + 128));
                slot.putBytes(64, json);
                assertEquals(JsonError.NONE, scanner.scan(slot, 64, json.length), values.get(i));
                PgCopy.beginTuple(batch, 2);
                scanner.value(0, value);
                assertEquals(ConversionError.NONE, n.encode(value, batch, scratch));
                scanner.value(1, value);
                final long at = batch.writePosition();
                final int code = v.encode(value, batch, scratch);
                assertEquals(ConversionError.NONE, code,
                    type + " " + values.get(i) + ": " + PgCopyError.describe(code));
                final byte[] field = new byte[(int)(batch.writePosition() - at)];
                batch.read(at, field, 0, field.length);
                row.clear();
                PgCopy.writeInt16(row, 1);
                row.write(field);
                final PgCopyText text = new PgCopyText(row.toByteArray());
                shown.add(text.next(readAs));
                assertEquals(0, text.remaining(), type + " " + values.get(i) + ": bytes left unread");
            }
            PgCopy.writeTrailer(batch);
            final CopyIn in = connection.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + table + " (n, v) FROM STDIN (FORMAT binary)");
            final byte[] all = new byte[(int)batch.readRemaining()];
            batch.read(all);
            in.writeToCopy(all, 0, all.length);
            assertEquals(values.size(), in.endCopy(), table + ": rows copied");
        }
        finally
        {
            batch.releaseLast();
            row.releaseLast();
        }
        return shown;
    }

    private static void sql(final String... statements) throws SQLException
    {
        try (Statement s = connection.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }
}
