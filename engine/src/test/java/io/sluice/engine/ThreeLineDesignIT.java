package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.rowsPerTable;
import static io.sluice.engine.DestinationFixtures.tables;
import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * The seed's three-line design end to end, on the real broker and server, from {@code examples/users-three-lines.toml}
 * (names made unique): one engine runs a source that routes sign-ups by {@code user_id} into
 * {@code users.{value}} with {@code create_topics = true}, and a sink that follows {@code users\..*} into
 * {@code user_{topic_segment[-1]}} with table creation on. Fifty users appear one after another while it runs, with
 * more records for earlier users in between: fifty topics, fifty tables, every record once in its user's table,
 * none missed. Each topic's pick-up time (first listed by Kafka's Admin client -> first row visible in ClickHouse) is
 * measured from the outside and printed. The seed's window: a new topic is consumed within {@code topic_refresh_ms}
 * (2 s); its first row is visible after that plus the batch's {@code linger_ms}, the table's creation and the insert,
 * so each topic's pick-up must be within {@code topic_refresh_ms + linger_ms + }{@link #INSERT_SLACK_MS}, and the
 * median within {@code topic_refresh_ms} (on a loaded 2-core machine the last of fifty took 2.5 s once).
 */
class ThreeLineDesignIT
{
    private static final int USERS = 50;
    /** Table creation, insert and the clock's own polling, on a machine shared with the broker and the server. */
    private static final long INSERT_SLACK_MS = 1000;

    @Test
    void shouldGiveFiftyUsersFiftyTopicsAndFiftyTablesWhileTheEngineRuns() throws Exception
    {
        final String s = unique("");
        final String input = "signups-" + s;
        final String prefix = "users-" + s;
        final String database = "dest_users_" + s;
        final String sourceGroup = "g-signups-" + s;
        final String sinkGroup = "g-users-" + s;
        TestServices.sql("CREATE DATABASE " + database);
        TestServices.createTopic(input, 2);
        final String example = Files.readString(TestServices.projectRoot().resolve("examples/users-three-lines.toml"));
        final String toml = replaceAll(example, Map.of(
            "\"127.0.0.1:${SLUICE_KAFKA_PORT:-19092}\"", "\"" + TestServices.bootstrap() + "\"",
            "\"http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}\"", "\"" + TestServices.clickhouse() + "\"",
            "input_topics = [\"signups\"]", "input_topics = [\"" + input + "\"]",
            "group_id = \"sluice-signups\"", "group_id = \"" + sourceGroup + "\"",
            "group_id = \"sluice-users\"", "group_id = \"" + sinkGroup + "\"",
            "template = \"users.{value}\"", "template = \"" + prefix + ".{value}\"",
            "pattern = 'users\\..*'", "pattern = '" + prefix.replace("-", "\\-") + "\\..*'",
            "database = \"users\"", "database = \"" + database + "\""));
        final SluiceConfig config = ConfigLoader.parse(toml);
        assertEquals("user_{topic_segment[-1]}", config.sink("users").branches().get(0).targetTable());
        final long lingerMs = config.sink("users").plugin().lingerMs();
        final long refreshMs = config.sink("users").topicRefreshMs();

        final SluiceEngine engine = new SluiceEngine(config, c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(false));
        final int[] code = {-1};
        final Thread runner = new Thread(() -> code[0] = engine.run(), "three-lines-engine");
        final Map<String, List<String>> expected = new TreeMap<>();
        final Map<String, Long> firstProducedNanos = new HashMap<>();
        final Map<String, Long> pickUp;
        final Map<String, Long> producedToRow = new TreeMap<>();
        final Random random = new Random(7);
        try (
            PickUpClock clock = new PickUpClock(prefix + ".", database,
                t -> "user_" + t.substring(t.lastIndexOf('.') + 1));
            KafkaProducer<byte[], byte[]> producer = producer())
        {
            runner.start();
            awaitSourceAssigned(sourceGroup, input);
            int seq = 0;
            for (int u = 0; u < USERS; u++)
            {
                final String user = String.format("u%02d", u);
                producer.send(record(input, user, seq++, expected)).get();
                firstProducedNanos.put(prefix + "." + user, System.nanoTime());
                for (int more = random.nextInt(3); more > 0; more--)
                {
                    producer.send(record(input, String.format("u%02d", random.nextInt(u + 1)), seq++, expected)).get();
                }
                Thread.sleep(150 + random.nextInt(150));
            }
            for (int u = 0; u < USERS; u++)
            {
                for (int i = 0; i < 3; i++)
                {
                    producer.send(record(input, String.format("u%02d", u), seq++, expected)).get();
                }
            }
            producer.flush();
            final Map<String, Long> rows = new TreeMap<>();
            expected.forEach((user, events) -> rows.put("user_" + user, (long)events.size()));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!rows.equals(rowsPerTable(database)) && System.nanoTime() < deadline)
            {
                Thread.sleep(50);
            }
            assertEquals(rows, rowsPerTable(database), "every user's records in the user's table");
            final Set<String> topics = new TreeSet<>(firstProducedNanos.keySet());
            clock.awaitRowsSeen(topics, 30_000);
            pickUp = clock.listedToRowMs(topics);
            for (final String t : topics)
            {
                if (clock.rowAt(t) != null)
                {
                    producedToRow.put(t, TimeUnit.NANOSECONDS.toMillis(clock.rowAt(t) - firstProducedNanos.get(t)));
                }
            }
        }
        engine.shutdown();
        runner.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(runner.isAlive());
        assertEquals(SluiceEngine.EXIT_OK, code[0]);

