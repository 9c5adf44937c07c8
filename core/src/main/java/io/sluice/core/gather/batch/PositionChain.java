package io.sluice.core.gather.batch;

import java.util.Arrays;

import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.ack.StoredPositions;

/**
 * The positions of one table of an exactly-once sink, as the route stage builds its batches: per source partition,
 * what the table held when the partition's current generation began (a record below it is in the table already and is
 * not written again: {@link #HELD}), and the end of the table's last batch of it, which the next batch carries as the
 * position the table must hold before it ({@link BatchBuffer#expectPosition}). The table's batches of a partition so
 * form a chain without gap or overlap: the sink writes a batch's rows and moves the stored position from the expected
 * one to the batch's last offset + 1 in one transaction, and rolls back when the table holds another position (a batch
 * before it was not written, or another member wrote the partition since).
 *
 * <p>The stored positions come from {@link PartitionTrackers#storedPositions}, read by the source when the partition
 * was assigned or read again, tagged with the tracker generation; a record of a generation whose positions are not
 * there, or could not be read, is {@link #UNKNOWN}. Route stage thread only; allocates only when a tracker id beyond
 * any before appears.
 */
public final class PositionChain
{
    /** The table does not hold the record: write it. */
    public static final int WRITE = 0;
    /** The table holds the record already: acknowledge it without a row. */
    public static final int HELD = 1;
    /** The record's partition was reset since it was published: it comes again, neither write nor acknowledge it. */
    public static final int STALE = 2;
    /** What the table holds of the partition is not known ({@link #problem}): the record stops its partition. */
    public static final int UNKNOWN = 3;

    private final String key;
    private int[] generation = new int[16];
    private long[] held = new long[16];
    private long[] end = new long[16];
    private String[] problem = new String[16];
    private String lastProblem;

    /** @param key the table's position key, as the sink's {@code PositionStore} names it */
    public PositionChain(final String key)
    {
        this.key = key;
    }

    /** @return the table's position key */
    public String key()
    {
        return key;
    }

    /**
     * Whether a record that goes to this table is to be written.
     *
     * @param trackers   the pipeline's trackers
     * @param trackerId  the record's tracker id
     * @param gen        the tracker generation the record was published in
     * @param offset     its offset
     * @return {@link #WRITE}, {@link #HELD}, {@link #STALE} or {@link #UNKNOWN}
     */
    public int check(final PartitionTrackers trackers, final int trackerId, final int gen, final long offset)
    {
        if (trackerId >= generation.length)
        {
            final int n = Math.max(trackerId + 1, generation.length * 2);
            generation = Arrays.copyOf(generation, n);
            held = Arrays.copyOf(held, n);
            end = Arrays.copyOf(end, n);
            problem = Arrays.copyOf(problem, n);
        }
        if (trackers.get(trackerId).generation() != gen)
        {
            return STALE;
        }
        if (generation[trackerId] != gen)
        {
            final StoredPositions stored = trackers.storedPositions(trackerId);
            if (stored == null || stored.generation() != gen)
            {
                lastProblem = "the positions of its exactly-once tables were not read for this generation of the "
                    + "partition";
                return UNKNOWN;
            }
            generation[trackerId] = gen;
            problem[trackerId] = stored.problem();
            held[trackerId] = stored.nextOf(key);
            end[trackerId] = held[trackerId];
        }
        if (problem[trackerId] != null)
        {
            lastProblem = problem[trackerId];
            return UNKNOWN;
        }
        return offset < held[trackerId] ? HELD : WRITE;
    }

    /** @return why the last {@link #UNKNOWN} answer was given */
    public String problem()
    {
        return lastProblem;
    }

    /**
     * @param trackerId a tracker id {@link #check} answered for
     * @return the next offset the table held of the partition when its current generation began
     */
    public long heldBelow(final int trackerId)
    {
        return held[trackerId];
    }

    /**
     * Records that a row of the partition was added to the batch (by {@link BatchBuffer#addRow}, for a record
     * {@link #check} answered {@link #WRITE}): the batch's first row of the partition takes the chain's end as its
     * expected position, and the chain ends after the row.
     *
     * @param batch     the open batch the row went to
     * @param trackerId the record's tracker id
     * @param offset    its offset
     */
    public void appended(final BatchBuffer batch, final int trackerId, final long offset)
    {
        if (batch.expectedOf(trackerId) < 0)
        {
            batch.expectPosition(trackerId, end[trackerId]);
        }
        end[trackerId] = offset + 1;
    }
}
