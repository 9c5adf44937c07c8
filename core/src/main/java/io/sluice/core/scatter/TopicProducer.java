package io.sluice.core.scatter;

import java.util.Collection;

import org.apache.kafka.clients.producer.Callback;

import io.sluice.ringbuffers.RecordEvent;

/**
 * Produces routed records into Kafka topics. Implementations must be idempotent, wait for all in-sync replicas
 * ({@code acks=all}) and never create a topic as a side effect of producing ({@code allow.auto.create.topics=false}).
 *
 * <p>Threads: {@link #send}, {@link #flush} and {@link #close} are called by one thread, the produce stage (which
 * owns the producer); completions arrive on the client's I/O thread, or on the calling thread when a send fails
 * before it is queued.
 */
public interface TopicProducer extends AutoCloseable
{
    /**
     * Sends one record (its value, key and headers, copied out of the event before this method returns) to a topic.
     * {@code delivery.onCompletion} is called exactly once, when the broker acknowledged the record or the send
     * failed for good.
     *
     * @param topic    the destination topic, which exists
     * @param record   the record; read during the call only
     * @param delivery the completion of this send (Kafka's producer callback: metadata, or the exception)
     * @throws RuntimeException when the producer is unusable (closed, or in a fatal state); the delivery is then not
     *                          completed and the caller fails the record
     */
    void send(String topic, RecordEvent record, Callback delivery);

    /**
     * Fetches what the producer needs to send to new topics (their metadata) before the first record for them, so
     * the produce stage does not wait for it one topic at a time. Called by the admin thread (concurrently with
     * {@link #send}) right after the topics were created or found; blocks until done or the client's timeout. The
     * default does nothing.
     *
     * @param topics topics that exist
     */
    default void prepare(final Collection<String> topics)
    {
    }

    /** Sends everything buffered now and waits until it is acknowledged or failed. */
    void flush();

    /**
     * Closes the producer, waiting at most the given time for buffered records; never throws.
     *
     * @param timeoutMs longest wait for buffered records, ms
     */
    void close(long timeoutMs);

    /** Closes the producer at once; never throws. */
    @Override
    default void close()
    {
        close(0);
    }
}
