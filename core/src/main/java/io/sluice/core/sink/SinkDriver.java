package io.sluice.core.sink;

import java.util.List;

import io.sluice.core.config.SluiceConfig;

/**
 * A destination system (ClickHouse today) as the runtime sees it: a catalog for its tables and one writer per shard.
 * The engine passes the driver for a sink's {@code kind}; {@code core} never depends on a concrete sink.
 */
public interface SinkDriver extends AutoCloseable {
    /**
     * @param sink the sink's configuration
     * @return the catalog of the sink's destinations
     */
    DestinationCatalog catalog(SluiceConfig.Sink sink);

    /**
     * @param sink     the sink's configuration
     * @param shardId  0-based shard index
     * @param endpoints endpoints of the shard (replicas)
     * @return a new writer owned by the caller
     */
    BatchWriter writer(SluiceConfig.Sink sink, int shardId, List<String> endpoints);

    /**
     * Checks that the destination answers, before any record is consumed.
     *
     * @param sink the sink's configuration
     * @throws SinkException naming the endpoint when it does not answer
     */
    void checkReachable(SluiceConfig.Sink sink) throws SinkException;

    /** Releases shared resources; never throws. */
    @Override
    void close();
}
