package io.sluice.engine;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.TypeConversionException;

/**
 * The top-level command: {@code engine.jar --config F} runs the pipelines of F (same as {@code run}).
 */
@Command(name = "engine.jar", mixinStandardHelpOptions = true, versionProvider = Version.class, description = "Sluice: routes JSON records between Kafka and ClickHouse or PostgreSQL, per record, at-least-once (exactly-once into PostgreSQL with delivery = \"exactly_once\").", subcommands = {
    RunCommand.class, CheckCommand.class, ProduceCommand.class, RouteCommand.class, DestinationCommand.class,
    ExplainCommand.class,
    BenchCommand.class}, footer = {"", "Exit codes: 0 ok, 1 runtime failure, 2 bad configuration or usage."})
public final class SluiceCommand implements Callable<Integer>
{
    @Option(names = "--config", paramLabel = "FILE", description = "Pipeline configuration (TOML) to run.")
    Path config;

    @Option(names = "--until-caught-up", description = "Stop (exit 0) once every assigned partition is committed up to its end offset; once every record up to the end is read, open batches are sealed without waiting for linger_ms.")
    boolean untilCaughtUp;

    @Option(names = "--log-format", paramLabel = "text|json", scope = ScopeType.INHERIT, converter = LogFormatConverter.class, description = "Log lines as text (ISO-8601 date and zone) or as one JSON object per line (default: $SLUICE_LOG_FORMAT, else text).")
    LogFormat logFormat;

    /** Accepts the format names in any case. */
    static final class LogFormatConverter implements ITypeConverter<LogFormat>
    {
        @Override
        public LogFormat convert(final String value)
        {
            for (final LogFormat f : LogFormat.values())
            {
                if (f.name().equalsIgnoreCase(value))
                {
                    return f;
                }
            }
            throw new TypeConversionException("'" + value + "' is not a log format: give text or json");
        }
    }

    @Override
    public Integer call()
    {
        if (config == null)
        {
            System.err.println("error: give --config FILE (or a subcommand; see --help)");
            return 2;
        }
        return RunCommand.run(config, untilCaughtUp);
    }
}
