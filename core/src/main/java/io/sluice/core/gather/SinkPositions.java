package io.sluice.core.gather;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

import io.sluice.core.ack.PositionStore;

/**
 * The positions of every exactly-once sink of a pipeline as one {@link PositionStore}: each place positions are kept
 * (a positions table on a server for the group, as {@link PositionStore#describe()} names it) is read once, one query,
 * however many sinks keep theirs there (a split's branches with tables of their own are sinks of their own), and its
 * tables' keys are prefixed with the place ({@link #key}). Built before the pipeline starts; then read by the source
 * thread.
 */
final class SinkPositions implements PositionStore
{
    /** The stores, one per place positions are kept ({@link PositionStore#describe()}): sinks may share one. */
    private final Map<String, PositionStore> byPlace = new LinkedHashMap<>();
    /** Per sink name, where its positions are kept. */
    private final Map<String, String> placeOf = new HashMap<>();

    /**
     * @param sink  the sink's name
     * @param table the table's qualified name as its catalog writes it
     * @return the key of the table's positions in the route stage ({@code PositionChain}): the place its sink keeps
     *     positions and the table, so two sinks that keep them in the same place share them, and two places never
     */
    String key(final String sink, final String table)
    {
        return PositionStore.key(placeOf.get(sink), table);
    }

    void add(final String sink, final PositionStore store)
    {
        final String place = store.describe();
        placeOf.put(sink, place);
        byPlace.putIfAbsent(place, store);
    }

    boolean isEmpty()
    {
        return byPlace.isEmpty();
    }

    /** Reads every place once (one query each). */
    @Override
    public Map<TopicPartition, Map<String, Long>> read(final Collection<TopicPartition> partitions) throws Exception
    {
        final Map<TopicPartition, Map<String, Long>> all = new HashMap<>();
        for (final Map.Entry<String, PositionStore> s : byPlace.entrySet())
        {
            for (final Map.Entry<TopicPartition, Map<String, Long>> p : s.getValue().read(partitions).entrySet())
            {
                final Map<String, Long> m = all.computeIfAbsent(p.getKey(), k -> new HashMap<>());
                p.getValue().forEach((table, next) -> m.put(PositionStore.key(s.getKey(), table), next));
            }
        }
        return all;
    }

    @Override
    public String describe()
    {
        return String.join("; ", byPlace.keySet());
    }
}
