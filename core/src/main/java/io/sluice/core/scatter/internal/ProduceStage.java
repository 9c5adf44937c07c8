package io.sluice.core.scatter.internal;

import io.sluice.core.scatter.ScatterStats;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.EventHandler;

import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.scatter.ProduceErrors;
import io.sluice.core.source.KafkaChecks;
import io.sluice.core.scatter.TopicProducer;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.PipelineControl;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The produce stage of a scatter pipeline (the second Disruptor event handler, after the route stage): owns the
 * {@link TopicProducer} and sends each routed record to its topic once the topic exists, with a pooled
 * {@link Delivery} as the completion; acknowledges the record's offset in its partition's tracker when the broker
 * acknowledged it ({@code acks=all}), or fails it (the source re-reads the batch). Returns overflow buffers.
 *
 * <p>Failures ({@link ProduceErrors}): a transient one fails the record (the source re-reads its batch); one the
 * broker will repeat for good (the record too large, the topic refused, invalid or internal, a missing ACL, the topic
 * absent under {@code create_topics = false}) goes to {@link RefusedRecords}, which sends the record to the rule's
 * fallback or stops the pipeline at once: it is never retried, so no later record is sent twice because of it. A
 * refusal that arrives on the producer's I/O thread keeps its {@link Delivery} in flight and hands it back here
 * ({@code held}), where it is sent to the fallback from the record the producer retained; the stage looks at what is
 * held before each record and on the ring's idle timeout. A refusal of the producer itself (authentication, TLS,
 * cluster authorization) ends the run.
 *
 * <p>Waiting: a record whose topic is still being created waits here (the route stage runs ahead and asks for the
 * next new topics meanwhile, so a burst of new names is created in few round trips); when every delivery is in
 * flight the stage waits for acknowledgements (back-pressure up to the source). {@link #abandon()} ends the waits
 * (shutdown after the drain timeout): records not sent stay unacknowledged and are read again later.
 *
 * <p>Thread-safety: {@link #onEvent} on one thread; {@link #onSendCompleted} on the producer's I/O thread (or this
 * one); the getters from any thread.
 */
public final class ProduceStage implements EventHandler<RecordEvent>, Delivery.Completion
{
    private static final Logger LOG = LoggerFactory.getLogger(ProduceStage.class);
    private static final long WAIT_NANOS = 50_000;

    private final String name;
    private final TopicProducer producer;
    private final TopicTable table;
    private final TopicProvisioner provisioner;
    private final DeliveryPool pool;
    private final ScatterSlots slots;
    private final RecordFailures failures;
    private final PartitionTrackers trackers;
    private final OverflowPool overflow;
    private final PipelineControl control;
    private final ScatterStats stats;
    private final RefusedRecords refused;
    /** Refused deliveries waiting for their resend to the fallback (any thread in, this stage out). */
    private final ManyToOneConcurrentArrayQueue<Delivery> held;
    private volatile boolean abandoned;
    private volatile long lastFlushToken;
    private volatile String lastError;
    /** The ring sequence of the last record whose outcome this stage settled (stage thread only). */
    private long settledSequence = -1;
    private ScatterDeadLetters deadLetters;

    ProduceStage(final String name, final TopicProducer producer, final TopicTable table,
        final TopicProvisioner provisioner,
        final DeliveryPool pool, final ScatterSlots slots, final RecordFailures failures,
        final PartitionTrackers trackers,
        final OverflowPool overflow, final PipelineControl control, final ScatterStats stats,
        final RefusedRecords refused)
    {
        this.refused = refused;
        this.held = new ManyToOneConcurrentArrayQueue<>(Math.max(2, pool.capacity()));
        this.name = name;
        this.producer = producer;
        this.table = table;
        this.provisioner = provisioner;
        this.pool = pool;
        this.slots = slots;
        this.failures = failures;
        this.trackers = trackers;
        this.overflow = overflow;
        this.control = control;
        this.stats = stats;
    }

    /**
     * With {@code on_error = "dead_letter"}: a record the broker refuses for good is marked for the dead-letter topic
     * before its offset fails, so the re-read sends it there (call before the stage runs).
     *
     * @param d the source's dead letters
     */
    void deadLetters(final ScatterDeadLetters d)
    {
        this.deadLetters = d;
        refused.deadLetters();
    }

    @Override
    public void onEvent(final RecordEvent event, final long sequence, final boolean endOfBatch)
    {
        if (!held.isEmpty())
        {
            resendHeld();
        }
        final int slot = (int)sequence & slots.mask;
        if (event.kind() == RecordEvent.KIND_RECORD)
        {
            produce(event, sequence, slot);
        }
        else if (event.kind() == RecordEvent.KIND_FLUSH)
        {
            producer.flush();
            lastFlushToken = event.controlToken();
        }
        overflow.release(event.takeOverflow());
        slots.listeners[slot] = null;
    }

    /**
     * The stage's {@code StageErrorHandler.FailedRecord}: the record whose sending threw is failed in its tracker or
     * to its embedded caller, unless its outcome was settled before the exception (routed nowhere, failed already,
     * or handed to the producer, whose completion reports it); then its slot is cleaned up as after a send.
     *
     * @param event    the record's event
     * @param sequence its ring sequence
     * @param reason   what failed
     */
    void failEvent(final RecordEvent event, final long sequence, final String reason)
    {
        final int slot = (int)sequence & slots.mask;
        try
        {
            if (settledSequence != sequence && slots.topicIds[slot] >= 0)
            {
                failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), slots.listeners[slot],
                    RecordFailures.CODE_PRODUCE, reason);
            }
        }
        finally
        {
            overflow.release(event.takeOverflow());
            slots.listeners[slot] = null;
        }
    }

    private void produce(final RecordEvent event, final long sequence, final int slot)
    {
        if (Failpoints.ENABLED)
        {
            Failpoints.check(Failpoints.SCATTER_PRODUCE, event.offset());
        }
        int id = slots.topicIds[slot];
        if (id < 0)
        {
            return;
        }
        TopicEntry topic = table.entry(id);
        int state = topic.state();
        while (state == TopicEntry.PENDING && !abandoned)
        {
            pause();
            state = topic.state();
        }
        final DeliveryListener listener = slots.listeners[slot];
        if (state != TopicEntry.EXISTS)
        {
            if (state == TopicEntry.PENDING)
            {
                return;
            }
            settledSequence = sequence;
            if (state == TopicEntry.FAILED)
            {
                failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), listener,
                    RecordFailures.CODE_PRODUCE, topic.error());
                return;
            }
            // ABSENT (create_topics = false) or REFUSED: permanent
            final int to = refused.onRefused(id, event.trackerId(), event.trackerGeneration(), event.offset(), listener,
                topic.error());
            if (to == RefusedRecords.DEAD_LETTER)
            {
                // false: the pipeline stops first; the offset stays unacknowledged and is read again by the next run
                deadLetters.sendRefused(event, topic.error(), null);
                return;
            }
            if (to < 0)
            {
                return;
            }
            id = to;
            topic = table.entry(to);
        }
        Delivery d = pool.tryAcquire();
        while (d == null && !abandoned)
        {
            pause();
            d = pool.tryAcquire();
        }
        if (d == null)
        {
            return;
        }
        d.start(this, sequence, event.trackerId(), event.trackerGeneration(), event.partition(), event.offset(), id,
            listener, event.offset());
        d.timestampType = event.timestampType();
        try
        {
            producer.send(topic.name(), event, d);
            settledSequence = sequence;
            ScatterStats.increment(stats.sent);
            if (!held.isEmpty())
            {
                // refused on this thread, inside send (too large for max.request.size, the topic's metadata refused)
                resendHeld();
            }
        }
        catch (final RuntimeException e)
        {
            settledSequence = sequence;
            // the cause names the broker's reason when the producer is in an error state (e.g. authorization)
            final String why = "the producer refused the record for topic " + topic.name() + ": "
                + KafkaChecks.describe(e);
            lastError = why;
            if (d.sendThrew())
            {
                failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), listener,
                    RecordFailures.CODE_PRODUCE, why);
            }
            control.fail(name + ": " + why);
        }
    }

    @Override
    public boolean onSendCompleted(final Delivery d, final Exception error)
    {
        if (error == null)
        {
            ScatterStats.increment(stats.produced);
            stats.produceLatencyNanos.record(System.nanoTime() - d.sentNanos);
            ScatterStats.increment(table.entry(d.topicId).produced);
            if (d.listener != null)
            {
                try
                {
                    d.listener.onDelivered(d.correlationId, table.entry(d.topicId).name());
                }
                catch (final RuntimeException e)
                {
                    LOG.warn("{}: delivery listener threw for record {}: {}", name, d.correlationId, e.toString());
                }
            }
            else
            {
                trackers.get(d.trackerId).ack(d.offset, d.generation);
            }
            return true;
        }
        stats.produceErrors.incrementAndGet();
        final TopicEntry topic = table.entry(d.topicId);
        final ProduceErrors.Kind kind = ProduceErrors.classify(error);
        final String broker = KafkaChecks.describe(error);
        if (ProduceErrors.permanent(kind))
        {
            final String why = (kind == ProduceErrors.Kind.RECORD_REFUSED
                ? "the broker refused the record for topic "
                : "the broker refused topic ") + topic.name() + " for good (" + error.getClass().getSimpleName()
                + "): " + broker;
            if (kind != ProduceErrors.Kind.RECORD_REFUSED)
            {
                // later records for the topic take the same way without a send
                topic.transition(TopicEntry.EXISTS, TopicEntry.REFUSED, why, System.nanoTime());
            }
            lastError = why;
            final int to = refused.onRefused(d.topicId, d.trackerId, d.generation, d.offset, d.listener, why);
            if (to == RefusedRecords.SETTLED || abandoned)
            {
                return true;
            }
            d.refusal = why;
            d.deadLetter = to == RefusedRecords.DEAD_LETTER;
            if (!d.deadLetter)
            {
                d.topicId = to;
            }
            d.refusalClass = error.getClass().getName();
            // the pool's capacity bounds the deliveries, so this queue (as large) always takes one
            return !held.offer(d);
        }
        if (kind == ProduceErrors.Kind.UNKNOWN_TOPIC
            && topic.transition(TopicEntry.EXISTS, TopicEntry.PENDING, null, System.nanoTime()))
        {
            // the topic went away (or its metadata did, or the broker is away): the admin thread looks again and
            // creates it (create_topics) or finds it ABSENT, whose records then take the fallback; this record is
            // read again
            provisioner.request(topic);
        }
        final String why = "producing to topic " + topic.name() + " failed: " + broker;
        lastError = why;
        if (deadLetters != null && d.listener == null && kind == ProduceErrors.Kind.TRANSIENT)
        {
            // a non-retriable error the table does not name: the re-read sends the record to the dead-letter topic
            deadLetters.markRefused(d.trackerId, d.offset, topic.name(), error);
        }
        failures.fail(d.trackerId, d.generation, d.offset, d.listener, RecordFailures.CODE_PRODUCE, why);
        if (kind == ProduceErrors.Kind.PRODUCER_REFUSED)
        {
            control.fail(name + ": " + failures.where(d.trackerId, d.offset) + ": " + why
                + " (the producer itself is refused: no record can be produced)");
        }
        return true;
    }

    /** The ring was idle for its wait strategy's timeout: send what waits for the fallback. */
    @Override
    public void onTimeout(final long sequence)
    {
        if (!held.isEmpty())
        {
            resendHeld();
        }
    }

    /** Waits a little for a topic or a free delivery, sending what is held meanwhile (which frees deliveries). */
    private void pause()
    {
        if (!held.isEmpty())
        {
            resendHeld();
        }
        LockSupport.parkNanos(WAIT_NANOS);
    }

    /**
     * Sends every held (refused) record to the topic {@link RefusedRecords} chose, with its own delivery, or makes a
     * dead letter of it (its offset is acknowledged when the broker has the dead letter).
     */
    private void resendHeld()
    {
        Delivery d;
        while ((d = held.poll()) != null)
        {
            if (abandoned)
            {
                d.abort();
                continue;
            }
            if (d.deadLetter)
            {
                // false: the pipeline stops first; the offset stays unacknowledged and is read again by the next run
                deadLetters.sendRefused(new DeadLetter.Origin(d.trackerId, d.generation,
                    deadLetters.topicOf(d.trackerId), d.partition, d.offset, d.timestampType), d.retained(),
                    d.refusal, d.refusalClass);
                d.abort();
                continue;
            }
            final TopicEntry to = table.entry(d.topicId);
            final ProducerRecord<byte[], byte[]> sent = d.retained();
            d.retarget(d.topicId);
            try
            {
                producer.resend(to.name(), sent, d);
                ScatterStats.increment(stats.sent);
            }
            catch (final RuntimeException e)
            {
                final String why = "the producer refused the record for the fallback " + to.name() + ": "
                    + KafkaChecks.describe(e);
                lastError = why;
                final int trackerId = d.trackerId;
                final int generation = d.generation;
                final long offset = d.offset;
                final DeliveryListener listener = d.listener;
                if (d.sendThrew())
                {
                    failures.fail(trackerId, generation, offset, listener, RecordFailures.CODE_PRODUCE, why);
                }
                control.fail(name + ": " + why);
            }
        }
    }

    /** Stops waiting for topics and deliveries (shutdown after the drain timeout); records not sent stay unacknowledged. */
    public void abandon()
    {
        abandoned = true;
    }

    /** @return the token of the last flush event this stage completed */
    public long lastFlushToken()
    {
        return lastFlushToken;
    }

    /** @return the last producer error, or null */
    public String lastError()
    {
        return lastError;
    }
}
