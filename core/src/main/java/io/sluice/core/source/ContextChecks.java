package io.sluice.core.source;

import io.sluice.core.config.ConfigException;

/**
 * The value checks the sources' contexts ({@link KafkaSourceContext}, {@link LineSourceContext}) run in
 * {@code conclude()}, each naming the key: a key of the source is prefixed with the source's config path
 * ({@code sources[0].group_id}), a {@code checkpoint.} or {@code engine.} key is named as it is. Stateless; any thread.
 */
final class ContextChecks
{
    private ContextChecks()
    {
    }

    /** @throws ConfigException "is required" when the value is null or blank */
    static void requireText(final String configPath, final String key, final String value)
    {
        if (value == null || value.isBlank())
        {
            throw problem(configPath, key, "is required");
        }
    }

    /** @throws ConfigException "must be > 0" when the value is not */
    static void requirePositive(final String configPath, final String key, final long value)
    {
        if (value <= 0)
        {
            throw problem(configPath, key, "must be > 0, was " + value);
        }
    }

    /** @return the problem, its key named from the root of the file */
    static ConfigException problem(final String configPath, final String key, final String message)
    {
        final boolean root = key.startsWith("checkpoint.") || key.startsWith("engine.");
        return new ConfigException(root ? key : configPath + "." + key, message);
    }
}
