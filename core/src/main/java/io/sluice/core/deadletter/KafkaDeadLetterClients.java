package io.sluice.core.deadletter;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.core.config.SluiceConfig;

/**
 * The real {@link DeadLetterClients}: a {@link KafkaProducer} and an {@link Admin} client on the pipeline's Kafka
 * connection ({@code config.kafkaForSink(name)} or the source's; the security block and {@code [kafka.producer]},
 * {@code [kafka.admin]} included, as every client Sluice makes).
 *
 * <p>Producer: Sluice's defaults ({@code linger.ms=5}, {@code compression.type=lz4}, {@code max.block.ms=30000},
 * {@code max.in.flight.requests.per.connection=1}, which keeps an idempotent producer's retries to a just-created
 * topic in order), then the user's {@code [kafka.producer]}, then what at-least-once needs and the user cannot
 * change: {@code acks=all}, {@code enable.idempotence=true}, byte-array serializers.
 *
 * <p>Threads: one (the dead-letter agent).
 */
public final class KafkaDeadLetterClients implements DeadLetterClients
{
    private static final long ADMIN_TIMEOUT_MS = 30_000;

    private final KafkaProducer<byte[], byte[]> producer;
    private final Admin admin;

    /**
     * @param kafka    the pipeline's Kafka connection
     * @param clientId the clients' id, e.g. {@code sluice-github-dead-letters}
     */
    public KafkaDeadLetterClients(final SluiceConfig.Kafka kafka, final String clientId)
    {
        this.producer = new KafkaProducer<>(producerProperties(kafka, clientId));
        final Properties a = new Properties();
        a.putAll(kafka.adminProperties());
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        a.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
        this.admin = Admin.create(a);
    }

    /**
     * @param kafka    the pipeline's Kafka connection
     * @param clientId the producer's id (unless the user gave one)
     * @return the dead-letter producer's properties (see the class comment)
     */
    public static Properties producerProperties(final SluiceConfig.Kafka kafka, final String clientId)
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.putAll(kafka.producerProperties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    @Override
    public Producer<byte[], byte[]> producer()
    {
        return producer;
    }

    @Override
    public Missing ensureTopic(final String topic, final boolean create, final int partitions,
        final int replicationFactor)
    {
        try
        {
            try
            {
                admin.describeTopics(List.of(topic)).allTopicNames().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                return null;
            }
            catch (final ExecutionException e)
            {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException))
                {
                    return new Missing("looking up dead-letter topic " + topic + " failed: " + e.getCause(),
                        DeadLetters.permanent(e.getCause()));
                }
            }
            if (!create)
            {
                return new Missing("dead-letter topic " + topic + " does not exist (create it, or set create_topics = "
                    + "true)", false);
            }
            final NewTopic t = new NewTopic(topic, partitions < 0 ? Optional.empty() : Optional.of(partitions),
                replicationFactor < 0 ? Optional.empty() : Optional.of((short)replicationFactor));
            try
            {
                admin.createTopics(List.of(t)).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            catch (final ExecutionException e)
            {
                if (!(e.getCause() instanceof TopicExistsException))
                {
                    return new Missing("creating dead-letter topic " + topic + " failed: " + e.getCause(),
                        DeadLetters.permanent(e.getCause()));
                }
            }
            return null;
        }
        catch (final TimeoutException e)
        {
            return new Missing("the admin client did not answer about dead-letter topic " + topic + " within "
                + ADMIN_TIMEOUT_MS + " ms", false);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new Missing("interrupted while looking up dead-letter topic " + topic, false);
        }
        catch (final RuntimeException e)
        {
            return new Missing("the admin client failed on dead-letter topic " + topic + ": " + e,
                DeadLetters.permanent(e));
        }
    }

    @Override
    public void close()
    {
        try
        {
            producer.close(Duration.ofSeconds(5));
        }
        catch (final RuntimeException e)
        {
            // closing: nothing left to do with it
        }
        try
        {
            admin.close(Duration.ofSeconds(5));
        }
        catch (final RuntimeException e)
        {
            // closing: nothing left to do with it
        }
    }
}
