package io.sluice.core.stage;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The shared run state of one pipeline: whether it should stop, and why it failed. Any stage may fail the pipeline;
 * the source thread observes it, drains what is in flight, commits what is acknowledged and stops. The first
 * failure reason wins. It also counts the unexpected exceptions its stages' {@link StageErrorHandler}s saw.
 * Thread-safe.
 */
public final class PipelineControl
{
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final AtomicLong stageErrors = new AtomicLong();
    private volatile boolean stopRequested;

    /**
     * Fails the pipeline (any thread); later calls keep the first reason.
     *
     * @param reason what happened and where (topic, partition, offset, table…)
     */
    public void fail(final String reason)
    {
        failure.compareAndSet(null, reason);
        stopRequested = true;
    }

    /** Asks for a graceful stop (drain, commit, exit 0). */
    public void requestStop()
    {
        stopRequested = true;
    }

    /** @return whether a stop or a failure was requested */
    public boolean stopRequested()
    {
        return stopRequested;
    }

    /** @return whether the pipeline failed */
    public boolean failed()
    {
        return failure.get() != null;
    }

    /** @return the first failure reason, or {@code null} */
    public String failureReason()
    {
        return failure.get();
    }

    /** Counts an unexpected exception in a stage (its {@link StageErrorHandler}; any thread). */
    public void onStageError()
    {
        stageErrors.incrementAndGet();
    }

    /** @return unexpected exceptions the stages reported so far */
    public long stageErrors()
    {
        return stageErrors.get();
    }
}
