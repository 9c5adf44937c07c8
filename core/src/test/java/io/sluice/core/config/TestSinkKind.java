package io.sluice.core.config;

import static io.sluice.core.config.ConfigKey.Type.STRING_OR_LIST;

import java.util.ArrayList;
import java.util.List;

/**
 * A sink kind for core's own tests ({@code kind = "test"}): the neutral keys of {@link SinkKeys} and an
 * {@code endpoint} (one shard of these addresses). Core's tests of the record path need a configuration with a sink
 * but no database; core itself names no kind, and this one is passed explicitly ({@link #parse(String)}), never
 * installed.
 */
public final class TestSinkKind implements SinkKind
{
    /** The kind's name. */
    public static final String KIND = "test";
    /** {@code endpoint}: the addresses of the one shard. */
    static final ConfigKey ENDPOINT = ConfigKey.in(SinkKeys.SECTION, "endpoint", STRING_OR_LIST).required()
        .doc("Addresses of the one shard (never connected to).");
    private static final ConfigKey IDENTIFIER = SinkKeys.identifier("rewrite");
    private static final List<ConfigKey> KEYS;

    static
    {
        final List<ConfigKey> keys = new ArrayList<>();
        keys.add(ENDPOINT);
        keys.addAll(SinkSettings.keys(IDENTIFIER));
        KEYS = List.copyOf(keys);
    }

    /** @return the registry of this kind alone */
    public static SinkKinds kinds()
    {
        return SinkKinds.of(List.of(new TestSinkKind()));
    }

    /**
     * @param toml a configuration whose sinks are of kind {@code test}
     * @return it, loaded
     */
    public static SluiceConfig parse(final String toml)
    {
        return ConfigLoader.parse(toml, System::getenv, kinds());
    }

    @Override
    public String kind()
    {
        return KIND;
    }

    @Override
    public List<ConfigKey> pluginConfigKeys()
    {
        return KEYS;
    }

    @Override
    public SinkConnection readPluginConfig(final PluginConfigReader pc)
    {
        final List<String> endpoints = pc.strings(ENDPOINT);
        return SinkSettings.read(pc, KIND, IDENTIFIER, endpoints.isEmpty() ? List.of() : List.of(endpoints));
    }
}
