package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A burst of new topics, each needing a new table (issue 24, the cost curve): 200 topics of one partition and 10
 * records each, a sink that follows them by pattern into a table per topic in ClickHouse, created on first use. Most
 * records find their table still being set up and wait in their partition; each waiting partition is held until its
 * table's setup has ended and read again then, once, not on a timer. Checked on the real broker and server, from the
 * engine's own metrics: every record is a row, once; no re-read came from a backoff; every record read beyond the
 * first reading is accounted for by a re-read after a setup ended or a safety re-read, at most one partition's records
 * each; so records read per record written stay near 2 (once before the table was known, once after), where the timed
 * re-reads read each record about 8 times at 1,000 topics (docs/benchmarks.md). The figures are printed.
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class NewTableBurstIT
{
    private static final int TOPICS = 200;
    private static final int PER_TOPIC = 10;

    @Test
    void shouldReadABurstOfNewTablesAboutTwicePerRecordNotOncePerBackoff(@TempDir final Path dir) throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String prefix = "burst-" + sfx;
        final String database = "burst_" + sfx;
        final String group = "burst-" + sfx;
        final Set<String> topics = new HashSet<>();
        for (int u = 0; u < TOPICS; u++)
        {
            topics.add(prefix + ".u" + u);
        }
        TestServices.sql("CREATE DATABASE " + database);
        try (Admin a = TestServices.admin())
        {
            final List<NewTopic> create = new ArrayList<>();
            for (final String t : topics)
            {
                create.add(new NewTopic(t, 1, (short)1));
            }
            a.createTopics(create).all().get(120, TimeUnit.SECONDS);
        }
        produce(prefix);
        final int port = TestServices.freePort();
        final Path cfg = dir.resolve("burst.toml");
        Files.writeString(cfg, "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 200\n[engine]\nkafka_check_timeout_ms = 60000\n"
            + "[metrics]\nlisten = \"127.0.0.1:" + port + "\"\n"
            + "[[sinks]]\nname = \"burst\"\nkind = \"clickhouse\"\npattern = '" + prefix.replace("-", "\\-")
            + "\\..*'\ngroup_id = \"" + group + "\"\n[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse()
            + "\"\ndatabase = \"" + database + "\"\ntarget_table = \"t_{topic_segment[-1]}\"\ncreate_table = true\n"
            + "create_table_ddl = \"CREATE TABLE {database}.{table} (n UInt32, u String) ENGINE = MergeTree() "
            + "ORDER BY n\"\nlinger_ms = 100\n");
        final long records = (long)TOPICS * PER_TOPIC;
        try (EngineProcess e = EngineProcess.start("--config", cfg.toString()))
        {
            SplitAcrossSinksIT.await(() -> rows(database) == records, 300,
                "every record of the " + TOPICS + " new topics written to its new table", e);
            SplitAcrossSinksIT.await(() -> committed(group) == records, 60, "every record committed", e);
            final String scrape = MetricsContract.scrape(port);
            assertTrue(scrape != null, "the metrics listener answers");
            final long in = (long)value(scrape, "sluice_records_in_total", null);
            final long ended = (long)value(scrape, "sluice_source_rereads_total", "setup_ended");
            final long safety = (long)value(scrape, "sluice_source_rereads_total", "safety");
            final long backoff = (long)value(scrape, "sluice_source_rereads_total", "backoff");
            final long flushSealed = (long)value(scrape, "sluice_batches_sealed_total", "reason=\"flush\"");
            System.out.printf("NewTableBurstIT: %d topics, %d records: %d read (%.2f per record), re-reads: %d after "
                + "a setup ended, %d for safety, %d on a backoff; %d batches sealed by a flush%n", TOPICS, records, in,
                in / (double)records, ended, safety, backoff, flushSealed);
            e.terminate();
            assertEquals(0, e.waitFor(60), e.output());
            assertEquals(0, backoff, "no waiting record re-read on a backoff timer");
            assertTrue(ended >= 1, "the burst made records wait for their tables: " + ended);
            assertTrue(ended <= TOPICS, "at most one re-read per topic after its setup ended: " + ended);
            // a partition held for its new table seals nobody's batch (the engine ran without a rebalance or a drain)
            assertEquals(0, flushSealed, "batches sealed by a flush while " + ended + " partitions waited for tables");
            assertTrue(in >= records, "every record read: " + in);
            assertTrue(in <= records + (ended + safety) * PER_TOPIC, "each read beyond the first is a re-read of one "
                + "partition's records at most: " + in + " read, " + ended + " + " + safety + " re-reads");
            assertTrue(e.output().contains("re-reading once that has ended"), "the wait is logged as such");
        }
        assertEquals(records + "\t" + records + "\t" + TOPICS + "\t0", TestServices.sql("SELECT count(), "
            + "uniqExact(n, u), uniqExact(u), countIf(_table != concat('t_', u)) FROM merge(" + database
            + ", '^t_')").trim(), "every record once, in its own topic's table");
        TestServices.sql("DROP DATABASE " + database);
        ScatterEndToEndIT.deleteTopics(topics);
    }

    /** Ten records per topic, {"n":i,"u":"uK"}, from one producer; every send checked. */
    private static void produce(final String prefix) throws InterruptedException
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServices.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        final List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            for (int i = 0; i < TOPICS * PER_TOPIC; i++)
            {
                final int u = i % TOPICS;
                sends.add(producer.send(new ProducerRecord<>(prefix + ".u" + u, null,
                    ("{\"n\":" + i + ",\"u\":\"u" + u + "\"}").getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
        }
        for (final Future<RecordMetadata> f : sends)
        {
            try
            {
                f.get(60, TimeUnit.SECONDS);
            }
            catch (final ExecutionException | TimeoutException e)
            {
                throw new IllegalStateException("test setup: a record was not acknowledged by Kafka", e);
            }
        }
    }

    private static long rows(final String database)
    {
        try
        {
            return TestServices.sqlLong("SELECT count() FROM merge(" + database + ", '^t_')");
        }
        catch (final IllegalStateException e)
        {
            return -1; // no table yet: merge() of nothing fails
        }
    }

    private static long committed(final String group)
    {
        try
        {
            long sum = 0;
            for (final Map.Entry<?, Long> c : TestServices.committed(group).entrySet())
            {
                sum += Math.max(0, c.getValue());
            }
            return sum;
        }
        catch (final Exception e)
        {
            return -1; // asked again by the bounded wait
        }
    }

    /**
     * @return the sum of a series' samples in a scrape, those of {@code cause} only when it is given (a re-read's
     *         cause, or a whole label such as {@code reason="flush"})
     */
    private static double value(final String scrape, final String series, final String cause)
    {
        double sum = 0;
        for (final String line : scrape.split("\n"))
        {
            if (line.startsWith(series + "{")
                && (cause == null || line.contains(cause.contains("=") ? cause : "cause=\"" + cause + "\"")))
            {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}
