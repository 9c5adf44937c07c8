package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.core.engine.SluiceEngine;

/**
 * A TOML pipeline {@code kind = "postgres"} on the real broker and the real PostgreSQL: cases P1 (dotted topics are
 * one table each, quoted verbatim), P2 (case kept), P4/P8 (a NUL in a text value refused per record, and a CHECK only
 * the server knows found by splitting the batch; under fail the pipeline stops naming the cause), P6 (10,000 rows of
 * 10 columns in one batch) and P7 (upsert with a key twice in a batch). Each test works in a schema of its own
 * ({@code pgsink_<time>}) on topics of its own.
 */
class PostgresSinkIT
{
    @RegisterExtension
    static final PostgresFixtures.Schema DB = new PostgresFixtures.Schema("pgsink_");
    private static final String SCHEMA = DB.name;

    static String url()
    {
        return System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    /** @return the {@code url}, {@code username} and {@code password} lines of a plugin_config that logs in here */
    static String login()
    {
        final Map<String, String> secrets = TestServices.secrets();
        return "url = \"" + url() + "\"\nusername = \"" + secrets.get("SLUICE_TEST_POSTGRES_USER")
            + "\"\npassword = \"" + secrets.get("SLUICE_TEST_POSTGRES_PASSWORD") + "\"\n";
    }

    static Connection open() throws SQLException
    {
        final Map<String, String> secrets = TestServices.secrets();
        final Properties p = new Properties();
        p.setProperty("user", secrets.get("SLUICE_TEST_POSTGRES_USER"));
        p.setProperty("password", secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(url(), p);
    }

    static void sql(final String... statements) throws SQLException
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }

    /** Rows as "a|b|c" lines in the order the query gives. */
    static List<String> rows(final String query) throws SQLException
    {
        final List<String> out = new ArrayList<>();
        try (Connection c = open(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(query))
        {
            final int n = r.getMetaData().getColumnCount();
            while (r.next())
            {
                final StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++)
                {
                    b.append(i > 1 ? "|" : "").append(r.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    private static void produce(final String topic, final String... values) throws Exception
    {
        final List<byte[]> bytes = new ArrayList<>();
        for (final String v : values)
        {
            bytes.add(v.getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, bytes);
    }

    private static String config(final String group, final List<String> topics, final String onError,
        final String extra)
    {
        return PostgresFixtures.config(SCHEMA, group, topics, "on_error = \"" + onError + "\"",
            "target_table = \"{topic}\"\n" + (extra.contains("linger_ms") ? extra : extra + "\nlinger_ms = 300"), "");
    }

    private static SluiceEngine engine(final String toml)
    {
        return PostgresFixtures.engine(toml, true);
    }

    /** P1 and P2: a dotted topic is one table of its own name; topics that differ in case are two tables. */
    @Test
    void shouldWriteEachTopicToTheTableOfItsVerbatimName() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String dotted = DB.topic("orders.eu." + s);
        final String deep = DB.topic("acme.cdc.inventory.orders." + s);
        final String upper = DB.topic("Orders-" + s);
        final String lower = DB.topic("orders-" + s);
        produce(dotted, "{\"id\":1,\"doc\":{\"a\":1}}", "{\"id\":2,\"doc\":{\"a\":2}}");
        produce(deep, "{\"id\":3,\"doc\":[1]}");
        produce(upper, "{\"id\":4}");
        produce(lower, "{\"id\":5}");
        final SluiceEngine engine = engine(config(group, List.of(dotted, deep, upper, lower), "fail", """
            create_table = true
            create_table_ddl = "CREATE TABLE {schema}.{table} (id bigint PRIMARY KEY, doc jsonb, at timestamptz \
            DEFAULT now())"
            """));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("1|{\"a\": 1}", "2|{\"a\": 2}"), rows("SELECT id, doc FROM " + DB.table(dotted)
            + " ORDER BY id"));
        assertEquals(List.of("3|[1]"), rows("SELECT id, doc FROM " + DB.table(deep)));
        assertEquals(List.of("4"), rows("SELECT id FROM " + DB.table(upper)));
        assertEquals(List.of("5"), rows("SELECT id FROM " + DB.table(lower)));
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + DB.table(dotted) + " WHERE at IS NULL"),
            "now() is left to the server");
        assertEquals(List.of(dotted, deep, upper, lower).stream().sorted().toList(),
            rows("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '"
                + SCHEMA + "' AND c.relkind = 'r' AND c.relname LIKE '%" + s + "' ORDER BY c.relname COLLATE \"C\""));
        assertEquals(Map.of(new TopicPartition(dotted, 0), 2L, new TopicPartition(deep, 0), 1L,
            new TopicPartition(upper, 0), 1L, new TopicPartition(lower, 0), 1L), TestServices.committed(group));
    }

    /**
     * P4/P8 under skip: the NUL record is refused by the encoder before the batch; the record a CHECK refuses is found
     * by splitting the refused batch; every other record lands and the offsets move past all of them.
     */
    @Test
    void shouldRefuseOnlyTheBadRecordsOfABatchUnderSkip() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String nul = DB.topic("pg-nul-" + s);
        final String check = DB.topic("pg-check-" + s);
        sql("CREATE TABLE " + DB.table(nul) + " (id int, s text)",
            "CREATE TABLE " + DB.table(check) + " (id int, s text, CONSTRAINT not_five CHECK (id <> 5))");
        produce(nul, "{\"id\":1,\"s\":\"ok\"}", "{\"id\":2,\"s\":\"a\\u0000b\"}", "{\"id\":3,\"s\":\"ok\"}");
        produce(check, "{\"id\":4,\"s\":\"ok\"}", "{\"id\":5,\"s\":\"no\"}", "{\"id\":6,\"s\":\"ok\"}",
            "{\"id\":7,\"s\":\"ok\"}");
        final SluiceEngine engine = engine(config(group, List.of(nul, check), "skip", ""));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("1|ok", "3|ok"), rows("SELECT id, s FROM " + DB.table(nul) + " ORDER BY id"));
        assertEquals(List.of("4|ok", "6|ok", "7|ok"), rows("SELECT id, s FROM " + DB.table(check) + " ORDER BY id"));
        assertEquals(Map.of(new TopicPartition(nul, 0), 3L, new TopicPartition(check, 0), 4L),
            TestServices.committed(group));
    }

    /** P8 under fail: nothing of the batch lands, and the pipeline stops naming the cause, never 25P02. */
    @Test
    void shouldStopNamingTheServersReasonUnderFail() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String check = DB.topic("pg-checkfail-" + s);
        sql("CREATE TABLE " + DB.table(check) + " (id int, s text, CONSTRAINT not_two CHECK (id <> 2))");
        produce(check, "{\"id\":1,\"s\":\"ok\"}", "{\"id\":2,\"s\":\"no\"}", "{\"id\":3,\"s\":\"ok\"}");
        final SluiceEngine engine = engine(config(group, List.of(check), "fail", ""));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
        final String failure = engine.failure();
        assertTrue(failure.contains("23514"), failure);
        assertTrue(failure.contains("not_two"), failure);
        assertTrue(failure.contains(check), failure);
        assertFalse(failure.contains("25P02"), failure);
        assertFalse(failure.contains("current transaction is aborted"), failure);
        // the batch is split to find the record; the record a CHECK refuses and everything after it never land
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + DB.table(check) + " WHERE id >= 2"));

        final String nul = DB.topic("pg-nulfail-" + s);
        sql("CREATE TABLE " + DB.table(nul) + " (id int, s text)");
        produce(nul, "{\"id\":1,\"s\":\"ok\"}", "{\"id\":2,\"s\":\"a\\u0000b\"}", "{\"id\":3,\"s\":\"ok\"}");
        final SluiceEngine second = engine(config(group + "-2", List.of(nul), "fail", ""));
        assertEquals(SluiceEngine.EXIT_FAILURE, second.run());
        final String f = second.failure();
        assertTrue(f.contains("column s") && f.contains("NUL"), f);
        assertTrue(f.contains(nul + "-0@1") && f.contains("22021"), f);
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + DB.table(nul) + " WHERE id > 1"),
            "nothing at or past the refused record");
    }

    /** P6: 10,000 records of 10 columns in one batch (max_rows = 10000), all-or-nothing, by one COPY. */
    @Test
    void shouldCopyTenThousandRowsOfTenColumns() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String wide = DB.topic("pg-wide-" + s);
        final StringBuilder ddl = new StringBuilder("CREATE TABLE " + DB.table(wide) + " (id bigint");
        for (int c = 1; c < 10; c++)
        {
            ddl.append(", c").append(c).append(c % 2 == 0 ? " text" : " integer");
        }
        sql(ddl.append(')').toString());
        final String[] values = new String[10_000];
        for (int i = 0; i < values.length; i++)
        {
            final StringBuilder v = new StringBuilder("{\"id\":").append(i);
            for (int c = 1; c < 10; c++)
            {
                v.append(",\"c").append(c).append("\":").append(c % 2 == 0 ? "\"v" + i + "\"" : Integer.toString(i));
            }
            values[i] = v.append('}').toString();
        }
        produce(wide, values);
        final SluiceEngine engine = engine(config(group, List.of(wide), "fail", "max_rows = 10000\nlinger_ms = 5000"));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("10000|49995000|49995000|10000"), rows("SELECT count(*), sum(id), sum(c9), "
            + "count(DISTINCT c8) FROM " + DB.table(wide) + " WHERE c2 = 'v' || id"));
    }

    /** P7: upsert with a key twice in one batch: the latest record wins, no 21000. */
    @Test
    void shouldUpsertTheLatestRecordOfAKey() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String kv = DB.topic("pg-kv-" + s);
        sql("CREATE TABLE " + DB.table(kv) + " (k text PRIMARY KEY, v text, at timestamptz DEFAULT now())",
            "INSERT INTO " + DB.table(kv) + " (k, v) VALUES ('c', 'old')");
        produce(kv, "{\"k\":\"a\",\"v\":\"1\"}", "{\"k\":\"b\",\"v\":\"1\"}", "{\"k\":\"a\",\"v\":\"2\"}",
            "{\"k\":\"c\",\"v\":\"new\"}");
        final SluiceEngine engine = engine(
            config(group, List.of(kv), "fail", "insert_mode = \"upsert\"\nlinger_ms = 2000"));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("a|2", "b|1", "c|new"), rows("SELECT k, v FROM " + DB.table(kv) + " ORDER BY k"));
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + DB.table(kv) + " WHERE at IS NULL"));
    }

    /**
     * Upsert with NULL or absent keys: each such record is a record error naming the key column and the record,
     * never merged into another; under skip the other rows land and the offsets move past all of them.
     */
    @Test
    void shouldRefuseARecordWithoutItsUpsertKey() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String nk = DB.topic("pg-nk-" + s);
        final String pair = DB.topic("pg-nkpair-" + s);
        sql("CREATE TABLE " + DB.table(nk) + " (k int, v text, UNIQUE (k))",
            "CREATE TABLE " + DB.table(pair) + " (a int, b text, v text, PRIMARY KEY (a, b))");
        produce(nk, "{\"k\":null,\"v\":\"a\"}", "{\"k\":null,\"v\":\"b\"}", "{\"k\":1,\"v\":\"c\"}",
            "{\"v\":\"d-missing-k\"}");
        produce(pair, "{\"a\":1,\"b\":\"x\",\"v\":\"1\"}", "{\"a\":1,\"v\":\"no-b\"}",
            "{\"a\":null,\"b\":\"x\",\"v\":\"null-a\"}", "{\"a\":2,\"b\":\"x\",\"v\":\"2\"}");
        final SluiceEngine engine = engine(config(group, List.of(nk), "skip",
            "insert_mode = \"upsert\"\nkey_columns = [\"k\"]\nlinger_ms = 2000"));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("1|c"), rows("SELECT k, v FROM " + DB.table(nk) + " ORDER BY k"));
        assertEquals(Map.of(new TopicPartition(nk, 0), 4L), TestServices.committed(group));

        // the table's primary key, under fail: the pipeline stops at the first record without its key, naming it
        final SluiceEngine second = engine(config(group + "-2", List.of(pair), "fail",
            "insert_mode = \"upsert\"\nlinger_ms = 2000"));
        assertEquals(SluiceEngine.EXIT_FAILURE, second.run());
        final String f = second.failure();
        assertTrue(f.contains("key column b") && f.contains("missing"), f);
        assertTrue(f.contains(pair + "-0@1"), f);
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + DB.table(pair) + " WHERE a IS NULL OR b IS NULL"));
    }

    /**
     * Upsert with a key column whose DEFAULT gives no value to match (a constant that is NULL, a sequence the server
     * draws per row): a record without the column is a record error naming it, never merged as a NULL key (rows
     * without a key would otherwise pile up, or collapse into one).
     */
    @Test
    void shouldRefuseAnUpsertKeyWhoseDefaultGivesNoValue() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String nulldef = DB.topic("pg-keydef-" + s);
        final String serial = DB.topic("pg-keyser-" + s);
        sql("CREATE TABLE " + DB.table(nulldef) + " (k int UNIQUE DEFAULT NULLIF(1, 1), v text)",
            "CREATE TABLE " + DB.table(serial) + " (id serial PRIMARY KEY, v text)");
        produce(nulldef, "{\"v\":\"no-k\"}", "{\"k\":1,\"v\":\"one\"}", "{\"v\":\"no-k-again\"}");
        final SluiceEngine engine = engine(config(group, List.of(nulldef), "skip",
            "insert_mode = \"upsert\"\nkey_columns = [\"k\"]\nlinger_ms = 1000"));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("1|one"), rows("SELECT k, v FROM " + DB.table(nulldef) + " ORDER BY k"));
        assertEquals(Map.of(new TopicPartition(nulldef, 0), 3L), TestServices.committed(group));

        produce(serial, "{\"id\":7,\"v\":\"seven\"}", "{\"v\":\"a\"}", "{\"v\":\"b\"}");
        final SluiceEngine second = engine(config(group + "-2", List.of(serial), "fail",
            "insert_mode = \"upsert\"\nlinger_ms = 1000"));
        assertEquals(SluiceEngine.EXIT_FAILURE, second.run());
        final String f = second.failure();
        assertTrue(f.contains(serial + "-0@1") && f.contains("key column id") && f.contains("nextval"), f);
    }

    /**
     * Upsert: a value absent from a later record keeps the stored one whatever the column's DEFAULT (a constant or
     * an expression); a JSON null sets NULL; a new row still gets the DEFAULT.
     */
    @Test
    void shouldKeepStoredValuesAnUpsertDoesNotCarry() throws Exception
    {
        final String s = unique("");
        final String group = "g-pg-" + s;
        final String u = DB.topic("pg-keep-" + s);
        sql("CREATE TABLE " + DB.table(u) + " (id int PRIMARY KEY, v text, cnt int DEFAULT 0, tag text DEFAULT 'none',"
            + " upd timestamptz DEFAULT now())");
        final String upsert = "insert_mode = \"upsert\"\nlinger_ms = 1000";
        produce(u, "{\"id\":5,\"cnt\":9,\"v\":\"c9\",\"tag\":\"t\"}", "{\"id\":6,\"cnt\":3,\"v\":\"six\"}");
        final SluiceEngine first = engine(config(group, List.of(u), "fail", upsert));
        assertEquals(SluiceEngine.EXIT_OK, first.run(), first.failure());
        final List<String> upd = rows("SELECT upd FROM " + DB.table(u) + " WHERE id = 5");
        produce(u, "{\"id\":5,\"v\":\"after\"}", "{\"id\":6,\"cnt\":null}", "{\"id\":7,\"v\":\"new\"}");
        final SluiceEngine second = engine(config(group, List.of(u), "fail", upsert));
        assertEquals(SluiceEngine.EXIT_OK, second.run(), second.failure());
        assertEquals(List.of("5|after|9|t", "6|six|null|none", "7|new|0|none"),
            rows("SELECT id, v, cnt, tag FROM " + DB.table(u) + " ORDER BY id"));
        assertEquals(upd, rows("SELECT upd FROM " + DB.table(u) + " WHERE id = 5"), "upd keeps the stored value");
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + DB.table(u) + " WHERE upd IS NULL"));
    }

    /**
     * Item 7: a refused password and a missing database end the run with exit 1 within 10 s, naming the server's
     * reason (its SQLSTATE and message), never retried; a generous connect_timeout_ms (60 s, as the fault tests use)
     * does not delay them, the server answering both at once.
     */
    @Test
    void shouldExitWithinTenSecondsOnAWrongPasswordOrAMissingDatabase() throws Exception
    {
        final String s = unique("");
        final String t = DB.topic("pg-auth-" + s);
        final String password = TestServices.secrets().get("SLUICE_TEST_POSTGRES_PASSWORD");
        final String generous = "connect_timeout_ms = 60000";
        final String wrong = config("g-pg-" + s, List.of(t), "fail", generous)
            .replace("password = \"" + password + "\"", "password = \"" + password + "-wrong\"");
        final String missing = config("g-pg-" + s, List.of(t), "fail", generous)
            .replace("url = \"" + url() + "\"", "url = \"" + url().substring(0, url().lastIndexOf('/') + 1)
                + "no_such_db_" + s.replace('-', '_') + "\"");
        for (final String[] c : List.of(new String[]{wrong, "28P01"}, new String[]{missing, "3D000"}))
        {
            assertTrue(c[0].contains(generous), c[0]);
            final long start = System.nanoTime();
            final SluiceEngine engine = engine(c[0]);
            assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
            final long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < 10_000, "took " + ms + " ms");
            assertTrue(engine.failure().contains(c[1]), engine.failure());
            assertFalse(engine.failure().contains(password), engine.failure());
        }
    }

    /** A missing table is named as PostgreSQL quotes it, in its schema (not a "database"). */
    @Test
    void shouldNameAMissingTableAsPostgresqlQuotesIt() throws Exception
    {
        final String s = unique("");
        final String nope = DB.topic("Nope.x-" + s);
        produce(nope, "{\"id\":1}");
        final SluiceEngine engine = engine(config("g-pg-" + s, List.of(nope), "fail", "")
            .replace("commit_interval_ms = 100", "commit_interval_ms = 100\nstalled_fail_after_ms = 3000"));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
        final String f = engine.failure();
        assertTrue(f.contains("table \"" + SCHEMA + "\".\"" + nope + "\" does not exist in schema \"" + SCHEMA + "\""),
            f);
        assertFalse(f.contains("in database"), f);
    }
}
