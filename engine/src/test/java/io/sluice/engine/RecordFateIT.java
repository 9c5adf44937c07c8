package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.stage.PipelineStats;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Cases T2, T3 and T4 on the real broker and the real 18.16 server: only a JSON object is a row (an array, a number,
 * a string, true, null, an empty and a blank value are invalid records under on_error, never a row of defaults and
 * never unrouted); a tombstone is no row and is counted as such; the same key twice fails the record by default,
 * and with first or last the branch chosen and the row read the same occurrence.
 */
class RecordFateIT
{
    private static final String[] VALUES = {
        "[{\"kind\":\"a\",\"id\":5,\"name\":\"e\"},{\"kind\":\"a\",\"id\":6,\"name\":\"f\"}]", // 0 T2: an array
        "42", // 1 T2: a number
        "{\"kind\":\"a\",\"id\":10}", // 2 T3
        null, // 3 T3: a tombstone
        "", // 4 T3: empty
        "   ", // 5 T3: blank
        "{\"kind\":\"a\",\"id\":11}", // 6 T3
        "{\"kind\":\"a\",\"id\":1,\"id\":2,\"name\":\"first\",\"name\":\"second\"}", // 7 T4
        "{\"kind\":\"a\",\"kind\":\"b\",\"id\":20,\"name\":\"k\"}", // 8 a duplicate the branch condition reads
        "\"str\"", "true", "null"}; // 9-11: other kinds that are not objects

    private static String config(final String topic, final String group, final String database,
        final String duplicateKeys)
    {
        return """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 100
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "gather"
            kind = "clickhouse"
            topics = ["%s"]
            group_id = "%s"
            on_error = "skip"
            unmatched = "skip"
            duplicate_keys = "%s"
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            linger_ms = 100
            [[sinks.branches]]
            name = "a"
            when = { path = "kind", equals = "a" }
            target_table = "ta"
            [[sinks.branches]]
            name = "b"
            when = { path = "kind", equals = "b" }
            target_table = "tb"
            """.formatted(TestServices.bootstrap(), topic, group, duplicateKeys, TestServices.clickhouse(), database);
    }

    @ParameterizedTest(name = "duplicate_keys = {0}")
    @ValueSource(strings = {"fail", "first", "last"})
    void shouldWriteOnlyObjectsCountTombstonesAndReadOneOccurrenceOfADuplicateKey(final String policy)
        throws Exception
    {
        final String s = unique("");
        final String database = "record_fate_" + s;
        final String topic = "record-fate-" + s;
        TestServices.sql("CREATE DATABASE " + database);
        for (final String t : List.of("ta", "tb"))
        {
            TestServices.sql("CREATE TABLE " + database + "." + t + " (id Nullable(UInt32), name String DEFAULT "
                + "'dflt', kind String) ENGINE = MergeTree() ORDER BY tuple()");
        }
        TestServices.createTopic(topic, 1);
        final List<byte[]> values = new ArrayList<>();
        for (final String v : VALUES)
        {
            values.add(v == null ? null : v.getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, values);
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(config(topic, "g-" + s, database, policy)),
            c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_OK, engine.run());

        final String ta = TestServices.sql("SELECT id, name, kind FROM " + database + ".ta ORDER BY id FORMAT "
            + "TabSeparated");
        final String tb = TestServices.sql("SELECT id, name, kind FROM " + database + ".tb ORDER BY id FORMAT "
            + "TabSeparated");
        final PipelineStats stats = engine.pipelines().get(0).stats();
        switch (policy)
        {
            case "fail" -> {
                assertEquals("10\tdflt\ta\n11\tdflt\ta\n", ta, "never a row of defaults for a non-object");
                assertEquals("", tb);
                assertEquals(9, stats.droppedInvalid.get(), "0, 1, 4, 5, 7, 8, 9, 10, 11");
            }
            case "first" -> {
                assertEquals("1\tfirst\ta\n10\tdflt\ta\n11\tdflt\ta\n20\tk\ta\n", ta);
                assertEquals("", tb, "the branch read the first kind, as the row did");
                assertEquals(7, stats.droppedInvalid.get());
            }
            default -> {
                assertEquals("2\tsecond\ta\n10\tdflt\ta\n11\tdflt\ta\n", ta);
                assertEquals("20\tk\tb\n", tb, "the branch read the last kind, as the row did");
                assertEquals(7, stats.droppedInvalid.get());
            }
        }
        assertEquals(1, stats.droppedTombstone.get(), "T3: the tombstone, counted as such");
        assertEquals(0, stats.droppedUnrouted.get(), "a non-object is never unrouted");
        assertEquals(Map.of(new TopicPartition(topic, 0), (long)VALUES.length), TestServices.committed("g-" + s));
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(List.of(topic)));
        dropDatabase(database);
    }
}
