package io.sluice.core.config;

import java.util.List;

/**
 * The definition of one configuration key: where it lives, its type, default, unit, allowed values and doc.
 * {@link ConfigSchema} lists every key; the TOML loader, the {@code check} command and docs/configuration.md all come
 * from those definitions. Immutable and thread-safe.
 *
 * @param section      the table it lives in, e.g. {@code kafka}, {@code sinks[]}, {@code sinks[].plugin_config}
 * @param name         the key inside that table
 * @param type         its TOML type
 * @param defaultValue the default as the user would write it, or {@code null} when there is none
 * @param required     whether the key must be present
 * @param unit         unit of a number ({@code ms}, {@code bytes}, {@code rows}…) or empty
 * @param allowed      allowed values for enumerated strings, else empty
 * @param min          smallest allowed number (inclusive), for INT/LONG
 * @param max          largest allowed number (inclusive), for INT/LONG
 * @param doc          one or two sentences for users
 * @param secret       whether the value is a secret (a password, a JAAS configuration, a key password): it is
 *                     registered with {@link Secrets} when loaded and prints as {@value Secrets#MASK}
 */
public record ConfigKey(
    String section,
    String name,
    Type type,
    String defaultValue,
    boolean required,
    String unit,
    List<String> allowed,
    long min,
    long max,
    String doc,
    boolean secret)
{

    /** TOML types a key can take. */
    public enum Type
    {
        /** A string. */
        STRING,
        /** An integer that fits in 32 bits. */
        INT,
        /** An integer that fits in 64 bits. */
        LONG,
        /** {@code true} or {@code false}. */
        BOOLEAN,
        /** An array of strings. */
        STRING_LIST,
        /** An array of integers. */
        INT_LIST,
        /** A string or an array of strings. */
        STRING_OR_LIST,
        /** An array of arrays of strings (shards of endpoints). */
        STRING_LIST_LIST,
        /** A table of string keys to string values (passed through, e.g. Kafka client properties). */
        STRING_MAP,
        /** A table whose keys are described by their own section. */
        TABLE,
        /** An inline table or a string: a rule (routing rules, conditions). */
        RULE
    }

    /** @return the full display name, e.g. {@code sinks[].plugin_config.max_rows} */
    public String qualifiedName()
    {
        return section.isEmpty() ? name : section + "." + name;
    }

    /**
     * Starts the definition of a key; a sink kind declares its {@code plugin_config} keys with it (section
     * {@link SinkKeys#SECTION}).
     *
     * @param section the table the key lives in, e.g. {@code sinks[].plugin_config}
     * @param name    the key inside that table
     * @param type    its TOML type
     * @return a new builder; {@link Builder#doc(String)} ends it
     */
    public static Builder in(final String section, final String name, final Type type)
    {
        return new Builder(section, name, type);
    }

    /** Fluent builder used by {@link ConfigSchema} and by the sink kinds ({@link SinkKind#pluginConfigKeys()}). */
    public static final class Builder
    {
        private final String section;
        private final String name;
        private final Type type;
        private String defaultValue;
        private boolean required;
        private String unit = "";
        private List<String> allowed = List.of();
        private long min = Long.MIN_VALUE;
        private long max = Long.MAX_VALUE;
        private boolean secret;

        Builder(final String section, final String name, final Type type)
        {
            this.section = section;
            this.name = name;
            this.type = type;
            if (type == Type.INT || type == Type.INT_LIST)
            {
                min = Integer.MIN_VALUE;
                max = Integer.MAX_VALUE;
            }
        }

        /** @return this builder; the key must be present */
        public Builder required()
        {
            this.required = true;
            return this;
        }

        /**
         * @param value the default as the user would write it
         * @return this builder
         */
        public Builder defaultValue(final String value)
        {
            this.defaultValue = value;
            return this;
        }

        /** @return this builder; the value is a secret (registered with {@link Secrets}, printed as a mask) */
        public Builder secret()
        {
            this.secret = true;
            return this;
        }

        /**
         * @param unit unit of a number ({@code ms}, {@code bytes}, {@code rows}...)
         * @return this builder
         */
        public Builder unit(final String unit)
        {
            this.unit = unit;
            return this;
        }

        /**
         * @param values the allowed values of an enumerated string
         * @return this builder
         */
        public Builder allowed(final String... values)
        {
            this.allowed = List.of(values);
            return this;
        }

        /**
         * @param min smallest allowed number (inclusive)
         * @param max largest allowed number (inclusive)
         * @return this builder
         */
        public Builder range(final long min, final long max)
        {
            this.min = min;
            this.max = max;
            return this;
        }

        /**
         * @param doc one or two sentences for users
         * @return the key
         */
        public ConfigKey doc(final String doc)
        {
            return new ConfigKey(section, name, type, defaultValue, required, unit, allowed, min, max, doc, secret);
        }
    }
}
