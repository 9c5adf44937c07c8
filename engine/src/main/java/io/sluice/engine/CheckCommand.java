package io.sluice.engine;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
}
