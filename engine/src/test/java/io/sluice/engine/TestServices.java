package io.sluice.engine;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The real Kafka broker and ClickHouse server that {@code scripts/services.sh} starts (scripts/test.sh starts them
 * before {@code mvn verify}). Verification goes through ClickHouse's plain HTTP interface and Kafka's Admin client,
 * not through the engine's own sink code.
 */
public final class TestServices
{
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestServices()
    {
    }

    /** @return the broker the tests use: {@code -Dsluice.kafka.bootstrap}, else the services' default */
    public static String bootstrap()
    {
        return System.getProperty("sluice.kafka.bootstrap", "127.0.0.1:19092");
    }

    /** @return the ClickHouse HTTP endpoint: {@code -Dsluice.clickhouse.url}, else the services' default */
    public static String clickhouse()
    {
        return System.getProperty("sluice.clickhouse.url", "http://127.0.0.1:18123");
    }

    /** @return a port no one listens on right now (for a metrics listener) */
    static int freePort()
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    /** @return the broker's SASL_SSL listener: {@code -Dsluice.kafka.sasl.bootstrap}, else the services' default */
    public static String saslBootstrap()
    {
        return System.getProperty("sluice.kafka.sasl.bootstrap", "127.0.0.1:19094");
    }

    /**
     * @return the broker's SASL_SSL listener that requires a client certificate: {@code -Dsluice.kafka.mtls.bootstrap},
     *         else the services' default
     */
    public static String mtlsBootstrap()
    {
        return System.getProperty("sluice.kafka.mtls.bootstrap", "127.0.0.1:19095");
    }

    /** @return ClickHouse's HTTPS endpoint: {@code -Dsluice.clickhouse.https.url}, else the services' default */
    public static String clickhouseHttps()
    {
        return System.getProperty("sluice.clickhouse.https.url", "https://127.0.0.1:18124");
    }

    /**
     * @return where scripts/services.sh keeps the test CA, certificates and passwords: {@code -Dsluice.secure.dir},
     *         else .sluice/secure of the checkout
     */
    public static Path secureDir()
    {
        final String d = System.getProperty("sluice.secure.dir");
        return d != null ? Path.of(d) : projectRoot().resolve(".sluice/secure");
    }

    /**
     * The passwords and user names scripts/services.sh made for the secured services (secure/secrets.env).
     *
     * @return name to value
     * @throws IllegalStateException when the services were started without them (SLUICE_SECURE=0)
     */
    public static Map<String, String> secrets()
    {
        final Path f = secureDir().resolve("secrets.env");
        if (!Files.isRegularFile(f))
        {
            throw new IllegalStateException(f + " is missing: start the services with scripts/services.sh start "
                + "(SLUICE_SECURE=1, the default) to get the secured listeners");
        }
        final Map<String, String> out = new HashMap<>();
        try
        {
            for (final String line : Files.readAllLines(f))
            {
                final int eq = line.indexOf('=');
                if (!line.startsWith("#") && eq > 0)
                {
                    out.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("cannot read " + f + ": " + e, e);
        }
        return Map.copyOf(out);
    }

    /** @return the checkout: {@code -Dsluice.project.root}, else the first folder above holding scripts/services.sh */
    public static Path projectRoot()
    {
        final String p = System.getProperty("sluice.project.root");
        Path dir = p != null ? Path.of(p) : Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("scripts/services.sh")))
        {
            dir = dir.getParent();
        }
        if (dir == null)
        {
            throw new IllegalStateException("cannot find the project root (scripts/services.sh)");
        }
        return dir.toAbsolutePath();
    }

    /** Runs one SQL statement over HTTP and returns the body; fails with the server's message. */
    static String sql(final String statement)
    {
        try
        {
            final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(clickhouse() + "/"))
                .POST(HttpRequest.BodyPublishers.ofString(statement, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (r.statusCode() != 200)
            {
                throw new IllegalStateException(
                    "ClickHouse " + r.statusCode() + " for [" + statement + "]: " + r.body());
            }
            return r.body();
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(
                "ClickHouse at " + clickhouse() + " unreachable (run scripts/services.sh start): " + e, e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static long sqlLong(final String statement)
    {
        return Long.parseLong(sql(statement).trim());
    }

    /** Runs every statement of a SQL file (statements end with ';', '--' comments are dropped). */
    static void sqlFile(final Path file, final Map<String, String> replacements) throws IOException
    {
        String text = Files.readString(file).replaceAll("--[^\n]*", "");
        for (final Map.Entry<String, String> e : replacements.entrySet())
        {
            text = text.replace(e.getKey(), e.getValue());
        }
        for (final String stmt : text.split(";"))
        {
            if (!stmt.isBlank())
            {
                sql(stmt);
            }
        }
    }

    static Admin admin()
    {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
    }

    public static void createTopic(final String topic, final int partitions)
        throws ExecutionException, InterruptedException
    {
        try (Admin a = admin())
        {
            a.createTopics(Set.of(new NewTopic(topic, partitions, (short)1))).all().get();
            ProduceCommand.awaitPartitionsReady(a, topic, partitions);
        }
    }

    static void produce(final String topic, final List<byte[]> values) throws ExecutionException, InterruptedException
    {
        final List<byte[][]> records = new ArrayList<>(values.size());
        for (final byte[] v : values)
        {
            records.add(new byte[][]{null, v});
        }
        produceKeyed(topic, records);
    }

    /**
     * Produces records in order, each given as {key, value}; a null value is a tombstone, a null key a record without
     * one. Every send is checked.
     */
    static void produceKeyed(final String topic, final List<byte[][]> records)
        throws ExecutionException, InterruptedException
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"); // as ProduceCommand, for new topics
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        final List<Future<RecordMetadata>> sends = new ArrayList<>(records.size());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            for (final byte[][] r : records)
            {
                sends.add(producer.send(new ProducerRecord<>(topic, r[0], r[1])));
            }
            producer.flush();
        }
        // every send is checked: a record the broker did not take would otherwise show up as "lost" in the engine
        int failed = 0;
        ExecutionException first = null;
        for (final Future<RecordMetadata> f : sends)
        {
            try
            {
                f.get();
            }
            catch (final ExecutionException e)
            {
                failed++;
                first = first == null ? e : first;
            }
        }
        if (first != null)
        {
            throw new IllegalStateException("test setup: " + failed + " of " + records.size() + " records were not "
                + "acknowledged by Kafka (topic " + topic + ")", first.getCause());
        }
    }

    static Map<TopicPartition, Long> endOffsets(final String topic, final int partitions)
        throws ExecutionException, InterruptedException
    {
        try (Admin a = admin())
        {
            final Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int i = 0; i < partitions; i++)
            {
                q.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            final Map<TopicPartition, Long> out = new HashMap<>();
            a.listOffsets(q).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        }
    }

    static Map<TopicPartition, Long> committed(final String group) throws ExecutionException, InterruptedException
    {
        try (Admin a = admin())
        {
            final Map<TopicPartition, Long> out = new HashMap<>();
            final Map<TopicPartition, OffsetAndMetadata> m = a.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
            m.forEach((tp, om) -> out.put(tp, om == null ? -1 : om.offset()));
            return out;
        }
    }

    static List<byte[]> sampleLines() throws IOException
    {
        return new ArrayList<>(ProduceCommand.readLines(projectRoot().resolve("examples/data/github-events.jsonl.gz")));
    }
}
