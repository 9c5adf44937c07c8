package io.sluice.tuning;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How the gather stages map onto threads: the value of {@code [tuning] layout}.
 *
 * <p>The stages are {@link StagePlan#SOURCE} (Kafka poll, copy into the ingest ring, commit), {@link StagePlan#ROUTE}
 * (route, encode and seal) and {@link StagePlan#SINK} (insert workers). What running two stages on one thread means
 * for the record path is the engine's decision; this type only names the mapping. Immutable and thread-safe.
 */
public enum Layout
{
    /** {@code "split"}: one thread per stage — {@code source}, {@code route}, {@code sink}. */
    SPLIT("split", List.of(List.of(StagePlan.SOURCE), List.of(StagePlan.ROUTE), List.of(StagePlan.SINK))),

    /**
     * {@code "fused"}: route runs on the source thread, configured as {@code [tuning.stages.source]};
     * {@code sink} keeps its own threads. One thread fewer and no hand-off between source and route.
     */
    FUSED("fused", List.of(List.of(StagePlan.SOURCE, StagePlan.ROUTE), List.of(StagePlan.SINK)));

    private static final Layout[] VALUES = values();

    private final String configName;
    private final List<List<String>> threadStages;

    Layout(final String configName, final List<List<String>> threadStages)
    {
        this.configName = configName;
        this.threadStages = threadStages;
    }

    /**
     * Parses a configuration value.
     *
     * @param configValue {@code "split"} or {@code "fused"}; exact, lower case.
     * @return the layout.
     * @throws IllegalArgumentException if {@code configValue} is null or neither; the message lists the valid values.
     */
    public static Layout parse(final String configValue)
    {
        if (configValue != null)
        {
            for (final Layout layout : VALUES)
            {
                if (layout.configName.equals(configValue))
                {
                    return layout;
                }
            }
        }
        throw new IllegalArgumentException(
            "unknown layout " + (configValue == null ? "null" : '"' + configValue + '"') + "; valid values: " +
                Arrays.stream(VALUES).map(l -> '"' + l.configName + '"').collect(Collectors.joining(", ")));
    }

    /**
     * The layout to use when {@code [tuning] layout} is not set: {@link #FUSED} when at most 2 cpus are given to the
     * engine (one thread fewer competing for them), {@link #SPLIT} otherwise.
     *
     * @param cpusGiven cpus given to the engine ({@link StagePlan#cpusGiven()}).
     * @return the default layout.
     */
    public static Layout defaultFor(final int cpusGiven)
    {
        return cpusGiven <= 2 ? FUSED : SPLIT;
    }

    /**
     * The name of this layout in the configuration.
     *
     * @return {@code "split"} or {@code "fused"}.
     */
    public String configName()
    {
        return configName;
    }

    /**
     * The names of this layout's threads, which are also the {@code <stage>} of the
     * {@code [tuning.stages.<stage>]} tables it reads; a table for any other stage is a configuration error.
     *
     * @return for example {@code ["source", "sink"]} for {@link #FUSED}.
     */
    public List<String> threadNames()
    {
        final List<String> names = new ArrayList<>(threadStages.size());
        for (final List<String> stages : threadStages)
        {
            names.add(stages.get(0));
        }
        return List.copyOf(names);
    }

    /**
     * Checks the {@code [tuning.stages.<stage>]} tables found in the configuration against this layout's thread
     * names, so a setting that would be ignored is an error instead.
     *
     * @param stageTables the {@code <stage>} names of the tables present, in any order.
     * @throws IllegalArgumentException naming each table this layout has no thread for, for example
     *                                  {@code "tuning.stages.route: layout \"fused\" runs route on the source thread;
     *                                  configure it under [tuning.stages.source]"}.
     */
    public void checkStageTables(final Collection<String> stageTables)
    {
        final List<String> names = threadNames();
        final List<String> problems = new ArrayList<>();
        for (final String table : stageTables)
        {
            if (names.contains(table))
            {
                continue;
            }
            String host = null;
            for (final List<String> stages : threadStages)
            {
                if (stages.contains(table))
                {
                    host = stages.get(0);
                }
            }
            problems.add("tuning.stages." + table + ": " + (host != null
                ? "layout \"" + configName + "\" runs " + table + " on the " + host + " thread; configure it under " +
                    "[tuning.stages." + host + "]"
                : "no such stage thread in layout \"" + configName + "\" (stages: " + String.join(", ", names) + ")"));
        }
        if (!problems.isEmpty())
        {
            throw new IllegalArgumentException("invalid [tuning] configuration:\n  - " +
                String.join("\n  - ", problems));
        }
    }

    /**
     * This layout's threads, one {@link StageThread} each, unpinned, waiting as {@code [tuning] wait}, one thread
     * each: set their wait, cpu and thread count from the configuration, then give them to
     * {@link StagePlan#validate}.
     *
     * @return a new list.
     */
    public List<StageThread> stageThreads()
    {
        final List<StageThread> threads = new ArrayList<>(threadStages.size());
        for (final List<String> stages : threadStages)
        {
            threads.add(new StageThread(stages.get(0), stages, 1, null, CpuAffinity.UNPINNED));
        }
        return threads;
    }
}
