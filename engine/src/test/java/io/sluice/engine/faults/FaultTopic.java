package io.sluice.engine.faults;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import io.sluice.engine.ProduceCommand;
import io.sluice.engine.TestServices;

/**
 * The input every fault scenario reads: the bundled GitHub sample replicated 24 times with distinct ids
 * ({@code engine.jar produce --repeat 24 --id-step 100000000000}, 204,048 records) in a topic of 4 partitions.
 * It is produced once per test JVM and shared by the scenarios (each uses its own consumer group and database), and
 * deleted when the run ends (JUnit closes it with the root extension store).
 *
 * <p>After producing, the topic is read back once with a plain {@link KafkaConsumer} to index the id of every
 * (partition, offset): the scenarios use it to say which records are lost and whether a committed offset passes a
 * record that ClickHouse does not hold.
 *
 * <p>A scenario that must crash something mid-run reads a {@link Staged} copy instead, whose input arrives in stages:
 * the rest is held back until the crash has happened, so no machine is fast enough to finish the input first.
 */
final class FaultTopic implements AutoCloseable
{
    static final int PARTITIONS = 4;
    static final int REPEAT = 24;
    static final long ID_STEP = 100_000_000_000L;

    final String name;
    /** ids[p][o] = the id of the record at offset o of partition p. */
    final long[][] ids;
    /** Every input id once, sorted. */
    final long[] distinct;
    final long records;
    final long produceMillis;
    /** Bytes of the topic's log segments (what a consumer fetches, compressed as produced). */
    final long bytes;

    private FaultTopic(final String name, final long[][] ids, final long produceMillis, final long bytes)
    {
        this.name = name;
        this.ids = ids;
        this.bytes = bytes;
        long n = 0;
        for (final long[] p : ids)
        {
            n += p.length;
        }
        this.records = n;
        final long[] all = new long[(int)n];
        int i = 0;
        for (final long[] p : ids)
        {
            System.arraycopy(p, 0, all, i, p.length);
            i += p.length;
        }
        Arrays.sort(all);
        int d = 0;
        for (int j = 0; j < all.length; j++)
        {
            if (j == 0 || all[j] != all[j - 1])
            {
                all[d++] = all[j];
            }
        }
        this.distinct = Arrays.copyOf(all, d);
        this.produceMillis = produceMillis;
    }

    long[] endOffsets()
    {
        final long[] end = new long[ids.length];
        for (int p = 0; p < ids.length; p++)
        {
            end[p] = ids[p].length;
        }
        return end;
    }

    /** @return input ids that are not among {@code written} (sorted) */
    long lost(final long[] written)
    {
        long lost = 0;
        for (final long id : distinct)
        {
            if (Arrays.binarySearch(written, id) < 0)
            {
                lost++;
            }
        }
        return lost;
    }

    /** @return "p@o id" of the first few records not among {@code written}, for failure messages */
    String describeLost(final long[] written, final int max)
    {
        final StringBuilder sb = new StringBuilder();
        int n = 0;
        for (int p = 0; p < ids.length && n < max; p++)
        {
            for (int o = 0; o < ids[p].length && n < max; o++)
            {
                if (Arrays.binarySearch(written, ids[p][o]) < 0)
                {
                    sb.append(name).append('-').append(p).append('@').append(o).append(" id=").append(ids[p][o])
                        .append("; ");
                    n++;
                }
            }
        }
        return sb.toString();
    }

    /** @return per partition, the first offset whose record is not among {@code written} (the end offset when all are) */
    long[] firstUnwritten(final long[] written)
    {
        final long[] out = new long[ids.length];
        for (int p = 0; p < ids.length; p++)
        {
            int o = 0;
            while (o < ids[p].length && Arrays.binarySearch(written, ids[p][o]) >= 0)
            {
                o++;
            }
            out[p] = o;
        }
        return out;
    }

    /** @return records at or after the committed offsets that are already written: what a restart writes again */
    long writtenAtOrAfter(final long[] committed, final long[] written)
    {
        final List<Integer> all = new ArrayList<>();
        for (int p = 0; p < ids.length; p++)
        {
            all.add(p);
        }
        return writtenAtOrAfter(committed, written, all);
    }

    /** @return as above, over the given partitions only */
    long writtenAtOrAfter(final long[] committed, final long[] written, final List<Integer> partitions)
    {
        long n = 0;
        for (final int p : partitions)
        {
            for (int o = (int)Math.min(committed[p], ids[p].length); o < ids[p].length; o++)
            {
                if (Arrays.binarySearch(written, ids[p][o]) >= 0)
                {
                    n++;
                }
            }
        }
        return n;
    }

