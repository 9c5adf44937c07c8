package io.sluice.core.scatter.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.scatter.TopicProducer;

/**
 * One record in flight between the produce stage and the broker: which record it is (tracker, generation, offset, or
 * the embedded caller's listener and correlation id) and which topic it went to. Pre-allocated in a
 * {@link DeliveryPool} and reused, so a send allocates nothing of ours; it is Kafka's {@link Callback} for the send,
 * and hands the completion to the pipeline's {@link Completion} before going back to the pool.
 *
 * <p>Threads: filled by the produce stage; completed once, on the producer's I/O thread (or on the produce stage when
 * the send fails before it is queued); then free again. A record the broker refused for good stays in flight while
 * its completion hands it back to the produce stage, which sends it to the fallback ({@link #retained()}, the record
 * as the producer sent it) with the same delivery, or makes a dead letter of it ({@link #deadLetter}). {@link #inFlightSequence()} may be read by any thread.
 */
public final class Delivery implements TopicProducer.SendCallback
{
    /** What the pipeline does when a send completes. */
    interface Completion
    {
        /**
         * @param delivery the send that completed (still filled in)
         * @param error    null when the broker acknowledged the record, else why the send failed
         * @return true when the delivery is done (it goes back to the pool), false when the completion kept it in
         *         flight to send it again
         */
        boolean onSendCompleted(Delivery delivery, Exception error);
    }

    private static final VarHandle IN_FLIGHT_SEQUENCE;

    static
    {
        try
        {
            IN_FLIGHT_SEQUENCE = MethodHandles.lookup().findVarHandle(Delivery.class, "inFlightSequence", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #inFlightSequence()} of a free delivery. */
    static final long FREE = -1;

    private final DeliveryPool pool;
    private Completion completion;
    @SuppressWarnings("unused")
    private long inFlightSequence = FREE;

    int trackerId;
    int generation;
    int partition;
    long offset;
    int topicId;
    long correlationId;
    /** {@link System#nanoTime()} when the record was handed to the producer (produce latency). */
    long sentNanos;
    DeliveryListener listener;
    /** The record's timestamp type in its source ({@code RecordEvent.timestampType()}), for a dead letter. */
    int timestampType;
    /** The record as the producer sent it ({@link #retain}), for a resend to the fallback or a dead letter. */
    private ProducerRecord<byte[], byte[]> sent;
    /** Why the broker refused it, while it waits for its resend or dead letter. */
    String refusal;
    /** The class name of the broker's refusal, for a dead letter's header. */
    String refusalClass;
    /** Held for a dead letter (not a resend) with {@link #refusal} as the reason. */
    boolean deadLetter;

    Delivery(final DeliveryPool pool)
    {
        this.pool = pool;
    }

    /** Fills the delivery for one send (produce stage) and marks it in flight. */
    void start(final Completion owner, final long sequence, final int trackerId, final int generation,
        final int partition, final long offset, final int topicId, final DeliveryListener listener,
        final long correlationId)
    {
        this.completion = owner;
        this.trackerId = trackerId;
        this.generation = generation;
        this.partition = partition;
        this.offset = offset;
        this.topicId = topicId;
        this.listener = listener;
        this.correlationId = correlationId;
        this.sentNanos = System.nanoTime();
        IN_FLIGHT_SEQUENCE.setRelease(this, sequence);
    }

    /** @return the ring sequence of the record in flight, or {@link #FREE} (any thread) */
    long inFlightSequence()
    {
        return (long)IN_FLIGHT_SEQUENCE.getAcquire(this);
    }

    /**
     * Kafka's completion of the send (the producer's I/O thread, or the sending thread when the send failed at once).
     *
     * @param metadata the record's position, when acknowledged
     * @param error    null when acknowledged, else the failure
     */
    @Override
    public void onCompletion(final RecordMetadata metadata, final Exception error)
    {
        boolean done = true;
        try
        {
            done = completion.onSendCompleted(this, error);
        }
        finally
        {
            if (done)
            {
                free();
            }
        }
    }

    @Override
    public void retain(final ProducerRecord<byte[], byte[]> record)
    {
        this.sent = record;
    }

    /** @return the record as the producer sent it, for {@code TopicProducer.resend} or a dead letter */
    ProducerRecord<byte[], byte[]> retained()
    {
        return sent;
    }

    /** Points a kept delivery at another topic for its resend (produce stage). */
    void retarget(final int topic)
    {
        this.topicId = topic;
        this.refusal = null;
        this.deadLetter = false;
        this.sentNanos = System.nanoTime();
    }

    private void free()
    {
        listener = null;
        sent = null;
        refusal = null;
        refusalClass = null;
        deadLetter = false;
        IN_FLIGHT_SEQUENCE.setRelease(this, FREE);
        pool.release(this);
    }

    /** Frees a delivery whose send threw (no completion will come), or that was kept and is settled. Produce stage. */
    void abort()
    {
        free();
    }
}
