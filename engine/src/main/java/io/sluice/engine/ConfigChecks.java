package io.sluice.engine;

import java.io.PrintWriter;
import java.nio.file.Path;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.DeepConfigChecks;
import io.sluice.core.engine.SluiceEngine;

/** How every command loads a configuration file and reports its problems. */
final class ConfigChecks
{
    private ConfigChecks()
    {
    }

    /**
     * Loads a configuration file and runs the deep checks ({@link DeepConfigChecks}): what every command does before
     * it uses a file.
     *
     * @param file the TOML file
     * @return the checked configuration
     * @throws ConfigException with every problem found (its message lists them, one per line, with key and line)
     */
    static SluiceConfig load(final Path file)
    {
        return DeepConfigChecks.load(file);
    }

    /**
     * Prints a configuration's problems the one way every command reports them: {@code <file>: N configuration
     * problems} and one indented line per problem.
     *
     * @param file the file the problems are in
     * @param e    the problems
     * @param err  where to print
     * @return {@link SluiceEngine#EXIT_CONFIG}, for the command to return
     */
    static int report(final Path file, final ConfigException e, final PrintWriter err)
    {
        err.println(file + ": " + e.getMessage());
        err.flush();
        return SluiceEngine.EXIT_CONFIG;
    }
}
