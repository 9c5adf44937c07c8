package io.sluice.core.config;

import java.util.List;
import java.util.Map;

/**
 * One sink's {@code [sinks.plugin_config]} table as a {@link SinkKind} reads it. Each getter reads one key of the
 * kind's {@link SinkKind#pluginConfigKeys()}: a missing key gives the key's default, a value of the wrong type, out
 * of range or not among the allowed values is reported as a problem naming the key and its line (and gives the
 * default), a secret is registered so it prints masked. {@link #problem(String, String)} reports the kind's own
 * checks the same way. Keys of the table that no getter read are reported as unknown when the kind is done.
 *
 * <p>Not thread-safe: used on the loading thread during {@link SinkKind#readPluginConfig(PluginConfigReader)} only.
 */
public final class PluginConfigReader
{
    private final TableReader table;

    PluginConfigReader(final TableReader table)
    {
        this.table = table;
    }

    /** @return the display path of the table, e.g. {@code sinks[0].plugin_config} */
    public String path()
    {
        return table.path();
    }

    /**
     * @param key a key of the kind
     * @return whether the table gives it
     */
    public boolean has(final ConfigKey key)
    {
        return table.has(key);
    }

    /**
     * @param key a STRING key
     * @return its value, or its default (null when it has none)
     */
    public String string(final ConfigKey key)
    {
        return table.string(key);
    }

    /**
     * @param key a LONG key
     * @return its value within the key's range, or its default
     */
    public long longValue(final ConfigKey key)
    {
        return table.longValue(key);
    }

    /**
     * @param key an INT key
     * @return its value within the key's range, or its default
     */
    public int intValue(final ConfigKey key)
    {
        return table.intValue(key);
    }

    /**
     * @param key a BOOLEAN key
     * @return its value, or its default
     */
    public boolean bool(final ConfigKey key)
    {
        return table.bool(key);
    }

    /**
     * @param key a STRING_LIST or STRING_OR_LIST key (a single string is a list of one)
     * @return its values, empty when absent
     */
    public List<String> strings(final ConfigKey key)
    {
        return table.strings(key);
    }

    /**
     * @param key a STRING_LIST_LIST key
     * @return its lists, empty when absent
     */
    public List<List<String>> stringLists(final ConfigKey key)
    {
        return table.stringLists(key);
    }

    /**
     * @param key a STRING_MAP key
     * @return its entries in file order, empty when absent
     */
    public Map<String, String> stringMap(final ConfigKey key)
    {
        return table.stringMap(key);
    }

    /**
     * Reports a problem with a key (or a key under it, {@code settings.insert_quorum}), with the key's line.
     *
     * @param name    the key's name inside the table, or a dotted path under it
     * @param message what is wrong, without the key (it is prefixed)
     */
    public void problem(final String name, final String message)
    {
        table.problem(name, message);
    }

    /** @return whether a problem was reported for this table or a key under it */
    public boolean hasProblems()
    {
        return table.hasProblems();
    }
}
