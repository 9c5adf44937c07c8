package io.sluice.core.gather;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.ack.PositionStore;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.stage.PipelineStats;
import io.sluice.tuning.WaitKind;
import io.sluice.tuning.WaitStrategies;

/**
 * Builds the insert workers of a {@link GatherPipeline}'s installed sinks: checks every sink is reachable, reads its
 * catalog, and builds {@code connection.insert_workers} workers per distinct shard, shared by the sinks with the same
 * driver (by identity), connection and endpoints; one kind's (or one connection's) writer never takes another's
 * batches. An exactly-once sink's store of positions is added to the pipeline's {@link SinkPositions}, and its workers
 * write positions.
 *
 * <p>Shapes: per installed sink (by name), its workers by shard index then worker index.
 *
 * <p>Thread-safety: used once, by the thread that starts the pipeline; not thread-safe.
 */
final class InsertWorkers
{
    private final GatherSpec<?> spec;
    private final Function<SinkSpec, SinkDriver> drivers;
    private final PartitionTrackers trackers;
    private final PipelineStats stats;
    private final SinkPositions positions;
    private final List<InsertWorker> workers;
    private final Map<InsertWorker, String> workerKinds;
    private int shards;

    /**
     * @param spec        the pipeline's spec (its sinks, name and consumer group)
     * @param drivers     the driver of an installed sink
     * @param trackers    the pipeline's ack trackers
     * @param stats       the pipeline's counters
     * @param positions   where an exactly-once sink's store of positions goes
     * @param workers     where every worker built goes
     * @param workerKinds where each worker's sink kind goes (the metrics' {@code kind} label)
     */
    InsertWorkers(final GatherSpec<?> spec, final Function<SinkSpec, SinkDriver> drivers,
        final PartitionTrackers trackers, final PipelineStats stats, final SinkPositions positions,
        final List<InsertWorker> workers, final Map<InsertWorker, String> workerKinds)
    {
        this.spec = spec;
        this.drivers = drivers;
        this.trackers = trackers;
        this.stats = stats;
        this.positions = positions;
        this.workers = workers;
        this.workerKinds = workerKinds;
    }

    /** @return how many distinct shards (worker groups) {@link #build} built */
    int shards()
    {
        return shards;
    }

    /**
     * Checks every sink is reachable, reads its catalog, and builds the insert workers of each distinct shard (shared
     * by sinks with the same endpoints).
     *
     * @param e        the engine configuration (queue depth)
     * @param sinkWait how the workers wait
     * @param targets  where each sink's target (spec and catalog) goes, by sink name
     * @return per sink, its workers by shard
     * @throws SinkException when a sink has no driver, is unreachable, or cannot be exactly-once
     */
    Map<String, InsertWorker[][]> build(final SluiceConfig.Engine e, final WaitKind sinkWait,
        final Map<String, DestinationResolver.SinkTarget> targets) throws SinkException
    {
        final Set<WorkerKey> checked = new HashSet<>();
        final Map<WorkerKey, InsertWorker[]> workersByShard = new LinkedHashMap<>();
        final Map<String, InsertWorker[][]> workersBySink = new LinkedHashMap<>();
        for (final SinkSpec s : spec.sinks().values())
        {
            final SinkDriver driver = drivers.apply(s);
            if (driver == null)
            {
                throw new SinkException("pipeline " + spec.name() + ": no driver for sink " + s.name() + " (kind "
                    + s.connection().kind() + ")", false, 0, null);
            }
            if (checked.add(new WorkerKey(driver, s.connection(), s.shards())))
            {
                driver.checkReachable(s);
            }
            targets.put(s.name(), new DestinationResolver.SinkTarget(s, driver.catalog(s)));
            final InsertWorker[][] byShard = new InsertWorker[s.shards().size()][];
            for (int shard = 0; shard < byShard.length; shard++)
            {
                final int shardIndex = shard;
                // one kind's writer never takes another kind's (or another connection's) batches
                byShard[shard] = workersByShard.computeIfAbsent(
                    new WorkerKey(driver, s.connection(), s.shards().get(shard)), key ->
                    {
                        final InsertWorker[] ws = new InsertWorker[s.connection().insertWorkers()];
                        for (int w = 0; w < ws.length; w++)
                        {
                            ws[w] = new InsertWorker(spec.name() + "/shard-" + workersByShard.size() + "-" + w,
                                e.queueDepth(),
                                driver.writer(s, shardIndex), trackers, stats,
                                new CircuitBreaker(s.connection().breakerFailures(),
                                    TimeUnit.MILLISECONDS.toNanos(s.connection().breakerOpenMs())),
                                WaitStrategies.idleStrategy(sinkWait),
                                s.connection().retryBackoffMs(), s.connection().retryBackoffMaxMs());
                            workers.add(ws[w]);
                            workerKinds.put(ws[w], s.connection().kind());
                        }
                        return ws;
                    });
            }
            workersBySink.put(s.name(), byShard);
            if (s.connection().exactlyOnce())
            {
                exactlyOnce(s, driver, byShard);
            }
        }
        shards = workersByShard.size();
        return workersBySink;
    }

    /** An exactly-once sink: its store of positions is read by the source, its workers write positions. */
    private void exactlyOnce(final SinkSpec s, final SinkDriver driver, final InsertWorker[][] byShard)
        throws SinkException
    {
        final PositionStore store = driver.positionStore(s, spec.groupId());
        if (store == null || spec.groupId() == null)
        {
            throw new SinkException("sink " + s.name() + ": delivery = \"exactly_once\" needs a sink kind that "
                + "stores positions and a consumer group (kind " + s.connection().kind() + ")", false, 0, null);
        }
        positions.add(s.name(), store);
        for (final InsertWorker[] shard : byShard)
        {
            for (final InsertWorker w : shard)
            {
                w.exactlyOnce(spec.groupId());
            }
        }
    }

    /**
     * The insert workers of one shard (or the reachability check of all shards): the driver (by identity), the
     * connection and the endpoints of the shard (or the list of every shard's).
     */
    private record WorkerKey(SinkDriver driver, SinkConnection connection, List<?> endpoints)
    {
        @Override
        public boolean equals(final Object o)
        {
            return o instanceof WorkerKey k && k.driver == driver && k.connection.equals(connection)
                && k.endpoints.equals(endpoints);
        }

        @Override
        public int hashCode()
        {
            return System.identityHashCode(driver) * 31 * 31 + connection.hashCode() * 31 + endpoints.hashCode();
        }
    }
}
