package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.common.TopicPartition;

import io.sluice.core.ack.PositionStore;

/**
 * The positions of every exactly-once sink of a pipeline as one {@link PositionStore}: each sink's store is read
 * (one query each) and its tables' keys are prefixed with the sink's name ({@link #key}), so two sinks' tables never
 * share a key. Source thread only.
 */
final class SinkPositions implements PositionStore
{
    private final Map<String, PositionStore> bySink = new LinkedHashMap<>();

    /**
     * @param sink  the sink's name
     * @param table the table's qualified name as its catalog writes it
     * @return the key of the table's positions in the route stage ({@code PositionChain})
     */
    static String key(final String sink, final String table)
    {
        return sink + ":" + table;
    }

    void add(final String sink, final PositionStore store)
    {
        bySink.put(sink, store);
    }

    boolean isEmpty()
    {
        return bySink.isEmpty();
    }

    @Override
    public Map<TopicPartition, Map<String, Long>> read(final Collection<TopicPartition> partitions) throws Exception
    {
        final Map<TopicPartition, Map<String, Long>> all = new HashMap<>();
        for (final Map.Entry<String, PositionStore> s : bySink.entrySet())
        {
            for (final Map.Entry<TopicPartition, Map<String, Long>> p : s.getValue().read(partitions).entrySet())
            {
                final Map<String, Long> m = all.computeIfAbsent(p.getKey(), k -> new HashMap<>());
                p.getValue().forEach((table, next) -> m.put(key(s.getKey(), table), next));
            }
        }
        return all;
    }

    @Override
    public String describe()
    {
        final List<String> d = new ArrayList<>();
        bySink.forEach((sink, store) -> d.add("sink " + sink + ": " + store.describe()));
        return d.stream().collect(Collectors.joining("; "));
    }
}
