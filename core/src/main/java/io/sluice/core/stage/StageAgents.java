package io.sluice.core.stage;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.MDC;

import io.sluice.tuning.CpuAffinity;

/**
 * Runs the long-running loops of a pipeline (its sources, insert workers, topic provisioner) the Agrona way: each is
 * an {@link Agent} whose {@code doWork()} does one duty cycle and returns how much it did, run by an
 * {@link AgentRunner} that idles with the stage's {@link IdleStrategy} when a cycle did nothing, and reports every
 * exception to the stage's {@link StageErrorHandler}. An agent ends by throwing {@link #STOP} from {@code doWork()}
 * (its stop was asked for and its work is done); the runner then calls its {@code onClose()}, where it drains and
 * commits.
 *
 * <p>Errors: Agrona's runner rethrows an {@link Error} (an {@code OutOfMemoryError}, a {@code StackOverflowError})
 * after calling the error handler, which ends the thread without the agent's {@code onClose()}; and the handler
 * itself may fail when the heap is exhausted. So the thread's body catches what escapes the runner: the stage's
 * handler fails the pipeline ({@link StageErrorHandler#onFatal}, which works without memory), the agent's
 * {@code onClose()} runs if it has not (it drains and commits what is acknowledged), and the failure is recorded in
 * {@link FatalErrors}. Every stage thread reports what escapes it there too, so the run ends with exit 1 naming the
 * thread and the cause whatever failed.
 *
 * <p>Thread-safety: stateless.
 */
public final class StageAgents
{
    /**
     * Thrown by an agent's {@code doWork()} to end its run loop as expected: not an error, no stack trace, shared
     * (throwing it allocates nothing).
     */
    public static final AgentTerminationException STOP = new AgentTerminationException("stop", null, true, false,
        false);

    private StageAgents()
    {
    }

    /**
     * Starts an agent on a thread of its own.
     *
     * @param agent  the agent
     * @param idle   how it waits when a duty cycle did nothing (the stage's {@code WaitKind}); used by this agent only
     * @param errors its stage's error handler
     * @param name   the thread's name ({@code /} becomes {@code -})
     * @param cpu    the cpu to pin the thread to, or {@link CpuAffinity#UNPINNED}
     * @return the started thread; it ends after the agent's {@code onClose()}
     */
    public static Thread start(final Agent agent, final IdleStrategy idle, final StageErrorHandler errors,
        final String name, final int cpu)
    {
        final ClosingAgent closing = new ClosingAgent(agent);
        final AgentRunner runner = new AgentRunner(idle, errors, null, closing);
        return thread(errors.pipeline(), name, cpu, () ->
        {
            try
            {
                runner.run();
            }
            catch (final Throwable t)
            {
                errors.onFatal(t); // a no-op when the handler already reported this Error
                if (!closing.closed)
                {
                    try
                    {
                        closing.onClose();
                    }
                    catch (final Throwable again)
                    {
                        errors.onFatal(again);
                    }
                }
                FatalErrors.report(Thread.currentThread(), t);
            }
        });
    }

    /** An agent that notes whether its {@code onClose()} was called. */
    private static final class ClosingAgent implements Agent
    {
        private final Agent agent;
        volatile boolean closed;

        ClosingAgent(final Agent agent)
        {
            this.agent = agent;
        }

        @Override
        public void onStart()
        {
            agent.onStart();
        }

        @Override
        public int doWork() throws Exception
        {
            return agent.doWork();
        }

        @Override
        public void onClose()
        {
            closed = true;
            agent.onClose();
        }

        @Override
        public String roleName()
        {
            return agent.roleName();
        }
    }

    /**
     * Starts a stage's thread (an agent's runner or a Disruptor event processor). Every log event of the thread
     * carries the pipeline's name in the MDC (the {@code pipeline} field of {@code --log-format json}).
     *
     * @param pipeline the pipeline's name
     * @param name     the thread's name ({@code /} becomes {@code -})
     * @param cpu      the cpu to pin the thread to, or {@link CpuAffinity#UNPINNED}
     * @param body     what the thread runs
     * @return the started thread
     */
    public static Thread thread(final String pipeline, final String name, final int cpu, final Runnable body)
    {
        final Thread t = CpuAffinity.threadFactory(name.replace('/', '-'), cpu).newThread(() ->
        {
            MDC.put("pipeline", pipeline);
            body.run();
        });
        t.setUncaughtExceptionHandler(FatalErrors.handler());
        t.start();
        return t;
    }
}
