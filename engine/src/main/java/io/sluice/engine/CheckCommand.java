package io.sluice.engine;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;

/** {@code engine.jar check --config F}: validates a configuration without connecting anywhere. */
@Command(name = "check", mixinStandardHelpOptions = true, description = "Validate a configuration without connecting. Exit 0 when valid, 2 with every problem named by key and line.")
public final class CheckCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Override
    public Integer call()
    {
        try
        {
            final SluiceConfig c = ConfigChecks.load(config);
            warnings(c).forEach(w -> System.err.println(config + ": warning: " + w));
            System.out.println(config + ": ok (" + c.sinks().size() + " sink(s), "
                + c.sinks().stream().mapToInt(s -> s.branches().size()).sum() + " branch(es), "
                + c.sources().size() + " source(s))");
            return SluiceEngine.EXIT_OK;
        }
        catch (final ConfigException e)
        {
            return ConfigChecks.report(config, e,
                new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        }
    }

    /**
     * What is valid but likely not meant: an exactly-once sink's positions table named with a dot (quoted verbatim,
     * it is one table of that name in the sink's schema, not a table of another schema).
     *
     * @param c a loaded configuration
     * @return one line per warning, naming the key; empty when none
     */
    static List<String> warnings(final SluiceConfig c)
    {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < c.sinks().size(); i++)
        {
            final SluiceConfig.Sink s = c.sinks().get(i);
            final String table = s.plugin() == null ? null : s.plugin().positionsTable();
            if (table != null && table.indexOf('.') >= 0)
            {
                out.add("sinks[" + i + "].plugin_config.offsets_table = \"" + table + "\" is one table named so, dot "
                    + "included, in the sink's schema (\"" + s.plugin().database() + "\".\""
                    + table.replace("\"", "\"\"")
                    + "\"), not a table of schema \"" + table.substring(0, table.indexOf('.')) + "\": names are quoted "
                    + "verbatim, and the positions table always lives in the sink's schema; give a plain name, or "
                    + "another schema to the sink");
            }
        }
        return out;
    }
}