        final Set<String> topics = new TreeSet<>();
        try (Admin admin = TestServices.admin())
        {
            admin.listTopics().names().get().stream().filter(t -> t.startsWith(prefix + ".")).forEach(topics::add);
        }
        assertEquals(USERS, topics.size(), "one topic per user: " + topics);
        final Set<String> expectedTables = new TreeSet<>();
        expected.keySet().forEach(u -> expectedTables.add("user_" + u));
        assertEquals(expectedTables, tables(database), "one table per user");
        assertEquals(expected, eventsPerUser(database), "each record once, in its user's table");
        final Map<org.apache.kafka.common.TopicPartition, Long> ends = new HashMap<>(TestServices.endOffsets(input, 2));
        ends.values().removeIf(end -> end == 0);
        assertEquals(ends, TestServices.committed(sourceGroup), "the source committed to the end");
        final long sinkCommitted = TestServices.committed(sinkGroup).values().stream().mapToLong(Long::longValue).sum();
        assertEquals(expected.values().stream().mapToInt(List::size).sum(), sinkCommitted,
            "the sink committed every record");

        System.out.printf(
            "three-line design: %d users -> %d topics -> %d tables, %d records; topic_refresh_ms=%d linger_ms=%d%n",
            USERS, topics.size(), expectedTables.size(), sinkCommitted, refreshMs, lingerMs);
        System.out.printf("  pick-up, topic listed by Admin -> first row visible: %s%n  per topic: %s%n",
            PickUpClock.summary(pickUp), pickUp);
        System.out.printf("  first record produced -> first row visible (routing + topic creation + pick-up): %s%n",
            PickUpClock.summary(producedToRow));
        assertEquals(USERS, pickUp.size(), "every topic measured");
        final long limit = refreshMs + lingerMs + INSERT_SLACK_MS;
        for (final Map.Entry<String, Long> e : pickUp.entrySet())
        {
            assertTrue(e.getValue() <= limit, e.getKey() + " picked up after " + e.getValue() + " ms (limit "
                + limit + " ms = topic_refresh_ms + linger_ms + " + INSERT_SLACK_MS + ")");
        }
        final long[] sorted = pickUp.values().stream().mapToLong(Long::longValue).sorted().toArray();
        assertTrue(sorted[sorted.length / 2] <= refreshMs, "median pick-up " + sorted[sorted.length / 2]
            + " ms, over topic_refresh_ms " + refreshMs + ": " + pickUp);
        topics.add(input);
        ScatterEndToEndIT.deleteTopics(topics);
        dropDatabase(database);
    }

    private static String replaceAll(final String text, final Map<String, String> replacements)
    {
        String out = text;
        for (final Map.Entry<String, String> e : replacements.entrySet())
        {
            assertTrue(out.contains(e.getKey()), "the example has " + e.getKey());
            out = out.replace(e.getKey(), e.getValue());
        }
        return out;
    }

    private static ProducerRecord<byte[], byte[]> record(final String topic, final String user, final int seq,
        final Map<String, List<String>> expected)
    {
        expected.computeIfAbsent(user, u -> new ArrayList<>()).add("e" + seq);
        return new ProducerRecord<>(topic, ("{\"user_id\":\"" + user + "\",\"event\":\"e" + seq + "\"}")
            .getBytes(StandardCharsets.UTF_8));
    }

    private static KafkaProducer<byte[], byte[]> producer()
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServices.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** Waits until the source's consumer group holds the input topic (Kafka Admin), so users appear while it runs. */
    private static void awaitSourceAssigned(final String group, final String topic) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Admin admin = TestServices.admin())
        {
            while (System.nanoTime() < deadline)
            {
                try
                {
                    final ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups()
                        .get(group).get();
                    if (d.members().stream().anyMatch(m -> m.assignment().topicPartitions().stream()
                        .anyMatch(tp -> tp.topic().equals(topic))))
                    {
                        return;
                    }
                }
                catch (final ExecutionException e)
                {
                    // the group does not exist until the source joins it
                }
                Thread.sleep(50);
            }
        }
        throw new AssertionError("the source never joined its group");
    }

    /** Every table's events, read with the merge table function over the database (names from ClickHouse). */
    private static Map<String, List<String>> eventsPerUser(final String database)
    {
        final Map<String, List<String>> out = new TreeMap<>();
        for (final String line : TestServices
            .sql("SELECT _table, user_id, event FROM merge(" + database + ", '^user_') "
                + "ORDER BY _table, toUInt64(substring(event, 2)) FORMAT TabSeparated")
            .split("\n"))
        {
            if (line.isEmpty())
            {
                continue;
            }
            final String[] f = line.split("\t");
            assertEquals("user_" + f[1], f[0], "a record of " + f[1] + " in " + f[0]);
            out.computeIfAbsent(f[1], u -> new ArrayList<>()).add(f[2]);
        }
        return out;
    }
}
