package io.sluice.core.scatter.internal;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;

import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.deadletter.DeadLetterMarks;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.stage.PipelineControl;
import io.sluice.ringbuffers.RecordEvent;

/**
 * Where a scatter source's {@code on_error = "dead_letter"} is carried out: the route stage hands over a record its
 * rule cannot place (no value and no fallback, a topic it may not create, a record above max_record_bytes), and
 * the produce stage sends it a record the broker refused for good and that the rule's fallback cannot take
 * ({@link RefusedRecords}: a record too large, a topic refused, {@link #sendRefused}), and marks a record that failed
 * with another non-retriable error that {@code ProduceErrors} does not name; the mark makes the re-read (the source
 * reads the batch again) send it to the dead-letter topic instead of producing it again. The dead letters go through
 * the pipeline's {@link DeadLetters}.
 *
 * <p>Threads: {@link #send} and {@link #marked} on the route stage, {@link #sendRefused} on the produce stage,
 * {@link #markRefused} on the producer's I/O thread.
 */
final class ScatterDeadLetters
{
    private final String pipeline;
    private final DeadLetters stage;
    private final DeadLetterMarks marks = new DeadLetterMarks();
    private final IntFunction<String> topicOfTracker;
    private final PipelineControl control;

    /**
     * @param pipeline       the source's name
     * @param stage          its dead-letter stage
     * @param topicOfTracker the input's name by tracker id (a Kafka topic, or the file or stdin the lines come from)
     * @param control        the pipeline's run state (a stop ends a wait for room)
     */
    ScatterDeadLetters(final String pipeline, final DeadLetters stage, final IntFunction<String> topicOfTracker,
        final PipelineControl control)
    {
        this.pipeline = pipeline;
        this.stage = stage;
        this.topicOfTracker = topicOfTracker;
        this.control = control;
    }

    /** @return the dead-letter stage */
    DeadLetters stage()
    {
        return stage;
    }

    /**
     * Copies the record out of its slot and queues its dead letter, waiting while the queue is full.
     *
     * @return false when the pipeline stops first, or the record follows no tracker (the caller fails it)
     */
    boolean send(final RecordEvent event, final DeadLetterReason reason, final String stageName, final String why)
    {
        if (event.trackerId() < 0)
        {
            return false;
        }
        final DeadLetter letter = DeadLetter.of(pipeline, event, topicOfTracker.apply(event.trackerId()),
            DeadLetter.Why.of(reason, stageName, why));
        return offer(letter);
    }

    /**
     * @return why a record is to become a dead letter (the mark is taken), or null when it is not marked
     */
    DeadLetter.Why marked(final RecordEvent event)
    {
        return event.trackerId() < 0 ? null : marks.take(event.trackerId(), event.offset());
    }

    /** Sends a marked record's dead letter (route stage). */
    boolean send(final RecordEvent event, final DeadLetter.Why why)
    {
        return offer(DeadLetter.of(pipeline, event, topicOfTracker.apply(event.trackerId()), why));
    }

    /**
     * Sends the dead letter of a record the broker refused for good, from its ring slot (produce stage; waits while
     * the dead-letter queue is full).
     *
     * @return false when the pipeline stops first (the offset stays unacknowledged: the next run reads it again)
     */
    boolean sendRefused(final RecordEvent event, final String why, final String exceptionClass)
    {
        if (event.trackerId() < 0)
        {
            return false;
        }
        return offer(DeadLetter.of(pipeline, event, topicOfTracker.apply(event.trackerId()), why(why, exceptionClass)));
    }

    private static DeadLetter.Why why(final String why, final String exceptionClass)
    {
        return new DeadLetter.Why(DeadLetterReason.PRODUCE, DeadLetterHeaders.STAGE_PRODUCE, why, exceptionClass, null,
            null, null, null, 0);
    }

    /**
     * Sends the dead letter of a record the broker refused for good after its slot was reused, from the record as
     * the producer sent it (produce stage; waits while the dead-letter queue is full).
     *
     * @param origin where it came from
     * @param sent   the record as sent
     * @param why            what was refused and the broker's reason
     * @param exceptionClass the refusal's class name, or null
     * @return false when the pipeline stops first (the offset stays unacknowledged)
     */
    boolean sendRefused(final DeadLetter.Origin origin, final ProducerRecord<byte[], byte[]> sent, final String why,
        final String exceptionClass)
    {
        return offer(DeadLetter.ofSent(pipeline, origin, sent, why(why, exceptionClass)));
    }

    /** @return the source's name of a tracker (a topic, a file, stdin) */
    String topicOf(final int trackerId)
    {
        return topicOfTracker.apply(trackerId);
    }

    /**
     * Marks a record the broker refused for good, before its offset is failed (the re-read sends its dead letter).
     *
     * @param trackerId its tracker
     * @param offset    its offset
     * @param topic     the topic it was produced to
     * @param error     the broker's or producer's refusal
     * @return false when the refusal is retriable (nothing was marked: the re-read produces it again)
     */
    boolean markRefused(final int trackerId, final long offset, final String topic, final Exception error)
    {
        if (trackerId < 0 || error instanceof RetriableException)
        {
            return false;
        }
        return marks.mark(trackerId, offset, new DeadLetter.Why(DeadLetterReason.PRODUCE,
            DeadLetterHeaders.STAGE_PRODUCE, "producing it to topic " + topic + " failed: " + error,
            error.getClass().getName(), null, null, null, null, 0));
    }

    private boolean offer(final DeadLetter letter)
    {
        while (true)
        {
            final int rc = stage.offer(letter);
            if (rc == DeadLetters.OFFERED)
            {
                return true;
            }
            if (rc == DeadLetters.CLOSED || control.stopRequested())
            {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
    }
}
