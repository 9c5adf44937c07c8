package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import java.util.stream.Collectors;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.pgcopy.PgScratch;
import io.sluice.core.gather.batch.OmissionMask;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.PathRegistry;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * {@link PgJsonRowEncoder} against the real PostgreSQL of scripts/services.sh: tables bound through
 * {@link PostgresCatalog#describe}, records encoded by the encoder into one off-heap buffer, the rows grouped by
 * omission mask and each group sent by one {@code COPY ... (columns) FROM STDIN (FORMAT binary)} (header, the
 * tuples without their masks, trailer) as the sink's writer does, then read back under {@code SET TimeZone='UTC'} and
 * compared value by value. The JVM's default zone is Asia/Shanghai throughout (case P5): no value may depend on it.
 * Case P4 (a NUL in text) and other values the server would refuse are refused per record while the rest lands; an
 * identity column and a {@code DEFAULT now()} column are filled by the server for the rows that lack them. Reaches the
 * server through {@code -Dsluice.postgres.url} as user {@code SLUICE_TEST_POSTGRES_USER} of
 * {@code -Dsluice.secure.dir}/secrets.env; works in a schema of its own, dropped at the end.
 */
class PgJsonRowEncoderIT
{
    private static final String SCHEMA = "pgenc_" + Long.toString(System.currentTimeMillis(), 36);

    private static Properties props;
    private static TimeZone zoneBefore;

    private final PathRegistry paths = new PathRegistry(64);
    private final JsonRecord record = new JsonRecord(paths);
    private final RecordEvent event = new RecordEvent(new UnsafeBuffer(new byte[1 << 14]));

    PgJsonRowEncoderIT()
    {
        final TopicRegistry topics = new TopicRegistry();
        topics.idOf("orders.eu");
        record.topics(topics);
    }

    private static String url()
    {
        return System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    @BeforeAll
    static void connect() throws IOException, SQLException
    {
        zoneBefore = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
        props = PgTestServer.props();
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA));
    }

    @AfterAll
    static void dropSchema() throws SQLException
    {
        TimeZone.setDefault(zoneBefore);
        sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE");
    }

    private static Connection open() throws SQLException
    {
        return DriverManager.getConnection(url(), props);
    }

    private static void sql(final String... statements) throws SQLException
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }

    private static String q(final String table)
    {
        return PostgresIdentifiers.qualified(SCHEMA, table);
    }

    /** Encodes records: the refusals by record index; the rows' bytes in {@code out}, their ends in {@code ends}. */
    private Map<Integer, String> encode(final RowEncoder.Bound<JsonRecord> bound, final List<String> records,
        final Bytes<?> out, final List<long[]> rows)
    {
        final Map<Integer, String> refused = new LinkedHashMap<>();
        for (int i = 0; i < records.size(); i++)
        {
            final byte[] b = records.get(i).getBytes(StandardCharsets.UTF_8);
            event.beginRecord(null, b.length + 512, 0, 0, i, 1_736_235_881_542L, 0, 1);
            event.putValue(b);
            final long start = out.writePosition();
            final JsonRecord r = record.decode(event);
            final String wrong = r == null ? record.error() : bound.encode(r, out);
            if (wrong != null)
            {
                out.writePosition(start); // the caller rewinds a failed row
                refused.put(i, wrong);
            }
            else
            {
                rows.add(new long[]{start, out.writePosition()});
            }
        }
        return refused;
    }

    /**
     * Sends the encoded rows as the writer does: grouped by omission mask, one binary COPY per group naming the
     * columns that are not left out.
     */
    private static void copy(final String table, final RowEncoder.Bound<JsonRecord> bound, final Bytes<?> out,
        final List<long[]> rows) throws SQLException
    {
        final int[] omittable = bound.omittableColumns();
        final Map<Long, List<long[]>> groups = new LinkedHashMap<>();
        for (final long[] row : rows)
        {
            final long mask = omittable.length == 0 ? 0 : OmissionMask.read(out, row[0]);
            groups.computeIfAbsent(mask, k -> new ArrayList<>()).add(row);
        }
        try (Connection c = open())
        {
            for (final Map.Entry<Long, List<long[]>> g : groups.entrySet())
            {
                final List<String> columns = new ArrayList<>(bound.columns());
                for (int bit = omittable.length - 1; bit >= 0; bit--)
                {
                    if ((g.getKey() & 1L << bit) != 0)
                    {
                        columns.remove(omittable[bit]);
                    }
                }
                final String sql = "COPY " + q(table) + " (" + columns.stream().map(PostgresIdentifiers::quote)
                    .collect(Collectors.joining(", ")) + ") FROM STDIN (FORMAT binary)";
                final Bytes<Void> stream = Bytes.allocateElasticDirect(1 << 12);
                try
                {
                    PgCopy.writeHeader(stream);
                    for (final long[] row : g.getValue())
                    {
                        final long from = row[0] + (omittable.length == 0 ? 0 : 8);
                        final byte[] tuple = new byte[(int)(row[1] - from)];
                        for (int i = 0; i < tuple.length; i++)
                        {
                            tuple[i] = out.readByte(from + i);
                        }
                        stream.write(tuple);
                    }
                    PgCopy.writeTrailer(stream);
                    final byte[] all = new byte[(int)stream.writePosition()];
                    for (int i = 0; i < all.length; i++)
                    {
                        all[i] = stream.readByte(i);
                    }
                    final CopyIn in = c.unwrap(PGConnection.class).getCopyAPI().copyIn(sql);
                    in.writeToCopy(all, 0, all.length);
                    assertEquals(g.getValue().size(), in.endCopy(), sql);
                }
                finally
                {
                    stream.releaseLast();
                }
            }
        }
    }

    /** The rows of a query as text, one string per row, columns joined by {@code |}, NULL as {@code ∅}. */
    private static List<String> select(final String query) throws SQLException
    {
        final List<String> rows = new ArrayList<>();
        try (Connection c = open(); Statement s = c.createStatement())
        {
            s.execute("SET TimeZone = 'UTC'");
            try (ResultSet r = s.executeQuery(query))
            {
                final int n = r.getMetaData().getColumnCount();
                while (r.next())
                {
                    final List<String> values = new ArrayList<>();
                    for (int i = 1; i <= n; i++)
                    {
                        final String v = r.getString(i);
                        values.add(v == null ? "∅" : v);
                    }
                    rows.add(String.join("|", values));
                }
            }
        }
        return rows;
    }

    private RowEncoder.Bound<JsonRecord> bind(final String table, final Map<String, String> mapping)
        throws Exception
    {
        final PostgresCatalog catalog = new PostgresCatalog(PgJsonRowEncoderIT::open, url(),
            PostgresCatalog.Creation.OFF);
        final TableSchema schema = catalog.describe(SCHEMA, table);
        assertNotNull(schema, table);
        final PgJsonRowEncoder encoder = new PgJsonRowEncoder("b", mapping, record.scope(), false, false,
            new PgScratch(1 << 16));
        return encoder.bind(schema, catalog);
    }

    @Test
    void shouldLandEveryValueTheWayTheRecordSaysAndRefuseBadOnesPerRecord() throws Exception
    {
        sql("CREATE TYPE " + q("mood") + " AS ENUM ('sad', 'ok')", "CREATE DOMAIN " + q("code")
            + " AS varchar(4) NOT NULL",
            "CREATE TABLE " + q("all.types") + " (id integer NOT NULL, s text, n numeric(10,2), doc jsonb, "
                + "u uuid, tags text[], m " + q("mood") + ", c " + q("code") + " DEFAULT 'none', "
                + "k text DEFAULT 'x', created timestamptz DEFAULT now(), "
                + "seq bigint GENERATED ALWAYS AS IDENTITY, twice integer GENERATED ALWAYS AS (id * 2) STORED)");
        final RowEncoder.Bound<JsonRecord> bound = bind("all.types", Map.of());
        assertEquals(List.of("id", "s", "n", "doc", "u", "tags", "m", "c", "k", "created", "seq"), bound.columns());
        // c's DEFAULT 'none' is a constant coerced to its domain (COERCETODOMAIN): written by Sluice, as k's constant;
        // now() and the identity are left to the server
        assertArrayEquals(new int[]{9, 10}, bound.omittableColumns());

        final List<String> records = List.of(
            "{\"id\":1,\"s\":\"h\\u00e9llo \\\"q\\\"\",\"n\":\"12.345\",\"doc\":{\"b\": 1.10, \"a\":[1, 2e0]},"
                + "\"u\":\"6F9619FF-8B86-D011-B42D-00CF4FC964FF\",\"tags\":[\"a\",null,\"c\"],\"m\":\"ok\",\"c\":\"ab\"}",
            // P4: a NUL in text is refused for this record alone
            "{\"id\":2,\"s\":\"a\\u0000b\"}",
            "{\"id\":3,\"n\":100000000}",
            "{\"id\":4,\"c\":\"abcde\"}",
            "{\"id\":5,\"c\":null}",
            "{\"id\":6,\"m\":\"happy\"}",
            "{\"id\":7,\"created\":\"2020-01-01T00:00:00Z\",\"seq\":1000,\"k\":null}",
            "{\"s\":\"no id\"}",
            "{\"id\":9,\"n\":-0.005,\"doc\":\"just a string\",\"tags\":[]}");
        final Bytes<Void> out = Bytes.allocateElasticDirect(1 << 12);
        try
        {
            final List<long[]> rows = new ArrayList<>();
            final Map<Integer, String> refused = encode(bound, records, out, rows);
            assertEquals(Map.of(
                1, "column s (text) from path s: " + PgCopyError.describe(PgCopyError.NUL_CHARACTER)
                    + " (value \"a\\u0000b\")",
                2, "column n (numeric(10,2)) from path n: " + PgCopyError.describe(PgCopyError.NUMERIC_OVERFLOW)
                    + " (value 100000000)",
                3,
                "column c (" + SCHEMA + ".code) from path c: " + PgCopyError.describe(PgCopyError.TOO_MANY_CHARACTERS)
                    + " (value \"abcde\")",
                4, "column c (" + SCHEMA + ".code) from path c: " + PgCopyError.describe(
                    io.sluice.codecs.rowbinary.ConversionError.NULL_NOT_ALLOWED) + " (value null)",
                5, "column m (" + SCHEMA + ".mood) from path m: "
                    + PgCopyError.describe(PgCopyError.NOT_AN_ENUM_LABEL) + " (value \"happy\")",
                7, "column id (integer) from path id: " + PgCopyError.describe(
                    io.sluice.codecs.rowbinary.ConversionError.MISSING_NOT_ALLOWED)),
                refused);
            copy("all.types", bound, out, rows);
        }
        finally
        {
            out.releaseLast();
        }
        assertEquals(List.of(
            "1|héllo \"q\"|12.35|{\"a\": [1, 2], \"b\": 1.10}|6f9619ff-8b86-d011-b42d-00cf4fc964ff|{a,NULL,c}|ok|ab"
                + "|x|t|t|2",
            "7|∅|∅|∅|∅|∅|∅|none|∅|f|f|14",
            "9|∅|-0.01|\"just a string\"|∅|{}|∅|none|x|t|t|18"),
            select("SELECT id, s, n::text, doc::text, u::text, tags::text, m::text, c, k,"
                + " created > now() - interval '10 minutes', seq <> 1000, twice FROM " + q("all.types")
                + " ORDER BY id"));
        assertEquals(List.of("2020-01-01 00:00:00+00|1000"),
            select("SELECT created::text, seq FROM " + q("all.types") + " WHERE id = 7"));
    }

    @Test
    void shouldStoreTimestampsAsInstantsWhateverTheJvmZone() throws Exception
    {
        // case P5, with the JVM in Asia/Shanghai (set in connect)
        assertEquals("Asia/Shanghai", TimeZone.getDefault().getID());
        sql("CREATE TABLE " + q("p5") + " (id integer, ts timestamp, tz timestamptz, ts3 timestamp(3), "
            + "at timestamptz, src_offset bigint, topic text)");
        final RowEncoder.Bound<JsonRecord> bound = bind("p5", Map.of("at", "$timestamp", "src_offset", "$offset",
            "topic", "$topic"));
        final String[] values = {"\"2024-03-10T12:00:00+02:00\"", "\"2024-03-10T10:00:00Z\"",
            "\"2024-03-10 12:00:00\"", "1710064800", "1659386157.403862", "\"2024-03-10T12:00:00.123456789-03:30\"",
            "\"0001-01-01T00:00:00Z\""};
        final List<String> records = new ArrayList<>();
        for (int i = 0; i < values.length; i++)
        {
            records.add("{\"id\":" + i + ",\"ts\":" + values[i] + ",\"tz\":" + values[i] + ",\"ts3\":" + values[i]
                + "}");
        }
        records.add("{\"id\":99,\"tz\":\"0000-12-31T00:00:00Z\"}");
        final Bytes<Void> out = Bytes.allocateElasticDirect(1 << 12);
        try
        {
            final List<long[]> rows = new ArrayList<>();
            final Map<Integer, String> refused = encode(bound, records, out, rows);
            assertEquals(1, refused.size(), refused.toString());
            assertTrue(refused.get(values.length).startsWith("column tz (timestamp with time zone) from path tz: "),
                refused.toString());
            copy("p5", bound, out, rows);
        }
        finally
        {
            out.releaseLast();
        }
        final String meta = "|2025-01-07 07:44:41.542+00|";
        assertEquals(List.of(
            "0|2024-03-10 10:00:00|2024-03-10 10:00:00+00|2024-03-10 10:00:00" + meta + "0|orders.eu",
            "1|2024-03-10 10:00:00|2024-03-10 10:00:00+00|2024-03-10 10:00:00" + meta + "1|orders.eu",
            "2|2024-03-10 12:00:00|2024-03-10 12:00:00+00|2024-03-10 12:00:00" + meta + "2|orders.eu",
            "3|2024-03-10 10:00:00|2024-03-10 10:00:00+00|2024-03-10 10:00:00" + meta + "3|orders.eu",
            "4|2022-08-01 20:35:57.403862|2022-08-01 20:35:57.403862+00|2022-08-01 20:35:57.404" + meta
                + "4|orders.eu",
            "5|2024-03-10 15:30:00.123456|2024-03-10 15:30:00.123456+00|2024-03-10 15:30:00.123" + meta
                + "5|orders.eu",
            "6|0001-01-01 00:00:00|0001-01-01 00:00:00+00|0001-01-01 00:00:00" + meta + "6|orders.eu"),
            select("SELECT id, ts::text, tz::text, ts3::text, at::text, src_offset, topic FROM " + q("p5")
                + " ORDER BY id"));
    }

    @Test
    void shouldLeaveEveryColumnToTheServerWhenTheRecordGivesNone() throws Exception
    {
        sql("CREATE TABLE " + q("only defaults") + " (id bigint GENERATED BY DEFAULT AS IDENTITY, "
            + "at timestamptz NOT NULL DEFAULT now(), note text)");
        final RowEncoder.Bound<JsonRecord> bound = bind("only defaults", Map.of());
        assertArrayEquals(new int[]{0, 1}, bound.omittableColumns());
        final Bytes<Void> out = Bytes.allocateElasticDirect(1 << 10);
        try
        {
            final List<long[]> rows = new ArrayList<>();
            assertEquals(Map.of(), encode(bound, List.of("{\"note\":\"a\"}", "{\"id\":50,\"note\":\"b\"}"), out,
                rows));
            copy("only defaults", bound, out, rows);
        }
        finally
        {
            out.releaseLast();
        }
        assertEquals(List.of("1|t|a", "50|t|b"),
            select("SELECT id, at > now() - interval '10 minutes', note FROM " + q("only defaults")
                + " ORDER BY id"));
    }

    @Test
    void shouldRefuseToBindADescriptionTheTableNoLongerMatches() throws Exception
    {
        sql("CREATE TABLE " + q("altered") + " (id integer, v text)");
        final PostgresCatalog catalog = new PostgresCatalog(PgJsonRowEncoderIT::open, url(),
            PostgresCatalog.Creation.OFF);
        final TableSchema before = catalog.describe(SCHEMA, "altered");
        sql("ALTER TABLE " + q("altered") + " ALTER COLUMN v TYPE integer USING v::integer");
        final PgJsonRowEncoder encoder = new PgJsonRowEncoder("b", Map.of(), record.scope(), false, false,
            new PgScratch(1 << 10));
        // the catalog that made the description answers with the columns behind it (the writer checks the table's
        // version in its transaction); a catalog that must read the table again finds it changed and refuses: the
        // encoder never binds the old description to the new types
        assertEquals(List.of("id", "v"), encoder.bind(before, catalog).columns());
        final PostgresCatalog other = new PostgresCatalog(PgJsonRowEncoderIT::open, url(),
            PostgresCatalog.Creation.OFF);
        final io.sluice.core.gather.sink.SinkException e = org.junit.jupiter.api.Assertions.assertThrows(
            io.sluice.core.gather.sink.SinkException.class, () -> encoder.bind(before, other));
        assertTrue(e.retriable(), e.getMessage());
        assertTrue(e.getMessage().contains(q("altered") + " at " + url() + " changed since it was described"),
            e.getMessage());
        final RowEncoder.Bound<JsonRecord> bound = encoder.bind(catalog.describe(SCHEMA, "altered"), catalog);
        final Bytes<Void> out = Bytes.allocateElasticDirect(256);
        try
        {
            final List<long[]> rows = new ArrayList<>();
            assertEquals(Map.of(), encode(bound, List.of("{\"id\":1,\"v\":\"12\"}"), out, rows));
            copy("altered", bound, out, rows);
        }
        finally
        {
            out.releaseLast();
        }
        assertEquals(List.of("1|12"), select("SELECT id, v FROM " + q("altered")));
    }
}
