package io.sluice.core.gather;

import io.sluice.core.ack.PositionStore;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;

/**
 * A destination system (ClickHouse today) as the runtime sees it: a catalog for a sink's tables and one writer per
 * shard and insert worker. The engine passes the driver; {@code core} never depends on a concrete sink.
 * Implementations are thread-safe.
 */
public interface SinkDriver extends AutoCloseable
{
    /**
     * @param sink an installed sink
     * @return the catalog of the sink's destinations (may be shared by sinks with the same connection)
     */
    DestinationCatalog catalog(SinkSpec sink);

    /**
     * @param sink  an installed sink
     * @param shard 0-based shard index into {@link SinkSpec#shards()}
     * @return a new writer owned by the caller
     */
    BatchWriter writer(SinkSpec sink, int shard);

    /**
     * Where an exactly-once sink keeps its tables' source positions ({@code delivery = "exactly_once"}), keyed by
     * each table's name as {@link io.sluice.core.gather.sink.DestinationCatalog#qualifiedName} writes it. Connects
     * when read.
     *
     * @param sink  an installed sink
     * @param group the consumer group of the pipeline
     * @return the store, or null when the kind stores no positions
     */
    default PositionStore positionStore(final SinkSpec sink, final String group)
    {
        return null;
    }

    /**
     * The row encoders of this kind for the TOML form, a new instance per pipeline: how a branch's JSON records
     * become rows of the kind's wire format, which its {@link #writer} sends. Connects to nothing.
     *
     * @return a new encoding, used by one route stage thread
     */
    JsonEncoding jsonEncoding();

    /**
     * Checks that every shard answers, before any record is consumed.
     *
     * @param sink an installed sink
     * @throws SinkException naming the endpoint that does not answer
     */
    void checkReachable(SinkSpec sink) throws SinkException;

    /** Releases shared resources; never throws. */
    @Override
    void close();
}
