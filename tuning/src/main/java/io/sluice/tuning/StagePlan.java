package io.sluice.tuning;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A validated stage-to-thread layout: which threads run which stages, how each waits, where each is pinned, and the
 * cpus given to the engine.
 *
 * <p>Configuration it validates (the engine reads the TOML; this class names the keys in its errors):
 * <pre>
 * [tuning]
 * cpus   = [0, 1]      # tuning.cpus: cpus given to the engine; empty or absent = every cpu this process may use
 * wait   = "phased"    # tuning.wait: default wait of every stage; absent = defaultWaitKind(cpus given)
 * layout = "fused"     # tuning.layout: "split" or "fused" (see Layout)
 *
 * [tuning.stages.route] # one table per thread name of the layout: source, route, sink
 * wait = "busy-spin"    # tuning.stages.route.wait: overrides tuning.wait
 * cpu  = 1              # tuning.stages.route.cpu: pin to this cpu; absent = unpinned
 * </pre>
 *
 * <p>Rules, all checked at once, every problem reported in one {@link IllegalArgumentException} naming its key:
 * <ul>
 *   <li>{@code tuning.cpus}: each entry a cpu this process may run on ({@link CpuAffinity#allowedCpus()}), none
 *       twice.</li>
 *   <li>Never more spinning threads ({@link WaitKind#spins()}, counting each of a stage's {@code threads}) than cpus
 *       given to the engine; the error names the spinning stages and both counts.</li>
 *   <li>{@code tuning.stages.<name>.cpu}: one of the cpus given to the engine.</li>
 *   <li>No two spinning threads on one cpu (including the several threads of one pinned spinning stage).</li>
 *   <li>Thread names unique; each stage on one thread only.</li>
 * </ul>
 * The default never spins: {@link #defaultWaitKind(int)}. A spinning wait must be configured explicitly.
 *
 * <p>Immutable and thread-safe.
 */
public final class StagePlan
{
    /** The source stage: Kafka poll, copy into the ingest ring, commit. */
    public static final String SOURCE = "source";
    /** The route stage: route, encode and seal. */
    public static final String ROUTE = "route";
    /** The sink stage: the insert workers. */
    public static final String SINK = "sink";

    /** Key of the cpus given to the engine. */
    public static final String KEY_CPUS = "tuning.cpus";
    /** Key of the default wait of every stage. */
    public static final String KEY_WAIT = "tuning.wait";
    /** Key of the layout. */
    public static final String KEY_LAYOUT = "tuning.layout";

    private final List<Integer> cpus;
    private final boolean cpusConfigured;
    private final int cpusGiven;
    private final WaitKind defaultWait;
    private final List<StageThread> threads;
    private final int spinningThreads;
    private final List<String> warnings;

    private StagePlan(
        final List<Integer> cpus,
        final boolean cpusConfigured,
        final int cpusGiven,
        final WaitKind defaultWait,
        final List<StageThread> threads,
        final int spinningThreads,
        final List<String> warnings)
    {
        this.cpus = List.copyOf(cpus);
        this.cpusConfigured = cpusConfigured;
        this.cpusGiven = cpusGiven;
        this.defaultWait = defaultWait;
        this.threads = List.copyOf(threads);
        this.spinningThreads = spinningThreads;
        this.warnings = List.copyOf(warnings);
    }

    /**
     * The key of a per-stage setting.
     *
     * @param stage thread name, for example {@code "route"}.
     * @param field {@code "wait"} or {@code "cpu"}.
     * @return for example {@code "tuning.stages.route.cpu"}.
     */
    public static String stageKey(final String stage, final String field)
    {
        return "tuning.stages." + stage + '.' + field;
    }

    /**
     * The wait of stages that configure none, neither per stage nor in {@code [tuning] wait}: {@link WaitKind#PHASED},
     * whatever the number of cpus. It never spins, so the default layout is valid on any machine — on a 2-cpu machine
     * above all, where two spinners would leave nothing for GC, the Kafka client's threads and the sink's I/O — and
     * under steady load it behaves like a spinner until about 60 µs without work. {@link WaitKind#BUSY_SPIN} and
     * {@link WaitKind#YIELDING} are used only when configured.
     *
     * @param cpusGiven cpus given to the engine (kept so the policy may grow with the machine; today it does not).
     * @return {@link WaitKind#PHASED}.
     */
    public static WaitKind defaultWaitKind(final int cpusGiven)
    {
        return WaitKind.PHASED;
    }

    /**
     * Validates a layout against the cpus this process may use ({@link CpuAffinity#allowedCpus()},
     * {@link CpuAffinity#availableCpus()}).
     *
     * @param cpus    {@code [tuning] cpus}: cpus given to the engine; null or empty = all this process may use.
     * @param wait    {@code [tuning] wait}: the wait of threads that set none; null = {@link #defaultWaitKind(int)}.
     * @param threads the stage threads, for example from {@link Layout#stageThreads()}.
     * @return the plan, with every thread's wait resolved.
     * @throws IllegalArgumentException listing every problem, one per line, each starting with its key.
     * @throws NullPointerException     if {@code threads} or one of them is null.
     */
    public static StagePlan validate(final List<Integer> cpus, final WaitKind wait, final List<StageThread> threads)
    {
        return validate(cpus, wait, threads, CpuAffinity.allowedCpus(), CpuAffinity.availableCpus());
    }

    /**
     * {@link #validate(List, WaitKind, List)} against a given machine.
     *
     * @param cpus          {@code [tuning] cpus}; null or empty = all of {@code allowedCpus}.
     * @param wait          {@code [tuning] wait}; null = default.
     * @param threads       the stage threads.
     * @param allowedCpus   cpus this process may run on, ascending.
     * @param availableCpus how many cpus this process may use (may be fewer than {@code allowedCpus} under a quota).
     * @return the plan.
     */
    static StagePlan validate(
        final List<Integer> cpus,
        final WaitKind wait,
        final List<StageThread> threads,
        final int[] allowedCpus,
        final int availableCpus)
    {
        Objects.requireNonNull(threads, "threads");
        final List<String> problems = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();

        final boolean cpusConfigured = cpus != null && !cpus.isEmpty();
        final List<Integer> given = new ArrayList<>();
        if (cpusConfigured)
        {
            for (final Integer cpu : cpus)
            {
                if (cpu == null || cpu < 0)
                {
                    problems.add(KEY_CPUS + ": " + cpu + " is not a cpu number");
                }
                else if (!CpuLists.contains(allowedCpus, cpu))
                {
                    problems.add(KEY_CPUS + ": cpu " + cpu + " is not one this process may run on (allowed: " +
                        CpuLists.format(allowedCpus) + ")");
                }
                else if (given.contains(cpu))
                {
                    problems.add(KEY_CPUS + ": cpu " + cpu + " is listed twice");
                }
                else
                {
                    given.add(cpu);
                }
            }
        }
        else
        {
            Arrays.stream(allowedCpus).forEach(given::add);
        }
        final int cpusGiven = cpusConfigured ? given.size() : Math.min(availableCpus, allowedCpus.length);
        final String givenDescription = cpusConfigured
            ? KEY_CPUS + " = " + cpus
            : "all this process may use; " + KEY_CPUS + " is not set";

        final WaitKind defaultWait = wait != null ? wait : defaultWaitKind(cpusGiven);

        if (threads.isEmpty())
        {
            problems.add("tuning.stages: no stage threads");
        }

        final Set<String> names = new LinkedHashSet<>();
        final Map<String, String> threadOfStage = new HashMap<>();
        final Map<Integer, StageThread> spinnerOnCpu = new HashMap<>();
        final List<StageThread> resolved = new ArrayList<>(threads.size());
        final List<StageThread> spinners = new ArrayList<>();
        final Set<String> spinningWaitKeys = new LinkedHashSet<>();
        int spinning = 0;

        for (final StageThread configured : threads)
        {
            final StageThread t = configured
                .withWait(configured.waitKind() != null ? configured.waitKind() : defaultWait);
            resolved.add(t);
            final String name = t.name();
            final String cpuKey = stageKey(name, "cpu");
            final String waitKey = configured.waitKind() != null ? stageKey(name, "wait") : KEY_WAIT;

            if (!names.add(name))
            {
                problems.add("tuning.stages." + name + ": two stage threads are named " + name);
            }
            for (final String stage : t.stages())
            {
                final String other = threadOfStage.putIfAbsent(stage, name);
                if (other != null)
                {
                    problems.add("tuning.stages." + name + ": stage " + stage + " is on two threads (" + other + ", " +
                        name + ")");
                }
            }

            final int cpu = t.cpu();
            final boolean cpuOk;
            if (cpu == CpuAffinity.UNPINNED)
            {
                cpuOk = false;
            }
            else if (cpu < 0)
            {
                problems.add(cpuKey + ": " + cpu + " is not a cpu number (leave it out to run unpinned)");
                cpuOk = false;
            }
            else if (!given.contains(cpu))
            {
                problems.add(cpuKey + ": cpu " + cpu + " is not among the cpus given to the engine (" +
                    (cpusConfigured ? givenDescription : "this process may run on " + CpuLists.format(allowedCpus)) +
                    ")");
                cpuOk = false;
            }
            else
            {
                cpuOk = true;
            }

            if (!t.spins())
            {
                continue;
            }

            spinning += t.threads();
            spinners.add(t);
            spinningWaitKeys.add(waitKey);
            if (cpuOk)
            {
                if (t.threads() > 1)
                {
                    problems.add(cpuKey + ": the " + t.threads() + " " + name + " threads spin (" +
                        t.waitKind().configName() + ") and would all run on cpu " + cpu +
                        "; give each spinning thread its own cpu, or leave " + name + " unpinned");
                }
                final StageThread other = spinnerOnCpu.putIfAbsent(cpu, t);
                if (other != null)
                {
                    problems.add(cpuKey + ": spinning thread " + name + " (" + t.waitKind().configName() +
                        ") would share cpu " + cpu + " with spinning thread " + other.name() + " (" +
                        stageKey(other.name(), "cpu") + "); give each spinning thread its own cpu");
                }
            }
            else if (cpu == CpuAffinity.UNPINNED)
            {
                warnings.add(cpuKey + ": " + name + " spins (" + t.waitKind().configName() +
                    ") but is not pinned; the scheduler may move it and put other threads on its core");
            }
        }

        if (spinning > cpusGiven)
        {
            problems.add(String.join(", ", spinningWaitKeys) + ": " + spinning + " spinning threads (" +
                describeThreads(spinners, false) + ") but only " + cpusGiven + " cpu" + (cpusGiven == 1 ? "" : "s") +
                " given to the engine (" + givenDescription + "); set \"phased\", \"sleeping\" or \"blocking\" for " +
                "some stages, or give the engine more cpus");
        }
        else if (spinning > 0 && spinning == cpusGiven)
        {
            warnings.add(KEY_CPUS + ": spinning threads take all " + cpusGiven + " cpus given to the engine; GC, " +
                "the Kafka client's threads and the sink's I/O compete with them");
        }

        if (!problems.isEmpty())
        {
            throw new IllegalArgumentException("invalid [tuning] configuration:\n  - " +
                String.join("\n  - ", problems));
        }

        return new StagePlan(given, cpusConfigured, cpusGiven, defaultWait, resolved, spinning, warnings);
    }

    private static String describeThreads(final List<StageThread> threads, final boolean withCpu)
    {
        return threads.stream()
            .map(t ->
            {
                final StringBuilder sb = new StringBuilder(t.name());
                if (t.stages().size() > 1 || !t.stages().get(0).equals(t.name()))
                {
                    sb.append(" [").append(String.join("+", t.stages())).append(']');
                }
                if (t.threads() > 1)
                {
                    sb.append(" \u00d7").append(t.threads());
                }
                sb.append(withCpu ? " (" : ": ").append(t.waitKind().configName());
                if (withCpu)
                {
                    sb.append(", ").append(t.pinned() ? "cpu " + t.cpu() : "unpinned").append(')');
                }
                return sb.toString();
            })
            .collect(Collectors.joining(", "));
    }

    /**
     * The cpus given to the engine: {@code [tuning] cpus} as configured (valid, in order), or every cpu this process
     * may use when it is not set.
     *
     * @return an unmodifiable list.
     */
    public List<Integer> cpus()
    {
        return cpus;
    }

    /**
     * Whether {@code [tuning] cpus} was set.
     *
     * @return true if it was set and not empty.
     */
    public boolean cpusConfigured()
    {
        return cpusConfigured;
    }

    /**
     * How many cpus are given to the engine: the length of {@code [tuning] cpus}, or {@link CpuAffinity#availableCpus()}
     * when it is not set. The bound on spinning threads.
     *
     * @return at least 1.
     */
    public int cpusGiven()
    {
        return cpusGiven;
    }

    /**
     * The wait of threads that configure none: {@code [tuning] wait}, or {@link #defaultWaitKind(int)}.
     *
     * @return the default wait.
     */
    public WaitKind defaultWait()
    {
        return defaultWait;
    }

    /**
     * The stage threads, in the order given, each with its wait resolved (never null).
     *
     * @return an unmodifiable list.
     */
    public List<StageThread> threads()
    {
        return threads;
    }

    /**
     * The thread that runs a stage.
     *
     * @param stage for example {@link #ROUTE}.
     * @return its thread, with the wait resolved.
     * @throws IllegalArgumentException if no thread runs {@code stage}.
     */
    public StageThread threadOf(final String stage)
    {
        for (final StageThread t : threads)
        {
            if (t.stages().contains(stage))
            {
                return t;
            }
        }
        throw new IllegalArgumentException("no stage thread runs stage " + stage);
    }

    /**
     * How many threads spin, counting each of a stage's {@code threads}.
     *
     * @return at most {@link #cpusGiven()}.
     */
    public int spinningThreads()
    {
        return spinningThreads;
    }

    /**
     * Things that are allowed but probably not meant: a spinning thread left unpinned, spinning threads taking every
     * cpu given. The engine logs each at warn when it starts.
     *
     * @return an unmodifiable list, each entry starting with the key it concerns.
     */
    public List<String> warnings()
    {
        return warnings;
    }

    /**
     * One line for the start-up banner, for example
     * {@code "stage threads: source [source+route] (phased, cpu 0), sink ×2 (blocking, unpinned); spinning 0 of 2 cpus (0-1)"}.
     *
     * @return the line, without a line break.
     */
    public String describe()
    {
        return "stage threads: " + describeThreads(threads, true) + "; spinning " + spinningThreads + " of " +
            cpusGiven() + " cpus (" + CpuLists.format(cpus.stream().mapToInt(Integer::intValue).toArray()) + ")";
    }

    /**
     * Same as {@link #describe()}.
     *
     * @return the one-line description.
     */
    @Override
    public String toString()
    {
        return describe();
    }
}
