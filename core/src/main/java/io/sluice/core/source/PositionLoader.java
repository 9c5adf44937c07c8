package io.sluice.core.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.ack.PositionStore;
import io.sluice.core.ack.StoredPositions;

/**
 * Reads what the tables of the pipeline's exactly-once sinks hold of some partitions and hands it to the route stage
 * through {@link PartitionTrackers#storePositions}, tagged with each tracker's generation: when partitions are
 * assigned (one query for all of them), when one is read again after a failure, and when the consumer went back on
 * its own (the topic re-created). Source thread only, off the record path (before any record of the new generation
 * is published).
 *
 * <p>A position above the partition's end offset cannot belong to its log: the topic was deleted and created again
 * (or its log truncated) since the table wrote it, and the records of the new log below it would be taken for written.
 * The positions of such a partition are not used: its records stop at the route stage naming the table and what to do
 * (the same when the store cannot be read; the re-read reads the positions again).
 */
final class PositionLoader
{
    private static final Logger LOG = LoggerFactory.getLogger(PositionLoader.class);
    /** The loader of a pipeline without exactly-once sinks: reads nothing. */
    static final PositionLoader NONE = new PositionLoader(null, null, null, null);

    private final String pipeline;
    private final PositionStore store;
    private final PartitionTrackers trackers;
    private final Supplier<Consumer<?, ?>> consumer;

    PositionLoader(final String pipeline, final PositionStore store, final PartitionTrackers trackers,
        final Supplier<Consumer<?, ?>> consumer)
    {
        this.pipeline = pipeline;
        this.store = store;
        this.trackers = trackers;
        this.consumer = consumer;
    }

    /** Reads the positions of these partitions (their trackers already at the generation they are read for). */
    void load(final Collection<KafkaPartition> partitions)
    {
        if (store == null || partitions.isEmpty())
        {
            return;
        }
        final List<TopicPartition> tps = new ArrayList<>(partitions.size());
        for (final KafkaPartition ps : partitions)
        {
            tps.add(ps.tp);
        }
        Map<TopicPartition, Map<String, Long>> read = Map.of();
        String problem = null;
        try
        {
            read = store.read(tps);
        }
        catch (final Exception e)
        {
            problem = "the positions of its exactly-once tables could not be read from " + store.describe() + ": "
                + e.getMessage() + " (they are read again when the partition is read again)";
            LOG.warn("{}: {}: {}", pipeline, tps, problem);
        }
        Map<TopicPartition, Long> ends = Map.of();
        if (problem == null && read.values().stream().anyMatch(m -> !m.isEmpty()))
        {
            try
            {
                ends = consumer.get().endOffsets(tps, Duration.ofSeconds(30));
            }
            catch (final RuntimeException e)
            {
                // the check against a re-created topic is skipped this once; the positions are used
                LOG.warn("{}: {}: the end offsets could not be read to check the stored positions against them: {}",
                    pipeline, tps, e.toString());
            }
        }
        for (final KafkaPartition ps : partitions)
        {
            final Map<String, Long> held = read.getOrDefault(ps.tp, Map.of());
            final String p = problem != null ? problem : aboveEnd(ps.tp, held, ends.get(ps.tp), store.describe());
            trackers.storePositions(ps.trackerId, new StoredPositions(ps.tracker.generation(), held, p));
            trackers.positionsRefused(ps.tp, p);
            if (p == null && !held.isEmpty())
            {
                LOG.atInfo().addKeyValue("topic", ps.tp.topic()).addKeyValue("partition", ps.tp.partition())
                    .log("{}: {}: {}; a record below a table's position is not written to that table again", pipeline,
                        ps.tp, held(held));
            }
            else if (p != null && problem == null)
            {
                LOG.error("{}: {}: {}", pipeline, ps.tp, p);
            }
        }
    }

    /**
     * @param held per position key, the next offset each table has not written (not empty)
     * @return the positions in words, e.g. {@code table "public"."a" (positions table ..., group g) holds it up to
     *     offset 12 (next offset)}, one clause per table
     */
    static String held(final Map<String, Long> held)
    {
        final StringBuilder b = new StringBuilder();
        held.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> b.append(b.length() == 0 ? "" : "; ")
            .append(PositionStore.describeKey(e.getKey())).append(" holds it up to offset ").append(e.getValue())
            .append(" (next offset)"));
        return b.toString();
    }

    /**
     * @param tp    the partition
     * @param held  per position key, the stored next offset
     * @param end   the partition's end offset, or null when unknown
     * @param where where the positions are kept ({@link PositionStore#describe()})
     * @return why the positions cannot be used (one is above the end offset: the topic was re-created), naming the
     *     table, the positions table and the group in words; or null
     */
    static String aboveEnd(final TopicPartition tp, final Map<String, Long> held, final Long end, final String where)
    {
        if (end == null)
        {
            return null;
        }
        for (final Map.Entry<String, Long> e : held.entrySet())
        {
            if (e.getValue() > end)
            {
                return PositionStore.describeKey(e.getKey()) + " holds partition " + tp.partition() + " of topic "
                    + tp.topic() + " up to offset " + e.getValue() + " (next offset), above the partition's end offset "
                    + end + ": the topic was deleted and created again (or its log truncated) since that table wrote "
                    + "it, so the stored position belongs to the old log; delete the positions of this topic from "
                    + where
                    + " (docs/effectively-once.md, \"Resetting a group, re-creating a topic\") to write it again";
            }
        }
        return null;
    }
}
