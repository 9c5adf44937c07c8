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
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Case D4 on the real services: a sink following {@code crawl\.[0-9]+\.fetched} (default
 * {@code topic_refresh_ms = 2000}) consumes crawl.1 and crawl.2; then crawl.3 ... crawl.8 are created one at a time
 * at random moments while it runs, each with one record, and each record is in ClickHouse within 2 s of its topic's
 * creation (creation = the Admin createTopics call returned; visible = the table has a part). {@code crawl.x.fetched}
 * and {@code crawlX3Xfetched} are never consumed: the dots are escaped, and the whole name must match.
 */
class PatternPickUpIT
{
    /** topic_refresh_ms, the default. */
    private static final long REFRESH_MS = 2000;
    private static final long LINGER_MS = 100;

    @Test
    void shouldPickUpANewMatchingTopicWithinTheRefreshPeriodAndNothingElse() throws Exception
    {
        final String s = unique("");
        final String prefix = "crawl-" + s;
        final String database = "dest_crawl_" + s;
        final String group = "g-crawl-" + s;
        TestServices.sql("CREATE DATABASE " + database);
        final List<String> all = new ArrayList<>();
        for (final String t : List.of(prefix + ".1.fetched", prefix + ".2.fetched"))
        {
            TestServices.createTopic(t, 1);
            TestServices.produce(t, List.of(record(t)));
            all.add(t);
        }
        final String toml = """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 200
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "crawl"
            kind = "clickhouse"
            pattern = '%s\\.[0-9]+\\.fetched'
            group_id = "%s"
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            target_table = "fetched_{topic_segment[1]}"
            create_table = true
            create_table_ddl = "CREATE TABLE {database}.{table} (url String, at DateTime DEFAULT now()) ENGINE = MergeTree() ORDER BY url"
            linger_ms = %d
            """
            .formatted(TestServices.bootstrap(), prefix.replace("-", "\\-"), group, TestServices.clickhouse(), database,
                LINGER_MS);
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false));
        final int[] code = {-1};
        final Thread runner = new Thread(() -> code[0] = engine.run(), "crawl-engine");
        final Random random = new Random();
        final Map<String, Long> pickUp;
        try (PickUpClock clock = new PickUpClock(prefix, database, PatternPickUpIT::tableOf))
        {
            runner.start();
            awaitRows(database, Map.of("fetched_1", 1L, "fetched_2", 1L));

            // look-alikes that must never be consumed: they would fail the pipeline (no table, and crawlX3Xfetched has
            // too few segments for the template), so a clean run is itself the proof
            for (final String t : List.of(prefix + ".x.fetched", prefix + "X3Xfetched", prefix + ".3.fetched.old"))
            {
                TestServices.createTopic(t, 1);
                TestServices.produce(t, List.of(record(t)));
                all.add(t);
            }
            final Set<String> picked = new TreeSet<>();
            for (int n = 3; n <= 8; n++)
            {
                // a random moment relative to the consumer's metadata refresh
                Thread.sleep(300 + random.nextInt((int)REFRESH_MS));
                final String t = prefix + "." + n + ".fetched";
                TestServices.createTopic(t, 1);
                clock.created(t);
                TestServices.produce(t, List.of(record(t)));
                all.add(t);
                picked.add(t);
                awaitRows(database, Map.of("fetched_" + n, 1L));
            }
            clock.awaitRowsSeen(picked, 30_000);
            pickUp = clock.pickUpMs(picked);
            final Set<String> assigned = assignedTopics(group);
            assertEquals(8, assigned.size(), "assigned: " + assigned);
            assertTrue(
                assigned.stream()
                    .allMatch(t -> t.matches(Pattern.quote(prefix) + "\\.[1-8]\\.fetched")),
                "only matching topics are assigned (Kafka Admin): " + assigned);
        }
        engine.shutdown();
        runner.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(runner.isAlive());
        assertEquals(SluiceEngine.EXIT_OK, code[0],
            String.valueOf(engine.pipelines().get(0).control().failureReason()));

        System.out.printf(
            "D4 pick-up (topic created -> row visible in ClickHouse; topic_refresh_ms=%d, linger_ms=%d): %s; %s%n",
            REFRESH_MS, LINGER_MS, pickUp, PickUpClock.summary(pickUp));
        assertEquals(6, pickUp.size());
        for (final Map.Entry<String, Long> e : pickUp.entrySet())
        {
            assertTrue(e.getValue() <= REFRESH_MS, e.getKey() + " picked up after " + e.getValue() + " ms: " + pickUp);
        }
        final Set<String> expectedTables = new TreeSet<>();
        for (int n = 1; n <= 8; n++)
        {
            expectedTables.add("fetched_" + n);
        }
        assertEquals(expectedTables, tables(database), "look-alikes never consumed");
        final Map<String, Long> rows = new TreeMap<>();
        expectedTables.forEach(t -> rows.put(t, 1L));
        assertEquals(rows, rowsPerTable(database));
        final Set<String> consumed = new TreeSet<>();
        TestServices.committed(group).keySet().stream().map(TopicPartition::topic).forEach(consumed::add);
        assertTrue(
            consumed.stream().allMatch(t -> t.matches(Pattern.quote(prefix) + "\\.[1-8]\\.fetched")),
            "committed offsets only for matching topics: " + consumed);
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(all));
        dropDatabase(database);
    }

    /** The topics the group's members are assigned right now (Kafka Admin). */
    static Set<String> assignedTopics(final String group) throws Exception
    {
        final Set<String> topics = new TreeSet<>();
        try (Admin admin = TestServices.admin())
        {
            final ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                .get();
            for (final MemberDescription m : d.members())
            {
                m.assignment().topicPartitions().forEach(tp -> topics.add(tp.topic()));
            }
        }
        return topics;
    }

    private static String tableOf(final String topic)
    {
        final String[] segments = topic.split("\\.");
        return segments.length > 1 ? "fetched_" + segments[1] : "(none) " + topic;
    }

    private static byte[] record(final String topic)
    {
        return ("{\"url\":\"https://example.com/" + topic + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static void awaitRows(final String database, final Map<String, Long> expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline)
        {
            final Map<String, Long> rows = rowsPerTable(database);
            if (expected.entrySet().stream().allMatch(e -> e.getValue().equals(rows.get(e.getKey()))))
            {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("rows " + expected + " not visible within 30 s: " + rowsPerTable(database));
    }
}
