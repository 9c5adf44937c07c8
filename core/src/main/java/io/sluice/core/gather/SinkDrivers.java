package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.core.gather.sink.SinkSpec;

/**
 * One driver per sink kind, opened on first use: what an embedding application passes to
 * {@code new GatherPipeline<>(config, spec, drivers::driver, options)} when the sinks it installs by name are of
 * different kinds (a split across kinds, docs/sinks.md). Each installed sink is written by the driver of its
 * connection's {@code kind}.
 *
 * <p>Thread-safe; {@link #close()} closes every driver it opened.
 */
public final class SinkDrivers implements AutoCloseable
{
    private final SinkProviders providers;
    private final Map<String, SinkDriver> byKind = new LinkedHashMap<>();
    private boolean closed;

    private SinkDrivers(final SinkProviders providers)
    {
        this.providers = providers;
    }

    /**
     * @param providers the kinds there are ({@link SinkProviders#installed()}, or a list of the embedder's)
     * @return a set of drivers, none opened yet
     */
    public static SinkDrivers of(final SinkProviders providers)
    {
        return new SinkDrivers(providers);
    }

    /**
     * @param sink an installed sink
     * @return the driver of its connection's kind, opened on the first call for that kind
     * @throws io.sluice.core.config.ConfigException naming the kinds there are, when the sink's kind is none of them
     * @throws IllegalStateException after {@link #close()}
     */
    public synchronized SinkDriver driver(final SinkSpec sink)
    {
        if (closed)
        {
            throw new IllegalStateException("the sink drivers are closed");
        }
        final String kind = sink.connection().kind();
        SinkDriver d = byKind.get(kind);
        if (d == null)
        {
            d = providers.provider(kind).driver();
            byKind.put(kind, d);
        }
        return d;
    }

    /** Closes every driver opened; never throws. */
    @Override
    public synchronized void close()
    {
        closed = true;
        final List<SinkDriver> all = new ArrayList<>(byKind.values());
        byKind.clear();
        all.forEach(SinkDriver::close);
    }
}
