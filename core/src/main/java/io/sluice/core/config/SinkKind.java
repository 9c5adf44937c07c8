package io.sluice.core.config;

import java.util.List;

/**
 * What the configuration layer needs of a kind of sink ({@code kind = "clickhouse"}): its name, the keys of its
 * {@code [sinks.plugin_config]} and how to read them into a {@link SinkConnection}. It is the configuration half of
 * the sink provider contract ({@code io.sluice.core.gather.SinkProvider} adds the driver); the loader finds a kind
 * by name in {@link SinkKinds}.
 *
 * <p>Thread-safety: implementations are stateless and thread-safe; every method may be called from any thread, any
 * number of times.
 */
public interface SinkKind
{
    /** @return the value of {@code kind} that selects this sink kind, e.g. {@code clickhouse}; lower case, stable */
    String kind();

    /**
     * What this kind calls the namespace of its tables, the value core calls "database" (a branch's and a
     * connection's {@code database()}): the word the commands print as its label in text and, next to
     * {@code database}, in JSON. ClickHouse: {@code database}; PostgreSQL: {@code schema}.
     *
     * @return a lower-case word; {@code database} unless the kind says otherwise
     */
    default String namespaceName()
    {
        return "database";
    }

    /**
     * The keys of this kind's {@code [sinks.plugin_config]}, in the order docs/configuration.md lists them: the
     * database-neutral keys core reads through {@link SinkConnection} (from {@link SinkKeys}, with this kind's
     * default of {@code identifier}) and the kind's own. Each key's section is {@link SinkKeys#SECTION}. A key of the
     * table that is not listed is an unknown key ({@code check} names it and suggests the nearest).
     *
     * @return the keys; the same list on every call
     */
    List<ConfigKey> pluginConfigKeys();

    /**
     * Reads and checks a sink's {@code [sinks.plugin_config]}. Called by the loader on the thread that loads the
     * configuration, once per sink of this kind. Every problem is reported through {@code pc} (naming the key, with
     * its line) rather than thrown, so {@code check} lists them all; the reader reports unknown keys itself after
     * this returns.
     *
     * @param pc the table, its path ({@code sinks[0].plugin_config}) and where problems go
     * @return the connection; concluded when {@code pc} reported no problem (else it is never used)
     */
    SinkConnection readPluginConfig(PluginConfigReader pc);

    /**
     * Whether a sink of this kind, with this plugin configuration, can delete the row a tombstone's Kafka key names
     * ({@code tombstones = "delete"}): a capability of the kind. The loader asks it for a sink that sets
     * {@code tombstones = "delete"} and reports the answer as a problem of that key.
     *
     * @param connection the sink's plugin configuration as this kind read it
     * @return null when it can, else why not (naming the kind, and the key that would have to change)
     */
    default String deletesRefused(final SinkConnection connection)
    {
        return "kind \"" + kind() + "\" cannot delete rows, so a tombstone cannot delete one: use skip, fail or "
            + "dead_letter";
    }
}
