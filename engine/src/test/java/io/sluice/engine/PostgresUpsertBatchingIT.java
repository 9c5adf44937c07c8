package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.PostgresSinkIT.rows;
import static io.sluice.engine.PostgresSinkIT.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.core.engine.SluiceEngine;

/**
 * The end state of {@code insert_mode = "upsert"} with {@code tombstones = "delete"} does not depend on where the
 * batches end (docs/postgres.md, Upsert): the same records written in one batch and in batches of one record leave
 * the same table, and that table is the one a model applying the records one by one in offset order gives (an
 * absent column keeps the stored value, a JSON null sets NULL, a delete then an upsert makes a new row whose absent
 * columns take their DEFAULT).
 */
class PostgresUpsertBatchingIT
{
    @RegisterExtension
    static final PostgresFixtures.Schema DB = new PostgresFixtures.Schema("pgups_");

    private static final String[] COLUMNS = {"a", "b", "c", "at"};
    private static final String QUERY = "SELECT id, a, b, c, extract(epoch FROM at)::bigint FROM %s ORDER BY id";

    private static SluiceEngine engine(final String group, final String topic, final String plugin)
    {
        return PostgresFixtures.engine(PostgresFixtures.config(DB.name, group, List.of(topic),
            "on_error = \"fail\"\ntombstones = \"delete\"", "insert_mode = \"upsert\"\ntarget_table = \"{topic}\"\n"
                + plugin,
            ""), true);
    }

    private static String create(final String table)
    {
        return "CREATE TABLE " + DB.table(table) + " (id bigint PRIMARY KEY, a text, b integer, c text DEFAULT "
            + "'dflt', at timestamptz)";
    }

    private static String seed(final String table)
    {
        return "INSERT INTO " + DB.table(table) + " VALUES (1, 'old', 1, 'keep', '2020-01-01T00:00:00Z'), "
            + "(2, 'old', 2, 'keep', NULL), (3, 'old', 3, 'keep', '2020-01-01T00:00:00Z')";
    }

    /** Writes {@code keyValues} into a table of its own in one batch and in batches of one; returns both tables. */
    private static List<List<String>> both(final String name, final List<String> keyValues) throws Exception
    {
        final String s = unique("");
        final List<List<String>> out = new ArrayList<>();
        for (final String mode : List.of("one", "each"))
        {
            final String topic = DB.topic("pg-ups-" + name + "-" + mode + "-" + s);
            sql(create(topic), seed(topic));
            PostgresFixtures.produceKeyed(topic, keyValues.toArray(new String[0]));
            final SluiceEngine e = engine("g-pgups-" + name + "-" + mode + "-" + s, topic,
                mode.equals("one") ? "linger_ms = 2000\nmax_rows = 100000" : "max_rows = 1\nlinger_ms = 20");
            assertEquals(SluiceEngine.EXIT_OK, e.run(), e.failure());
            out.add(rows(QUERY.formatted(DB.table(topic))));
        }
        return out;
    }

    /** The input: a later record without {@code at} keeps the {@code at} an earlier one of the batch set. */
    @Test
    void shouldKeepAColumnAnEarlierRecordOfTheBatchSetAndTheLaterOneLeavesOut() throws Exception
    {
        final List<String> kv = java.util.Arrays.asList(
            "7", "{\"id\":7,\"a\":\"x\",\"b\":12,\"at\":\"2024-03-10T12:00:00+02:00\"}",
            "7", "{\"id\":7,\"a\":\"paid\",\"b\":13}",
            "1", "{\"id\":1,\"at\":\"2024-03-10T10:00:00Z\"}",
            "1", "{\"id\":1,\"b\":5}",
            "1", "{\"id\":1,\"a\":null}",
            "2", null,
            "2", "{\"id\":2,\"a\":\"n\",\"at\":\"2024-03-10T10:00:00Z\"}",
            "2", "{\"id\":2,\"b\":9}",
            "3", "{\"id\":3,\"a\":\"u\"}",
            "3", null,
            "3", "{\"id\":3,\"b\":4}");
        final List<String> expected = List.of(
            "1|null|5|keep|1710064800",
            "2|n|9|dflt|1710064800",
            "3|null|4|dflt|null",
            "7|paid|13|dflt|1710064800");
        final List<List<String>> tables = both("issue", kv);
        assertEquals(expected, tables.get(1), "one record per batch");
        assertEquals(expected, tables.get(0), "one batch");
    }

    /**
     * Several seeds of 160 random records over 9 keys: each an upsert of a random subset of the columns (a value
     * or null) or a tombstone. Both batchings equal the one-by-one model.
     */
    @Test
    void shouldLeaveTheSameTableWhateverTheBatching() throws Exception
    {
        for (final long seed : new long[]{1, 22, 333})
        {
            final Random random = new Random(seed);
            final List<String> kv = new ArrayList<>();
            final Map<Long, Map<String, String>> model = new TreeMap<>();
            model.put(1L, row("old", "1", "keep", "1577836800"));
            model.put(2L, row("old", "2", "keep", "null"));
            model.put(3L, row("old", "3", "keep", "1577836800"));
            for (int i = 0; i < 160; i++)
            {
                final long id = 1 + random.nextInt(9);
                kv.add(Long.toString(id));
                if (random.nextInt(8) == 0)
                {
                    kv.add(null);
                    model.remove(id);
                    continue;
                }
                final StringBuilder json = new StringBuilder("{\"id\":").append(id);
                final Map<String, String> r = model.computeIfAbsent(id, k -> row("null", "null", "dflt", "null"));
                for (final String col : COLUMNS)
                {
                    final int pick = random.nextInt(5);
                    if (pick >= 3)
                    {
                        continue;
                    }
                    final long v = random.nextInt(1000);
                    final String value = pick == 0
                        ? "null"
                        : col.equals("b")
                            ? Long.toString(v)
                            : col.equals("at") ? Long.toString(1_700_000_000L + v) : col + v;
                    json.append(",\"").append(col).append("\":").append(pick == 0
                        ? "null"
                        : col.equals("b")
                            ? value
                            : col.equals("at")
                                ? "\"" + java.time.Instant.ofEpochSecond(
                                    Long.parseLong(value)).atOffset(java.time.ZoneOffset.ofHours(3)) + "\""
                                : "\"" + value
                                    + "\"");
                    r.put(col, value);
                }
                kv.add(json.append('}').toString());
            }
            final List<String> expected = new ArrayList<>();
            model.forEach((id, r) -> expected.add(id + "|" + String.join("|", r.values())));
            final List<List<String>> tables = both("rnd" + seed, kv);
            assertEquals(expected, tables.get(1), "seed " + seed + ", one record per batch");
            assertEquals(expected, tables.get(0), "seed " + seed + ", one batch");
        }
    }

    private static Map<String, String> row(final String a, final String b, final String c, final String at)
    {
        final Map<String, String> r = new LinkedHashMap<>();
        r.put("a", a);
        r.put("b", b);
        r.put("c", c);
        r.put("at", at);
        return r;
    }
}
