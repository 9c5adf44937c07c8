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
    @Override
    public String toString()
    {
        return (line > 0 ? key + " (line " + line + "): " : key + ": ") + message;
    }
}
