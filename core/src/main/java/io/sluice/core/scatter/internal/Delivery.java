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
 * the send fails before it is queued); then free again. A send that throws may still complete later: kafka-clients
 * 4.1 appends the record to its batch before it checks the producer's error state
 * ({@code KafkaProducer.doSend}: {@code accumulator.append}, then {@code TransactionManager.maybeAddPartition}, which
 * throws "Cannot execute transactional method because we are in an error state"), and the batch is aborted with the
 * record's callback afterwards. So whichever of the throw ({@link #sendThrew()}) and the completion comes first
 * settles the record; the other one only frees the delivery, once ({@link #state}). A record the broker refused for good stays in flight while
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
    private static final VarHandle STATE;

    /** {@link #state}: free (never sent, or freed after a send that threw). */
    private static final int IDLE = 0;
    /** {@link #state}: handed to the producer; neither completed nor thrown yet. */
    private static final int SENDING = 1;
    /** {@link #state}: its completion runs or ran (and may have kept it for a resend or a dead letter). */
    private static final int COMPLETED = 2;
    /** {@link #state}: the send threw and the produce stage settled the record; a late completion only frees it. */
    private static final int THREW = 3;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            IN_FLIGHT_SEQUENCE = lookup.findVarHandle(Delivery.class, "inFlightSequence", long.class);
            STATE = lookup.findVarHandle(Delivery.class, "state", int.class);
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
    /** Who settles the current send: {@link #SENDING}, {@link #COMPLETED} or {@link #THREW} (VarHandle CAS). */
    @SuppressWarnings("unused")
    private int state = IDLE;

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
        STATE.setRelease(this, SENDING);
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
        if (!STATE.compareAndSet(this, SENDING, COMPLETED))
        {
            if (STATE.compareAndSet(this, THREW, IDLE))
            {
                // the produce stage settled the record when the send threw; the record was queued all the same
                free(false);
            }
            // else a second completion of one send: nothing is left to settle
            return;
        }
        boolean done = true;
        try
        {
            done = completion.onSendCompleted(this, error);
        }
        finally
        {
            if (done)
            {
                free(true);
            }
            // else kept (held for a resend or a dead letter) and still COMPLETED: retarget() or abort() go on
        }
    }

    /**
     * The send threw (produce stage, right after {@code send} or {@code resend}).
     *
     * @return true when the caller settles the record (fails or re-reads it): the delivery leaves the in-flight count
     *     and goes back to the pool when a late completion comes (none comes when the record was never queued); false
     *     when the completion came first and settled it, so the caller must not settle it again
     */
    boolean sendThrew()
    {
        if (!STATE.compareAndSet(this, SENDING, THREW))
        {
            return false;
        }
        IN_FLIGHT_SEQUENCE.setRelease(this, FREE);
        pool.settled();
        return true;
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
        STATE.setRelease(this, SENDING);
    }

    /** @param counted whether the delivery still counts as in flight ({@link DeliveryPool#inFlight()}) */
    private void free(final boolean counted)
    {
        listener = null;
        sent = null;
        refusal = null;
        refusalClass = null;
        deadLetter = false;
        IN_FLIGHT_SEQUENCE.setRelease(this, FREE);
        if (counted)
        {
            pool.release(this);
        }
        else
        {
            pool.reuse(this);
        }
    }

    /** Frees a delivery its completion kept (for a resend or a dead letter) once it is settled. Produce stage. */
    void abort()
    {
        free(true);
    }
}