    @Override
    public void close() throws Exception
    {
        try (Admin a = Faults.admin())
        {
            a.deleteTopics(List.of(name)).all().get(60, TimeUnit.SECONDS);
            System.out.println("deleted fault topic " + name);
        }
    }

    /**
     * Creates an empty copy of this topic named {@code copyName} (same partitions), to be filled by
     * {@link Staged#release}.
     */
    Staged stage(final String copyName) throws Exception
    {
        TestServices.createTopic(copyName, PARTITIONS);
        return new Staged(this, new FaultTopic(copyName, ids, 0, bytes));
    }

    /**
     * A copy of a fault topic that holds, per partition, only a prefix of the source's records until released further:
     * every record keeps its key, headers, partition and offset (so {@link #ids} apply unchanged) and gets a new
     * timestamp (the time it is released, so end-to-end latency means what it says). Not thread-safe.
     */
    static final class Staged implements AutoCloseable
    {
        /** The copy: its name, and the source's ids at the same (partition, offset). */
        final FaultTopic topic;
        private final FaultTopic source;
        private final long[] released = new long[PARTITIONS];
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final KafkaProducer<byte[], byte[]> producer;

        private Staged(final FaultTopic source, final FaultTopic copy)
        {
            this.source = source;
            this.topic = copy;
            this.consumer = new KafkaConsumer<>(consumerProperties());
            // one request in flight (as produce does): the offsets of the copy must equal the source's
            this.producer = new KafkaProducer<>(ProduceCommand.producerProperties(Faults.bootstrap()));
        }

