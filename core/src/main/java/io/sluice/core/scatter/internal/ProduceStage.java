package io.sluice.core.scatter.internal;

import io.sluice.core.scatter.ScatterStats;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.EventHandler;

import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.scatter.DeliveryListener;
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
        final OverflowPool overflow, final PipelineControl control, final ScatterStats stats)
    {
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
    }

    @Override
    public void onEvent(final RecordEvent event, final long sequence, final boolean endOfBatch)
    {
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
        final int id = slots.topicIds[slot];
        if (id < 0)
        {
            return;
        }
        final TopicEntry topic = table.entry(id);
        int state = topic.state();
        while (state == TopicEntry.PENDING && !abandoned)
        {
            LockSupport.parkNanos(WAIT_NANOS);
            state = topic.state();
        }
        final DeliveryListener listener = slots.listeners[slot];
        if (state != TopicEntry.EXISTS)
        {
            if (state != TopicEntry.PENDING)
            {
                settledSequence = sequence;
                failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), listener,
                    RecordFailures.CODE_PRODUCE, topic.error());
            }
            return;
        }
        Delivery d = pool.tryAcquire();
        while (d == null && !abandoned)
        {
            LockSupport.parkNanos(WAIT_NANOS);
            d = pool.tryAcquire();
        }
        if (d == null)
        {
            return;
        }
        d.start(this, sequence, event.trackerId(), event.trackerGeneration(), event.partition(), event.offset(), id,
            listener, event.offset());
        try
        {
            producer.send(topic.name(), event, d);
            settledSequence = sequence;
            ScatterStats.increment(stats.sent);
        }
        catch (final RuntimeException e)
        {
            d.abort();
            settledSequence = sequence;
            final String why = "the producer refused the record for topic " + topic.name() + ": " + e;
            lastError = why;
            failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), listener,
                RecordFailures.CODE_PRODUCE, why);
            control.fail(name + ": " + why);
        }
    }

    @Override
    public void onSendCompleted(final Delivery d, final Exception error)
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
            return;
        }
        stats.produceErrors.incrementAndGet();
        final TopicEntry topic = table.entry(d.topicId);
        if (unknownTopic(error) && topic.transition(TopicEntry.EXISTS, TopicEntry.PENDING, null, System.nanoTime()))
        {
            // the topic went away (or its metadata did): look at it again before sending more to it
            provisioner.request(topic);
        }
        final String why = "producing to topic " + topic.name() + " failed: " + error;
        lastError = why;
        if (deadLetters != null && d.listener == null)
        {
            deadLetters.markRefused(d.trackerId, d.offset, topic.name(), error);
        }
        failures.fail(d.trackerId, d.generation, d.offset, d.listener, RecordFailures.CODE_PRODUCE, why);
    }

    private static boolean unknownTopic(final Exception error)
    {
        return error instanceof UnknownTopicOrPartitionException
            || error instanceof org.apache.kafka.common.errors.TimeoutException
                && String.valueOf(error.getMessage()).contains("not present in metadata");
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
