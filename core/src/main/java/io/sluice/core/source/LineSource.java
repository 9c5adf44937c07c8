package io.sluice.core.source;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.RingBuffer;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.naming.TopicNameSanitizer;
import io.sluice.core.stage.Downstream;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.StageAgents;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The source of a {@code file} or {@code stdin} scatter pipeline: reads JSON lines (plain or gzip, detected by the
 * magic bytes {@code 1f 8b}), one record per line, and publishes each into the ring. Its position is the line index,
 * tracked by an {@link AckTracker} like a Kafka partition's offsets: a line is registered when it is published and
 * acknowledged when Kafka has it, and blank lines are gaps.
 *
 * <p>At-least-once without seeking: every line read is kept in a {@link ReplayLog} until the watermark passes it.
 * When a record fails (its value is missing and the rule has no fallback, its topic does not exist, the producer gave
 * up) the source does not advance: it stops publishing, waits until what it published has settled downstream and a
 * backoff has passed (doubling up to {@code retry_backoff_max_ms}), resets the tracker at the watermark (a new
 * generation) and replays from the failed line. If the watermark stays at the failed line for
 * {@code checkpoint.stalled_fail_after_ms} the run ends (exit 1) naming the line and the reason.
 *
 * <p>Resuming ({@code checkpoint_file}, file sources only): the watermark is saved as a {@link FileCheckpoint} every
 * {@code checkpoint.commit_interval_ms} and when the source stops; a new run checks that the input still starts with
 * the bytes the checkpoint was written for and has at least that many lines, skips them, and goes on from there.
 * An input that does not match fails the run at start, naming both files: skipping lines of another file would lose
 * them.
 *
 * <p>End: once the input is exhausted and every line is acknowledged, the source asks its pipeline to stop (exit 0).
 * A line longer than {@code engine.max_record_bytes} is not kept: it fails with its size.
 *
 * <p>Threads: an Agrona {@link Agent} on its own thread (the only producer of the ring), run with the source stage's
 * idle strategy; the getters from any thread.
 */
