package io.sluice.core.gather;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.deadletter.DeadLetterMarks;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * Where a gather pipeline's {@code dead_letter} fates are carried out: the route stage hands over records whose
 * policy says so ({@link #send}), an insert worker marks the records of a batch ClickHouse refused for its data
 * ({@link #markBatch}: their offsets fail, the partitions are re-read, and the route stage, seeing a marked record
 * again, {@link #marked takes} the mark and sends it instead of writing it twice). The dead letters themselves go
 * through the pipeline's {@link DeadLetters} stage.
 *
 * <p>Threads: {@link #send} and {@link #marked} on the route stage, {@link #markBatch} on an insert worker.
 */
public final class GatherDeadLetters
{
    /** The shape of a conversion error of the JSON encoder: column, type, path, what. */
    private static final Pattern CONVERSION = Pattern.compile("^column (.+?) \\((.+?)\\) from path (.+?): .*$",
        Pattern.DOTALL);

    private final String pipeline;
    private final DeadLetters stage;
    private final DeadLetterMarks marks = new DeadLetterMarks();
    /**
     * Rows a split wrote although their partition is read again (a refused record before them became a dead
     * letter): the re-read acknowledges them instead of writing them twice. Keyed by tracker id and offset; the value
     * is the tracker, so a mark is never taken by another partition that was given the same id later.
     */
    private final ConcurrentHashMap<Written, AckTracker> written = new ConcurrentHashMap<>();
    private final TopicRegistry topics;
    private final PipelineControl control;

    /**
     * @param pipeline the pipeline's name
     * @param stage    the pipeline's dead-letter stage
     * @param topics   the pipeline's topic registry
     * @param control  the pipeline's run state (a stop ends a wait for room)
     */
    public GatherDeadLetters(final String pipeline, final DeadLetters stage, final TopicRegistry topics,
        final PipelineControl control)
    {
        this.pipeline = pipeline;
        this.stage = stage;
        this.topics = topics;
        this.control = control;
    }

    /** @return the dead-letter stage */
    public DeadLetters stage()
    {
        return stage;
    }

    /**
     * Copies the record out of its slot and queues its dead letter, waiting while the queue is full.
     *
     * @param event the record
     * @param why   why
     * @return false when the pipeline stops first (the offset stays unacknowledged and is read again)
     */
    boolean send(final RecordEvent event, final DeadLetter.Why why)
    {
        final DeadLetter letter = DeadLetter.of(pipeline, event, topics.name(event.topicId()), why);
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

    /**
     * @param event a record the route stage is about to route
     * @return why it is to become a dead letter (the mark is taken), or null when it is not marked
     */
    DeadLetter.Why marked(final RecordEvent event)
    {
        return marks.take(event.trackerId(), event.offset());
    }

    /**
     * Marks a row that an insert worker wrote while its partition is to be read again (it follows a record of the
     * same refused batch that becomes a dead letter): when the re-read brings it back, {@link #takeWritten} says so
     * and the route stage acknowledges it instead of writing it again. Call it once the row is written, before its
     * batch is done (the re-read waits for the batch, so it always finds the mark). Allocates.
     *
     * @param batch   the batch
     * @param row     the row written
     * @param tracker its partition's tracker
     */
    void markWritten(final BatchBuffer batch, final int row, final AckTracker tracker)
    {
        written.put(key(batch.trackerId(row), batch.offset(row)), tracker);
    }

    /**
     * Takes the mark of a record an insert worker already wrote ({@link #markWritten}), if it has one.
     *
     * @param event   a record the route stage is about to route
     * @param tracker its partition's tracker now
     * @return true when the record is written already (the mark is taken): acknowledge it, do not write it
     */
    boolean takeWritten(final RecordEvent event, final AckTracker tracker)
    {
        if (written.isEmpty())
        {
            return false;
        }
        return written.remove(key(event.trackerId(), event.offset()), tracker);
    }

    /** @return records marked for their dead letter and not yet read again */
    int deadLetterMarks()
    {
        return marks.size();
    }

    /** @return rows marked written and not yet read again */
    int writtenMarks()
    {
        return written.size();
    }

    private static Written key(final int trackerId, final long offset)
    {
        return new Written(trackerId, offset);
    }

    /** The key of a row marked written. */
    private record Written(int trackerId, long offset)
    {
    }

    /**
     * Marks every record of a batch that ClickHouse refused for its data, before its offsets are failed.
     *
     * @param batch  the batch
     * @param e      the refusal ({@link SinkException#recordCaused()})
     * @param reason the message the offsets are failed with
     * @return false when the marks are full (nothing more was marked: the partitions stop as under fail)
     */
    boolean markBatch(final BatchBuffer batch, final SinkException e, final String reason)
    {
        final Destination d = batch.destination();
        final DeadLetter.Why why = new DeadLetter.Why(DeadLetterReason.INSERT, DeadLetterHeaders.STAGE_INSERT,
            reason, e.getClass().getName(), d.branchName(), d.toString(), null, null, e.code());
        final int rows = batch.rowCount();
        for (int i = 0; i < rows; i++)
        {
            if (!marks.mark(batch.trackerId(i), batch.offset(i), why))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Marks one record of a batch that the destination refused on its own (found by inserting the refused batch in
     * parts), before its offset is failed: its dead letter carries the destination's code and message.
     *
     * @param batch  the batch
     * @param row    the record's row in it
     * @param e      the refusal of the part that held only this record
     * @param reason the message its offset is failed with (naming the record and what the destination said)
     * @return false when the marks are full (the partition stops as under fail)
     */
    boolean markRow(final BatchBuffer batch, final int row, final SinkException e, final String reason)
    {
        final Destination d = batch.destination();
        final DeadLetter.Why why = new DeadLetter.Why(DeadLetterReason.INSERT, DeadLetterHeaders.STAGE_INSERT,
            reason, e.getClass().getName(), d.branchName(), d.toString(), null, null, e.code());
        return marks.mark(batch.trackerId(row), batch.offset(row), why);
    }

    /**
     * The reason of a record the encoder refused: names branch, table, and column and path when the message gives them.
     *
     * @param branch  the branch
     * @param table   the destination
     * @param message the encoder's message
     * @return the why
     */
    static DeadLetter.Why conversion(final String branch, final Destination table, final String message)
    {
        if (message.startsWith("malformed JSON") || message.startsWith("duplicate key "))
        {
            // the branch's scan found the record malformed (or a key twice) past what was read before: on the first
            // record of a destination, the columns it binds are read only after the branch was chosen
            return new DeadLetter.Why(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_PARSE, message, null, branch,
                table.toString(), null, null, 0);
        }
        final Matcher m = CONVERSION.matcher(message);
        return new DeadLetter.Why(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_CONVERT, message, null, branch,
            table.toString(), m.matches() ? m.group(1) : null, m.matches() ? m.group(3) : null, 0);
    }
}
