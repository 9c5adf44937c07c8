package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.kafka.KafkaScatterDriver;
import io.sluice.sinks.postgres.PostgresDriver;
import io.sluice.sinks.postgres.PostgresIdentifiers;

/**
 * {@code delivery = "exactly_once"} on the real broker and PostgreSQL: 4 partitions split by a field into 4 tables.
 * The pipeline runs, the group's committed offsets are moved back (to 0, to the middle, to the last record; one left),
 * more records arrive and it runs again: every table holds each of its records exactly once (count = count of
 * distinct ids = expected, plain queries), the positions table agrees with the rows, and the group is committed to the
 * end. The same runs with {@code at_least_once} write the re-read records twice (the duplicates exactly-once
 * prevents). After a reset backwards a user clears the group's positions (docs/effectively-once.md) and the records
 * are written again.
 */
class PostgresExactlyOnceIT
{
    private static final Logger LOG = LoggerFactory.getLogger(PostgresExactlyOnceIT.class);
    private static final String SCHEMA = "pgeos_" + Long.toString(System.currentTimeMillis(), 36);
    private static final List<String> TOPICS = new ArrayList<>();
    private static final int PARTITIONS = 4;
    private static final int KINDS = 4;

    @BeforeAll
    static void createSchema() throws Exception
    {
        PostgresSinkIT.sql("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA));
    }

    @AfterAll
    static void dropAll() throws Exception
    {
        PostgresSinkIT.sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE");
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(TOPICS));
    }

    private static String table(final String prefix, final int kind)
    {
        return PostgresIdentifiers.qualified(SCHEMA, prefix + "k" + kind);
    }

    /** What was produced: per (kind, partition) the highest offset, and per kind the count. */
    private static final class Produced
    {
        final Map<String, Long> last = new TreeMap<>();
        final int[] perKind = new int[KINDS];
    }

    /** {@code n} records {"id":..,"kind":"kK"}, record i to partition i % 4, kinds cycling within each partition. */
    private static void produce(final String topic, final int firstId, final int n, final Produced into)
        throws Exception
    {
        final List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        final int[] kinds = new int[n];
        for (int i = 0; i < n; i++)
        {
            final int id = firstId + i;
            kinds[i] = id / PARTITIONS % KINDS;
            records.add(new ProducerRecord<>(topic, id % PARTITIONS, null,
                ("{\"id\":" + id + ",\"kind\":\"k" + kinds[i] + "\"}").getBytes(StandardCharsets.UTF_8)));
        }
        final List<RecordMetadata> sent = KafkaRecords.produce(records);
        for (int i = 0; i < n; i++)
        {
            into.last.merge("k" + kinds[i] + "|" + sent.get(i).partition(), sent.get(i).offset(), Math::max);
            into.perKind[kinds[i]]++;
        }
    }

