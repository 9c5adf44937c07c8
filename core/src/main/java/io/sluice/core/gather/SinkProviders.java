package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.List;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SinkKind;
import io.sluice.core.config.SinkKinds;

/**
 * The sink providers the engine can run, by {@code kind}: the {@link SinkKinds} that are {@link SinkProvider}s.
 * Immutable and thread-safe.
 */
public final class SinkProviders
{
    private final SinkKinds kinds;

    private SinkProviders(final SinkKinds kinds)
    {
        this.kinds = kinds;
    }

    /**
     * @param providers the providers, each with a distinct kind
     * @return exactly these providers
     * @throws IllegalArgumentException when two have the same kind
     */
    public static SinkProviders of(final List<? extends SinkProvider> providers)
    {
        return new SinkProviders(SinkKinds.of(providers));
    }

    /**
     * @return the providers on the class path ({@link SinkKinds#installed()} that are providers)
     * @throws IllegalStateException when an installed kind is no {@link SinkProvider} (it could be checked but never
     *     run)
     */
    public static SinkProviders installed()
    {
        final List<SinkProvider> out = new ArrayList<>();
        for (final SinkKind k : SinkKinds.installed().all())
        {
            if (!(k instanceof SinkProvider p))
            {
                throw new IllegalStateException("sink kind \"" + k.kind() + "\" (" + k.getClass().getName()
                    + ") is no SinkProvider: it has no driver");
            }
            out.add(p);
        }
        return of(out);
    }

    /** @return the providers as the configuration loader takes them */
    public SinkKinds kinds()
    {
        return kinds;
    }

    /**
     * @param kind a sink's {@code kind}
     * @return its provider
     * @throws ConfigException naming {@code sinks.kind} and the kinds there are, when none has that name
     */
    public SinkProvider provider(final String kind)
    {
        final SinkKind k = kinds.find(kind);
        if (k == null)
        {
            throw new ConfigException("sinks.kind", kinds.unknown(kind));
        }
        return (SinkProvider)k;
    }
}
