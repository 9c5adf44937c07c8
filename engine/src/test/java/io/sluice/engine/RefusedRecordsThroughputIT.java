package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.stage.PipelineStats;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * The cost of records the server refuses on its own (a MATERIALIZED {@code throwIf}, ClickHouse 18.16), when many are:
 * 5,000 records in 2 partitions with 1 %, 10 % or 50 % of them refused, under {@code skip} and {@code dead_letter}.
 * Every good record is written exactly once, every refused one is skipped (counted) or is a dead letter, once; the
 * inserts made and the time taken are printed (docs/dead-letters.md quotes them).
 */
class RefusedRecordsThroughputIT
{
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000 - 3_600_000;
    private static final int RECORDS = 5_000;

    /** Whether the record of this id is refused: a spread of about {@code percent} % of the ids, both partitions. */
    private static boolean bad(final int id, final int percent)
    {
        return Math.floorMod(id * 7919 + 13, 100) < percent;
    }

    @ParameterizedTest(name = "{0} with {1} % refused")
    @CsvSource({"skip, 1", "skip, 10", "skip, 50", "dead_letter, 1", "dead_letter, 10", "dead_letter, 50"})
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void shouldWriteEveryGoodRecordOnceAndHandEveryRefusedOneToOnError(final String policy, final int percent)
        throws Exception
    {
        // the suite runs the 1 % cases (about 10-30 s each); -Dsluice.refused.cases=all, or a list such as
        // skip:50,dead_letter:10, runs the others (1.5-2.5 min each on a 2-core machine)
        final String only = System.getProperty("sluice.refused.cases", "skip:1,dead_letter:1");
        Assumptions.assumeTrue("all".equals(only) || List.of(only.split(",")).contains(policy + ":" + percent),
            "-Dsluice.refused.cases=" + only);
        final String s = unique("");
        final String topic = "nr-many-" + s;
        final String db = "nr_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32, x UInt32, c UInt8 MATERIALIZED throwIf(x = 13)) "
            + "ENGINE = MergeTree ORDER BY id");
        TestServices.createTopic(topic, 2);
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        final Set<Integer> bad = new HashSet<>();
        for (int id = 0; id < RECORDS; id++)
        {
            if (bad(id, percent))
            {
                bad.add(id);
            }
            in.add(new ProducerRecord<>(topic, id % 2, T0, utf8("k"),
                utf8("{\"id\":" + id + ",\"x\":" + (bad(id, percent) ? 13 : 1) + "}")));
        }
        KafkaRecords.produce(in);
        final String toml = "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\nstalled_fail_after_ms = 600000\ncommit_interval_ms = 200\n"
            + "[[sinks]]\nname = \"nr\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"g-" + s
            + "\"\non_error = \"" + policy + "\"\n"
            + ("dead_letter".equals(policy) ? "dead_letter_topic = \"dlq.{topic}\"\ncreate_topics = true\n" : "")
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db + "\"\n"
            + "max_rows = 10000\nlinger_ms = 1000\nretry_backoff_ms = 100\nretry_backoff_max_ms = 400\n"
            + "target_table = \"t\"\n";
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        final long start = System.nanoTime();
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        final PipelineStats stats = engine.pipelines().get(0).stats();
        final int good = RECORDS - bad.size();
        assertEquals(good + "\t" + good + "\t0\n",
            TestServices.sql("SELECT count(), uniqExact(id), countIf(x = 13) FROM "
                + db + ".t"),
            "every good record once, no refused one");
        assertEquals(Map.of(new TopicPartition(topic, 0), (long)RECORDS / 2, new TopicPartition(topic, 1),
            (long)RECORDS / 2), TestServices.committed("g-" + s));
        if ("skip".equals(policy))
        {
            assertEquals(bad.size(), stats.droppedRefused.get());
        }
        else
        {
            final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll("dlq." + topic);
            final Set<Integer> ids = new HashSet<>();
            for (final ConsumerRecord<byte[], byte[]> r : letters)
            {
                final String v = new String(r.value(), StandardCharsets.UTF_8);
                ids.add(Integer.parseInt(v.substring(v.indexOf(':') + 1, v.indexOf(','))));
            }
            assertEquals(bad.size(), letters.size(), "one dead letter per refused record");
            assertEquals(bad, ids);
            assertEquals(bad.size(), engine.pipelines().get(0).deadLetters().written(DeadLetterReason.INSERT));
        }
        System.out.printf("refused-throughput: %s %d%% refused (%d of %d): %d ms, %d inserts written, %d refused, "
            + "%d rows written%n", policy, percent, bad.size(), RECORDS, ms, stats.inserts.get(),
            stats.insertFailures.get(), stats.rowsWritten.get());
        assertTrue(stats.rowsWritten.get() == good, "no row written twice: " + stats.rowsWritten.get());
        ScatterEndToEndIT.deleteTopics("skip".equals(policy) ? Set.of(topic) : Set.of(topic, "dlq." + topic));
        dropDatabase(db);
    }
}
