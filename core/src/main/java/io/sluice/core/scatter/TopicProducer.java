package io.sluice.core.scatter;

import java.util.Collection;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.sluice.ringbuffers.RecordEvent;

/**
 * Produces routed records into Kafka topics. Implementations must be idempotent, wait for all in-sync replicas
 * ({@code acks=all}) and never create a topic as a side effect of producing ({@code allow.auto.create.topics=false}).
 *
 * <p>Threads: {@link #send}, {@link #resend}, {@link #flush} and {@link #close} are called by one thread, the produce
 * stage (which owns the producer); completions arrive on the client's I/O thread, or on the calling thread when a send fails
 * before it is queued.
 */
public interface TopicProducer extends AutoCloseable
{
    /**
     * The completion of one send: Kafka's callback, plus a place for the record as the producer handed it to the
     * client, so that a record the broker refuses for good can be sent again to another topic (the rule's fallback)
     * with {@link #resend} after its bytes have left the ring.
     */
    interface SendCallback extends Callback
    {
        /**
         * Called by {@link #send} and {@link #resend} before the record is handed to the client (so before any
         * completion), on the sending thread.
         *
         * @param sent the record as sent (its key, value and headers are the copies the send made), to give to
         *             {@link #resend} or to make a dead letter of; the caller drops it once the send completed and
         *             needs neither
         */
        void retain(ProducerRecord<byte[], byte[]> sent);
    }

    /**
     * Sends one record (its value, key and headers, copied out of the event before this method returns) to a topic.
     * {@code delivery.onCompletion} is called exactly once, when the broker acknowledged the record or the send
     * failed for good; it may be called on the calling thread, before this method returns (the record is larger than
     * {@code max.request.size}, the topic's metadata is refused).
     *
     * @param topic    the destination topic, which exists
     * @param record   the record; read during the call only
     * @param delivery the completion of this send (Kafka's producer callback: metadata, or the exception); its
     *                 {@link SendCallback#retain} gets the record as sent first
     * @throws RuntimeException when the producer is unusable (closed, or in a fatal state); the delivery is then not
     *                          completed and the caller fails the record
     */
    void send(String topic, RecordEvent record, SendCallback delivery);

    /**
     * Sends a record again, as an earlier {@link #send} retained it, to another topic (the fallback of a record the
     * broker refused). Same threads, completion and errors as {@link #send}.
     *
     * @param topic    the topic, which exists
     * @param sent     what {@link SendCallback#retain} got for the record (its arrays are not copied again)
     * @param delivery the completion of this send
     */
    void resend(String topic, ProducerRecord<byte[], byte[]> sent, SendCallback delivery);

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
