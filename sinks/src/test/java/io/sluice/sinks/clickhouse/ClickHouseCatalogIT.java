package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.clickhouse.client.api.Client;

import io.sluice.core.gather.sink.TableSchema;

/**
 * The ClickHouse catalog's table version and engine against the real server (Debian's 18.16 here): the version read
 * for one table ({@code SHOW CREATE TABLE}) equals the one the schema watch reads for many ({@code system.tables}),
 * for tables, views and materialized views; ADD, MODIFY and DROP COLUMN each change it; the engine read from the
 * statement is {@code system.tables.engine}; and reading one table's version costs the server the same in a database
 * of {@value #MANY} tables as in a database of one, by the server's own accounting ({@code system.query_log}'s
 * read rows and ProfileEvents, no timing). Each run uses databases of its own ({@code chcat_<time>...}), dropped at
 * the end.
 */
class ClickHouseCatalogIT
{
    /** Tables in the large database. */
    private static final int MANY = 2_000;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String RUN = "chcat_" + Long.toString(System.currentTimeMillis(), 36);
    private static final String DB = RUN;
    private static final String BIG = RUN + "_big";
    private static final String ONE = RUN + "_one";
    private static Client client;
    private static ClickHouseCatalog catalog;
    private static boolean legacy;

    private static String url()
    {
        return System.getProperty("sluice.clickhouse.url", "http://127.0.0.1:18123");
    }