        /**
         * Copies the source's records up to {@code fraction} (0..1) of each partition into the copy, and returns once
         * Kafka has acknowledged every one of them.
         *
         * @return records in the copy now (the sum of the released prefixes)
         * @throws IllegalStateException when a record is not acknowledged or lands at another offset than its source's
         */
        long release(final double fraction) throws Exception
        {
            final List<TopicPartition> from = new ArrayList<>();
            final long[] upTo = new long[PARTITIONS];
            for (int p = 0; p < PARTITIONS; p++)
            {
                upTo[p] = fraction >= 1.0 ? source.ids[p].length : (long)Math.floor(fraction * source.ids[p].length);
                if (upTo[p] > released[p])
                {
                    final TopicPartition tp = new TopicPartition(source.name, p);
                    from.add(tp);
                }
            }
            if (from.isEmpty())
            {
                return Faults.sum(released);
            }
            consumer.assign(from);
            for (final TopicPartition tp : from)
            {
                consumer.seek(tp, released[tp.partition()]);
            }
            final List<Future<RecordMetadata>> sends = new ArrayList<>();
            final List<Long> expected = new ArrayList<>();
            final long[] next = released.clone();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!reached(next, upTo))
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("could not read " + source.name + " up to " + Arrays.toString(upTo)
                        + " within 120 s (at " + Arrays.toString(next) + ")");
                }
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500)))
                {
                    final int p = r.partition();
                    if (r.offset() >= upTo[p])
                    {
                        continue;
                    }
                    if (r.offset() != next[p])
                    {
                        throw new IllegalStateException("unexpected offset " + r.offset() + " in " + source.name + "-"
                            + p + " (expected " + next[p] + ")");
                    }
                    sends
                        .add(producer.send(new ProducerRecord<>(topic.name, p, null, r.key(), r.value(), r.headers())));
                    expected.add(((long)p << 40) | next[p]);
                    next[p]++;
                }
            }
            producer.flush();
            for (int i = 0; i < sends.size(); i++)
            {
                final RecordMetadata m;
                try
                {
                    m = sends.get(i).get();
                }
                catch (final ExecutionException e)
                {
                    throw new IllegalStateException("test setup: Kafka did not take a record for " + topic.name,
                        e.getCause());
                }
                final long want = expected.get(i);
                if (m.partition() != (int)(want >>> 40) || m.offset() != (want & ((1L << 40) - 1)))
                {
                    throw new IllegalStateException("test setup: the copy's record landed at " + m.partition() + "@"
                        + m.offset() + ", its source is at " + (want >>> 40) + "@" + (want & ((1L << 40) - 1)));
                }
            }
            System.arraycopy(next, 0, released, 0, PARTITIONS);
            return Faults.sum(released);
        }

        private static boolean reached(final long[] next, final long[] upTo)
        {
            for (int p = 0; p < next.length; p++)
            {
                if (next[p] < upTo[p])
                {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void close() throws Exception
        {
            consumer.close();
            producer.close();
            topic.close();
        }
    }

    private static Properties consumerProperties()
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Faults.bootstrap());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(64 << 20));
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(16 << 20));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    private static FaultTopic produce() throws Exception
    {
        final String topic = "faults-" + Faults.suffix();
        final Path root = Faults.projectRoot();
        final long start = System.nanoTime();
        try (EngineRun p = EngineRun.start(Faults.workDir("topic"), "produce", "produce",
            "--bootstrap-servers", Faults.bootstrap(), "--topic", topic, "--partitions", Integer.toString(PARTITIONS),
            "--file", root.resolve("examples/data/github-events.jsonl.gz").toString(),
            "--repeat", Integer.toString(REPEAT), "--id-step", Long.toString(ID_STEP),
            // as the engines' kafka_check_timeout_ms: at load 30 the broker took over 10 s to answer
            "--kafka-check-timeout-ms", "60000"))
        {
            final int rc = p.waitFor(300);
            if (rc != 0)
            {
                throw new IllegalStateException("engine.jar produce exited " + rc + ":\n" + p.tail(40));
            }
        }
        final long produceMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        final FaultTopic t = new FaultTopic(topic, index(topic), produceMillis, logBytes(topic));
        System.out.printf(
            "fault topic %s: %d records (%d distinct ids, %d MiB on the broker) in %d partitions, produced in %d ms%n",
            topic, t.records, t.distinct.length, t.bytes >> 20, PARTITIONS, produceMillis);
        return t;
    }

    private static long logBytes(final String topic) throws Exception
    {
        try (Admin a = Faults.admin())
        {
            final List<Integer> brokers = new ArrayList<>();
            a.describeCluster().nodes().get().forEach(n -> brokers.add(n.id()));
            long total = 0;
            for (final var dirs : a.describeLogDirs(brokers).allDescriptions().get().values())
            {
                for (final var dir : dirs.values())
                {
                    for (final var e : dir.replicaInfos().entrySet())
                    {
                        if (e.getKey().topic().equals(topic))
                        {
                            total += e.getValue().size();
                        }
                    }
                }
            }
            return total;
        }
    }

    /** Reads the topic back with a plain consumer (assign, no group) and records each offset's top-level id. */
    private static long[][] index(final String topic)
    {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties()))
        {
            final List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++)
            {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            final Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            final long[][] ids = new long[PARTITIONS][];
            final int[] filled = new int[PARTITIONS];
            for (final TopicPartition tp : tps)
            {
                ids[tp.partition()] = new long[(int)(long)end.get(tp)];
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (true)
            {
                boolean done = true;
                for (int i = 0; i < PARTITIONS; i++)
                {
                    done &= filled[i] == ids[i].length;
                }
                if (done)
                {
                    return ids;
                }
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("could not read " + topic + " back within 180 s");
                }
                final ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(500));
                for (final ConsumerRecord<byte[], byte[]> r : rs)
                {
                    final int part = r.partition();
                    if (r.offset() != filled[part])
                    {
                        throw new IllegalStateException("unexpected offset " + r.offset() + " in " + topic + "-" + part
                            + " (expected " + filled[part] + ": the fault topic must have no gaps)");
                    }
                    ids[part][filled[part]++] = topId(r.value());
                }
            }
        }
    }

    /** The record's top-level "id" (a string of digits, the first key of every GitHub event). */
    static long topId(final byte[] v)
    {
        final byte[] prefix = "{\"id\":\"".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < prefix.length; i++)
        {
            if (v[i] != prefix[i])
            {
                throw new IllegalStateException("record does not start with {\"id\":\"...: "
                    + new String(v, 0, Math.min(60, v.length), StandardCharsets.UTF_8));
            }
        }
        long id = 0;
        for (int i = prefix.length; v[i] != '"'; i++)
        {
            id = id * 10 + (v[i] - '0');
        }
        return id;
    }

    /** Resolves a {@link FaultTopic} parameter: produced on first use in the JVM, deleted when the run ends. */
    static final class Resolver implements ParameterResolver
    {
        @Override
        public boolean supportsParameter(final ParameterContext pc, final ExtensionContext ec)
        {
            return pc.getParameter().getType() == FaultTopic.class;
        }

        @Override
        public Object resolveParameter(final ParameterContext pc, final ExtensionContext ec)
        {
            return ec.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(FaultTopic.class, k ->
                {
                    try
                    {
                        return produce();
                    }
                    catch (final Exception e)
                    {
                        throw new IllegalStateException("cannot produce the fault topic: " + e, e);
                    }
                }, FaultTopic.class);
        }
    }
}
