package io.sluice.tuning;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.TimeoutBlockingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Turns a {@link WaitKind} into a Disruptor {@link WaitStrategy} for a stage that consumes a ring, or an Agrona
 * {@link IdleStrategy} for a stage that runs as an agent loop.
 *
 * <p>With a timeout, the Disruptor strategy throws {@link com.lmax.disruptor.TimeoutException} after
 * {@code timeoutNs} without a new sequence, and the Disruptor's {@code BatchEventProcessor} then calls the event
 * handler's {@code onTimeout(sequence)}: an idle ring delivers {@code onTimeout} about every {@code timeoutNs}. The
 * engine uses this to seal batches on {@code linger} without a timer thread. Every kind supports a timeout:
 * {@link WaitKind#BLOCKING} uses the Disruptor's {@link TimeoutBlockingWaitStrategy}, {@link WaitKind#PHASED} a
 * {@link PhasedBackoffWaitStrategy} whose fallback is a {@link TimeoutBlockingWaitStrategy}, and the other three use
 * this package's own timed variants of the Disruptor's strategies (same spin, yield and park pattern, plus a deadline).
 *
 * <p>Every strategy returned here is stateless apart from its configuration and may be shared by the consumers of
 * one ring; the blocking ones must be the ring's own strategy, because the producer signals through it. Idle
 * strategies keep per-thread state: one per thread.
 */
public final class WaitStrategies
{
    /** How long {@link WaitKind#PHASED} spins before it starts yielding, in nanoseconds (10 µs). */
    public static final long PHASED_SPIN_NS = TimeUnit.MICROSECONDS.toNanos(10);

    /** How long {@link WaitKind#PHASED} yields, after spinning, before it blocks, in nanoseconds (50 µs). */
    public static final long PHASED_YIELD_NS = TimeUnit.MICROSECONDS.toNanos(50);

    /**
     * How long the Agrona idle strategy of {@link WaitKind#SLEEPING} parks between polls, in nanoseconds (50 µs; the
     * kernel's timer slack adds about 50 µs more on Linux).
     */
    public static final long SLEEPING_PARK_NS = TimeUnit.MICROSECONDS.toNanos(50);

    /** Longest park of the Agrona idle strategies of {@link WaitKind#BLOCKING} and {@link WaitKind#PHASED} (1 ms). */
    public static final long MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Shortest park of the Agrona idle strategies of {@link WaitKind#BLOCKING} and {@link WaitKind#PHASED} (1 µs). */
    public static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);

    private WaitStrategies()
    {
    }

    /**
     * A Disruptor wait strategy without a timeout: {@code forStage(kind, 0)}.
     *
     * @param kind how the stage waits.
     * @return a new wait strategy.
     * @throws NullPointerException if {@code kind} is null.
     */
    public static WaitStrategy forStage(final WaitKind kind)
    {
        return forStage(kind, 0);
    }

    /**
     * A Disruptor wait strategy for the consumers of one ring.
     *
     * <table>
     *   <caption>strategy per kind</caption>
     *   <tr><th>kind</th><th>{@code timeoutNs <= 0}</th><th>{@code timeoutNs > 0}</th></tr>
     *   <tr><td>busy-spin</td><td>{@link BusySpinWaitStrategy}</td><td>busy spin with a deadline</td></tr>
     *   <tr><td>yielding</td><td>{@link YieldingWaitStrategy}</td><td>spin, then yield, with a deadline</td></tr>
     *   <tr><td>sleeping</td><td>{@link SleepingWaitStrategy}</td><td>spin, yield, park, with a deadline</td></tr>
     *   <tr><td>blocking</td><td>{@link BlockingWaitStrategy}</td><td>{@link TimeoutBlockingWaitStrategy}</td></tr>
     *   <tr><td>phased</td><td>{@link PhasedBackoffWaitStrategy} falling back to {@link BlockingWaitStrategy}</td>
     *       <td>the same, falling back to {@link TimeoutBlockingWaitStrategy}</td></tr>
     * </table>
     *
     * <p>The timeout is measured from the moment a consumer starts waiting for a sequence that is not there yet, so an
     * idle ring delivers {@code onTimeout} about every {@code timeoutNs}, plus up to
     * {@link #PHASED_SPIN_NS} + {@link #PHASED_YIELD_NS} for {@link WaitKind#PHASED}, plus scheduling delay. A busy
     * ring delivers none: check {@code linger} in {@code onEvent} as well.
     *
     * @param kind      how the stage waits.
     * @param timeoutNs idle time after which the handler's {@code onTimeout} is called, in nanoseconds; {@code <= 0}
     *                  for none.
     * @return a new wait strategy.
     * @throws NullPointerException if {@code kind} is null.
     */
    public static WaitStrategy forStage(final WaitKind kind, final long timeoutNs)
    {
        Objects.requireNonNull(kind, "kind");
        if (timeoutNs <= 0)
        {
            switch (kind)
            {
                case BUSY_SPIN :
                    return new BusySpinWaitStrategy();
                case YIELDING :
                    return new YieldingWaitStrategy();
                case SLEEPING :
                    return new SleepingWaitStrategy();
                case BLOCKING :
                    return new BlockingWaitStrategy();
                case PHASED :
                    return new PhasedBackoffWaitStrategy(
                        PHASED_SPIN_NS, PHASED_YIELD_NS, TimeUnit.NANOSECONDS, new BlockingWaitStrategy());
                default :
                    throw new AssertionError(kind);
            }
        }

        switch (kind)
        {
            case BUSY_SPIN :
                return new TimeoutBusySpinWaitStrategy(timeoutNs);
            case YIELDING :
                return new TimeoutYieldingWaitStrategy(timeoutNs);
            case SLEEPING :
                return new TimeoutSleepingWaitStrategy(timeoutNs);
            case BLOCKING :
                return new TimeoutBlockingWaitStrategy(timeoutNs, TimeUnit.NANOSECONDS);
            case PHASED :
                return new PhasedBackoffWaitStrategy(
                    PHASED_SPIN_NS, PHASED_YIELD_NS, TimeUnit.NANOSECONDS,
                    new TimeoutBlockingWaitStrategy(timeoutNs, TimeUnit.NANOSECONDS));
            default :
                throw new AssertionError(kind);
        }
    }

    /**
     * An Agrona idle strategy for a stage that runs as an agent loop ({@code Agent.doWork()} plus
     * {@code idle(workCount)}). Agents cannot be signalled, so the non-spinning kinds poll with parks:
     *
     * <table>
     *   <caption>idle strategy per kind</caption>
     *   <tr><th>kind</th><th>idle strategy</th></tr>
     *   <tr><td>busy-spin</td><td>{@link BusySpinIdleStrategy}</td></tr>
     *   <tr><td>yielding</td><td>{@link YieldingIdleStrategy}</td></tr>
     *   <tr><td>sleeping</td><td>{@link SleepingIdleStrategy} parking {@link #SLEEPING_PARK_NS}</td></tr>
     *   <tr><td>blocking</td><td>{@link BackoffIdleStrategy} that parks at once, {@link #MIN_PARK_NS} doubling up to
     *       {@link #MAX_PARK_NS}</td></tr>
     *   <tr><td>phased</td><td>{@link BackoffIdleStrategy}: 10 spins, 5 yields, then parks {@link #MIN_PARK_NS}
     *       doubling up to {@link #MAX_PARK_NS}</td></tr>
     * </table>
     *
     * @param kind how the agent waits.
     * @return an idle strategy; the spinning and yielding ones are shared stateless instances, the others are new
     *         and must be used by one thread only.
     * @throws NullPointerException if {@code kind} is null.
     */
    public static IdleStrategy idleStrategy(final WaitKind kind)
    {
        Objects.requireNonNull(kind, "kind");
        switch (kind)
        {
            case BUSY_SPIN :
                return BusySpinIdleStrategy.INSTANCE;
            case YIELDING :
                return YieldingIdleStrategy.INSTANCE;
            case SLEEPING :
                return new SleepingIdleStrategy(SLEEPING_PARK_NS);
            case BLOCKING :
                return new BackoffIdleStrategy(0, 0, MIN_PARK_NS, MAX_PARK_NS);
            case PHASED :
                return new BackoffIdleStrategy(
                    BackoffIdleStrategy.DEFAULT_MAX_SPINS, BackoffIdleStrategy.DEFAULT_MAX_YIELDS,
                    MIN_PARK_NS, MAX_PARK_NS);
            default :
                throw new AssertionError(kind);
        }
    }
}
