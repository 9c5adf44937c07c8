package io.sluice.sinks.clickhouse;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.PluginConfigReader;

/**
 * Reads {@code [sinks.plugin_config.settings]}: ClickHouse settings passed through with every INSERT. A name is
 * what ClickHouse's settings are made of ({@code [A-Za-z0-9_]+}); a value is any text without control characters
 * (it travels as a URL query parameter). Whether the server knows the setting and can parse the value is asked of
 * the server itself at start (the sink's driver), since the set differs between versions.
 */
final class InsertSettingsConfig
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");

    private InsertSettingsConfig()
    {
    }

    /**
     * @param pc  the plugin_config table
     * @param key {@code settings}
     * @return the settings in file order (empty when absent); problems are reported naming each bad entry
     */
    static Map<String, String> read(final PluginConfigReader pc, final ConfigKey key)
    {
        final Map<String, String> raw = pc.stringMap(key);
        final Map<String, String> out = new LinkedHashMap<>();
        for (final Map.Entry<String, String> e : raw.entrySet())
        {
            final String name = e.getKey();
            final String value = e.getValue();
            if (!NAME.matcher(name).matches())
            {
                pc.problem(key.name() + "." + name, "not a ClickHouse setting name: use letters, digits and _ "
                    + "(as in insert_quorum)");
                continue;
            }
            final int bad = controlCharacter(value);
            if (bad >= 0)
            {
                pc.problem(key.name() + "." + name, "the value has a control character (U+"
                    + String.format("%04X", (int)value.charAt(bad)) + ") at position " + bad);
                continue;
            }
            out.put(name, value);
        }
        return out;
    }

    private static int controlCharacter(final String value)
    {
        for (int i = 0; i < value.length(); i++)
        {
            if (Character.isISOControl(value.charAt(i)))
            {
                return i;
            }
        }
        return -1;
    }
}
