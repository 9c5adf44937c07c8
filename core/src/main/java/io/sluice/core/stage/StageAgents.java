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
        return thread(errors.pipeline(), name, cpu, new AgentRunner(idle, errors, null, agent));
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
        t.start();
        return t;
    }
}
