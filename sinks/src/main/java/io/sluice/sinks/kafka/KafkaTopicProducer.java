package io.sluice.sinks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.DirectBuffer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.ProduceErrors;
import io.sluice.core.scatter.TopicProducer;
import io.sluice.core.source.KafkaChecks;
import io.sluice.ringbuffers.RecordEvent;

/**
 * {@link TopicProducer} over one {@link KafkaProducer}: idempotent, {@code acks=all}, byte arrays in and out. The
 * record's value, key and headers are copied from the off-heap slot into the {@code byte[]}s and the
 * {@link ProducerRecord} that Kafka's API takes; that allocation, and what the client allocates inside
 * {@code send}, is the producer's and is measured separately from the engine's zero-allocation stages. The record's
 * timestamp is kept when the source had one (a Kafka source), else the producer stamps the send time.
 *
 * <p>Defaults Sluice chooses (the user's {@code [kafka.producer]} may change them): {@code linger.ms=5},
 * {@code batch.size=16384} (Kafka's own default), {@code compression.type=lz4}, {@code max.block.ms=30000},
 * {@code retry.backoff.ms=10} (the client spaces metadata refreshes by it, and each new topic needs one) and
 * {@code max.in.flight.requests.per.connection=1}. {@code batch.size} bounds how many partitions can have a batch
 * open at once: every open batch holds a {@code batch.size} buffer of the {@code buffer.memory} pool (32 MiB) until
 * the broker acknowledges it, and when records go to more partitions than the pool has buffers ({@code buffer.memory
 * / batch.size}: 2,048 at 16 KiB, 256 at the 128 KiB Sluice used before), every send waits for a produce round trip
 * that frees a few hundred buffers (a plain producer spreading 200,000 records over 1,000 partitions: 8,217 to 21,835
 * records/s at 128 KiB, 311,366 to 477,001 at 16 KiB; docs/routing.md). The last one matters for routing into new topics: for a moment
 * after a topic is created the broker answers {@code NOT_LEADER_OR_FOLLOWER}, and with several requests in flight
 * an idempotent producer's retries of a new partition can reach the broker out of order; we saw a partition stuck
 * on {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until {@code delivery.timeout.ms} expired (Kafka 4.1, KRaft), which
 * nacks and re-reads its batch. One request in flight per broker keeps each partition's batches in order; the
 * requests still carry batches of every partition.
 *
 * <p>Topics: Sluice sends only to topics it has seen exist (created or looked up through the admin client), so the
 * producer never creates one by accident. (kafka-clients has no producer-side {@code allow.auto.create.topics}: that
 * key is a consumer setting, and a producer's metadata request always allows creation; whether a broker creates
 * topics on metadata requests is its {@code auto.create.topics.enable}.)
 *
 * <p>Refusals: when the broker refuses the producer (authentication, cluster authorization, the TLS handshake), the
 * records in flight fail through their callbacks as any failure does, and the next {@link #send} throws, naming the
 * broker's reason: the produce stage then ends the run, instead of re-reading and re-sending until
 * {@code checkpoint.stalled_fail_after_ms}. A refusal of one topic or one record (a topic's missing WRITE ACL, a
 * record too large) is the produce stage's to decide ({@link ProduceErrors}: the fallback, else stop).
 *
 * <p>Resending: {@link #send} hands each {@link ProducerRecord} to its delivery ({@code retain}) before the client
 * gets it, and {@link #resend} builds the fallback's record from its byte arrays, so a refused record reaches its
 * fallback after its ring slot was reused, with no copy beyond the one every send makes.
 *
 * <p>Threads: one sending thread (the produce stage); {@code Callback.onCompletion} runs on the client's I/O thread.
 */
public final class KafkaTopicProducer implements TopicProducer
{
    private static final int WARMERS = 32;

    private final KafkaProducer<byte[], byte[]> producer;
    private final Refusals refusals = new Refusals();
    private ExecutorService warmers;

