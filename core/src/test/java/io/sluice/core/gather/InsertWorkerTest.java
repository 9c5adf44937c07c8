package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Deque;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.TableStats;

/**
 * The insert worker's delivery rules with a scripted writer (the retry and ack logic, not ClickHouse: the real
 * server is exercised by the integration tests): offsets are acknowledged only after a successful write, retriable
 * failures are retried in order, a permanent failure fails the offsets so the watermark stops before them (case S3).
 */
class InsertWorkerTest
{
    /** Each call consumes the next scripted outcome: null = success, else the exception to throw. */
    private static final class ScriptedWriter implements BatchWriter
    {
        final Deque<SinkException> script = new LinkedList<>();
        int calls;

        @Override
        public void write(final BatchBuffer batch) throws SinkException
        {
            calls++;
            final SinkException next = script.poll();
            if (next != null)
            {
                throw next;
            }
        }

        @Override
        public String describe()
        {
            return "scripted";
        }

        @Override
        public void close()
        {
        }
    }

    private final PartitionTrackers trackers = new PartitionTrackers(1024);
    private final AckTracker tracker = trackers.trackerFor(new TopicPartition("t", 0), 10);
    private final BatchPool pool = new BatchPool(4, 1024, 16);
    private final Destination table = new Destination(0, 0, "b", "db", "a", "`db`.`a`", List.of(), "s", null);

    private BatchBuffer batch(final long... offsets)
    {
        final BatchBuffer b = pool.tryAcquire();
        b.open(table, 0, System.nanoTime());
        for (final long o : offsets)
        {
            b.addRow(0, tracker.generation(), o, System.currentTimeMillis());
        }
        return b;
    }

    private InsertWorker worker(final ScriptedWriter writer, final PipelineStats stats)
    {
        return new InsertWorker("test", 4, writer, trackers, stats,
            new CircuitBreaker(2, TimeUnit.MILLISECONDS.toNanos(5)),
            new BusySpinIdleStrategy(), 1, 2);
    }

    /** Runs the worker as the pipeline does: an agent with its idle strategy; an error fails the test's thread. */
    private static AgentRunner agent(final InsertWorker w)
    {
        return new AgentRunner(w.idleStrategy(), e -> e.printStackTrace(), null, w);
    }

    private static void runUntilIdle(final InsertWorker w) throws InterruptedException
    {
        final Thread t = new Thread(agent(w));
        t.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!w.idle() && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        w.stop();
        t.join(10_000);
    }

    @Test
    void shouldCommitPastAFailedTableOnlyAfterItsRetrySucceedsCaseS3() throws Exception
    {
        // case S3: offsets 10-14; 10, 12, 14 -> table A; 11, 13 -> table B whose first insert fails (retriable)
        for (long o = 10; o <= 14; o++)
        {
            assertEquals(AckTracker.REGISTERED, tracker.tryRegister(o));
        }
        final ScriptedWriter writer = new ScriptedWriter();
        final PipelineStats stats = new PipelineStats();
        final InsertWorker w = worker(writer, stats);
        writer.script.add(null);
        writer.script.add(new SinkException("B down", true, 210, null));
        w.offer(batch(10, 12, 14));
        w.offer(batch(11, 13));
        runUntilIdle(w);
        assertEquals(3, writer.calls, "A once, B twice");
        assertEquals(15, tracker.watermark());
        assertEquals(1, stats.insertFailures.get());
        assertEquals(5, stats.rowsWritten.get());
    }

    /**
     * A refusal because the table changed: no retry, the offsets fail (so the source re-reads them) and only then
     * the destination asks for its table to be described again; counted in its own class.
     */
    @Test
    void shouldFailTheOffsetsThenAskForARefreshWhenTheTableChanged() throws Exception
    {
        for (long o = 10; o <= 12; o++)
        {
            tracker.tryRegister(o);
        }
        final ScriptedWriter writer = new ScriptedWriter();
        final PipelineStats stats = new PipelineStats();
        final InsertWorker w = worker(writer, stats);
        writer.script.add(SinkException.schemaChanged("insert: ClickHouse error 368 (BAD_CAST): Bad cast", 368, null));
        assertNull(table.refreshRequested());
        final BatchBuffer b = pool.tryAcquire();
        b.open(table, 0, System.nanoTime());
        for (long o = 10; o <= 12; o++)
        {
            b.addRow(0, tracker.generation(), o, System.currentTimeMillis());
        }
        w.offer(b);
        runUntilIdle(w);
        assertEquals(1, writer.calls, "not retried as it is");
        assertTrue(tracker.failed());
        assertEquals(10, tracker.failedOffset());
        assertEquals(10, tracker.watermark(), "nothing committed past the refused rows");
        assertTrue(table.refreshRequested().contains("BAD_CAST"), table.refreshRequested());
        assertEquals(1, stats.table(table).failures(TableStats.SCHEMA_CHANGED));
        assertEquals(0, stats.table(table).failures(TableStats.PERMANENT));
    }

    @Test
    void shouldNotPassAnOffsetWhoseTableFailedForGood() throws Exception
    {
        for (long o = 10; o <= 14; o++)
        {
            tracker.tryRegister(o);
        }
        final ScriptedWriter writer = new ScriptedWriter();
        writer.script.add(null);
        writer.script.add(new SinkException("table B dropped", false, 60, null));
        final InsertWorker w = worker(writer, new PipelineStats());
        w.offer(batch(10, 12, 14));
        w.offer(batch(11, 13));
        runUntilIdle(w);
        assertEquals(11, tracker.watermark(), "nothing is committed past the first unwritten row");
        assertTrue(tracker.failed());
        assertTrue(tracker.failureReason().contains("table B dropped"), tracker.failureReason());
        assertEquals(11, tracker.failedOffset());
    }

    @Test
    void shouldOpenTheBreakerAfterConsecutiveFailuresAndStillDeliver() throws Exception
    {
        tracker.tryRegister(10);
        final ScriptedWriter writer = new ScriptedWriter();
        for (int i = 0; i < 5; i++)
        {
            writer.script.add(new SinkException("refused", true, 0, null));
        }
        final InsertWorker w = worker(writer, new PipelineStats());
        w.offer(batch(10));
        runUntilIdle(w);
        assertEquals(6, writer.calls);
        assertEquals(11, tracker.watermark());
        assertTrue(w.breaker().openedCount() >= 1);
        assertEquals(CircuitBreaker.CLOSED, w.breaker().state());
    }

    @Test
    void shouldLeaveOffsetsUnacknowledgedWhenAbandoned() throws Exception
    {
        tracker.tryRegister(10);
        final ScriptedWriter writer = new ScriptedWriter();
        for (int i = 0; i < 1000; i++)
        {
            writer.script.add(new SinkException("refused", true, 0, null));
        }
        final InsertWorker w = worker(writer, new PipelineStats());
        w.offer(batch(10));
        final Thread t = new Thread(agent(w));
        t.start();
        Thread.sleep(50);
        w.abandon();
        t.join(10_000);
        assertTrue(w.finished());
        assertEquals(10, tracker.watermark(), "an abandoned batch is re-read, never committed");
        assertTrue(!tracker.failed());
    }
}
