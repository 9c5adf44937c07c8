package io.sluice.core.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.sluice.codecs.json.JsonPath;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.json.ColumnMappings;
import io.sluice.core.naming.DestinationTemplate;
import io.sluice.core.stage.StageLayouts;

/**
 * The configuration checks that need the codecs, the naming rules and the split (JSON path syntax, column mappings,
 * destination templates, stage layouts) on top of what {@code ConfigLoader} validates. Connects to nothing.
 * Stateless; any thread.
 */
public final class DeepConfigChecks
{
    private DeepConfigChecks()
    {
    }

    /**
     * Loads a configuration file and runs the deep checks.
     *
     * @param file the TOML file
     * @return the checked configuration
     * @throws ConfigException with every problem found (its message lists them, one per line, with key and line)
     */
    public static SluiceConfig load(final Path file)
    {
        final SluiceConfig config = ConfigLoader.load(file);
        check(config);
        return config;
    }

    /**
     * Runs the deep checks on a loaded configuration: JSON path syntax of {@code when}, {@code columns} and
     * {@code shard_by}, {@code columns} mappings that name no Kafka metadata source, destination templates, and the
     * stage layout. {@link SluiceEngine} runs them before it builds anything, so an embedder who loads a file with
     * {@code ConfigLoader} gets the same refusals as the command line.
     *
     * @param config a configuration as {@code ConfigLoader} returns it
     * @throws ConfigException with every problem found, each naming its key (line 0: the loader's lines are not kept)
     */
    public static void check(final SluiceConfig config)
    {
        final List<ConfigProblem> problems = new ArrayList<>();
        for (int s = 0; s < config.sinks().size(); s++)
        {
            final SluiceConfig.Sink sink = config.sinks().get(s);
            // a branch that inherits its table or database is reported at the plugin_config key it was written as
            // (a sink without [[sinks.branches]] has one implicit branch, which the file does not show)
            final SinkConnection plugin = sink.plugin();
            template(problems, "sinks[" + s + "].plugin_config.target_table", plugin.targetTable());
            template(problems, "sinks[" + s + "].plugin_config.database", plugin.database());
            for (int b = 0; b < sink.branches().size(); b++)
            {
                final SluiceConfig.Branch br = sink.branches().get(b);
                final String at = "sinks[" + s + "].branches[" + b + "]";
                // a branch that writes to another sink inherits that sink's plugin_config, checked there
                final SinkConnection inherited = config.writesTo(sink, br).plugin();
                if (br.when() != null)
                {
                    path(problems, at + ".when.path", br.when().path());
                }
                br.columns().forEach((column, mapping) ->
                {
                    final String problem = ColumnMappings.problem(column, mapping);
                    if (problem != null)
                    {
                        problems.add(new ConfigProblem(at + ".columns." + column, 0, problem));
                    }
                });
                if (!Objects.equals(br.targetTable(), inherited.targetTable()))
                {
                    template(problems, at + ".target_table", br.targetTable());
                }
                if (!Objects.equals(br.database(), inherited.database()))
                {
                    template(problems, at + ".database", br.database());
                }
                if (br.shardBy() != null)
                {
                    path(problems, at + ".shard_by", br.shardBy());
                }
            }
        }
        try
        {
            StageLayouts.plan(config);
        }
        catch (final ConfigException e)
        {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty())
        {
            throw new ConfigException(problems);
        }
    }

    private static void path(final List<ConfigProblem> problems, final String key, final String path)
    {
        try
        {
            JsonPath.parse(path);
        }
        catch (final IllegalArgumentException e)
        {
            problems.add(new ConfigProblem(key, 0, e.getMessage()));
        }
    }

    private static void template(final List<ConfigProblem> problems, final String key, final String template)
    {
        if (template == null)
        {
            return;
        }
        try
        {
            DestinationTemplate.parse(template);
        }
        catch (final IllegalArgumentException e)
        {
            problems.add(new ConfigProblem(key, 0, e.getMessage()));
        }
    }
}
