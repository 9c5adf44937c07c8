package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.rowbinary.JsonToRowBinary;
import io.sluice.codecs.rowbinary.NativeBlockWriter;
import io.sluice.core.gather.sink.ColumnSpec;

/**
 * What the real ClickHouse server does with typed and untyped inserts (docs/schema-changes.md): RowBinary rows
 * encoded for another column type are misread, Native blocks with their types are refused; columns an insert omits
 * get the server's DEFAULT (case T5), per block of one Native insert too; every type Sluice writes survives a Native
 * round trip, LowCardinality in its dictionary form included; constant defaults evaluate to the value the server
 * stores (DateTime DEFAULT 0 among them). Talks to the server over its plain HTTP interface.
 */
class TypedInsertIT
{
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String DB = "sluice_typed_insert_it";
    private static boolean current;

    private static String url()
    {
        return System.getProperty("sluice.clickhouse.url", "http://127.0.0.1:18123");
    }

    /** Status and body of a POST with the query in the URL and the body as data. */
    private static HttpResponse<String> post(final String query, final byte[] body) throws IOException,
        InterruptedException
    {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/?query=" + URLEncoder.encode(query,
            StandardCharsets.UTF_8))).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private static String sql(final String statement) throws IOException, InterruptedException
    {
        return sql(statement, "");
    }

    /** Runs a statement with URL settings ({@code name=value&...}, or empty) and returns the body. */
    private static String sql(final String statement, final String settings) throws IOException,
        InterruptedException
    {
        final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/?" + settings))
            .POST(HttpRequest.BodyPublishers.ofString(statement, StandardCharsets.UTF_8)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), statement + " -> " + r.body());
        return r.body();
    }

    @BeforeAll
    static void createDatabase() throws Exception
    {
        sql("DROP DATABASE IF EXISTS " + DB);
        sql("CREATE DATABASE " + DB);
        current = !sql("SELECT version()").startsWith("18.");
    }

    @AfterAll
    static void dropDatabase() throws Exception
    {
        sql("DROP DATABASE IF EXISTS " + DB);
    }

    private static byte[] rowBinary(final List<String> types, final List<List<String>> rows)
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        try
        {
            for (final List<String> row : rows)
            {
                for (int c = 0; c < types.size(); c++)
                {
                    out.write(JsonToRowBinary.encode(types.get(c), row.get(c)));
                }
            }
            final byte[] bytes = new byte[(int)out.writePosition()];
            out.read(bytes);
            return bytes;
        }
        finally
        {
            out.releaseLast();
        }
    }

    /** One Native block per (names, types, rows) triple, appended in order. */
    private static byte[] nativeBlocks(final Object... blocks)
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        final Bytes<?> rows = Bytes.allocateElasticOnHeap(64);
        try
        {
            for (int b = 0; b < blocks.length; b += 3)
            {
                @SuppressWarnings("unchecked")
                final List<String> names = (List<String>)blocks[b];
                @SuppressWarnings("unchecked")
                final List<String> types = (List<String>)blocks[b + 1];
                @SuppressWarnings("unchecked")
                final List<List<String>> values = (List<List<String>>)blocks[b + 2];
                rows.clear();
                rows.write(rowBinary(types, values));
                try (NativeBlockWriter writer = new NativeBlockWriter(names, types))
                {
                    writer.writeBlock(rows, 0, rows.writePosition(), values.size(), out);
                }
            }
            final byte[] bytes = new byte[(int)out.writePosition()];
            out.read(bytes);
            return bytes;
        }
        finally
        {
            out.releaseLast();
            rows.releaseLast();
        }
    }

    private static String nativeInsert(final String table)
    {
        // current releases convert a block's types to the table's unless told not to (setting added in 23.3)
        return "INSERT INTO " + DB + "." + table + " FORMAT Native" +
            (current ? " SETTINGS input_format_native_allow_types_conversion = 0" : "");
    }

    private static List<String> row(final String... values)
    {
        final List<String> row = new ArrayList<>();
        for (final String v : values)
        {
            row.add(v);
        }
        return row;
    }

    @Test
    void shouldRoundTripEveryTypeThroughNativeBlocks() throws Exception
    {
        final List<String> names = List.of("u", "i", "f", "s", "fs", "d", "t", "dec", "uuid", "e", "n", "ns", "a",
            "an", "tu", "lc", "lcn", "alc");
        final List<String> types = List.of("UInt64", "Int8", "Float64", "String", "FixedString(2)", "Date",
            "DateTime", "Decimal(9, 2)", "UUID", "Enum8('a' = 1, 'b' = 2)", "Nullable(Int32)", "Nullable(String)",
            "Array(UInt8)", "Array(Nullable(String))", "Tuple(Int32, String)", "LowCardinality(String)",
            "LowCardinality(Nullable(String))", "Array(LowCardinality(String))");
        final StringBuilder ddl = new StringBuilder("CREATE TABLE " + DB + ".everything (");
        for (int c = 0; c < names.size(); c++)
        {
            ddl.append(c == 0 ? "" : ", ").append(names.get(c)).append(' ').append(types.get(c));
        }
        // LowCardinality is experimental on 18.16
        sql(ddl + ") ENGINE = MergeTree ORDER BY u", current ? "" : "allow_experimental_low_cardinality_type=1");
        final List<List<String>> rows = List.of(
            row("18446744073709551615", "-128", "1.5", "\"x\\ty\"", "\"ab\"", "\"2025-01-07\"",
                "\"2025-01-07T07:44:41Z\"", "1.25", "\"61f0c404-5cb3-11e7-907b-a6006ad3dba0\"", "\"b\"", "7",
                "\"é\"", "[1,2]", "[null,\"x\"]", "[1,\"t\"]", "\"red\"", "\"red\"", "[\"p\",\"q\",\"p\"]"),
            row("0", "127", "-0.25", "\"\"", "\"a\"", "\"1970-01-01\"", "0", "-1",
                "\"00000000-0000-0000-0000-000000000000\"",
                "\"a\"", "null", "null", "[]", "[]", "[2,\"\"]", "\"red\"", "null", "[]"),
            row("5", "0", "0", "\"z\"", "\"\"", "\"2105-12-31\"", "\"2105-12-31 23:59:59\"", "0",
                "\"ffffffff-ffff-ffff-ffff-ffffffffffff\"", "\"a\"", "-3", "\"\"", "[255]", "[\"y\"]", "[3,\"u\"]",
                "\"\"", "\"\"", "[\"\"]"));
        final HttpResponse<String> insert = post(nativeInsert("everything"), nativeBlocks(names, types, rows));
        // dates and times as numbers: 18.16 prints day 0 as 0000-00-00
        assertEquals(200, insert.statusCode(), insert.body());
        assertEquals(String.join("\n",
            "0\t127\t-0.25\t\ta\\0\t0\t0\t-1.00\t00000000-0000-0000-0000-000000000000\ta\t\\N\t\\N\t[]\t[]\t"
                + "(2,'')\tred\t\\N\t[]",
            "5\t0\t0\tz\t\\0\\0\t49672\t4291747199\t0.00\tffffffff-ffff-ffff-ffff-ffffffffffff\ta\t-3\t\t[255]\t"
                + "['y']\t(3,'u')\t\t\t['']",
            "18446744073709551615\t-128\t1.5\tx\\ty\tab\t20095\t1736235881\t1.25\t"
                + "61f0c404-5cb3-11e7-907b-a6006ad3dba0\tb\t7\té\t[1,2]\t[NULL,'x']\t(1,'t')\tred\tred\t['p','q','p']",
            ""),
            sql("SELECT u, i, f, s, fs, toUInt16(d), toUInt32(t), dec, uuid, e, n, ns, a, an, tu, lc, lcn, alc FROM "
                + DB
                + ".everything ORDER BY u FORMAT TabSeparated"));
    }

    @Test
    void shouldRefuseANativeBlockEncodedForAnotherTypeWhereRowBinaryIsMisread() throws Exception
    {
        // {from the encoder's type, to the column's type after MODIFY COLUMN, a value}
        final String[][] cases = {
            {"Int64", "Int32", "7"}, {"Int64", "Float64", "7"}, {"String", "UInt32", "\"7\""},
            {"Nullable(Int64)", "Int64", "7"}, {"Int64", "UInt64", "7"}, {"Int32", "Int64", "7"},
            {"UInt8", "String", "7"}};
        for (int i = 0; i < cases.length; i++)
        {
            final String table = "retyped_" + i;
            sql("CREATE TABLE " + DB + "." + table + " (k UInt8, v " + cases[i][1] + ", s String) ENGINE = MergeTree "
                + "ORDER BY k");
            final List<String> encodedFor = List.of("UInt8", cases[i][0], "String");
            final List<List<String>> rows = List.of(row("1", cases[i][2], "\"after\""));
            final HttpResponse<String> typed = post(nativeInsert(table),
                nativeBlocks(List.of("k", "v", "s"), encodedFor, rows));
            assertEquals(500, typed.statusCode(), cases[i][0] + " -> " + cases[i][1] + ": " + typed.body());
            assertTrue(typed.body().contains(current ? "Code: 53" : "Code: 368"), typed.body());
            assertEquals("0\n", sql("SELECT count() FROM " + DB + "." + table), "nothing written");
        }
        // the same bytes as RowBinary are read with the new types: Int64 7 into Float64 is 3.5e-323, no error
        sql("CREATE TABLE " + DB + ".misread (v Float64, s String) ENGINE = MergeTree ORDER BY tuple()");
        final HttpResponse<String> untyped = post("INSERT INTO " + DB + ".misread FORMAT RowBinary",
            rowBinary(List.of("Int64", "String"), List.of(row("7", "\"a\""))));
        assertEquals(200, untyped.statusCode(), untyped.body());
        assertEquals("3.5e-323\ta\n", sql("SELECT v, s FROM " + DB + ".misread FORMAT TabSeparated"));
    }

    @Test
    void shouldLetTheServerEvaluateTheDefaultsOfOmittedColumnsCaseT5() throws Exception
    {
        sql("CREATE TABLE " + DB + ".t5 (id UInt64, hn Nullable(UInt64) DEFAULT cityHash64(id), "
            + "h2 UInt64 DEFAULT cityHash64(id), t DateTime DEFAULT 0, m UInt64 MATERIALIZED id * 2) "
            + "ENGINE = MergeTree ORDER BY id");
        // RowBinary with a column list that leaves the defaulted columns out
        final HttpResponse<String> rowBinary = post("INSERT INTO " + DB + ".t5 (id) FORMAT RowBinary",
            rowBinary(List.of("UInt64"), List.of(row("1"))));
        assertEquals(200, rowBinary.statusCode(), rowBinary.body());
        // one Native insert, two blocks: a row that has hn, and rows that do not
        final HttpResponse<String> blocks = post(nativeInsert("t5"), nativeBlocks(
            List.of("id", "hn"), List.of("UInt64", "Nullable(UInt64)"), List.of(row("2", "5")),
            List.of("id"), List.of("UInt64"), List.of(row("3"), row("4"))));
        assertEquals(200, blocks.statusCode(), blocks.body());
        assertEquals(String.join("\n",
            "1\t10577349846663553072\t10577349846663553072\t0\t2",
            "2\t5\t" + sql("SELECT cityHash64(toUInt64(2))").strip() + "\t0\t4",
            "3\t" + sql("SELECT cityHash64(toUInt64(3))").strip() + "\t" + sql("SELECT cityHash64(toUInt64(3))")
                .strip() + "\t0\t6",
            "4\t" + sql("SELECT cityHash64(toUInt64(4))").strip() + "\t" + sql("SELECT cityHash64(toUInt64(4))")
                .strip() + "\t0\t8",
            ""), sql("SELECT id, hn, h2, toUInt32(t), m FROM " + DB + ".t5 ORDER BY id FORMAT TabSeparated"));
        assertEquals("10577349846663553072\n", sql("SELECT cityHash64(toUInt64(1))"), "case T5's value");
    }

    @Test
    void shouldDescribeDefaultKindsAndExpressionsAsTheCatalogReadsThem() throws Exception
    {
        sql("CREATE TABLE " + DB + ".kinds (id UInt64, hn Nullable(UInt64) DEFAULT cityHash64(id), "
            + "t DateTime DEFAULT 0, n DateTime DEFAULT now(), s String DEFAULT 'x', m UInt64 MATERIALIZED id * 2, "
            + "a UInt64 ALIAS id + 1) ENGINE = MergeTree ORDER BY id");
        final List<List<String>> rows = TabSeparated.parse(sql("DESCRIBE TABLE " + DB + ".kinds FORMAT TabSeparated"));
        final List<String> described = new ArrayList<>();
        for (final List<String> r : rows)
        {
            described.add(r.get(0) + "|" + r.get(1) + "|" + r.get(2) + "|" + r.get(3));
        }
        if (current)
        {
            // current releases keep the expression as written
            assertEquals(List.of("id|UInt64||", "hn|Nullable(UInt64)|DEFAULT|cityHash64(id)", "t|DateTime|DEFAULT|0",
                "n|DateTime|DEFAULT|now()", "s|String|DEFAULT|'x'", "m|UInt64|MATERIALIZED|id * 2",
                "a|UInt64|ALIAS|id + 1"), described);
        }
        else
        {
            // 18.16 wraps a default whose type differs from the column's in CAST, and lists MATERIALIZED and ALIAS
            // columns last
            assertEquals(List.of("id|UInt64||", "hn|Nullable(UInt64)|DEFAULT|CAST(cityHash64(id), 'Nullable(UInt64)')",
                "t|DateTime|DEFAULT|CAST(0, 'DateTime')", "n|DateTime|DEFAULT|now()", "s|String|DEFAULT|'x'",
                "m|UInt64|MATERIALIZED|id * 2", "a|UInt64|ALIAS|id + 1"), described);
        }
    }

    @Test
    void shouldEvaluateConstantDefaultsToTheValueTheServerStores() throws Exception
    {
        sql("CREATE TABLE " + DB + ".constants (id UInt8, t DateTime DEFAULT 0, t2 DateTime DEFAULT "
            + "'2020-01-01 00:00:00', tz DateTime('Asia/Tokyo') DEFAULT '2020-01-01 09:00:00', d Date DEFAULT 0, "
            + "d2 Date DEFAULT '2020-02-29', z Int32 DEFAULT 7, c Nullable(String) DEFAULT NULL, "
            + "e Enum8('a' = 1, 'b' = 2) DEFAULT 'b', a1 Array(String) DEFAULT ['c1', 'c\\'2', 'x\\ty'], "
            + "a2 Array(UInt8) DEFAULT [1, 2], a3 Array(String) DEFAULT [], a4 Array(Nullable(Int32)) DEFAULT "
            + "[NULL, -3], a5 Array(Float64) DEFAULT [1.5, -2]) ENGINE = MergeTree ORDER BY id");
        final List<List<String>> described = TabSeparated.parse(sql("DESCRIBE TABLE " + DB + ".constants FORMAT "
            + "TabSeparated"));
        final HttpResponse<String> insert = post("INSERT INTO " + DB + ".constants (id) FORMAT RowBinary",
            new byte[]{1});
        assertEquals(200, insert.statusCode(), insert.body());
        for (final List<String> r : described.subList(1, described.size()))
        {
            final ColumnSpec column = new ColumnSpec(r.get(0), r.get(1), r.get(2), r.get(3));
            final String query = ClickHouseCatalog.defaultEvaluation(column);
            final String json = query == null
                ? null
                : ClickHouseCatalog.defaultJson(column, TabSeparated.parse(sql(query + " FORMAT TabSeparated")));
            final String stored = sql("SELECT hex(toString(" + column.name() + ")), isNull(" + column.name()
                + ") FROM " + DB + ".constants");
            if (json == null)
            {
                // NULL on 18.16 is CAST(NULL, 'Nullable(String)'), not a literal the catalog evaluates
                assertEquals("c", column.name(), column + " is evaluated");
                continue;
            }
            assertNotEquals(null, json);
            // what the encoder writes from the JSON, inserted by RowBinary, is what the server stored
            sql("CREATE TABLE IF NOT EXISTS " + DB + ".probe_" + column.name() + " (v " + column.type()
                + ") ENGINE = Memory");
            final HttpResponse<String> probe = post("INSERT INTO " + DB + ".probe_" + column.name()
                + " FORMAT RowBinary", JsonToRowBinary.encode(column.type(), json));
            assertEquals(200, probe.statusCode(), column + ": " + probe.body());
            assertEquals(stored, sql("SELECT hex(toString(v)), isNull(v) FROM " + DB + ".probe_" + column.name()),
                column + " evaluated to " + json);
        }
    }

    @Test
    void shouldShowATableChangeInItsMetadataModificationTime() throws Exception
    {
        sql("CREATE TABLE " + DB + ".altered (id UInt32, a String) ENGINE = MergeTree ORDER BY id");
        final String query = "SELECT metadata_modification_time, cityHash64(create_table_query) FROM system.tables "
            + "WHERE database = '" + DB + "' AND name = 'altered' FORMAT TabSeparated";
        final List<String> before = TabSeparated.parse(sql(query)).get(0);
        Thread.sleep(1100); // the time has a resolution of one second
        sql("ALTER TABLE " + DB + ".altered ADD COLUMN b String DEFAULT 'dflt'");
        final List<String> after = TabSeparated.parse(sql(query)).get(0);
        assertNotEquals(before.get(0), after.get(0), "metadata_modification_time moves on ALTER");
        assertNotEquals(before.get(1), after.get(1), "and the CREATE statement changes");
    }
}
