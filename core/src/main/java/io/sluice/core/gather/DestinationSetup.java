package io.sluice.core.gather;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.core.ack.Awaited;

/**
 * Sets up new destinations off the route stage thread: the catalog's round trips of a topic's new table (does it
 * exist, create it, read its columns: {@link DestinationResolver#prepare}) run on a small pool of
 * {@code engine.destination_setup_threads} threads, several tables at once, while the route stage goes on writing the
 * records of the tables it has already bound. The route stage binds and registers the prepared table itself
 * ({@link DestinationResolver#install}), so the resolver's state stays on its thread.
 *
 * <p>A table set up alone (no other setup under way) is waited for on the route stage, at most
 * {@link #ALONE_WAIT_NANOS}, so one new topic's records go straight to its table. Otherwise a record whose table is
 * being set up waits in order in its partition: the route stage fails its offset with
 * {@link io.sluice.core.ack.AckTracker#CODE_AWAITING} (nothing past it is committed, the records after it in that
 * partition are not written), handing the tracker its {@link Pending} as what the offset waits for, and the source
 * reads the partition again from there once that setup has ended (docs/destinations.md, "Setting up new tables"):
 * one re-read per wait, not one per backoff. Its records are written then, in offset order.
 *
 * <p>Cost: one task and one {@link Pending} per new (branch, topic), none per record. The threads are daemons, end
 * after 30 s without work, and are stopped by {@link #close()}. Thread-safety: {@link #submit} from one thread (the
 * route stage's); {@link Pending#result()} from any.
 */
public final class DestinationSetup implements AutoCloseable
{
    /**
     * The setup of one topic's table: done once {@link #result()} is not {@code null}. It is what a record that waits
     * for the table waits for ({@link io.sluice.core.ack.Awaited}): the source holds the record's partition until the
     * setup has ended and then reads it again, once.
     */
    public static final class Pending implements Awaited
    {
        private volatile DestinationResolver.Prepared result;
        private volatile boolean begun;
        private final CountDownLatch done = new CountDownLatch(1);

        /** @return what the catalog said of the table, or {@code null} while it is being asked */
        public DestinationResolver.Prepared result()
        {
            return result;
        }

        /**
         * Waits for the result, at most {@code nanos}.
         *
         * @param nanos the longest wait, nanoseconds
         * @return the result, or {@code null} when it is not there within the wait (or the thread was interrupted)
         */
        public DestinationResolver.Prepared await(final long nanos)
        {
            try
            {
                done.await(nanos, TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            return result;
        }

        /** @return true once a setup thread has taken the setup from the queue (any thread; a volatile read) */
        @Override
        public boolean begun()
        {
            return begun || result != null;
        }

        /** @return true once the setup has ended, done or failed (any thread; a volatile read) */
        @Override
        public boolean ended()
        {
            return result != null;
        }

        private void complete(final DestinationResolver.Prepared r)
        {
            result = r;
            done.countDown();
        }
    }

    /**
     * How long the route stage waits for a table that is set up alone (no other setup under way) before its record
     * waits in its partition instead, nanoseconds: the common case of one new topic pays no re-read.
     */
    public static final long ALONE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private final ThreadPoolExecutor pool;

    /**
     * @param pipeline the pipeline's name (its threads are {@code PIPELINE-destination-setup-N})
     * @param threads  the most tables set up at once ({@code >= 1})
     */
    public DestinationSetup(final String pipeline, final int threads)
    {
        final AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r ->
        {
            final Thread t = new Thread(r, pipeline + "-destination-setup-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
    }

    /**
     * Starts setting up a topic's table in a branch (route stage thread, once per new (branch, topic)).
     *
     * @param branchName the branch's name
     * @param target     the sink it writes to
     * @param topic      the topic
     * @return the setup, done when its result is there (at once, as a retriable failure, after {@link #close()})
     */
    public Pending submit(final String branchName, final DestinationResolver.SinkTarget target, final String topic)
    {
        final Pending p = new Pending();
        try
        {
            pool.execute(() ->
            {
                DestinationResolver.Prepared r;
                p.begun = true;
                try
                {
                    r = DestinationResolver.prepare(branchName, target, topic);
                }
                catch (final RuntimeException | Error e)
                {
                    r = new DestinationResolver.Prepared(null, "branch " + branchName + ": setting up the table of "
                        + "topic " + topic + " failed: " + e, false);
                }
                p.complete(r);
            });
        }
        catch (final RejectedExecutionException e)
        {
            p.complete(new DestinationResolver.Prepared(null, "branch " + branchName + ": the pipeline is stopping",
                true));
        }
        return p;
    }

    /** @return tables waiting for a thread or being set up now (diagnostic; any thread) */
    public int inProgress()
    {
        return pool.getQueue().size() + pool.getActiveCount();
    }

    /** Stops the threads (a setup under way is interrupted; its records are read again by a later run). */
    @Override
    public void close()
    {
        pool.shutdownNow();
    }
}