    private static String config(final String group, final String topic, final String delivery, final String prefix)
    {
        final Map<String, String> secrets = TestServices.secrets();
        final StringBuilder branches = new StringBuilder();
        for (int k = 0; k < KINDS; k++)
        {
            branches.append("""
                [[sinks.branches]]
                name = "k%d"
                when = { path = "kind", equals = "k%d" }
                target_table = "%sk%d"
                columns = { p = "$partition", o = "$offset" }
                """.formatted(k, k, prefix, k));
        }
        return """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 100
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = ["%s"]
            group_id = "%s"
            unmatched = "fail"
            [sinks.plugin_config]
            url = "%s"
            username = "%s"
            password = "%s"
            schema = "%s"
            delivery = "%s"
            insert_workers = 2
            max_rows = 37
            linger_ms = 50
            %s
            """.formatted(TestServices.bootstrap(), topic, group, PostgresSinkIT.url(),
            secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), SCHEMA, delivery,
            branches);
    }

    private static void run(final String toml)
    {
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new PostgresDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
    }

    private static void resetTo(final String group, final String topic, final long... offsets) throws Exception
    {
        final Map<TopicPartition, OffsetAndMetadata> to = new HashMap<>();
        for (int p = 0; p < offsets.length; p++)
        {
            if (offsets[p] >= 0)
            {
                to.put(new TopicPartition(topic, p), new OffsetAndMetadata(offsets[p]));
            }
        }
        try (Admin a = TestServices.admin())
        {
            a.alterConsumerGroupOffsets(group, to).all().get();
        }
    }

    private static String counts(final String prefix, final int kind) throws Exception
    {
        return PostgresSinkIT.rows("SELECT count(*) || '|' || count(DISTINCT id) || '|' || count(DISTINCT (p, o)) FROM "
            + table(prefix, kind)).get(0);
    }

    /** Each table holds each of its records once, its positions are its rows', the group is at the end. */
    private static void assertExactlyOnce(final String group, final String topic, final String prefix,
        final Produced produced) throws Exception
    {
        final Map<String, Long> positions = new TreeMap<>();
        for (final String row : PostgresSinkIT.rows("SELECT table_name || '|' || partition || '|' || next_offset FROM "
            + PostgresIdentifiers.qualified(SCHEMA, "sluice_offsets") + " WHERE group_id = '" + group + "' AND topic "
            + "= '" + topic + "'"))
        {
            final String[] f = row.split("\\|");
            positions.put(f[0] + "|" + f[1], Long.parseLong(f[2]));
        }
        final Map<String, Long> fromRows = new TreeMap<>();
        final Map<String, Long> expected = new TreeMap<>();
        for (int k = 0; k < KINDS; k++)
        {
            final int n = produced.perKind[k];
            assertEquals(n + "|" + n + "|" + n, counts(prefix, k), "count, distinct ids, distinct coordinates of "
                + table(prefix, k));
            for (final String row : PostgresSinkIT.rows("SELECT p || '|' || max(o) + 1 FROM " + table(prefix, k)
                + " GROUP BY p"))
            {
                final String[] f = row.split("\\|");
                fromRows.put(table(prefix, k) + "|" + f[0], Long.parseLong(f[1]));
            }
            for (int p = 0; p < PARTITIONS; p++)
            {
                final Long last = produced.last.get("k" + k + "|" + p);
                if (last != null)
                {
                    expected.put(table(prefix, k) + "|" + p, last + 1);
                }
            }
        }
        assertEquals(expected, fromRows, "each table holds up to the last record of each partition");
        assertEquals(expected, positions, "the positions table agrees with the rows");
        assertEquals(TestServices.endOffsets(topic, PARTITIONS), TestServices.committed(group), "lag 0");
    }

    /**
     * Two branches that write one table through two exactly-once sinks keeping their positions in one place would
     * share its positions row and each take the other's position as its own (hostile review of issue 23): the
     * second one refused when it resolves the table (check refuses it when both name it the same way; here one
     * names it by a template), its partition stopped naming both branches, and no row of it written.
     */
    @Test
    void shouldRefuseTwoSinksWritingOneTableWithPositionsInOnePlace() throws Exception
    {
        final String s = unique("");
        final String topic = "eos.twin." + s;
        TestServices.createTopic(topic, 1);
        TOPICS.add(topic);
        // the table is named as the topic: branch x names it by the template, y literally, so check cannot see that
        // they meet (a literal in both, through sinks keeping positions in one place, check refuses:
        // PostgresConfigTest) and the route stage refuses the second
        final String twin = topic;
        PostgresSinkIT.sql("CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, twin) + " (id bigint, kind text)");
        KafkaRecords.produce(List.of(
            new ProducerRecord<>(topic, 0, null, "{\"id\":1,\"kind\":\"k0\"}".getBytes(StandardCharsets.UTF_8)),
            new ProducerRecord<>(topic, 0, null, "{\"id\":2,\"kind\":\"k1\"}".getBytes(StandardCharsets.UTF_8))));
        final Map<String, String> secrets = TestServices.secrets();
        final String plugin = """
            url = "%s"
            username = "%s"
            password = "%s"
            schema = "%s"
            delivery = "exactly_once"
            linger_ms = 50
            """.formatted(PostgresSinkIT.url(), secrets.get("SLUICE_TEST_POSTGRES_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), SCHEMA);
        final String toml = """
            [kafka]
            bootstrap_servers = "%s"
            [engine]
            status_interval_ms = 0
            [checkpoint]
            stalled_fail_after_ms = 5000
            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = ["%s"]
            group_id = "g-twin-%s"
            [sinks.plugin_config]
            %s
            [[sinks.branches]]
            name = "x"
            when = { path = "kind", equals = "k0" }
            target_table = "{topic}"
            [[sinks.branches]]
            name = "y"
            when = { path = "kind", equals = "k1" }
            sink = "pg2"
            target_table = "%s"
            [[sinks]]
            name = "pg2"
            kind = "postgres"
            [sinks.plugin_config]
            %s
            """.formatted(TestServices.bootstrap(), topic, s, plugin, twin, plugin);
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new PostgresDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run(), "the shared positions row must stop the pipeline");
        final String f = engine.failure();
        // y's literal table is resolved at start, x's template at its first record: x is refused, its partition
        // stops, and the stall limit ends the run naming why
        assertTrue(f.contains("branches y and x both write it") && f.contains("positions kept in one place"), f);
        assertEquals(List.of("0"), PostgresSinkIT.rows("SELECT count(*) FROM "
            + PostgresIdentifiers.qualified(SCHEMA, twin) + " WHERE kind = 'k0'"), "the refused branch wrote nothing");
    }

    /**
     * A topic deleted and created again: the stored position (30) lies above the new partition's end offset (0), so
     * the partition stops. The partition is trivially committed to its end, but --until-caught-up must not report
     * success for a run that stopped it: exit 1 naming the partition, the table, the positions table and the group.
     */
    @Test
    void shouldNotEndCaughtUpAsASuccessWhenAPartitionStoppedOnItsPositions() throws Exception
    {
        final String s = unique("");
        final String topic = "eos.recreated." + s;
        TestServices.createTopic(topic, 2);
        TOPICS.add(topic);
        final String table = "recreated_" + s;
        final String group = "g-recreated-" + s;
        final String qualified = PostgresIdentifiers.qualified(SCHEMA, table);
        final String positions = PostgresIdentifiers.qualified(SCHEMA, "sluice_offsets");
        PostgresSinkIT.sql("CREATE TABLE " + qualified + " (id bigint, kind text)");
        PostgresSinkIT.sql("CREATE TABLE IF NOT EXISTS " + positions + " (group_id text NOT NULL, table_name text NOT "
            + "NULL, topic text NOT NULL, partition integer NOT NULL, next_offset bigint NOT NULL, updated_at "
            + "timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (group_id, table_name, topic, partition))");
        // the old topic's partition 1 was written up to offset 30; partition 0 has no position
        PostgresSinkIT.sql("INSERT INTO " + positions + " (group_id, table_name, topic, partition, next_offset) VALUES "
            + "('" + group + "', '" + qualified.replace("'", "''") + "', '" + topic + "', 1, 30)");
        final Map<String, String> secrets = TestServices.secrets();
        final String toml = """
            [kafka]
            bootstrap_servers = "%s"
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = ["%s"]
            group_id = "%s"
            [sinks.plugin_config]
            url = "%s"
            username = "%s"
            password = "%s"
            schema = "%s"
            target_table = "%s"
            delivery = "exactly_once"
            linger_ms = 50
            """.formatted(TestServices.bootstrap(), topic, group, PostgresSinkIT.url(),
            secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), SCHEMA, table);
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new PostgresDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run(), "a stopped partition is no success");
        final String f = engine.failure();
        assertTrue(f.contains("caught up (--until-caught-up), but 1 partition stopped: " + topic + "-1: table "
            + qualified + " (positions table " + positions + " at ") && f.contains("group " + group + ")")
            && f.contains("up to offset 30 (next offset), above the partition's end offset 0"), f);
        assertTrue(!f.contains(topic + "-0"), "partition 0 has no position and did not stop: " + f);
    }

    @Test
    void shouldWriteEachRecordOnceAcrossReReadsWhereAtLeastOnceWritesItTwice() throws Exception
    {
        final String s = unique("");
        final String topic = "eos." + s;
        TestServices.createTopic(topic, PARTITIONS);
        TOPICS.add(topic);
        for (int k = 0; k < KINDS; k++)
        {
            for (final String prefix : List.of("e_", "a_"))
            {
                PostgresSinkIT.sql("CREATE TABLE " + table(prefix, k) + " (id bigint NOT NULL, kind text, p integer, "
                    + "o bigint)");
            }
        }
        final Produced produced = new Produced();
        produce(topic, 0, 2000, produced);
        final String eos = "g-eos-" + s;
        final String alo = "g-alo-" + s;
        run(config(eos, topic, "exactly_once", "e_"));
        assertExactlyOnce(eos, topic, "e_", produced);
        run(config(alo, topic, "at_least_once", "a_"));

        // the group's offsets go back as after a crash before the commits (to 0, the middle, the last record; p3 kept)
        for (final String g : List.of(eos, alo))
        {
            resetTo(g, topic, 0, 250, 499, -1);
        }
        produce(topic, 2000, 2000, produced);
        run(config(eos, topic, "exactly_once", "e_"));
        assertExactlyOnce(eos, topic, "e_", produced);

        run(config(alo, topic, "at_least_once", "a_"));
        long aloRows = 0;
        long aloDistinct = 0;
        for (int k = 0; k < KINDS; k++)
        {
            final String[] c = counts("a_", k).split("\\|");
            aloRows += Long.parseLong(c[0]);
            aloDistinct += Long.parseLong(c[1]);
        }
        // the re-read wrote again 500 + 250 + 1 records of partitions 0, 1 and 2
        assertEquals(4000, aloDistinct);
        assertEquals(4000 + 751, aloRows, "at_least_once writes the re-read records twice");
        LOG.info("4,000 records, re-read 751: exactly_once {} rows, at_least_once {} rows ({} duplicates)", 4000,
            aloRows, aloRows - aloDistinct);

        // a reset backwards meant to write again: clear the group's positions (and here the tables), then run
        resetTo(eos, topic, 0, 0, 0, 0);
        PostgresSinkIT.sql("DELETE FROM " + PostgresIdentifiers.qualified(SCHEMA, "sluice_offsets")
            + " WHERE group_id = '" + eos + "'");
        for (int k = 0; k < KINDS; k++)
        {
            PostgresSinkIT.sql("TRUNCATE " + table("e_", k));
        }
        run(config(eos, topic, "exactly_once", "e_"));
        assertExactlyOnce(eos, topic, "e_", produced);
        assertTrue(produced.perKind[0] > 0);
    }
}
