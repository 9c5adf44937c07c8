package io.sluice.tuning;

import java.util.List;
import java.util.Objects;

/**
 * One stage thread (or a group of identical ones) as configured: which stages it runs, how it waits, which cpu it is
 * pinned to. The input and, with {@link #waitKind()} filled in, the output of {@link StagePlan#validate}.
 *
 * <p>{@link #name()} is also the {@code <stage>} of its configuration keys, {@code [tuning.stages.<name>]}: a thread
 * that runs several stages (see {@link Layout#FUSED}) is configured under the name of its first stage.
 *
 * @param name    thread and configuration name, for example {@code "route"}: non-blank, no white space or dots.
 * @param stages  the stages this thread runs, in order, for example {@code ["source", "route"]}; at least one.
 * @param threads how many threads run this (sink workers: one per worker), {@code >= 1}; each counts on its own
 *                against the cpus given to the engine when it spins.
 * @param waitKind how it waits; null means "as {@code [tuning] wait}" (resolved by {@link StagePlan#validate}).
 * @param cpu     the cpu it is pinned to, or {@link CpuAffinity#UNPINNED} ({@code -1}); other negative values are
 *                reported by {@link StagePlan#validate} as configuration errors.
 */
public record StageThread(String name, List<String> stages, int threads, WaitKind waitKind, int cpu)
{
    /**
     * Validates the shape (not the cpu, which {@link StagePlan#validate} checks with the key it came from).
     *
     * @param name     thread and configuration name.
     * @param stages   the stages this thread runs; copied.
     * @param threads  how many threads run this, {@code >= 1}.
     * @param waitKind how it waits, or null for "as {@code [tuning] wait}".
     * @param cpu      the cpu it is pinned to, or {@link CpuAffinity#UNPINNED}.
     * @throws NullPointerException     if {@code name} or {@code stages} or a stage is null.
     * @throws IllegalArgumentException if {@code name} is blank or has white space or dots, {@code stages} is empty,
     *                                  or {@code threads < 1}.
     */
    public StageThread
    {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.chars().anyMatch(c -> Character.isWhitespace(c) || c == '.'))
        {
            throw new IllegalArgumentException("stage thread name must be non-blank without white space or dots: \"" +
                name + '"');
        }
        stages = List.copyOf(stages);
        if (stages.isEmpty())
        {
            throw new IllegalArgumentException("stage thread " + name + " runs no stage");
        }
        if (threads < 1)
        {
            throw new IllegalArgumentException("stage thread " + name + " needs threads >= 1: " + threads);
        }
    }

    /**
     * One unpinned thread running one stage and waiting as {@code [tuning] wait}.
     *
     * @param stage the stage, also the thread's name, for example {@code "sink"}.
     * @return the stage thread.
     */
    public static StageThread of(final String stage)
    {
        return new StageThread(stage, List.of(stage), 1, null, CpuAffinity.UNPINNED);
    }

    /**
     * This thread waiting another way.
     *
     * @param wait the wait kind, or null for "as {@code [tuning] wait}".
     * @return a copy with {@code waitKind} replaced.
     */
    public StageThread withWait(final WaitKind wait)
    {
        return new StageThread(name, stages, threads, wait, cpu);
    }

    /**
     * This thread pinned elsewhere.
     *
     * @param cpu the cpu, or {@link CpuAffinity#UNPINNED}.
     * @return a copy with {@code cpu} replaced.
     */
    public StageThread withCpu(final int cpu)
    {
        return new StageThread(name, stages, threads, waitKind, cpu);
    }

    /**
     * This stage run by another number of threads.
     *
     * @param threads how many, {@code >= 1}.
     * @return a copy with {@code threads} replaced.
     * @throws IllegalArgumentException if {@code threads < 1}.
     */
    public StageThread withThreads(final int threads)
    {
        return new StageThread(name, stages, threads, waitKind, cpu);
    }

    /**
     * Whether this thread is pinned.
     *
     * @return true if {@code cpu >= 0}.
     */
    public boolean pinned()
    {
        return cpu >= 0;
    }

    /**
     * Whether this thread holds a core while idle ({@link WaitKind#spins()}).
     *
     * @return true if {@code waitKind} is set and spins; false while it is still null (unresolved).
     */
    public boolean spins()
    {
        return waitKind != null && waitKind.spins();
    }
}
