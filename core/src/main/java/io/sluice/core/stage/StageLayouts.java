package io.sluice.core.stage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import io.sluice.tuning.CpuAffinity;
import io.sluice.tuning.Layout;
import io.sluice.tuning.StagePlan;
import io.sluice.tuning.StageThread;
import io.sluice.tuning.WaitKind;

/**
 * Maps a configuration's {@code [tuning]} onto stage threads and validates it against the CPUs the engine is given:
 * never more spinning threads than CPUs, pinned CPUs within the given set, no table for a stage the layout does not
 * have. Every pipeline runs its own source (and, in the split layout, route) thread; insert workers count as sink
 * threads. Thread-safe (stateless).
 */
public final class StageLayouts
{
    private StageLayouts()
    {
    }

    /**
     * @param config the engine's configuration
     * @return the configured layout, or the default for the CPUs given
     */
    public static Layout layout(final SluiceConfig config)
    {
        return config.tuning().layout() != null
            ? Layout.parse(config.tuning().layout())
            : Layout.defaultFor(cpusGiven(config));
    }

    /**
     * @param config the engine's configuration
     * @return the CPUs given to the engine ({@code [tuning] cpus}, else every CPU this process may use)
     */
    public static int cpusGiven(final SluiceConfig config)
    {
        return config.tuning().cpus().isEmpty() ? CpuAffinity.availableCpus() : config.tuning().cpus().size();
    }

    /**
     * @param config the engine's configuration
     * @return insert worker threads the configuration asks for, over all pipelines: each pipeline has its own for
     *     every sink its branches write to (a sink that consumes nothing has none of its own)
     */
    public static int insertWorkers(final SluiceConfig config)
    {
        int n = 0;
        for (final SluiceConfig.Sink s : config.sinks())
        {
            if (!s.consumes())
            {
                continue;
            }
            final Set<String> written = new HashSet<>();
            for (final SluiceConfig.Branch b : s.branches())
            {
                final SluiceConfig.Sink target = config.writesTo(s, b);
                if (written.add(target.name()))
                {
                    n += target.plugin().shards().size() * target.plugin().insertWorkers();
                }
            }
        }
        return n;
    }

    /**
     * @param config the engine's configuration
     * @return the gather pipelines it runs: its sinks that consume topics
     */
    public static int pipelines(final SluiceConfig config)
    {
        return (int)config.sinks().stream().filter(SluiceConfig.Sink::consumes).count();
    }

    /**
     * @param config a loaded configuration
     * @return the validated plan
     * @throws ConfigException naming every problem by its {@code tuning.*} key
     */
    public static StagePlan plan(final SluiceConfig config)
    {
        final Layout layout = layout(config);
        final List<ConfigProblem> problems = new ArrayList<>();
        try
        {
            layout.checkStageTables(config.tuning().stages().keySet());
        }
        catch (final IllegalArgumentException e)
        {
            addLines(problems, e.getMessage(), "tuning.stages");
        }
        final int pipelines = Math.max(1, pipelines(config));
        final List<StageThread> threads = new ArrayList<>();
        for (final StageThread t : layout.stageThreads())
        {
            StageThread configured = t
                .withThreads(StagePlan.SINK.equals(t.name()) ? Math.max(1, insertWorkers(config)) : pipelines);
            final SluiceConfig.Tuning.Stage st = config.tuning().stages().get(t.name());
            if (st != null)
            {
                if (st.waitKind() != null)
                {
                    configured = configured.withWait(WaitKind.parse(st.waitKind()));
                }
                if (st.cpu() >= 0)
                {
                    configured = configured.withCpu(st.cpu());
                }
            }
            threads.add(configured);
        }
        try
        {
            final WaitKind wait = config.tuning().waitKind() == null
                ? null
                : WaitKind.parse(config.tuning().waitKind());
            final StagePlan plan = StagePlan.validate(config.tuning().cpus(), wait, threads);
            if (problems.isEmpty())
            {
                return plan;
            }
        }
        catch (final IllegalArgumentException e)
        {
            addLines(problems, e.getMessage(), "tuning");
        }
        throw new ConfigException(problems);
    }

    /** Turns tuning's "key: message" lines (one problem each, after a header line ending in ':') into problems. */
    private static void addLines(final List<ConfigProblem> problems, final String message, final String fallbackKey)
    {
        for (final String line : message.split("\n"))
        {
            final String l = line.strip().replaceFirst("^- ", "");
            if (l.isEmpty() || l.endsWith(":"))
            {
                continue;
            }
            final int colon = l.indexOf(": ");
            if (l.startsWith("tuning") && colon > 0 && !l.substring(0, colon).contains(" "))
            {
                problems.add(new ConfigProblem(l.substring(0, colon), 0, l.substring(colon + 2)));
            }
            else
            {
                problems.add(new ConfigProblem(fallbackKey, 0, l));
            }
        }
    }
}