    /** @param properties producer properties, from {@link #properties} */
    public KafkaTopicProducer(final Properties properties)
    {
        final Properties p = new Properties();
        p.putAll(properties);
        final Object own = p.get(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG);
        p.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, own == null || String.valueOf(own).isBlank()
            ? RefusalInterceptor.class.getName()
            : own + "," + RefusalInterceptor.class.getName());
        p.put(RefusalInterceptor.REFUSALS, refusals);
        this.producer = new KafkaProducer<>(p);
    }

    /**
     * What the broker refused this producer (authentication, a TLS failure, cluster authorization: the kinds
     * {@link ProduceErrors} calls PRODUCER_REFUSED; a topic's missing ACL refuses that topic only), seen by
     * {@link RefusalInterceptor} on the client's I/O thread. The first refusal is kept; the next {@link #send} throws
     * it, which ends the run (retrying with the same credentials cannot succeed).
     */
    static final class Refusals
    {
        private volatile Exception first;

        void offer(final Exception e)
        {
            if (first == null && ProduceErrors.classify(e) == ProduceErrors.Kind.PRODUCER_REFUSED)
            {
                first = e;
            }
        }

        Exception first()
        {
            return first;
        }
    }

    /**
     * Sees every acknowledgement the producer gets (Kafka calls interceptors for each record, on its I/O thread,
     * without an allocation of ours) and keeps the first refusal. Public for Kafka's reflection only.
     */
    public static final class RefusalInterceptor implements ProducerInterceptor<byte[], byte[]>
    {
        static final String REFUSALS = "sluice.producer.refusals";

        private Refusals refusals;

        @Override
        public void configure(final Map<String, ?> configs)
        {
            refusals = configs.get(REFUSALS) instanceof Refusals r ? r : new Refusals();
        }

        @Override
        public ProducerRecord<byte[], byte[]> onSend(final ProducerRecord<byte[], byte[]> record)
        {
            return record;
        }

        @Override
        public void onAcknowledgement(final RecordMetadata metadata, final Exception exception)
        {
            if (exception != null)
            {
                refusals.offer(exception);
            }
        }

        @Override
        public void close()
        {
        }
    }

    /**
     * The producer's properties: Sluice's defaults, then the user's {@code [kafka.producer]}, then what Sluice's
     * guarantees need (idempotence, {@code acks=all}, byte-array serializers), which the user cannot override.
     *
     * @param kafka    [kafka]
     * @param clientId the client id (unless the user gave one)
     * @return the properties
     */
    public static Properties properties(final SluiceConfig.Kafka kafka, final String clientId)
    {
        return properties(kafka.producerProperties(), kafka.bootstrapServers(), clientId);
    }

    /**
     * The producer's properties from already merged client properties (security block and [kafka.producer]).
     *
     * @param clientProperties the security block's properties and [kafka.producer]
     * @param bootstrapServers bootstrap servers
     * @param clientId         the client id (unless the user gave one)
     * @return the properties
     */
    public static Properties properties(final Map<String, String> clientProperties, final String bootstrapServers,
        final String clientId)
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(16 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.putAll(clientProperties);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    @Override
    public void send(final String topic, final RecordEvent record, final SendCallback delivery)
    {
        final Exception refused = refusals.first();
        if (refused != null)
        {
            throw new IllegalStateException("Kafka refused this producer: " + KafkaChecks.describe(refused), refused);
        }
        final byte[] value = copy(record.value(), record.valueLength());
        final byte[] key = copy(record.key(), record.keyLength());
        RecordHeaders headers = null;
        final int count = record.headerCount();
        if (count > 0)
        {
            headers = new RecordHeaders();
            for (int i = 0; i < count; i++)
            {
                final DirectBuffer name = record.headerName(i);
                final String headerName = name.getStringWithoutLengthUtf8(0, name.capacity());
                final DirectBuffer headerValue = record.headerValue();
                headers.add(headerName, headerValue == null ? null : copy(headerValue, headerValue.capacity()));
            }
        }
        final Long timestamp = record.timestampMs() > 0 ? record.timestampMs() : null;
        final ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, timestamp, key, value, headers);
        delivery.retain(r);
        producer.send(r, delivery);
    }

    /** Sends the retained record (its byte arrays, not copied again) to another topic. */
    @Override
    public void resend(final String topic, final ProducerRecord<byte[], byte[]> sent, final SendCallback delivery)
    {
        final Exception refused = refusals.first();
        if (refused != null)
        {
            throw new IllegalStateException("Kafka refused this producer: " + KafkaChecks.describe(refused), refused);
        }
        final ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, sent.timestamp(), sent.key(),
            sent.value(), sent.headers());
        delivery.retain(r);
        producer.send(r, delivery);
    }

    private static byte[] copy(final DirectBuffer b, final int length)
    {
        if (length < 0)
        {
            return null;
        }
        final byte[] out = new byte[length];
        b.getBytes(0, out, 0, length);
        return out;
    }

    /**
     * Fetches the metadata of new topics with several threads at once, so one metadata round trip serves many topics
     * ({@code partitionsFor} blocks per topic, and the client spaces metadata refreshes by {@code retry.backoff.ms}):
     * the produce stage then finds them ready instead of waiting once per topic.
     */
    @Override
    public void prepare(final Collection<String> topics)
    {
        final ExecutorService pool = warmers();
        final List<Future<?>> pending = new ArrayList<>(topics.size());
        for (final String topic : topics)
        {
            pending.add(pool.submit(() -> producer.partitionsFor(topic)));
        }
        for (final Future<?> f : pending)
        {
            try
            {
                f.get();
            }
            catch (final ExecutionException e)
            {
                // the first send to the topic waits for its metadata itself
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private synchronized ExecutorService warmers()
    {
        if (warmers == null)
        {
            final AtomicInteger n = new AtomicInteger();
            warmers = Executors.newFixedThreadPool(WARMERS, r ->
            {
                final Thread t = new Thread(r, "sluice-producer-metadata-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return warmers;
    }

    @Override
    public void flush()
    {
        producer.flush();
    }

    @Override
    public void close(final long timeoutMs)
    {
        synchronized (this)
        {
            if (warmers != null)
            {
                warmers.shutdownNow();
            }
        }
        try
        {
            producer.close(Duration.ofMillis(timeoutMs));
        }
        catch (final RuntimeException e)
        {
            // closing: nothing left to do with it
        }
    }
}