    private static String sql(final String statement) throws IOException, InterruptedException
    {
        final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/"))
            .POST(HttpRequest.BodyPublishers.ofString(statement, StandardCharsets.UTF_8)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), statement + " -> " + r.body());
        return r.body();
    }

    @BeforeAll
    static void createDatabases() throws Exception
    {
        legacy = sql("SELECT version()").startsWith("18.");
        for (final String db : List.of(DB, BIG, ONE))
        {
            sql("CREATE DATABASE " + db);
        }
        sql("CREATE TABLE " + ONE + ".t5 (id UInt64, s String) ENGINE = Memory");
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try
        {
            final List<Future<String>> created = new ArrayList<>();
            for (int i = 0; i < MANY; i++)
            {
                final String statement = "CREATE TABLE " + BIG + ".t" + i + " (id UInt64, s String) ENGINE = Memory";
                created.add(pool.submit(() -> sql(statement)));
            }
            for (final Future<String> f : created)
            {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals(MANY + "\n", sql("SELECT count() FROM system.tables WHERE database = '" + BIG + "'"));
        // every query of this client goes to system.query_log with its ProfileEvents
        client = new Client.Builder().addEndpoint(url()).setUsername("default").setPassword("")
            .setConnectTimeout(5, ChronoUnit.SECONDS).setMaxRetries(0).compressServerResponse(false)
            .compressClientRequest(false).serverSetting("log_queries", "1").build();
        catalog = new ClickHouseCatalog(List.of(client), List.of(url()), new ClickHouseConfig()
            .configPath("sinks[0].plugin_config").endpoints(List.of(url())).conclude());
    }

    @AfterAll
    static void dropDatabases() throws Exception
    {
        if (client != null)
        {
            client.close();
        }
        for (final String db : List.of(DB, BIG, ONE))
        {
            sql("DROP DATABASE IF EXISTS " + db);
        }
    }

    @Test
    void shouldReadTheSameVersionForOneTableAsForMany() throws Exception
    {
        final Map<String, String> kinds = new LinkedHashMap<>();
        kinds.put("mt", "(id UInt64, s String DEFAULT 'a  b', `we ird` Nullable(String), "
            + "e Enum8('x y' = 1, 'z' = 2), d Decimal(9, 2)) ENGINE = MergeTree ORDER BY id");
        kinds.put("rmt", "(id UInt64, v UInt32) ENGINE = ReplacingMergeTree(v) ORDER BY id");
        kinds.put("mem", "(id UInt64, `ENGINE` String DEFAULT 'ENGINE = Log') ENGINE = Memory");
        kinds.put("lg", "(id UInt64) ENGINE = Log");
        kinds.put("tl", "(id UInt64) ENGINE = TinyLog");
        kinds.put("nul", "(id UInt64) ENGINE = Null");
        kinds.put("buf", "(id UInt64) ENGINE = Buffer(" + DB + ", lg, 1, 10, 100, 10000, 1000000, 10000000, "
            + "100000000)");
        for (final Map.Entry<String, String> k : kinds.entrySet())
        {
            sql("CREATE TABLE " + DB + "." + k.getKey() + " " + k.getValue());
        }
        sql("CREATE VIEW " + DB + ".v AS SELECT id, s FROM " + DB + ".mt WHERE s != 'x  y'");
        sql("CREATE MATERIALIZED VIEW " + DB + ".mv ENGINE = Memory AS SELECT id FROM " + DB + ".mt");
        final Map<String, String> engines = new LinkedHashMap<>();
        for (final String row : sql("SELECT name, engine FROM system.tables WHERE database = '" + DB + "'")
            .split("\n"))
        {
            final String[] f = row.split("\t");
            engines.put(f[0].replace("\\\\", "\\"), f[1]);
        }
        assertTrue(engines.keySet().containsAll(List.of("mt", "rmt", "mem", "lg", "tl", "nul", "buf", "v", "mv")),
            engines.toString());
        final Map<String, String> batched = catalog.tableVersions(DB, engines.keySet());
        assertEquals(engines.keySet(), batched.keySet());
        final Set<String> distinct = new HashSet<>();
        for (final Map.Entry<String, String> e : engines.entrySet())
        {
            final String name = e.getKey();
            final String single = catalog.tableVersion(DB, name);
            assertEquals(batched.get(name), single, name + ": SHOW CREATE TABLE against system.tables");
            assertTrue(single.matches("[0-9a-f]{16}"), single);
            distinct.add(single);
            if (name.equals("v") || name.equals("mv") || name.startsWith(".inner"))
            {
                assertEquals(e.getValue(), ClickHouseCatalog.engineAndVersion(client, url(), DB, name)[0], name);
                continue;
            }
            final TableSchema schema = catalog.describe(DB, name);
            assertNotNull(schema, name);
            assertEquals(e.getValue(), schema.engine(), name + ": the engine read from the statement");
            assertEquals(single, schema.version(), name);
        }
        assertEquals(engines.size(), distinct.size(), "each table has its own version: " + batched);
        // more names than one IN list takes: the whole database in one query, the names asked for kept
        final List<String> asked = new ArrayList<>(List.of("mt", "v"));
        for (int i = 0; i < 600; i++)
        {
            asked.add("absent_" + i);
        }
        assertEquals(Map.of("mt", batched.get("mt"), "v", batched.get("v")), catalog.tableVersions(DB, asked));
    }

    @Test
    void shouldChangeTheVersionWithEachAlter() throws Exception
    {
        final String t = "altered";
        sql("CREATE TABLE " + DB + "." + t + " (id UInt64, v Int64, s String DEFAULT 'a b', x UInt8) "
            + "ENGINE = MergeTree ORDER BY id");
        final List<String> alters = List.of("ADD COLUMN y String DEFAULT 'dflt'", "MODIFY COLUMN v Int32",
            "DROP COLUMN x", "MODIFY COLUMN s String DEFAULT 'ab'", "MODIFY COLUMN s String DEFAULT 'a\\'b'",
            "MODIFY COLUMN v Nullable(Int32)");
        final Set<String> seen = new HashSet<>();
        String before = catalog.tableVersion(DB, t);
        seen.add(before);
        for (final String alter : alters)
        {
            sql("ALTER TABLE " + DB + "." + t + " " + alter);
            final String after = catalog.tableVersion(DB, t);
            assertNotEquals(before, after, alter);
            assertTrue(seen.add(after), alter + " gave an earlier version");
            assertEquals(after, catalog.tableVersions(DB, List.of(t)).get(t), alter + ": batched");
            assertEquals(after, catalog.describe(DB, t).version(), alter + ": describe");
            before = after;
        }
        assertEquals(before, catalog.tableVersion(DB, t), "no ALTER, no change");
    }

    @Test
    void shouldSayAbsentForAMissingTableOrDatabase() throws Exception
    {
        assertNull(catalog.tableVersion(DB, "never_created"));
        assertNull(catalog.tableVersion(RUN + "_no_such_db", "t"));
        assertNull(catalog.describe(DB, "never_created"));
        assertNull(catalog.describe(RUN + "_no_such_db", "t"));
        assertEquals(Map.of(), catalog.tableVersions(DB, List.of("never_created")));
        assertEquals(Map.of(), catalog.tableVersions(RUN + "_no_such_db", List.of("t")));
        sql("CREATE TABLE " + DB + ".dropped (id UInt64) ENGINE = Memory");
        assertNotNull(catalog.tableVersion(DB, "dropped"));
        sql("DROP TABLE " + DB + ".dropped");
        assertNull(catalog.tableVersion(DB, "dropped"));
    }

    /**
     * One version read in a database of {@value #MANY} tables touches what it touches in a database of one: the
     * same rows read and metadata files opened. The control, the former {@code system.tables} read, opens one
     * metadata file per table of the large database, so the counters do see a read of every table.
     */
    @Test
    void shouldCostTheSameWhateverTheTablesOfTheDatabase() throws Exception
    {
        final String big = catalog.tableVersion(BIG, "t5");
        final String one = catalog.tableVersion(ONE, "t5");
        assertEquals(one, catalog.tableVersion(ONE, "t5"));
        assertNotEquals(big, one, "the statements name their databases");
        assertNotNull(catalog.describe(BIG, "t7"));
        final String control = "SELECT name, create_table_query FROM system.tables WHERE database = '" + BIG
            + "' AND name = 't5'";
        ClickHouseConnections.query(client, control, "control", 30_000);
        sql("SYSTEM FLUSH LOGS");
        final Map<String, Long> inBig = cost("SHOW CREATE TABLE `" + BIG + "`.`t5`");
        final Map<String, Long> inOne = cost("SHOW CREATE TABLE `" + ONE + "`.`t5`");
        final Map<String, Long> describe = cost("DESCRIBE TABLE `" + BIG + "`.`t7`");
        final Map<String, Long> old = cost(control);
        assertTrue(old.get("FileOpen") >= MANY, "the control opens every table's metadata: " + old);
        assertTrue(old.get("read_rows") >= MANY, "the control: " + old);
        assertEquals(inOne.get("read_rows"), inBig.get("read_rows"), "rows read: " + inBig + " vs " + inOne);
        assertEquals(inOne.get("FileOpen"), inBig.get("FileOpen"), "files opened: " + inBig + " vs " + inOne);
        assertEquals(inOne.get("ReadBufferFromFileDescriptorRead"), inBig.get("ReadBufferFromFileDescriptorRead"),
            "reads: " + inBig + " vs " + inOne);
        assertTrue(inBig.get("ContextLock") < 100, "context locks (the control takes one per table): " + inBig);
        assertTrue(inBig.get("FileOpen") <= 1, "one metadata file at most: " + inBig);
        assertTrue(describe.get("read_rows") < 100 && describe.get("FileOpen") <= 1, "DESCRIBE: " + describe);
    }

    /**
     * The server's accounting of the last finished query of this run that starts with {@code query}: rows read and
     * the ProfileEvents the test compares (0 when the server did not count one).
     */
    private static Map<String, Long> cost(final String query) throws Exception
    {
        final List<String> events = List.of("FileOpen", "ReadBufferFromFileDescriptorRead", "ContextLock");
        final StringBuilder s = new StringBuilder("SELECT read_rows");
        for (final String e : events)
        {
            s.append(legacy
                ? ", ProfileEvents.Values[indexOf(ProfileEvents.Names, '" + e + "')]"
                : ", ProfileEvents['" + e + "']");
        }
        s.append(" FROM system.query_log WHERE type = 2 AND event_date >= yesterday() AND startsWith(query, '")
            .append(query.replace("\\", "\\\\").replace("'", "\\'"))
            .append("') ORDER BY event_time DESC LIMIT 1");
        final String row = sql(s.toString()).strip();
        assertTrue(!row.isEmpty(), "no query_log row for " + query);
        final String[] f = row.split("\t");
        final Map<String, Long> out = new LinkedHashMap<>();
        out.put("read_rows", Long.parseLong(f[0]));
        for (int i = 0; i < events.size(); i++)
        {
            out.put(events.get(i), Long.parseLong(f[i + 1]));
        }
        return out;
    }
}
