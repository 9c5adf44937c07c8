package io.sluice.core.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The sink kinds a configuration may name, by {@code kind}. {@link #installed()} finds them on the class path
 * ({@link ServiceLoader} of {@link SinkKind}: a sink module lists its provider in
 * {@code META-INF/services/io.sluice.core.config.SinkKind}); {@link #of(List)} takes an explicit list (an embedder, a
 * test). Core names no kind itself.
 *
 * <p>Immutable and thread-safe.
 */
public final class SinkKinds
{
    private static volatile SinkKinds installed;

    private final Map<String, SinkKind> byKind;

    private SinkKinds(final Map<String, SinkKind> byKind)
    {
        this.byKind = byKind;
    }

    /**
     * @param kinds the kinds, each with a distinct {@link SinkKind#kind()}
     * @return the registry of exactly these kinds, in this order
     * @throws IllegalArgumentException when two have the same name
     */
    public static SinkKinds of(final List<? extends SinkKind> kinds)
    {
        final Map<String, SinkKind> map = new LinkedHashMap<>();
        for (final SinkKind k : kinds)
        {
            if (map.putIfAbsent(k.kind(), k) != null)
            {
                throw new IllegalArgumentException("two sink kinds are named \"" + k.kind() + "\": "
                    + map.get(k.kind()).getClass().getName() + " and " + k.getClass().getName());
            }
        }
        return new SinkKinds(map);
    }

    /**
     * The kinds on the class path, loaded once (the first call; later calls return the same registry).
     *
     * @return the registry; empty when no sink module is on the class path
     * @throws java.util.ServiceConfigurationError when a listed provider cannot be instantiated
     */
    public static SinkKinds installed()
    {
        SinkKinds k = installed;
        if (k == null)
        {
            final List<SinkKind> found = new ArrayList<>();
            ServiceLoader.load(SinkKind.class, SinkKinds.class.getClassLoader()).forEach(found::add);
            k = of(found);
            installed = k;
        }
        return k;
    }

    /**
     * @param kind a {@code kind} value
     * @return the kind of that name, or null when there is none
     */
    public SinkKind find(final String kind)
    {
        return byKind.get(kind);
    }

    /** @return every kind, in registration order */
    public List<SinkKind> all()
    {
        return List.copyOf(byKind.values());
    }

    /** @return the names of every kind, in registration order, e.g. {@code [clickhouse]} */
    public List<String> names()
    {
        return List.copyOf(byKind.keySet());
    }

    /**
     * @param kind a {@code kind} value that names no kind here
     * @return the message {@code check} gives for it: {@code "postgres" is not one of "clickhouse"}
     */
    public String unknown(final String kind)
    {
        return byKind.isEmpty()
            ? "\"" + kind + "\": no sink kind is installed (no sink module on the class path)"
            : "\"" + kind + "\" is not one of "
                + String.join(", ", byKind.keySet().stream().map(a -> "\"" + a + "\"").toList());
    }
}
