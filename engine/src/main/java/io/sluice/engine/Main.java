package io.sluice.engine;

import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine;

/**
 * {@code java -jar engine.jar}: the Sluice command line. Exit codes: 0 ok, 1 runtime failure, 2 bad configuration
 * or usage.
 */
public final class Main
{
    private Main()
    {
    }

    /**
     * @param args command-line arguments
     */
    public static void main(final String[] args)
    {
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.announcer.disable", "true");
        int code;
        try
        {
            code = commandLine().execute(args);
        }
        catch (final Throwable t)
        {
            // an Error on the main thread (picocli passes Errors through): exit 1 with a line naming it, never 0
            try
            {
                System.err.println("sluice: uncaught " + t + " in thread " + Thread.currentThread().getName()
                    + "; the run ends (exit 1)");
                t.printStackTrace();
            }
            catch (final Throwable ignored)
            {
                // nothing left to print with
            }
            code = 1;
        }
        System.exit(code);
    }

    /** @return the configured picocli command line (also used by tests) */
    public static CommandLine commandLine()
    {
        final CommandLine cl = new CommandLine(new SluiceCommand());
        // an argument is what it says: picocli would otherwise replace "@name" by the words of a file called name
        cl.setExpandAtFiles(false);
        cl.setExecutionStrategy(Main::execute);
        cl.setExitCodeExceptionMapper(e -> 2);
        cl.setParameterExceptionHandler((ex, a) ->
        {
            ex.getCommandLine().getErr().println("error: " + ex.getMessage());
            ex.getCommandLine().usage(ex.getCommandLine().getErr());
            return 2;
        });
        return cl;
    }

    private static List<CommandLine.ParseResult> parsedChain(final CommandLine.ParseResult parsed)
    {
        final List<CommandLine.ParseResult> chain = new ArrayList<>();
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand())
        {
            chain.add(p);
        }
        return chain;
    }

    /**
     * Runs the last subcommand, as picocli does, after refusing top-level options given with a subcommand: they
     * belong to running a configuration, and a subcommand would silently ignore them ({@code --config a.toml check
     * --config b.toml} checks only b.toml).
     */
    private static int execute(final CommandLine.ParseResult parsed)
    {
        if (parsed.hasSubcommand())
        {
            for (final String option : new String[]{"--config", "--until-caught-up"})
            {
                if (parsed.hasMatchedOption(option))
                {
                    throw new CommandLine.ParameterException(parsed.commandSpec().commandLine(),
                        option + " before the subcommand " + parsed.subcommand().commandSpec().name()
                            + " belongs to running a configuration; give the subcommand's own options after it");
                }
            }
        }
        for (final CommandLine.ParseResult p : parsedChain(parsed))
        {
            final LogFormat format = p.matchedOptionValue("--log-format", null);
            if (format != null)
            {
                format.apply();
            }
        }
        return new CommandLine.RunLast().execute(parsed);
    }
}