public final class LineSource implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(LineSource.class);

    /** Opens the input (called once, on the source thread). */
    public interface Input
    {
        /**
         * @return the input stream, not yet buffered or decompressed
         * @throws IOException when it cannot be opened
         */
        InputStream open() throws IOException;
    }

    private final LineSourceContext settings;
    private final Input input;
    private final RingPublisher publisher;
    private final RecordClaim claim = new RecordClaim();
    private final RereadSchedule reread;
    private final StallWatch stallWatch;
    private final PipelineControl control;
    private final PipelineStats stats;
    private final Downstream downstream;
    private final IdleStrategy idle;
    private final AckTracker tracker;
    private final int trackerId;
    private final ReplayLog replay;
    private final RereadFilter filter = new RereadFilter();
    private final byte[] chunk = new byte[1 << 16];
    private final ExpandableArrayBuffer line = new ExpandableArrayBuffer(1 << 12);

    private InputStream in;
    private int chunkPosition;
    private int chunkLimit;
    private boolean eof;
    private long nextLine;
    private int lineLength;
    private long lineBytes;
    private boolean lineStaged;
    private long cursor;
    private long lastSequence = -1;
    private long currentLine;
    private long nextCheckNanos;
    private long flushToken;
    private volatile boolean finished;
    private volatile boolean completed;
    private FileCheckpoint checkpoint;
    private boolean checkpointWarned;

    /**
     * @param settings   the source's settings, concluded ({@link LineSourceContext#conclude()})
     * @param input      opens the input
     * @param ring       the ring (this source is its only producer)
     * @param overflow   buffers for lines larger than a slot
     * @param trackers   the pipeline's trackers (this source registers one)
     * @param control    the pipeline's run state
     * @param stats      the pipeline's counters (records in, back-pressure pauses)
     * @param downstream the stages after the ring
     * @param idle       the source stage's idle strategy: the agent's runner idles with it, and so does the drain
     */
    public LineSource(final LineSourceContext settings, final Input input, final RingBuffer<RecordEvent> ring,
        final OverflowPool overflow, final PartitionTrackers trackers, final PipelineControl control,
        final PipelineStats stats, final Downstream downstream, final IdleStrategy idle)
    {
        if (!settings.concluded())
        {
            throw new IllegalArgumentException("LineSourceContext of " + settings.name() + " is not concluded");
        }
        this.settings = settings;
        this.input = input;
        this.publisher = new RingPublisher(ring, false, overflow, Integer.MAX_VALUE, SystemNanoClock.INSTANCE);
        this.reread = new RereadSchedule(settings.name(), settings.displayName(), RereadSchedule.Words.LINES,
            settings.backoffMs(), settings.backoffMaxMs(), settings.stalledFailAfterMs(), control);
        this.stallWatch = new StallWatch(settings.stalledFailAfterMs(), RereadSchedule.Words.LINES);
        this.control = control;
        this.stats = stats;
        this.downstream = downstream;
        this.idle = idle;
        final TopicPartition tp = new TopicPartition(settings.displayName(), 0);
        this.tracker = trackers.trackerFor(tp, 0);
        this.trackerId = trackers.idOf(tp);
        this.replay = new ReplayLog(settings.replayBytes());
    }

    /** @return the id of this source's tracker in the pipeline's {@link PartitionTrackers} */
    public int trackerId()
    {
        return trackerId;
    }

    /** @return true once the agent has closed (drained, checkpoint saved, input closed) */
    public boolean finished()
    {
        return finished;
    }

    /** @return true when the whole input was read and acknowledged */
    public boolean completed()
    {
        return completed;
    }

    @Override
    public String roleName()
    {
        return settings.name() + "-source";
    }

    /** Opens the input and, with a {@code checkpoint_file}, resumes where the last run stopped. */
    @Override
    public void onStart()
    {
        try
        {
            in = openInput();
            if (settings.checkpointFile() != null && !resume())
            {
                return; // the pipeline has been failed with the reason: the first duty cycle stops
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot open " + settings.displayName() + ": " + e.getMessage(), e);
        }
        nextCheckNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.statusIntervalMs());
    }

    /**
     * One duty cycle: watch for stalls and save the checkpoint when due, wait while a failed batch waits to be
     * replayed, else publish the next line kept in the replay log, or read the next line into it.
     *
     * @return 1 when a line was published or read; 0 when back-pressured or waiting (the runner idles)
     * @throws IOException when the input cannot be read
     */
    @Override
    public int doWork() throws IOException
    {
        if (control.stopRequested())
        {
            throw StageAgents.STOP;
        }
        final long now = System.nanoTime();
        replay.trimBefore(tracker.watermark());
        if (cursor < replay.first())
        {
            cursor = replay.first();
        }
        if (now - nextCheckNanos >= 0)
        {
            nextCheckNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.statusIntervalMs());
            checkStall(now);
            saveCheckpoint();
        }
        if (replayFailed(now))
        {
            return 0;
        }
        if (cursor < replay.tail())
        {
            // the cursor may sit where the tail was when it caught up; the record appended since may have
            // started after padding at the end of the buffer
            cursor = replay.recordAt(cursor);
            if (publish(cursor))
            {
                cursor = replay.next(cursor);
                return 1;
            }
            stats.backpressurePauses.lazySet(stats.backpressurePauses.get() + 1);
            return 0;
        }
        if (!eof || lineStaged)
        {
            // false: the replay log is full; acknowledgements trim it
            return readLine() ? 1 : 0;
        }
        if (tracker.watermark() == tracker.registeredEnd() && !tracker.failed())
        {
            completed = true;
            LOG.info("{}: {}: all {} lines read and in Kafka", settings.name(), settings.displayName(), nextLine);
            control.requestStop();
            throw StageAgents.STOP;
        }
        return 0;
    }

    /** Drains, saves the checkpoint and closes the input (also after a failure). */
    @Override
    public void onClose()
    {
        try
        {
            shutdown();
        }
        finally
        {
            finished = true;
        }
    }

    /** @return the line being read or published, for the error handler (allocates) */
    public String describeWork()
    {
        return "line " + (currentLine + 1) + " of " + settings.displayName();
    }

    /** @return the idle strategy to run this agent with */
    public IdleStrategy idleStrategy()
    {
        return idle;
    }

    private InputStream openInput() throws IOException
    {
        final BufferedInputStream raw = new BufferedInputStream(input.open(), 1 << 16);
        raw.mark(2);
        final int b0 = raw.read();
        final int b1 = raw.read();
        raw.reset();
        if (b0 == 0x1f && b1 == 0x8b)
        {
            LOG.info("{}: {} is gzip", settings.name(), settings.displayName());
            return new GZIPInputStream(raw, 1 << 16);
        }
        return raw;
    }

    /**
     * Reads the checkpoint, checks the input against it, skips the lines it says are in Kafka and saves it again
     * (which also proves the file can be written).
     *
     * @return false when the run must not go on (the pipeline has been failed with the reason)
     */
    private boolean resume() throws IOException
    {
        final Path file = settings.checkpointFile();
        final FileCheckpoint saved;
        try
        {
            saved = FileCheckpoint.read(file);
        }
        catch (final IllegalArgumentException e)
        {
            control.fail("checkpoint_file " + e.getMessage()
                + "; delete it to read " + settings.displayName() + " from line 1");
            return false;
        }
        final FileCheckpoint current;
        try (InputStream raw = input.open())
        {
            current = FileCheckpoint.identify(raw, saved == null ? FileCheckpoint.PREFIX_BYTES : saved.prefixBytes());
        }
        if (saved != null)
        {
            if (current.prefixBytes() != saved.prefixBytes() || !current.prefixSha256().equals(saved.prefixSha256()))
            {
                control.fail(settings.displayName() + " is not the input its "
                    + "checkpoint_file " + file + " was written for: its first " + saved.prefixBytes() + " bytes "
                    + (current.prefixBytes() < saved.prefixBytes()
                        ? "are not there (" + current.prefixBytes()
                            + " bytes)"
                        : "differ (SHA-256)")
                    + "; it was replaced or rewritten. Nothing was read: delete " + file + " to read it from line 1");
                return false;
            }
            for (long i = 0; i < saved.line(); i++)
            {
                if (!scanLine())
                {
                    control.fail(settings.displayName() + " has " + i
                        + " lines, but its checkpoint_file " + file + " says " + saved.line() + " are in Kafka; it was "
                        + "truncated or replaced. Nothing was produced: delete " + file + " to read it from line 1");
                    return false;
                }
            }
            nextLine = saved.line();
            tracker.reset(saved.line());
            LOG.info("{}: {}: resuming at line {}: {} line(s) are in Kafka by checkpoint_file {}", settings.name(),
                settings.displayName(), saved.line() + 1, saved.line(), file);
        }
        else
        {
            LOG.info("{}: {}: no checkpoint_file {} yet: reading from line 1", settings.name(), settings.displayName(),
                file);
        }
        checkpoint = saved != null ? saved : current;
        try
        {
            checkpoint.write(file, settings.name(), settings.displayName());
        }
        catch (final IOException e)
        {
            checkpoint = null;
            control.fail("cannot write its checkpoint_file " + file + ": " + e);
            return false;
        }
        return true;
    }

    /** Saves the watermark when it moved (source thread); a failed write is retried at the next call. */
    private void saveCheckpoint()
    {
        if (checkpoint == null)
        {
            return;
        }
        final long wm = tracker.watermark();
        if (wm == checkpoint.line())
        {
            return;
        }
        try
        {
            final FileCheckpoint moved = checkpoint.at(wm);
            moved.write(settings.checkpointFile(), settings.name(), settings.displayName());
            checkpoint = moved;
            checkpointWarned = false;
        }
        catch (final IOException e)
        {
            if (!checkpointWarned)
            {
                LOG.warn("{}: cannot write checkpoint_file {} (line {}): {}; retrying every "
                    + "checkpoint.commit_interval_ms: a restart meanwhile resumes at line {}", settings.name(),
                    settings.checkpointFile(), wm + 1, e.toString(), checkpoint.line() + 1);
                checkpointWarned = true;
            }
        }
    }

    /** @return false when the replay log had no room (the line stays staged) */
    private boolean readLine() throws IOException
    {
        if (!lineStaged)
        {
            if (!scanLine())
            {
                return true;
            }
            lineStaged = true;
        }
        final long index = nextLine;
        currentLine = index;
        final boolean kept;
        if (lineBytes > settings.maxRecordBytes())
        {
            kept = replay.tryAppendTooLarge(index, (int)Math.min(Integer.MAX_VALUE, lineBytes));
        }
        else if (TopicNameSanitizer.isBlank(line, 0, lineLength))
        {
            kept = true;
        }
        else
        {
            kept = replay.tryAppend(index, line, 0, lineLength);
        }
        if (!kept)
        {
            return false;
        }
        lineStaged = false;
        nextLine = index + 1;
        return true;
    }

    /**
     * Reads the next line into {@link #line} (bytes beyond {@code max_record_bytes} are counted, not kept).
     *
     * @return true when a line was read; false at the end of the input
     */
    private boolean scanLine() throws IOException
    {
        lineLength = 0;
        lineBytes = 0;
        boolean any = false;
        while (true)
        {
            if (chunkPosition == chunkLimit)
            {
                chunkLimit = in.read(chunk, 0, chunk.length);
                chunkPosition = 0;
                if (chunkLimit <= 0)
                {
                    chunkLimit = 0;
                    eof = true;
                    if (!any)
                    {
                        return false;
                    }
                    break;
                }
            }
            any = true;
            int end = chunkPosition;
            final int limit = chunkLimit;
            final byte[] c = chunk;
            while (end < limit && c[end] != '\n')
            {
                end++;
            }
            final int n = end - chunkPosition;
            if (lineBytes + n <= settings.maxRecordBytes())
            {
                line.putBytes(lineLength, c, chunkPosition, n);
                lineLength += n;
            }
            lineBytes += n;
            if (end < limit)
            {
                chunkPosition = end + 1;
                break;
            }
            chunkPosition = limit;
        }
        if (lineLength > 0 && lineBytes <= settings.maxRecordBytes() && line.getByte(lineLength - 1) == '\r')
        {
            lineLength--;
            lineBytes--;
        }
        return true;
    }

    /** @return false when back-pressured (nothing was registered or published) */
    private boolean publish(final long position)
    {
        final long index = replay.line(position);
        currentLine = index;
        final int length = replay.length(position);
        final int tooLarge = replay.tooLargeBytes(position);
        final RecordClaim c = claim;
        if (filter.active() && filter.written(index))
        {
            // a replay: this line was produced before; acknowledge it without sending it again
            if (tracker.tryRegister(index) != AckTracker.REGISTERED)
            {
                return false;
            }
            tracker.ack(index, tracker.generation());
            stats.rereadSkipped.lazySet(stats.rereadSkipped.get() + 1);
            return true;
        }
        // a line above max_record_bytes was not kept: a slot of its own carries its size to the route stage
        if (publisher.tryClaim(tooLarge > 0 ? 0 : length, tracker, index, c) != RingPublisher.OFFERED)
        {
            return false;
        }
        lastSequence = c.sequence();
        try
        {
            final RecordEvent event = c.record(0, 0, index, 0L, trackerId, tracker.generation());
            if (Failpoints.ENABLED)
            {
                Failpoints.check(Failpoints.SOURCE, index);
            }
            if (tooLarge > 0)
            {
                event.markTooLarge(tooLarge);
            }
            else
            {
                event.putValue(replay.buffer(), replay.bytesIndex(position), length);
                event.putKey((byte[])null);
            }
        }
        catch (final RuntimeException | Error e)
        {
            c.abort();
            throw e;
        }
        c.commit();
        stats.recordsIn.lazySet(stats.recordsIn.get() + 1);
        return true;
    }

    /** @return true while a failed batch waits to be replayed */
    private boolean replayFailed(final long now)
    {
        switch (reread.poll(now, tracker, downstream, lastSequence))
        {
            case RereadSchedule.RUNNING :
                return false;
            case RereadSchedule.REREAD :
                final long wm = tracker.watermark();
                filter.capture(tracker, wm);
                replay.trimBefore(wm);
                tracker.reset(wm);
                cursor = replay.first();
                reread.rereading(wm);
                stats.rereads[reread.cause()].lazySet(stats.rereads[reread.cause()].get() + 1);
                return false;
            default :
                return true;
        }
    }

    private void checkStall(final long now)
    {
        if (stallWatch.stalled(now, tracker, reread.failSinceNanos(), reread.stallClockFloorNanos()))
        {
            control.fail(stallWatch.message(settings.displayName(), tracker, reread.failReason(), downstream));
        }
    }

    private void shutdown()
    {
        try
        {
            publisher.publishControl(RecordEvent.KIND_FLUSH, ++flushToken);
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.drainTimeoutMs());
            idle.reset();
            while (!downstream.idle() && System.nanoTime() - deadline < 0)
            {
                idle.idle();
            }
            if (!downstream.idle())
            {
                LOG.warn("{}: records still in flight after {} ms (checkpoint.drain_timeout_ms): {}", settings.name(),
                    settings.drainTimeoutMs(), downstream.describeStall());
                downstream.abandon();
            }
            if (settings.checkpointFile() != null && checkpoint == null)
            {
                LOG.info("{}: {}: nothing read this run; checkpoint_file {} is left as it was", settings.name(),
                    settings.displayName(), settings.checkpointFile());
                return;
            }
            final long wm = tracker.watermark();
            saveCheckpoint();
            final String next = checkpoint != null
                ? "a new run resumes at line " + (checkpoint.line() + 1) + " (checkpoint_file "
                    + settings.checkpointFile()
                    + ")"
                : "stdin".equals(settings.displayName())
                    ? "the rest of standard input was not read"
                    : "a new run starts from the first line again (no checkpoint_file)";
            LOG.info("{}: {}: {} line(s) in Kafka{}", settings.name(), settings.displayName(), wm,
                tracker.failed()
                    ? " (failed at line " + (tracker.failedOffset() + 1) + ": " + tracker.failureReason() + "; " + next
                        + ")"
                    : completed ? "" : "; stopped before the end: " + next);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("{}: error while stopping: {}", settings.name(), e.toString());
        }
        finally
        {
            try
            {
                if (in != null)
                {
                    in.close();
                }
            }
            catch (final IOException e)
            {
                LOG.debug("{}: closing the input: {}", settings.name(), e.toString());
            }
        }
    }

    /** @return the next line index to be acknowledged (lines before it are in Kafka), approximate off the source thread */
    public long watermark()
    {
        return tracker.lastWatermark();
    }
}
