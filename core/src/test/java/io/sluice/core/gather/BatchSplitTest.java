package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;

/**
 * A batch refused for its data is inserted in parts until each refused part is one record (issue 25 item 1): the
 * other rows are written, the refused records follow on_error. The writer here refuses, as a destination refuses a
 * whole insert, any insert that holds one of its "bad" offsets (record-caused, as ClickHouse's 395 throwIf); the real
 * server is exercised by {@code NestedAndRefusedRecordsIT}.
 */
class BatchSplitTest
{
    /** Refuses every insert holding a bad (partition, offset); records what each insert wrote. */
    private final class RefusingWriter implements BatchWriter
    {
        final Set<Long> bad = new HashSet<>();
        final List<Long> written = new ArrayList<>();
        final List<SinkException> script = new ArrayList<>();
        int calls;
        boolean parts = true;

        @Override
        public void write(final BatchBuffer batch) throws SinkException
        {
            final int[] all = new int[batch.rowCount()];
            for (int i = 0; i < all.length; i++)
            {
                all[i] = i;
            }
            write(batch, all, all.length);
        }

        @Override
        public void write(final BatchBuffer batch, final int[] selected, final int count) throws SinkException
        {
            calls++;
            if (!script.isEmpty())
            {
                throw script.remove(0);
            }
            for (int k = 0; k < count; k++)
            {
                if (bad.contains(key(batch, selected[k])))
                {
                    throw new SinkException("insert at x: ClickHouse error 395 (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO): "
                        + "Value passed to 'throwIf' function is non zero", false, 395, true, null);
                }
            }
            for (int k = 0; k < count; k++)
            {
                written.add(key(batch, selected[k]));
            }
        }

        @Override
        public boolean writesPartOfBatch()
        {
            return parts;
        }

        @Override
        public String describe()
        {
            return "refusing";
        }

        @Override
        public void close()
        {
        }
    }

    private final PartitionTrackers trackers = new PartitionTrackers(1024);
    private final AckTracker p0 = trackers.trackerFor(new TopicPartition("t", 0), 0);
    private final AckTracker p1 = trackers.trackerFor(new TopicPartition("t", 1), 0);
    private final BatchPool pool = new BatchPool(4, 1024, 256);
    private final Destination table = new Destination(0, 0, "b", "db", "a", "`db`.`a`", List.of(), "s", null);
    private final PipelineControl control = new PipelineControl();
    private final PipelineStats stats = new PipelineStats();

    /** Partition 1's offsets are told apart from partition 0's by 1,000,000. */
    private static long key(final BatchBuffer b, final int row)
    {
        return b.trackerId(row) == 0 ? b.offset(row) : 1_000_000 + b.offset(row);
    }

    /** Rows alternate between the partitions: offsets 0..n/2 of each, registered in their trackers. */
    private BatchBuffer batch(final int n)
    {
        final BatchBuffer b = pool.tryAcquire();
        b.open(table, 0, System.nanoTime());
        for (int i = 0; i < n; i++)
        {
            final AckTracker t = i % 2 == 0 ? p0 : p1;
            final long offset = i / 2;
            assertEquals(AckTracker.REGISTERED, t.tryRegister(offset));
            b.addRow(i % 2 == 0
                ? trackers.idOf(new TopicPartition("t", 0))
                : trackers.idOf(new TopicPartition("t",
                    1)),
                t.generation(), offset, System.currentTimeMillis());
        }
        return b;
    }

    private void run(final RefusingWriter writer, final ErrorPolicy policy, final BatchBuffer b) throws Exception
    {
        run(writer, policy, b, null);
    }

    private void run(final RefusingWriter writer, final ErrorPolicy policy, final BatchBuffer b,
        final GatherDeadLetters deadLetters) throws Exception
    {
        final InsertWorker w = new InsertWorker("test", 4, writer, trackers, stats,
            new CircuitBreaker(100, TimeUnit.MILLISECONDS.toNanos(5)), new BusySpinIdleStrategy(), 1, 2)
            .refusedRecords(policy, control);
        if (deadLetters != null)
        {
            w.deadLetters(deadLetters);
        }
        w.offer(b);
        final Thread t = new Thread(new AgentRunner(w.idleStrategy(), Throwable::printStackTrace, null, w));
        t.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!w.idle() && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        assertTrue(w.idle(), "the worker finished the batch within 10 s");
        w.stop();
        t.join(10_000);
    }

