package io.sluice.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPInputStream;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.source.KafkaChecks;

/**
 * {@code engine.jar produce}: loads a JSON-lines file (plain or gzip) into a Kafka topic, creating the topic with
 * the given partitions when it is missing. For quickstarts, tests and benchmarks; idempotent producer, acks=all.
 * With {@code --parse-key} each line is {@code KEY<separator>VALUE} (the {@code parse.key} and {@code key.separator}
 * properties of Kafka's console producer); {@code --null-marker} sends a value (or key) equal to it as null, so a
 * line can be a tombstone (Kafka's {@code null.marker}).
 */
@Command(name = "produce", mixinStandardHelpOptions = true, description = {
    "Produce a JSON-lines file (.gz allowed) into a topic, one record per line.",
    "With --parse-key each line is KEY<separator>VALUE; with --null-marker a VALUE equal to the marker is sent as a "
        + "null value (a tombstone), e.g. --parse-key --null-marker NULL and the line 42<TAB>NULL deletes key 42."})
public final class ProduceCommand implements Callable<Integer>
{
    @Option(names = "--bootstrap-servers", defaultValue = "127.0.0.1:${env:SLUICE_KAFKA_PORT:-19092}", description = "Kafka brokers (default 127.0.0.1:$SLUICE_KAFKA_PORT, else ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = "--topic", required = true, description = "Topic to produce into.")
    String topic;

    @Option(names = "--partitions", defaultValue = "4", description = "Partitions when creating the topic (default ${DEFAULT-VALUE}). Records without a key (no --parse-key) "
        + "go by Kafka's default (sticky) partitioner, which fills one partition per batch: a few records may all land in "
        + "one. A keyed record goes to the partition of its key's hash.")
    int partitions;

    @Option(names = "--file", required = true, description = "JSON lines, one record per line; .gz is decompressed.")
    Path file;

    @Option(names = "--repeat", defaultValue = "1", description = "Produce the file this many times (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--id-step", defaultValue = "0", description = "With --repeat: add copy*STEP to the top-level string field \"id\" (decimal digits) of each copy, so copies stay distinct.")
    long idStep;

    @Option(names = "--limit", defaultValue = "0", description = "Stop after this many records in total (0 = no limit).")
    long limit;

    @Option(names = "--recreate", description = "Delete the topic first if it exists (its records are lost), then create it.")
    boolean recreate;

    @Option(names = "--delete-group", paramLabel = "GROUP", description = "Delete this consumer group first (its committed offsets), e.g. to replay from the start.")
    List<String> deleteGroups = new ArrayList<>();

    @Option(names = "--config", paramLabel = "FILE", description = "Take bootstrap servers and the security settings (TLS, SASL, [kafka.producer], [kafka.admin]) from this pipeline configuration's [kafka]; --bootstrap-servers given as well overrides its servers.")
    Path config;

    @Option(names = "--pipeline", paramLabel = "NAME", description = "With --config: use the Kafka connection of this sink or source (its own kafka table) instead of [kafka].")
    String pipeline;

    @Option(names = "--parse-key", description = "Each line is KEY<separator>VALUE: the text before the first "
        + "separator is the record's key (Kafka console producer's parse.key). A line without the separator is "
        + "refused, naming its line number.")
    boolean parseKey;

    @Option(names = "--key-separator", paramLabel = "TEXT", defaultValue = "\t", description = "With --parse-key: "
        + "what separates the key from the value (default TAB; console producer's key.separator).")
    String keySeparator;

    @Option(names = "--null-marker", paramLabel = "TEXT", description = "A value (or, with --parse-key, a key) equal to "
        + "TEXT is sent as null: a value equal to it makes the record a tombstone (console producer's null.marker).")
    String nullMarker;

    @Option(names = "--kafka-check-timeout-ms", defaultValue = "10000", paramLabel = "MS", description = "How long the start-up check waits for Kafka to answer before giving up with exit 1 (default ${DEFAULT-VALUE}; the engine's is engine.kafka_check_timeout_ms).")
    long kafkaCheckTimeoutMs;

    @Spec
    CommandSpec spec;

    /** The connection: from --config (and --pipeline), else --bootstrap-servers without security settings. */
    private SluiceConfig.Kafka kafka = null;

    @Override
    public Integer call() throws Exception
    {
        try
        {
            kafka = connection();
        }
        catch (final ConfigException e)
        {
            if (config == null)
            {
                spec.commandLine().getErr().println("error: " + e.problems().get(0).message());
                spec.commandLine().getErr().flush();
                return SluiceEngine.EXIT_CONFIG;
            }
            return ConfigChecks.report(config, e, spec.commandLine().getErr());
        }
        bootstrap = kafka.bootstrapServers();
        final String refused = KafkaChecks.unreachable(kafka, kafkaCheckTimeoutMs);
        if (refused != null)
        {
            System.err.println("error: " + refused);
            return 1;
        }
        final List<byte[][]> lines;
        try
        {
            lines = records(readLines(file));
        }
        catch (final IllegalArgumentException e)
        {
            spec.commandLine().getErr().println("error: " + file + ": " + e.getMessage());
            spec.commandLine().getErr().flush();
            return SluiceEngine.EXIT_CONFIG;
        }
        createTopic();
        final Properties p = producerProperties(kafka);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("id")), 128);
        long sent = 0;
        final Failures failures = new Failures();
        final long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            outer : for (int copy = 0; copy < repeat; copy++)
            {
                for (final byte[][] line : lines)
                {
                    if (limit > 0 && sent >= limit)
                    {
                        break outer;
                    }
                    final byte[] value = copy == 0 || idStep == 0 || line[1] == null
                        ? line[1]
                        : withId(scanner, line[1], copy * idStep);
                    producer.send(new ProducerRecord<>(topic, line[0], value), failures);
                    sent++;
                }
            }
            producer.flush();
        }
        if (failures.count.get() > 0)
        {
            // every send is checked: a record Kafka did not acknowledge is never reported as produced
            System.err.printf("error: %d of %d records were not acknowledged by Kafka (topic %s); the first: %s%n",
                failures.count.get(), sent, topic, failures.first.get());
            return 1;
        }
        final double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("produced %d records into %s in %.1f s (%.0f records/s)%n", sent, topic, secs, sent / secs);
        return 0;
    }

    /**
     * The producer settings of {@code produce}, also used by the tests that copy records (their offsets must equal
     * the source's): acks=all, idempotent, one request in flight, lz4, byte-array serializers.
     *
     * @param bootstrapServers Kafka's bootstrap servers
     * @return new properties, the caller's to change
     */
    public static Properties producerProperties(final String bootstrapServers)
    {
        return producerProperties(SluiceConfig.Kafka.of(bootstrapServers));
    }

    /**
     * The producer settings of {@code produce} on a connection: its security block and [kafka.producer], then
     * produce's own settings (which the user's table may not change: acks, idempotence, ordering).
     *
     * @param kafka the connection
     * @return new properties, the caller's to change
     */
    public static Properties producerProperties(final SluiceConfig.Kafka kafka)
    {
        final Properties p = new Properties();
        p.putAll(kafka.producerProperties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // one request in flight keeps each partition's batches in order when a new topic's first batch is retried
        // (see KafkaTopicProducer and awaitPartitionsReady)
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(512 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    /**
     * Waits until the leader of every partition of a just-created topic answers for it (a ListOffsets for each
     * succeeds). Producing before that races the broker: the first batch to a partition whose log is not loaded yet
     * fails with NOT_LEADER_OR_FOLLOWER, an idempotent producer's later batches can be taken first, and the retried
     * first batch is then refused as OutOfOrderSequence until it expires (delivery.timeout.ms).
     *
     * @param admin      an admin client of the cluster
     * @param topic      the topic
     * @param partitions its partition count
     * @throws IllegalStateException if the partitions are not ready within 60 s
     * @throws InterruptedException  if interrupted while waiting
     */
    static void awaitPartitionsReady(final Admin admin, final String topic, final int partitions)
        throws InterruptedException
    {
        final Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        for (int p = 0; p < partitions; p++)
        {
            query.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            try
            {
                admin.listOffsets(query).all().get(10, TimeUnit.SECONDS);
                return;
            }
            catch (final ExecutionException | TimeoutException e)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("the partitions of topic " + topic + " did not become ready "
                        + "within 60 s: " + (e.getCause() == null ? e : e.getCause()), e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** Counts the sends Kafka did not acknowledge and keeps the first cause; called on the producer's I/O thread. */
    private static final class Failures implements Callback
    {
        final AtomicLong count = new AtomicLong();
        final AtomicReference<Exception> first = new AtomicReference<>();

        @Override
        public void onCompletion(final RecordMetadata metadata, final Exception exception)
        {
            if (exception != null)
            {
                count.incrementAndGet();
                first.compareAndSet(null, exception);
            }
        }
    }

    static List<byte[]> readLines(final Path file) throws IOException
    {
        final List<byte[]> lines = new ArrayList<>();
        try (InputStream raw = Files.newInputStream(file);
            InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                if (!line.isBlank())
                {
                    lines.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        return lines;
    }

    /**
     * Splits the lines into {key, value} pairs by --parse-key, --key-separator and --null-marker.
     *
     * @param lines the non-blank lines of the file, UTF-8
     * @return one {key, value} per line; a null key is a record without one, a null value a tombstone
     * @throws IllegalArgumentException naming the line (1-based, among the non-blank lines) that has no separator,
     *                                  or an empty separator
     */
    List<byte[][]> records(final List<byte[]> lines)
    {
        if (parseKey && keySeparator.isEmpty())
        {
            throw new IllegalArgumentException("--key-separator is empty");
        }
        final byte[] marker = nullMarker == null ? null : nullMarker.getBytes(StandardCharsets.UTF_8);
        final List<byte[][]> out = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++)
        {
            final byte[] line = lines.get(i);
            byte[] key = null;
            byte[] value = line;
            if (parseKey)
            {
                final String text = new String(line, StandardCharsets.UTF_8);
                final int at = text.indexOf(keySeparator);
                if (at < 0)
                {
                    throw new IllegalArgumentException("line " + (i + 1) + " has no key separator "
                        + printable(keySeparator) + " (--parse-key reads KEY<separator>VALUE): " + abbreviate(text));
                }
                key = nullIfMarker(text.substring(0, at).getBytes(StandardCharsets.UTF_8), marker);
                value = text.substring(at + keySeparator.length()).getBytes(StandardCharsets.UTF_8);
            }
            out.add(new byte[][]{key, nullIfMarker(value, marker)});
        }
        return out;
    }

    private static byte[] nullIfMarker(final byte[] bytes, final byte[] marker)
    {
        return marker != null && java.util.Arrays.equals(bytes, marker) ? null : bytes;
    }

    private static String printable(final String separator)
    {
        return "\"" + separator.replace("\t", "\\t") + "\"";
    }

    private static String abbreviate(final String text)
    {
        return text.length() <= 80 ? text : text.substring(0, 80) + "...";
    }

    private static byte[] withId(final JsonScanner scanner, final byte[] line, final long add)
    {
        final UnsafeBuffer b = new UnsafeBuffer(line);
        if (scanner.scan(b, 0, line.length) != JsonError.NONE || scanner.kind(0) != JsonKind.STRING)
        {
            return line;
        }
        final int off = scanner.valueOffset(0);
        final int len = scanner.valueLength(0);
        final String digits = new String(line, off, len, StandardCharsets.US_ASCII);
        if (!digits.matches("[0-9]{1,18}"))
        {
            return line;
        }
        final byte[] id = Long.toString(Long.parseLong(digits) + add).getBytes(StandardCharsets.US_ASCII);
        final byte[] out = new byte[line.length - len + id.length];
        System.arraycopy(line, 0, out, 0, off);
        System.arraycopy(id, 0, out, off, id.length);
        System.arraycopy(line, off + len, out, off + id.length, line.length - off - len);
        return out;
    }

    private void createTopic() throws InterruptedException
    {
        final Map<String, Object> adminProperties = new HashMap<>(kafka.adminProperties());
        adminProperties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (Admin admin = Admin.create(adminProperties))
        {
            for (final String group : deleteGroups)
            {
                try
                {
                    admin.deleteConsumerGroups(List.of(group)).all().get();
                    System.out.printf("deleted consumer group %s%n", group);
                }
                catch (final ExecutionException e)
                {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException))
                    {
                        throw new IllegalStateException("cannot delete consumer group " + group + ": " + e.getCause(),
                            e.getCause());
                    }
                }
            }
            if (admin.listTopics().names().get().contains(topic))
            {
                if (!recreate)
                {
                    return;
                }
                admin.deleteTopics(List.of(topic)).all().get();
                System.out.printf("deleted topic %s%n", topic);
                // deletion is asynchronous in KRaft: wait until the name is free again
                for (int i = 0; i < 300 && admin.listTopics().names().get().contains(topic); i++)
                {
                    Thread.sleep(100);
                }
            }
            for (int attempt = 0;; attempt++)
            {
                try
                {
                    admin.createTopics(Set.of(new NewTopic(topic, partitions, (short)1))).all().get();
                    break;
                }
                catch (final ExecutionException e)
                {
                    if (!(e.getCause() instanceof TopicExistsException) || attempt > 50)
                    {
                        throw e;
                    }
                    Thread.sleep(200); // the deleted topic is still being removed
                }
            }
            awaitPartitionsReady(admin, topic, partitions);
            System.out.printf("created topic %s with %d partitions%n", topic, partitions);
        }
        catch (final ExecutionException e)
        {
            if (!(e.getCause() instanceof TopicExistsException))
            {
                throw new IllegalStateException("cannot create topic " + topic + " at " + bootstrap + ": "
                    + KafkaChecks.describe(e.getCause()), e.getCause());
            }
        }
    }

    private SluiceConfig.Kafka connection()
    {
        final boolean servers = spec != null && spec.commandLine().getParseResult() != null
            && spec.commandLine().getParseResult().hasMatchedOption("--bootstrap-servers");
        if (config == null)
        {
            if (pipeline != null)
            {
                throw new ConfigException("--pipeline", "--pipeline names a sink or source of --config; give --config");
            }
            return SluiceConfig.Kafka.of(bootstrap);
        }
        final SluiceConfig c = ConfigChecks.load(config);
        SluiceConfig.Kafka k = c.kafka();
        if (pipeline != null)
        {
            final boolean sink = c.sinks().stream().anyMatch(s -> s.name().equals(pipeline));
            final boolean source = c.sources().stream().anyMatch(s -> s.name().equals(pipeline));
            if (!sink && !source)
            {
                throw new ConfigException("--pipeline", "no sink or source named \"" + pipeline + "\"");
            }
            k = sink ? c.kafkaForSink(pipeline) : c.kafkaForSource(pipeline);
        }
        return servers ? new SluiceConfig.Kafka(bootstrap, k.security(), k.consumer(), k.producer(), k.admin()) : k;
    }
}
