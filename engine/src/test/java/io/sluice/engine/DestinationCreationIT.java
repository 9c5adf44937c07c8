package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.rowsPerTable;
import static io.sluice.engine.DestinationFixtures.tables;
import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Destinations appear on demand, on the real services: the first batch for a new destination checks that its table
 * exists and creates it from {@code create_table_ddl} (with {@code {database}} and {@code {table}}) or as a copy of
 * {@code create_table_like}; later batches pay nothing (the engine's catalog calls are counted); two engines creating
 * the same table at the same moment both carry on; without creation a missing table, and a topic with too few
 * segments, fail the batch naming the table or the topic and template. Columns come from the table: DEFAULT
 * constants, {@code now()} and {@code today()}, and NULL for a Nullable column without a DEFAULT.
 */
class DestinationCreationIT
{
    private static final String DDL = "CREATE TABLE {database}.{table} (id UInt64, user String, n Nullable(UInt8) DEFAULT 7, "
        + "maybe Nullable(String), s String DEFAULT 'dflt', ts DateTime DEFAULT now(), d Date DEFAULT today()) "
        + "ENGINE = MergeTree() ORDER BY id";

    private static String config(final String pattern, final String group, final String database, final String table,
        final String creation)
    {
        return """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 200
            stalled_fail_after_ms = 30000
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "gather"
            kind = "clickhouse"
            pattern = '%s'
            group_id = "%s"
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            target_table = "%s"
            linger_ms = 100
            %s
            """.formatted(TestServices.bootstrap(), pattern, group, TestServices.clickhouse(), database, table,
            creation);
    }

    private static List<byte[]> records(final int from, final int to, final String user)
    {
        final List<byte[]> values = new ArrayList<>();
        for (int i = from; i < to; i++)
        {
            // even ids carry no n and no s: they take the DEFAULTs; odd ids set n to null and s to a value
            values.add((i % 2 == 0
                ? "{\"id\":" + i + ",\"user\":\"" + user + "\"}"
                : "{\"id\":" + i + ",\"user\":\"" + user + "\",\"n\":null,\"s\":\"given\",\"extra\":[1,2]}")
                .getBytes(StandardCharsets.UTF_8));
        }
        return values;
    }

    private static void await(final String database, final Predicate<Map<String, Long>> done, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Long> rows = rowsPerTable(database);
        while (!done.test(rows) && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
            rows = rowsPerTable(database);
        }
        assertTrue(done.test(rows), what + ": " + rows);
    }

    @Test
    void shouldCreateEachTableFromTheDdlOnceAndPayNothingOnLaterBatches() throws Exception
    {
        final String s = unique("");
        final String database = "dest_create_" + s;
        final String prefix = "ct-" + s;
        TestServices.sql("CREATE DATABASE " + database);
        TestServices.createTopic(prefix + ".a", 1);
        TestServices.createTopic(prefix + ".b", 2);
        final DestinationFixtures.CountingDriver driver = new DestinationFixtures.CountingDriver(t ->
        {
        });
        final long startSeconds = System.currentTimeMillis() / 1000;
        final DestinationFixtures.Running running = new DestinationFixtures.Running(new SluiceEngine(
            ConfigLoader.parse(config(prefix + "\\..*", "g-" + s, database,
                "ev_{topic_segment[-1]}", "create_table = true\ncreate_table_ddl = \"" + DDL + "\"\n")),
            c -> driver,
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false)));

        TestServices.produce(prefix + ".a", records(0, 6, "a"));
        TestServices.produce(prefix + ".b", records(0, 6, "b"));
        await(database, r -> r.equals(Map.of("ev_a", 6L, "ev_b", 6L)), "first batches");
        assertEquals(Map.of("ev_a", 2, "ev_b", 2),
            Map.of("ev_a", driver.describes("ev_a"), "ev_b", driver.describes("ev_b")),
            "described once before and once after creating");
        assertEquals(1, driver.creates("ev_a"));
        assertEquals(1, driver.creates("ev_b"));

        for (int round = 1; round <= 3; round++)
        {
            TestServices.produce(prefix + ".a", records(6 * round, 6 * round + 6, "a"));
            TestServices.produce(prefix + ".b", records(6 * round, 6 * round + 6, "b"));
            final long expected = 6L * round + 6;
            await(database, r -> r.equals(Map.of("ev_a", expected, "ev_b", expected)), "round " + round);
        }
        assertEquals(SluiceEngine.EXIT_OK, running.stop());
        final long endSeconds = System.currentTimeMillis() / 1000 + 1;
        assertEquals(2, driver.describes("ev_a"), "later batches never asked the server again");
        assertEquals(2, driver.describes("ev_b"));
        assertEquals(1, driver.creates("ev_a"));
        assertEquals(1, driver.creates("ev_b"));
        assertEquals(Set.of("ev_a", "ev_b"), tables(database));

        assertEquals("12\t7\t\\N\tdflt\n12\t\\N\t\\N\tgiven\n",
            TestServices.sql("SELECT count(), n, maybe, s FROM " + database
                + ".ev_a GROUP BY n, maybe, s ORDER BY s FORMAT TabSeparated"),
            "DEFAULT before NULL; an explicit null is NULL");
        final String[] times = TestServices.sql("SELECT min(toUInt32(ts)), max(toUInt32(ts)), min(d) = today(), "
            + "max(d) = today(), countIf(user != 'b') FROM " + database + ".ev_b FORMAT TabSeparated").trim()
            .split("\t");
        assertTrue(Long.parseLong(times[0]) >= startSeconds && Long.parseLong(times[1]) <= endSeconds,
            "now() at encode time, within the run: " + String.join(" ", times) + " in [" + startSeconds + ", "
                + endSeconds + "]");
        assertEquals(List.of("1", "1", "0"), List.of(times[2], times[3], times[4]),
            "today() in the server's time zone");
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(List.of(prefix + ".a", prefix + ".b")));
        dropDatabase(database);
    }

    @Test
    void shouldCopyTheTemplateTableWithCreateTableLike() throws Exception
    {
        final String s = unique("");
        final String database = "dest_like_" + s;
        final String templates = "dest_like_tmpl_" + s;
        final String prefix = "cl-" + s;
        TestServices.sql("CREATE DATABASE " + database);
        TestServices.sql("CREATE DATABASE " + templates);
        TestServices.sql("CREATE TABLE " + templates + ".events (id UInt64, user String, version UInt32 DEFAULT 1) "
            + "ENGINE = ReplacingMergeTree(version) ORDER BY (user, id)");
        TestServices.createTopic(prefix + ".x", 1);
        TestServices.createTopic(prefix + ".y", 1);
        TestServices.produce(prefix + ".x", records(0, 4, "x"));
        TestServices.produce(prefix + ".y", records(0, 4, "y"));
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(config(prefix + "\\..*", "g-" + s, database,
            "events_{topic_segment[1]}", "create_table = true\ncreate_table_like = \"" + templates + ".events\"\n")),
            c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_OK, engine.run());
        assertEquals(Map.of("events_x", 4L, "events_y", 4L), rowsPerTable(database));
        final String engines = TestServices
            .sql("SELECT name, engine_full FROM system.tables WHERE database = '" + database
                + "' ORDER BY name FORMAT TabSeparated");
        final String template = TestServices.sql("SELECT engine_full FROM system.tables WHERE database = '" + templates
            + "' AND name = 'events' FORMAT TabSeparated").trim();
        assertTrue(template.startsWith("ReplacingMergeTree(version)"), template);
        assertEquals("events_x\t" + template + "\nevents_y\t" + template + "\n", engines);
        assertEquals("4\t1\n",
            TestServices.sql("SELECT count(), min(version) FROM " + database + ".events_y FORMAT TabSeparated"));
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(List.of(prefix + ".x", prefix + ".y")));
        dropDatabase(database);
        dropDatabase(templates);
    }

    @Test
    void shouldFailTheBatchNamingTheMissingTableOrTheTopicAndTemplate() throws Exception
    {
        final String s = unique("");
        final String database = "dest_missing_" + s;
        TestServices.sql("CREATE DATABASE " + database);
        final String topic = "cm-" + s + ".c";
        TestServices.createTopic(topic, 1);
        TestServices.produce(topic, records(0, 3, "c"));
        final String group = "g-" + s;
        // a record without a destination stops its partition (the batch fails; nothing is committed past it; it is
        // re-read in case the table appears) until checkpoint.stalled_fail_after_ms ends the run naming it
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(config("cm\\-" + s + "\\..*", group, database,
            "ev_{topic_segment[-1]}", "").replace("stalled_fail_after_ms = 30000", "stalled_fail_after_ms = 3000")),
            c -> new ClickHouseDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
        final String reason = engine.pipelines().get(0).control().failureReason();
        assertTrue(reason.contains("table " + database + ".ev_c does not exist in database " + database
            + " (branch default; set plugin_config.create_table = true to create it)"), reason);
        assertTrue(reason.contains(topic + "-0@0"), "names the record: " + reason);
        final Long committed = TestServices.committed(group).get(new TopicPartition(topic, 0));
        assertTrue(committed == null || committed == 0, "nothing committed past it: " + committed);

        final String short1 = "cs-" + s;
        TestServices.createTopic(short1, 1);
        TestServices.produce(short1, records(0, 1, "s"));
        final SluiceEngine segments = new SluiceEngine(
            ConfigLoader.parse(config("cs\\-" + s + ".*", "g2-" + s, database,
                "ev_{topic_segment[1]}", "create_table = true\ncreate_table_ddl = \"" + DDL + "\"\n")
                .replace("stalled_fail_after_ms = 30000", "stalled_fail_after_ms = 3000")),
            c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_FAILURE, segments.run());
        final String why = segments.pipelines().get(0).control().failureReason();
        assertTrue(
            why.contains("target_table topic '" + short1 + "' has 1 segment; template 'ev_{topic_segment[1]}' needs "
                + "segment 1"),
            why);
        assertEquals(Set.of(), tables(database), "never a partial name, nothing created");
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(List.of(topic, short1)));
        dropDatabase(database);
    }

    @Test
    void shouldLetTwoEnginesCreateTheSameTableAtTheSameMoment() throws Exception
    {
        final String s = unique("");
        final String database = "dest_race_" + s;
        final String topic = "cr-" + s + ".t";
        TestServices.sql("CREATE DATABASE " + database);
        TestServices.createTopic(topic, 1);
        TestServices.produce(topic, records(0, 20, "r"));
        // both engines have found the table missing; neither sends CREATE before the other is about to
        final CyclicBarrier together = new CyclicBarrier(2);
        final List<DestinationFixtures.CountingDriver> drivers = new ArrayList<>();
        final List<DestinationFixtures.Running> engines = new ArrayList<>();
        for (int i = 0; i < 2; i++)
        {
            final DestinationFixtures.CountingDriver driver = new DestinationFixtures.CountingDriver(t ->
            {
                try
                {
                    together.await(30, TimeUnit.SECONDS);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException("the other engine never tried to create " + t, e);
                }
            });
            drivers.add(driver);
            // without IF NOT EXISTS: the loser gets TABLE_ALREADY_EXISTS (57) from the server
            engines.add(new DestinationFixtures.Running(new SluiceEngine(
                ConfigLoader.parse(config("cr\\-" + s + "\\..*", "g" + i + "-" + s,
                    database, "race_{topic_segment[-1]}", "create_table = true\ncreate_table_ddl = \"" + DDL + "\"\n")),
                c -> driver, c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true))));
        }
        for (final DestinationFixtures.Running r : engines)
        {
            r.thread.join(TimeUnit.SECONDS.toMillis(90));
            assertFalse(r.thread.isAlive());
            assertEquals(SluiceEngine.EXIT_OK, r.code, r.engine.pipelines().isEmpty()
                ? "not started"
                : String.valueOf(r.engine.pipelines().get(0).control().failureReason()));
        }
        assertEquals(List.of(1, 1), drivers.stream().map(d -> d.creates("race_t")).toList(), "both tried to create it");
        assertEquals(Map.of("race_t", 40L), rowsPerTable(database), "both wrote every record into the one table");
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(List.of(topic)));
        dropDatabase(database);
    }
}