    @Test
    void shouldWriteEveryOtherRowAndSkipTheRefusedOnesUnderSkip() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.bad.addAll(List.of(17L, 1_000_031L, 49L));
        run(writer, ErrorPolicy.SKIP, batch(100));
        assertEquals(97, writer.written.size(), "each good row once");
        assertEquals(97, new HashSet<>(writer.written).size());
        assertFalse(writer.written.contains(17L));
        assertEquals(3, stats.droppedRefused.get());
        assertEquals(50, p0.watermark(), "skipped records are acknowledged");
        assertEquals(50, p1.watermark());
        assertFalse(control.failed());
        // 1 whole + parts: about 2 k log2(n / k) for k = 3, n = 100
        assertTrue(writer.calls <= 1 + 2 * 3 * 7, "inserts: " + writer.calls);
        assertEquals(97, stats.rowsWritten.get());
    }

    @Test
    void shouldStopNamingTheRecordUnderFailAndCommitNothingPastIt() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.bad.add(1_000_020L);
        run(writer, ErrorPolicy.FAIL, batch(64));
        assertTrue(control.failed());
        assertTrue(control.failureReason().startsWith("record t-1@20: `db`.`a` refused it on its own")
            && control.failureReason().contains("395"), control.failureReason());
        assertEquals(20, p1.failedOffset());
        assertEquals(20, p1.watermark(), "nothing committed past the record");
        assertTrue(p0.watermark() <= 32);
        assertFalse(writer.written.contains(1_000_020L));
        assertTrue(writer.written.contains(1_000_019L), "the rows before it are written");
        for (final long k : writer.written)
        {
            assertTrue(k < 1_000_000 || k < 1_000_020, "nothing of partition 1 after the record: " + k);
        }
    }

    /** Rows of a partition that failed at an earlier offset are left for its re-read, not written twice. */
    @Test
    void shouldLeaveRowsOfAPartitionFailedEarlierForItsReread() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.bad.add(40L);
        final BatchBuffer b = batch(100);
        p1.fail(10, p1.generation(), -1, "failed elsewhere");
        run(writer, ErrorPolicy.SKIP, b);
        for (final long k : writer.written)
        {
            assertTrue(k < 1_000_000 || k <= 1_000_010, "held for the re-read: " + k);
        }
        assertTrue(writer.written.contains(1_000_010L), "the failed offset itself was in the refused batch");
        assertEquals(49, writer.written.stream().filter(k -> k < 1_000_000).count(), "partition 0 but offset 40");
        assertEquals(50, p0.watermark());
        assertEquals(10, p1.watermark());
    }

    /** A retriable failure of a part retries the part; the result is the same. */
    @Test
    void shouldRetryAPartThatFailedForAnotherReason() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.bad.add(5L);
        final BatchBuffer b = batch(16);
        writer.script.add(refusal());
        writer.script.add(new SinkException("timed out", true, 209, null));
        run(writer, ErrorPolicy.SKIP, b);
        assertEquals(15, new HashSet<>(writer.written).size());
        assertEquals(15, writer.written.size());
        assertEquals(8, p0.watermark());
    }

    /** A refusal that is not the data's during a split fails the rows not written yet, as it would the batch. */
    @Test
    void shouldFailTheRestWhenAPartIsRefusedForAnotherReason() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        final BatchBuffer b = batch(16);
        writer.script.add(refusal());
        writer.script.add(new SinkException("table dropped", false, 60, null));
        run(writer, ErrorPolicy.SKIP, b);
        assertTrue(writer.written.isEmpty(), "the lower half was refused, the upper half not tried");
        assertTrue(p0.failed() && p0.failureReason().contains("table dropped"), p0.failureReason());
        assertEquals(0, p0.watermark());
        assertEquals(0, p1.failedOffset());
        assertFalse(control.failed());
    }

    /** A writer that cannot insert part of a batch: the batch fails as a whole, as before. */
    @Test
    void shouldFailTheWholeBatchWhenTheWriterCannotInsertParts() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.parts = false;
        writer.bad.add(3L);
        run(writer, ErrorPolicy.SKIP, batch(8));
        assertEquals(1, writer.calls);
        assertEquals(0, p0.watermark());
        assertEquals(0, p0.failedOffset());
    }

    /**
     * Under dead_letter, one pass finds every refused record of the batch, in both partitions: each is marked for its
     * dead letter, every good row is written exactly once (those after a partition's first refused record too, marked
     * so that the re-read acknowledges them instead of writing them again), and each partition fails at its first
     * refused record only.
     */
    @Test
    void shouldFindEveryRefusedRecordInOnePassUnderDeadLetter() throws Exception
    {
        for (final int every : new int[]{2, 3, 10, 97})
        {
            final BatchSplitTest t = new BatchSplitTest();
            t.findAllUnderDeadLetter(400, every);
        }
    }

    private void findAllUnderDeadLetter(final int n, final int every) throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        for (int i = 0; i < n; i++)
        {
            if ((i / 2 * 7 + i % 2 * 5 + 3) % every == 0)
            {
                writer.bad.add(i % 2 == 0 ? (long)(i / 2) : 1_000_000L + i / 2);
            }
        }
        final GatherDeadLetters d = new GatherDeadLetters("p", null, null, control);
        run(writer, ErrorPolicy.DEAD_LETTER, batch(n), d);
        final int good = n - writer.bad.size();
        assertEquals(good, writer.written.size(), "each good row once (every " + every + ")");
        assertEquals(good, new HashSet<>(writer.written).size());
        for (final long k : writer.written)
        {
            assertFalse(writer.bad.contains(k), "a refused row written: " + k);
        }
        assertEquals(writer.bad.size(), d.deadLetterMarks(), "every refused record is marked for its dead letter");
        final long first0 = writer.bad.stream().filter(k -> k < 1_000_000).min(Long::compare).orElseThrow();
        final long first1 = writer.bad.stream().filter(k -> k >= 1_000_000).min(Long::compare).orElseThrow()
            - 1_000_000;
        assertEquals(first0, p0.failedOffset(), "partition 0 fails at its first refused record");
        assertEquals(first1, p1.failedOffset());
        final long after = writer.written.stream()
            .filter(k -> k < 1_000_000 ? k > first0 : k - 1_000_000 > first1).count();
        assertEquals(after, d.writtenMarks(), "the rows written after a partition's first refused record are marked");
        assertFalse(control.failed());
        // one pass: about 2 k log2(n / k) inserts, and never more than 2 n - 1
        assertTrue(writer.calls <= 2 * n - 1, "inserts: " + writer.calls);
    }

    /** When the lower half of a refused part goes in whole, the upper half is cut without an insert. */
    @Test
    void shouldCutTheUpperHalfWithoutAnInsertWhenTheLowerWentIn() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.bad.add(1_000_031L);
        run(writer, ErrorPolicy.SKIP, batch(64));
        // the whole batch, then one insert per level (the lower halves) and the record itself
        assertEquals(63, writer.written.size());
        assertTrue(writer.calls <= 1 + 6 + 1, "inserts: " + writer.calls);
        assertEquals(1, stats.droppedRefused.get());
    }

    /**
     * A retriable failure in the middle of a split under dead_letter retries the same part: no row is written twice,
     * none is lost.
     */
    @Test
    void shouldRetryAPartUnderDeadLetterWithoutWritingAnyRowTwice() throws Exception
    {
        final RefusingWriter writer = new RefusingWriter();
        writer.bad.addAll(List.of(3L, 1_000_003L, 9L));
        final GatherDeadLetters d = new GatherDeadLetters("p", null, null, control);
        writer.script.add(refusal());
        writer.script.add(refusal());
        writer.script.add(new SinkException("connection reset", true, 0, null));
        run(writer, ErrorPolicy.DEAD_LETTER, batch(32), d);
        assertEquals(29, writer.written.size());
        assertEquals(29, new HashSet<>(writer.written).size());
        assertEquals(3, d.deadLetterMarks());
        assertEquals(3, p0.failedOffset());
        assertEquals(3, p1.failedOffset());
    }

    private static SinkException refusal()
    {
        return new SinkException("insert at x: ClickHouse error 395: non zero", false, 395, true, null);
    }
}
