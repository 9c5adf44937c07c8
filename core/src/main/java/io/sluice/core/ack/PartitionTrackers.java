package io.sluice.core.ack;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;

/**
 * The ack trackers of one pipeline, by dense id. A partition keeps its id (and its tracker object) while it is
 * assigned; a re-assignment without a revocation in between (a seek back) resets the tracker, which bumps its
 * generation so acknowledgements of records from before are ignored.
 *
 * <p>Memory: each tracker takes {@link AckTracker#footprintBytes(int)} of heap (129 KiB for the default window), so
 * a partition that is revoked or whose topic is deleted gives its tracker up ({@link #release}): the id then answers
 * {@link #get(int)} with a shared placeholder that no source commits from (acknowledgements still in flight for the
 * old partition land there, harmlessly), until the id is given to a new partition. A reused id's tracker starts at a
 * generation above every one its previous tracker used, so a late acknowledgement of the old partition is stale for
 * the new one and is ignored ({@link AckTracker#ACK_STALE_GENERATION}). {@link #live()} and {@link #bytes()} say
 * what is held (the metrics export them).
 *
 * <p>Thread-safety: {@link #trackerFor}, {@link #idOf} and {@link #release} are called by the source thread only;
 * {@link #get(int)}, {@link #isLive(int)}, {@link #size()}, {@link #live()} and {@link #bytes()} by any thread (the
 * array is published through a volatile field, copy-on-write).
 */
public final class PartitionTrackers
{
    private final Map<TopicPartition, Integer> ids = new HashMap<>();
    private final ArrayDeque<Integer> freeIds = new ArrayDeque<>();
    private final int windowCapacity;
    /** What a released id answers until it is reused; never committed from. */
    private final AckTracker released;
    private volatile AckTracker[] trackers = new AckTracker[0];
    /** Per id: the first generation its next tracker must use (above every generation an earlier one used). */
    private int[] nextGeneration = new int[0];
    private volatile int live;
    /** Per id: the positions an exactly-once sink's tables hold of the partition (copy-on-write; rarely written). */
    private volatile StoredPositions[] stored = new StoredPositions[0];
    /**
     * Partitions whose positions were last refused (a stored position above the end offset, or unreadable), by name:
     * kept after the partition is released, so a run that stopped one cannot end as a success.
     */
    private final Map<String, String> refused = new TreeMap<>();

    /** @param windowCapacity offsets a partition may have in flight (power of two) */
    public PartitionTrackers(final int windowCapacity)
    {
        this.windowCapacity = windowCapacity;
        this.released = new AckTracker("(released)", 0, 0, AckTracker.MIN_WINDOW_CAPACITY);
    }

    /**
     * Returns the partition's tracker, reset to start at {@code startOffset} (source thread, on assignment). A
     * partition without a tracker gets a new one, under a released id when there is one.
     *
     * @param tp          the partition
     * @param startOffset the position the consumer will read from
     * @return the tracker
     */
    public AckTracker trackerFor(final TopicPartition tp, final long startOffset)
    {
        final Integer id = ids.get(tp);
        if (id != null)
        {
            final AckTracker t = trackers[id];
            t.reset(startOffset);
            return t;
        }
        final Integer free = freeIds.poll();
        final int newId = free == null ? trackers.length : free;
        final int firstGeneration = free == null ? AckTracker.INITIAL_GENERATION : nextGeneration[newId];
        final AckTracker t = new AckTracker(tp.topic(), tp.partition(), startOffset, windowCapacity, System::nanoTime,
            firstGeneration);
        final AckTracker[] next = Arrays.copyOf(trackers, Math.max(trackers.length, newId + 1));
        next[newId] = t;
        ids.put(tp, newId);
        live++;
        trackers = next;
        return t;
    }

    /**
     * Gives up a partition's tracker (source thread: the partition was revoked, lost, or its topic deleted). Its id is
     * reused for a later partition; until then {@link #get(int)} answers a placeholder.
     *
     * @param tp the partition
     * @return its former id, or -1 when it had no tracker
     */
    public int release(final TopicPartition tp)
    {
        final Integer id = ids.remove(tp);
        if (id == null)
        {
            return -1;
        }
        if (nextGeneration.length <= id)
        {
            nextGeneration = Arrays.copyOf(nextGeneration, Math.max(16, (id + 1) * 2));
        }
        final AckTracker old = trackers[id];
        // the generation never wraps within a run: 2^31 resets of one id
        nextGeneration[id] = old.generation() + 1;
        final AckTracker[] next = trackers.clone();
        next[id] = released;
        trackers = next;
        live--;
        freeIds.push(id);
        return id;
    }

    /**
     * @param tp a partition
     * @return its id, or -1 if it has no tracker
     */
    public int idOf(final TopicPartition tp)
    {
        final Integer id = ids.get(tp);
        return id == null ? -1 : id;
    }

    /**
     * @param id a tracker id
     * @return the tracker, or a placeholder when the id's partition was released (any thread; never null)
     */
    public AckTracker get(final int id)
    {
        return trackers[id];
    }

    /**
     * @param id a tracker id below {@link #size()}
     * @return whether the id holds a partition's tracker (not a released one)
     */
    public boolean isLive(final int id)
    {
        return trackers[id] != released;
    }

    /** @return ids handed out so far, live or released (iterate {@code [0, size())} and skip what is not live) */
    public int size()
    {
        return trackers.length;
    }

    /** @return trackers held now (partitions assigned, or the file of a line source) */
    public int live()
    {
        return live;
    }

    /** @return heap the live trackers take, bytes: {@link #live()} x {@link AckTracker#footprintBytes(int)} */
    public long bytes()
    {
        return live * AckTracker.footprintBytes(windowCapacity);
    }

    /** @return the heap one partition's tracker takes, bytes */
    public long bytesPerPartition()
    {
        return AckTracker.footprintBytes(windowCapacity);
    }

    /**
     * Sets what the tables of the pipeline's exactly-once sinks hold of a partition (source thread, after the
     * partition was assigned or reset and before it publishes a record of the new generation; the ring's publication
     * makes it visible to the route stage).
     *
     * @param id        the partition's tracker id
     * @param positions the positions, tagged with the tracker's generation
     */
    public synchronized void storePositions(final int id, final StoredPositions positions)
    {
        final StoredPositions[] s = Arrays.copyOf(stored, Math.max(stored.length, id + 1));
        s[id] = positions;
        stored = s;
    }

    /**
     * Records that a partition's positions were refused ({@link StoredPositions#problem()} not null), or usable again,
     * for {@link #refusedPartitions()} (source thread, with {@link #storePositions}).
     *
     * @param tp      the partition
     * @param problem why its positions cannot be used, or null when they can (again)
     */
    public synchronized void positionsRefused(final TopicPartition tp, final String problem)
    {
        if (problem == null)
        {
            refused.remove(tp.toString());
        }
        else
        {
            refused.put(tp.toString(), problem);
        }
    }

    /**
     * @return the partitions whose records stopped because their positions could not be used, as they were last
     *     read ({@code topic-partition: why}), in name order; empty when none (any thread)
     */
    public synchronized List<String> refusedPartitions()
    {
        return refused.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList();
    }

    /**
     * @param id a tracker id
     * @return the positions last stored for the partition, or null (any thread)
     */
    public StoredPositions storedPositions(final int id)
    {
        final StoredPositions[] s = stored;
        return id < s.length ? s[id] : null;
    }
}
