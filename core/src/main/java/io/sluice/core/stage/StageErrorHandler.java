package io.sluice.core.stage;

import java.util.function.Supplier;

import org.agrona.ErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.ExceptionHandler;

import io.sluice.ringbuffers.RecordEvent;

/**
 * The one error path of a pipeline's stages: every ring stage (a Disruptor {@code BatchEventProcessor}, or a stage
 * run through an {@code EventPoller} on another stage's thread) and every agent (an Agrona {@code AgentRunner}) reports
 * an unexpected exception here. The handler logs it naming the pipeline, the stage and the record (topic, partition,
 * offset) or the work in progress, counts it ({@link PipelineControl#stageErrors()}), and fails the pipeline at once
 * with the reason, so the run ends with exit 1 whatever the thread layout. For a ring stage it then fails the record
 * itself ({@link FailedRecord}: in its partition's tracker, so nothing is committed past it, or to the embedded
 * caller's listener) and returns: the processor goes on with the next event, so the rest drains and what was
 * written is committed. Expected outcomes (a full queue, a bad record under its policy) never come here.
 *
 * <p>An {@link Error} is handled the same way; for a ring stage it is not rethrown (the stage goes on draining), for
 * an agent Agrona's runner rethrows it after this handler and the agent's thread ends without its close step (what
 * was not committed is read again by the next run).
 *
 * <p>The first ten errors of a stage are logged with their stack trace, then every ten-thousandth (a stage that fails
 * on every record must not flood the log); all are counted. Thread-safety: one instance per stage thread; the
 * counter and the failure are shared through {@link PipelineControl}.
 */
public final class StageErrorHandler implements ExceptionHandler<RecordEvent>, ErrorHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(StageErrorHandler.class);

    /** Names the record an event carries, e.g. {@code record t-0@15} (allocates; error path only). */
    @FunctionalInterface
    public interface RecordNames
    {
        /**
         * @param event a record event
         * @return e.g. {@code record events-0@1234}
         */
        String name(RecordEvent event);
    }

    /** What a ring stage does with the record it failed on, after the pipeline has failed. */
    @FunctionalInterface
    public interface FailedRecord
    {
        /**
         * @param event    the record's event
         * @param sequence its ring sequence
         * @param reason   the failure, naming stage and record
         */
        void onFailed(RecordEvent event, long sequence, String reason);
    }

    private final String pipeline;
    private final String stage;
    private final PipelineControl control;
    private final RecordNames names;
    private final FailedRecord failed;
    private final Supplier<String> work;
    /** The reason given when the heap has no room to describe the failure (made in advance). */
    private final String noMemoryReason;
    private long errors;
    private volatile Throwable lastFatal;

    private StageErrorHandler(final String pipeline, final String stage, final PipelineControl control,
        final RecordNames names, final FailedRecord failed, final Supplier<String> work)
    {
        this.pipeline = pipeline;
        this.stage = stage;
        this.control = control;
        this.names = names;
        this.failed = failed;
        this.work = work;
        this.noMemoryReason = stage + " stage failed with an Error (no memory left to describe it; see standard error)";
    }

    /** @return the name of the pipeline whose stage this handler watches */
    public String pipeline()
    {
        return pipeline;
    }

    /**
     * The handler of a ring stage.
     *
     * @param pipeline the pipeline's name
     * @param stage    the stage, e.g. {@code route}
     * @param control  the pipeline's run state
     * @param names    names the record of an event
     * @param failed   fails the record of an event
     * @return the handler, for {@code BatchEventProcessor.setExceptionHandler} or an {@code EventPoller}'s handler
     */
    public static StageErrorHandler forRing(final String pipeline, final String stage, final PipelineControl control,
        final RecordNames names, final FailedRecord failed)
    {
        return new StageErrorHandler(pipeline, stage, control, names, failed, () -> null);
    }

    /**
     * The handler of an agent.
     *
     * @param pipeline the pipeline's name
     * @param stage    the stage, e.g. {@code source}
     * @param control  the pipeline's run state
     * @param work     what the agent is doing now (e.g. {@code record t-0@15}), or null; called on error only
     * @return the handler, for an {@code AgentRunner}
     */
    public static StageErrorHandler forAgent(final String pipeline, final String stage, final PipelineControl control,
        final Supplier<String> work)
    {
        return new StageErrorHandler(pipeline, stage, control, null, null, work);
    }

    /** @return the stage this handler reports for */
    public String stage()
    {
        return stage;
    }

    @Override
    public void handleEventException(final Throwable ex, final long sequence, final RecordEvent event)
    {
        try
        {
            handle(ex, sequence, event);
        }
        catch (final Throwable t)
        {
            // no memory to describe it (the failure may itself be an OutOfMemoryError): fail all the same
            control.onStageError();
            control.fail(noMemoryReason);
            throw t;
        }
    }

    private void handle(final Throwable ex, final long sequence, final RecordEvent event)
    {
        final boolean record = event != null && event.kind() == RecordEvent.KIND_RECORD;
        final String where = record
            ? names.name(event)
            : (event == null ? "the stage's timer" : "a control event") + " at ring sequence " + sequence;
        final String reason = stage + " stage failed on " + where + ": " + ex
            + (ex instanceof Error ? " (thread " + Thread.currentThread().getName() + ")" : "");
        fail(reason, ex);
        if (record)
        {
            try
            {
                failed.onFailed(event, sequence, reason);
            }
            catch (final RuntimeException e)
            {
                LOG.error("{}: failing {} after the {} stage failed: {}", pipeline, where, stage, e.toString());
            }
        }
    }

    @Override
    public void handleOnStartException(final Throwable ex)
    {
        fail(stage + " stage failed to start: " + ex, ex);
    }

    @Override
    public void handleOnShutdownException(final Throwable ex)
    {
        fail(stage + " stage failed to stop: " + ex, ex);
    }

    @Override
    public void onError(final Throwable ex)
    {
        if (ex instanceof Error)
        {
            // Agrona's runner rethrows it after this call; name the thread, and never fail to fail
            onFatal(ex);
            return;
        }
        String where;
        try
        {
            where = work.get();
        }
        catch (final RuntimeException e)
        {
            where = null;
        }
        fail(stage + " failed" + (where == null ? "" : " on " + where) + ": " + ex, ex);
    }

    /**
     * An {@link Error} (or an exception) that escaped the stage's thread loop, after or instead of
     * {@link #onError}: fails the pipeline naming the stage, the thread and the cause; when even that message cannot
     * be built (no heap left), with a reason made in advance. Any thread; never throws.
     *
     * @param ex what escaped
     */
    public void onFatal(final Throwable ex)
    {
        if (lastFatal == ex)
        {
            return;
        }
        lastFatal = ex;
        try
        {
            fail(stage + " stage (thread " + Thread.currentThread().getName() + ") failed: " + ex, ex);
        }
        catch (final Throwable t)
        {
            control.onStageError();
            control.fail(noMemoryReason);
        }
    }

    private void fail(final String reason, final Throwable ex)
    {
        control.onStageError();
        final long n = ++errors;
        if (n <= 10 || n % 10_000 == 0)
        {
            LOG.error("{}: {}; the pipeline stops (nothing is committed past it; errors in this stage so far: {})",
                pipeline, reason, n, ex);
        }
        control.fail(reason);
    }
}
