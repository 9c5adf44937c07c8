package io.sluice.core.gather;

import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A tombstone under {@code tombstones = "delete"} in a {@link RouteStage}: it has no value, so no branch condition
 * can choose for it. It deletes from the one table the topic's branches write to whose binding deletes rows
 * ({@link RowEncoder.Bound#deletes()}), as a delete row in that table's open batch, so that the writer applies it in
 * offset order with the rows around it in the same transaction. Every branch's destination of the topic is resolved
 * (cached per topic, as for rows); a destination that cannot be resolved stops the partition as it does for a row. A
 * record error under {@code on_error}: no branch's table deletes rows, the branches write to more than one such table
 * (which one holds the key cannot be known without a value, and one offset is acknowledged by one batch), a sink with
 * several shards (the row's shard is chosen from its value), a key that names no row (the encoder's reason).
 *
 * <p>Shapes: branches by their index in the split ({@code [0, branches)}). Allocates nothing unless the record fails.
 *
 * <p>Thread-safety: confined to its route stage's thread; not thread-safe.
 */
final class TombstoneDeletes
{
    /** What the route stage does for a tombstone (its thread). */
    interface Route
    {
        /**
         * The destination of the record's topic in a branch, as for a row.
         *
         * @param branch the branch index
         * @param event  the record
         * @return the destination, or null when the record's fate is settled (its partition stops, or the error)
         * @throws RuntimeException {@link RouteStage#RETRY_LATER} when the stage cannot take the record yet
         */
        Destination destination(int branch, RecordEvent event);

        /**
         * Appends the delete of the row the record's key names to the open batch of (destination, shard 0).
         *
         * @param event  the record, with its key
         * @param branch the branch index
         * @param dest   the destination whose binding deletes rows
         */
        void appendDelete(RecordEvent event, int branch, Destination dest);
    }

    private final String[] names;
    private final int[] shards;
    private final RecordFates fates;
    private final Route route;

    /**
     * @param branches how many branches the split has
     * @param fates    the stage's record fates
     * @param route    the stage's resolution and append
     */
    TombstoneDeletes(final int branches, final RecordFates fates, final Route route)
    {
        this.names = new String[branches];
        this.shards = new int[branches];
        this.fates = fates;
        this.route = route;
    }

    /**
     * Names a branch (before the stage runs).
     *
     * @param index  its index
     * @param name   its name
     * @param shards its sink's shards
     */
    void branch(final int index, final String name, final int shards)
    {
        this.names[index] = name;
        this.shards[index] = shards;
    }

    /**
     * Settles a tombstone: a delete row in the table that deletes rows, a re-read with its key, its partition
     * stopping, or a record error (see the class comment).
     *
     * @param event the tombstone
     */
    void delete(final RecordEvent event)
    {
        int target = -1;
        Destination dest = null;
        for (int b = 0; b < names.length; b++)
        {
            final Destination d = route.destination(b, event);
            if (d == null)
            {
                return; // settled: its partition stops here, or a resolver that threw was the record's error
            }
            if (!d.encoder().deletes() || d == dest)
            {
                continue;
            }
            if (dest != null && !(dest.sink().equals(d.sink()) && dest.sqlTable().equals(d.sqlTable())))
            {
                error(event, "the topic's branches write to more than one table that deletes rows (" + dest + " and "
                    + d + "): a tombstone has no value to choose one by", target, dest);
                return;
            }
            if (dest == null)
            {
                dest = d;
                target = b;
            }
        }
        if (dest == null)
        {
            error(event, "no table of the topic's branches deletes rows", -1, null);
            return;
        }
        if (!event.hasKeyAndHeaders())
        {
            fates.rereadWithKeys(event, dest);
            return;
        }
        if (shards[target] != 1)
        {
            error(event, "the sink has " + shards[target] + " shards, and a row's shard is chosen from its "
                + "value, which a tombstone has not", target, dest);
            return;
        }
        route.appendDelete(event, target, dest);
    }

    private void error(final RecordEvent event, final String why, final int branch, final Destination dest)
    {
        final String what = "tombstone (tombstones = delete): " + why;
        fates.refusedTombstone(event, what, RecordFates.thrown(DeadLetterHeaders.STAGE_ROUTE, what, null,
            branch < 0 ? null : names[branch], dest == null ? null : dest.toString()));
    }
}
