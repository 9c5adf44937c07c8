package io.sluice.core.ack;

import java.util.Map;

/**
 * What the tables of an exactly-once sink hold of one source partition, read when the partition was assigned or
 * read again: per table (its position key, {@code PositionChain}'s), the next offset that table has not written, so
 * every record of the partition below it that goes to that table is in it already. A table with no stored position
 * holds nothing ({@link #nextOf} answers 0). Tagged with the tracker generation it was read for: the route stage uses
 * it only for records of that generation. Immutable; thread-safe.
 *
 * @param generation the {@link AckTracker#generation()} of the partition's tracker the positions were read for
 * @param next       per table's position key, the next offset the table has not written (never negative)
 * @param problem    null when the positions were read; else why they could not be used (the server did not answer,
 *                   a stored position lies above the partition's end), and records of the partition that go to a
 *                   table of that sink stop there, naming it
 */
public record StoredPositions(int generation, Map<String, Long> next, String problem)
{
    /**
     * Copies the map.
     *
     * @param generation the tracker generation
     * @param next       positions by table key
     * @param problem    why they cannot be used, or null
     */
    public StoredPositions
    {
        next = Map.copyOf(next);
    }

    /**
     * @param key a table's position key
     * @return the next offset the table has not written of this partition; 0 when it holds nothing
     */
    public long nextOf(final String key)
    {
        final Long n = next.get(key);
        return n == null ? 0 : n;
    }
}
