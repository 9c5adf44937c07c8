package io.sluice.tuning;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How a stage thread waits when it has no work: the value of {@code [tuning] wait} and
 * {@code [tuning.stages.<stage>] wait}.
 *
 * <p>The kinds differ in what an idle thread costs (cpu time, whether it holds a core) and how fast it reacts to new
 * work. {@link #spins()} tells which kinds hold a core while idle; {@link StagePlan} never allows more of those than
 * cpus given to the engine. {@link WaitStrategies} maps each kind to a Disruptor wait strategy and an Agrona idle
 * strategy. Immutable and thread-safe.
 */
public enum WaitKind
{
    /**
     * {@code "busy-spin"}: polls in a tight loop ({@code Thread.onSpinWait()}), never gives the core away.
     * Lowest and steadiest wake-up latency (tens of nanoseconds); costs one whole core, idle or not. Spins.
     */
    BUSY_SPIN("busy-spin", true),

    /**
     * {@code "yielding"}: spins about a hundred times, then calls {@code Thread.yield()} between polls.
     * Near-spin latency; still keeps its core 100% busy unless another thread wants it. Spins.
     */
    YIELDING("yielding", true),

    /**
     * {@code "sleeping"}: spins, yields, then parks for a short fixed period between polls (the Disruptor's
     * {@code SleepingWaitStrategy}: about 60–100 µs per park on Linux). A few percent of a core when idle, wake-up in
     * tens to about a hundred microseconds; never signalled by the producer, so it also costs the producer nothing.
     * Does not spin.
     */
    SLEEPING("sleeping", false),

    /**
     * {@code "blocking"}: waits on a lock and condition until the producer signals (Disruptor), or parks with a
     * backoff up to 1 ms (Agrona agents, which cannot be signalled). No cpu when idle; wake-up costs a few to tens of
     * microseconds and every publish pays for the signal. Does not spin.
     */
    BLOCKING("blocking", false),

    /**
     * {@code "phased"}: spins for {@link WaitStrategies#PHASED_SPIN_NS}, then yields until
     * {@link WaitStrategies#PHASED_YIELD_NS} more have passed, then blocks like {@link #BLOCKING}. Under steady load it
     * reacts like a spinner; after about 60 µs without work it gives its core back. Counted as not spinning: an idle
     * phased thread does not hold a core.
     */
    PHASED("phased", false);

    private static final WaitKind[] VALUES = values();

    private final String configName;
    private final boolean spins;

    WaitKind(final String configName, final boolean spins)
    {
        this.configName = configName;
        this.spins = spins;
    }

    /**
     * Parses a configuration value.
     *
     * @param configValue one of {@code "busy-spin"}, {@code "yielding"}, {@code "sleeping"}, {@code "blocking"},
     *                    {@code "phased"}; exact, lower case.
     * @return the wait kind.
     * @throws IllegalArgumentException if {@code configValue} is null or not one of the names above; the message lists
     *                                  the valid values.
     */
    public static WaitKind parse(final String configValue)
    {
        if (configValue != null)
        {
            for (final WaitKind kind : VALUES)
            {
                if (kind.configName.equals(configValue))
                {
                    return kind;
                }
            }
        }

        throw new IllegalArgumentException(
            "unknown wait kind " + (configValue == null ? "null" : '"' + configValue + '"') + "; valid values: " +
                validValues());
    }

    /**
     * The valid configuration values, quoted and comma separated, for error messages.
     *
     * @return for example {@code "busy-spin", "yielding", "sleeping", "blocking", "phased"}.
     */
    public static String validValues()
    {
        return Arrays.stream(VALUES).map(k -> '"' + k.configName + '"').collect(Collectors.joining(", "));
    }

    /**
     * The name of this kind in the configuration; {@link #parse(String)} accepts it.
     *
     * @return for example {@code "busy-spin"}.
     */
    public String configName()
    {
        return configName;
    }

    /**
     * Whether a thread waiting this way holds a core while idle, so it counts against the cpus given to the engine.
     *
     * @return true for {@link #BUSY_SPIN} and {@link #YIELDING}; false for {@link #SLEEPING}, {@link #BLOCKING} and
     *         {@link #PHASED} (whose spin and yield phases last about 60 µs after the last work before it blocks).
     */
    public boolean spins()
    {
        return spins;
    }
}
