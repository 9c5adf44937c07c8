package io.sluice.core.scatter.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.ScatterDriver;
import io.sluice.core.scatter.TopicAdmin;
import io.sluice.core.scatter.TopicProducer;
import io.sluice.ringbuffers.RecordEvent;

/**
 * An in-memory cluster for scatter tests: topics, the records produced into each (value text, key text), admin round
 * trips, and injectable send failures. Sends complete asynchronously on one "I/O" thread, like Kafka's producer; a
 * refusal injected with {@link #refuseNow} completes on the sending thread, inside {@code send}, as Kafka's producer
 * does for a record over {@code max.request.size}.
 */
final class FakeScatterDriver implements ScatterDriver
{
    final Set<String> topics = ConcurrentHashMap.newKeySet();
    final Map<String, List<String>> produced = new ConcurrentHashMap<>();
    final List<String> sendOrder = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger createCalls = new AtomicInteger();
    final AtomicInteger describeCalls = new AtomicInteger();
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger sends = new AtomicInteger();
    /** Sends whose value matches fail (each match decrements {@link #failuresLeft}). */
    volatile Predicate<String> failWhen = v -> false;
    final AtomicInteger failuresLeft = new AtomicInteger();
    /** Holds every completion while true (to fill the pipeline). */
    volatile boolean holdCompletions;
    /** The broker's answer to a send of "topic value" on the I/O thread: an exception, or null to take it. */
    volatile Function<String, Exception> refuse = v -> null;
    /** The producer's answer inside send, on the sending thread: an exception, or null to send it. */
    volatile Function<String, Exception> refuseNow = v -> null;
    /** CreateTopics' answer per name: an exception, or null to create it. */
    volatile Function<String, Exception> refuseCreate = n -> null;
    /** What the broker's listing flags as internal. */
    volatile Set<String> internal = Set.of();
    /** Every name asked for in a CreateTopics or DescribeTopics, in order. */
    final List<String> asked = Collections.synchronizedList(new ArrayList<>());

    private final ExecutorService io = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "fake-kafka-io");
        t.setDaemon(true);
        return t;
    });

    FakeScatterDriver(final String... existing)
    {
        topics.addAll(List.of(existing));
    }

    int count(final String topic)
    {
        final List<String> l = produced.get(topic);
        return l == null ? 0 : l.size();
    }

    int total()
    {
        int n = 0;
        for (final List<String> l : produced.values())
        {
            n += l.size();
        }
        return n;
    }

    @Override
    public TopicAdmin admin(final SluiceConfig config, final SluiceConfig.Source source)
    {
        return new TopicAdmin()
        {
            @Override
            public Set<String> listTopics()
            {
                return Set.copyOf(topics);
            }

            @Override
            public Set<String> listInternalTopics()
            {
                return internal;
            }

            @Override
            public Map<String, Result> describeTopics(final Collection<String> names)
            {
                describeCalls.incrementAndGet();
                asked.addAll(names);
                final Map<String, Result> out = new HashMap<>();
                for (final String n : names)
                {
                    out.put(n, new Result(topics.contains(n) ? Outcome.EXISTS : Outcome.ABSENT, null));
                }
                return out;
            }

            @Override
            public Map<String, Result> createTopics(final Collection<String> names, final int partitions, final int rf)
            {
                createCalls.incrementAndGet();
                asked.addAll(names);
                final Map<String, Result> out = new HashMap<>();
                for (final String n : names)
                {
                    Exception refused = refuseCreate.apply(n);
                    final String colliding = topics.stream()
                        .filter(t -> !t.equals(n) && t.replace('.', '_').equals(n.replace('.', '_'))).findFirst()
                        .orElse(null);
                    if (refused == null && colliding != null)
                    {
                        // what Kafka 4's controller answers
                        refused = new InvalidTopicException("Topic '" + n + "' collides with existing topic: "
                            + colliding);
                    }
                    if (refused != null)
                    {
                        out.put(n, new Result(Outcome.FAILED, refused.getMessage(), refused));
                    }
                    else if (topics.add(n))
                    {
                        created.incrementAndGet();
                        out.put(n, new Result(Outcome.CREATED, null));
                    }
                    else
                    {
                        out.put(n, new Result(Outcome.EXISTS, null));
                    }
                }
                return out;
            }

            @Override
            public void close()
            {
            }
        };
    }

    @Override
    public TopicProducer producer(final SluiceConfig config, final SluiceConfig.Source source)
    {
        return new TopicProducer()
        {
            @Override
            public void send(final String topic, final RecordEvent record, final SendCallback delivery)
            {
                final byte[] v = new byte[Math.max(0, record.valueLength())];
                record.value().getBytes(0, v);
                final byte[] k = record.keyLength() < 0 ? null : new byte[record.keyLength()];
                if (k != null)
                {
                    record.key().getBytes(0, k);
                }
                send(topic, new ProducerRecord<>(topic, null, record.timestampMs() > 0 ? record.timestampMs() : null,
                    k, v), delivery);
            }

            @Override
            public void resend(final String topic, final ProducerRecord<byte[], byte[]> sent,
                final SendCallback delivery)
            {
                send(topic, new ProducerRecord<>(topic, null, sent.timestamp(), sent.key(), sent.value(),
                    sent.headers()), delivery);
            }

            private void send(final String topic, final ProducerRecord<byte[], byte[]> sent,
                final SendCallback delivery)
            {
                if (!topics.contains(topic))
                {
                    throw new IllegalStateException("send to a topic that does not exist: " + topic);
                }
                sends.incrementAndGet();
                final String value = new String(sent.value(), StandardCharsets.UTF_8);
                final String key = sent.key() == null ? null : new String(sent.key(), StandardCharsets.UTF_8);
                sendOrder.add(topic + " " + value);
                delivery.retain(sent);
                final Exception now = refuseNow.apply(topic + " " + value);
                if (now != null)
                {
                    delivery.onCompletion(null, now);
                    return;
                }
                io.execute(() ->
                {
                    while (holdCompletions)
                    {
                        Thread.onSpinWait();
                    }
                    final Exception refused = refuse.apply(topic + " " + value);
                    if (refused != null)
                    {
                        delivery.onCompletion(null, refused);
                        return;
                    }
                    if (failWhen.test(value) && failuresLeft.getAndDecrement() > 0)
                    {
                        delivery.onCompletion(null, new NotEnoughReplicasException("injected failure"));
                        return;
                    }
                    produced.computeIfAbsent(topic, t -> Collections.synchronizedList(new ArrayList<>()))
                        .add(key == null ? value : key + "=" + value);
                    delivery.onCompletion(null, null);
                });
            }

            @Override
            public void flush()
            {
                try
                {
                    io.submit(() ->
                    {
                    }).get(10, TimeUnit.SECONDS);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void close(final long timeoutMs)
            {
                io.shutdown();
            }
        };
    }
}
