package io.sluice.engine;

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
        final int code = commandLine().execute(args);
        System.exit(code);
    }

    /** @return the configured picocli command line (also used by tests) */
    public static CommandLine commandLine()
    {
        final CommandLine cl = new CommandLine(new SluiceCommand());
        cl.setExitCodeExceptionMapper(e -> 2);
        cl.setParameterExceptionHandler((ex, a) ->
        {
            ex.getCommandLine().getErr().println("error: " + ex.getMessage());
            ex.getCommandLine().usage(ex.getCommandLine().getErr());
            return 2;
        });
        return cl;
    }
}
