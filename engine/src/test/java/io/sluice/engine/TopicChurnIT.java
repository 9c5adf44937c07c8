package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Issue 12, item 5: per-partition ack state is what the start line says, and is freed when a topic is deleted (topics
 * per user are the seeds' normal design). A pattern sink consumes a steady topic and, round after round, 40 new topics
 * that are created, written, committed and deleted again. After every round the trackers the pipeline holds
 * ({@link PartitionTrackers#live()}, exported as {@code sluice_ack_trackers} and {@code sluice_ack_tracker_bytes}) are
 * back to the steady topic's one, and their ids are reused (the id space does not grow with the churn). The steady
 * topic's records keep being written and committed through the deletions (no freeze), and every record is in
 * ClickHouse once.
 */
class TopicChurnIT
{
    private static final int ROUNDS = 5;
    private static final int TOPICS = 40;

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void shouldFreeTheAckStateOfDeletedTopics() throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String prefix = "churn-" + sfx;
        final String db = "churn_" + sfx;
        final String group = "churn-" + sfx;
        final String steady = prefix + "-steady";
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (n UInt64) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(steady, 1);
        final int metricsPort = TestServices.freePort();
        final String toml = """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 200
            [engine]
            status_interval_ms = 0
            ack_window = 65536
            [metrics]
            listen = "127.0.0.1:%d"
            [[sinks]]
            name = "churn"
            kind = "clickhouse"
            pattern = '%s\\-.*'
            group_id = "%s"
            topic_refresh_ms = 1000
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            target_table = "t"
            linger_ms = 50
            """.formatted(TestServices.bootstrap(), metricsPort, prefix.replace("-", "\\-"), group,
            TestServices.clickhouse(), db);
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false));
        final int[] code = {-1};
        final Thread runner = new Thread(() -> code[0] = engine.run(), "churn-engine");
        final AtomicBoolean producing = new AtomicBoolean(true);
        final long[] steadyProduced = {0};
        final Thread steadyProducer = new Thread(() ->
        {
            long n = 0;
            while (producing.get())
            {
                try
                {
                    TestServices.produce(steady, List.of(json(1_000_000_000L + n)));
                    n++;
                    steadyProduced[0] = n;
                    Thread.sleep(50);
                }
                catch (final Exception e)
                {
                    return;
                }
            }
        }, "churn-steady");
        long written = 0;
        long maxSteadyGapMs = 0;
        final List<Integer> idsAfterRounds = new ArrayList<>();
        try (Admin admin = TestServices.admin())
        {
            runner.start();
            final PartitionTrackers trackers = await(() -> engine.pipelines().isEmpty()
                ? null
                : engine.pipelines().get(0).trackers(), 60, "the pipeline starts");
            steadyProducer.start();
            awaitTrue(() -> trackers.live() == 1, 60, () -> "the steady topic is assigned: " + trackers.live());
            final long perPartition = AckTracker.footprintBytes(65536);
            for (int round = 0; round < ROUNDS; round++)
            {
                final int r = round;
                final List<NewTopic> topics = new ArrayList<>();
                for (int i = 0; i < TOPICS; i++)
                {
                    topics.add(new NewTopic(prefix + "-r" + round + "-" + i, 1, (short)1));
                }
                admin.createTopics(topics).all().get();
                for (int i = 0; i < TOPICS; i++)
                {
                    TestServices.produce(topics.get(i).name(), List.of(json(round * 1000L + i)));
                    written++;
                }
                final long roundWritten = written;
                awaitTrue(() -> trackers.live() == 1 + TOPICS, 90,
                    () -> "round " + r + " assigns every new topic: " + trackers.live() + " trackers");
                assertEquals((1 + TOPICS) * perPartition, trackers.bytes(), "bytes of " + (1 + TOPICS) + " trackers");
                awaitTrue(
                    () -> TestServices.sqlLong("SELECT count() FROM " + db + ".t WHERE n < 1000000000") == roundWritten,
                    90, () -> "the round's records are written");
                // committed: every new topic's one record
                awaitTrue(() -> committedNew(group, prefix + "-r" + r + "-") >= TOPICS, 60,
                    () -> "the round's offsets are committed");
                final long steadyBefore = steadyCommitted(group, steady);
                final long deleteStart = System.nanoTime();
                admin.deleteTopics(topics.stream().map(NewTopic::name).toList()).all().get();
                awaitTrue(() -> trackers.live() == 1, 90,
                    () -> "the deleted topics' trackers are released: " + trackers.live() + " live");
                // the steady topic keeps moving through the deletions: its commit advances within a few seconds
                final long[] lastMove = {System.nanoTime()};
                final long[] last = {steadyBefore};
                awaitTrue(() ->
                {
                    final long c = steadyCommitted(group, steady);
                    if (c > last[0])
                    {
                        last[0] = c;
                        lastMove[0] = System.nanoTime();
                    }
                    return c > steadyBefore + 20;
                }, 60, () -> "the steady topic is committed on after the deletions");
                maxSteadyGapMs = Math.max(maxSteadyGapMs,
                    TimeUnit.NANOSECONDS.toMillis(lastMove[0] - deleteStart));
                assertEquals(perPartition, trackers.bytes(), "one tracker's bytes after round " + round);
                idsAfterRounds.add(trackers.size());
            }
            final String scrape = MetricsContract.scrape(metricsPort);
            assertEquals(1, gauge(scrape, "sluice_ack_trackers"), "sluice_ack_trackers after the churn");
            assertEquals(perPartition, gauge(scrape, "sluice_ack_tracker_bytes"), "sluice_ack_tracker_bytes");
        }
        finally
        {
            producing.set(false);
            steadyProducer.join(10_000);
            engine.shutdown();
            runner.join(60_000);
        }
        assertEquals(0, code[0], "a clean stop");
        assertTrue(engine.failure() == null, "no failure: " + engine.failure());
        final long steadyRows = TestServices
            .sqlLong("SELECT count(DISTINCT n) FROM " + db + ".t WHERE n >= 1000000000");
        final long steadyCommitted = steadyCommitted(group, steady);
        System.out.printf("TOPIC CHURN: %d rounds x %d topics created, written and deleted; trackers after each round: "
            + "live 1, ids %s; %d B per partition (ack_window 65536); the steady topic's commit moved %d ms after a "
            + "deletion at the latest; %d steady records committed, %d in ClickHouse%n", ROUNDS, TOPICS,
            idsAfterRounds, AckTracker.footprintBytes(65536), maxSteadyGapMs, steadyCommitted, steadyRows);
        assertTrue(idsAfterRounds.get(ROUNDS - 1) <= 1 + 2 * TOPICS,
            "released ids are reused: " + idsAfterRounds + " ids after the rounds");
        assertEquals(ROUNDS * (long)TOPICS, TestServices.sqlLong("SELECT count(DISTINCT n) FROM " + db
            + ".t WHERE n < 1000000000"), "every churned record written");
        assertTrue(steadyRows >= steadyCommitted, "every committed steady record is in ClickHouse");
        TestServices.sql("DROP DATABASE " + db);
    }

    private static byte[] json(final long n)
    {
        return ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static long steadyCommitted(final String group, final String steady) throws Exception
    {
        final Long c = TestServices.committed(group).get(new TopicPartition(steady, 0));
        return c == null ? 0 : c;
    }

    private static long committedNew(final String group, final String roundPrefix) throws Exception
    {
        long n = 0;
        for (final var e : TestServices.committed(group).entrySet())
        {
            if (e.getKey().topic().startsWith(roundPrefix))
            {
                n += e.getValue();
            }
        }
        return n;
    }

    private static long gauge(final String scrape, final String name)
    {
        final Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*\\} ([0-9.eE+]+)$").matcher(scrape);
        if (!m.find())
        {
            fail(name + " not in the scrape:\n" + scrape);
        }
        return (long)Double.parseDouble(m.group(1));
    }

    interface Check
    {
        boolean ok() throws Exception;
    }

    interface Source<T>
    {
        T get() throws Exception;
    }

    private static <T> T await(final Source<T> s, final int seconds, final String what) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline)
        {
            final T t = s.get();
            if (t != null)
            {
                return t;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out: " + what);
    }

    private static void awaitTrue(final Check c, final int seconds, final java.util.function.Supplier<String> what)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline)
        {
            if (c.ok())
            {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out after " + seconds + " s: " + what.get());
    }
}
