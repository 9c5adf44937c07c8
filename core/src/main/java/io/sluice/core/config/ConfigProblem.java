package io.sluice.core.config;

/**
 * One problem found in a configuration: the key it concerns (dotted, with array indices, e.g.
 * {@code sinks[0].plugin_config.max_rows}), the line in the file where the parser knows it (0 when unknown), and
 * what is wrong.
 *
 * @param key     dotted key path
 * @param line    1-based line in the TOML file, or 0 when the position is unknown
 * @param message what is wrong and, where possible, what is expected
 */
public record ConfigProblem(String key, int line, String message)
{
    /**
     * Every problem is printed (check output, logs, exception messages): the message is stripped of credentials in
     * URLs and of registered secrets ({@link Secrets#redact}) and its control characters are escaped
     * ({@link Printable#escape}), whatever value from the file or the environment it quotes.
     *
     * @param key     dotted key path
     * @param line    line, or 0
     * @param message what is wrong
     */
    public ConfigProblem
    {
        key = Printable.escape(key);
        message = Printable.escape(Secrets.redact(message));
    }

    @Override
    public String toString()
    {
        return (line > 0 ? key + " (line " + line + "): " : key + ": ") + message;
    }
}
