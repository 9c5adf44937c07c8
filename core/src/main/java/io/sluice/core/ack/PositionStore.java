package io.sluice.core.ack;

import java.util.Collection;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * Where an exactly-once sink keeps, in the same transaction as the rows, how far each of its tables has written each
 * source partition (docs/effectively-once.md, "PostgreSQL: exactly-once"). The source reads it when partitions are
 * assigned, and again when a partition is read again, before it publishes a record of the partition: off the record
 * path. Database-neutral: the sink kind implements it.
 *
 * <p>Thread-safety: called by the source thread only.
 */
public interface PositionStore
{
    /**
     * Reads the stored positions of these partitions, in one query per store.
     *
     * @param partitions the partitions, not empty
     * @return per partition, per table's position key, the next offset the table has not written; a partition or a
     *     table without a stored position is absent
     * @throws Exception when the store cannot be read (the caller stops the partitions' records, naming it)
     */
    Map<TopicPartition, Map<String, Long>> read(Collection<TopicPartition> partitions) throws Exception;

    /**
     * @return where the positions are kept, in words for messages (e.g. {@code positions table
     *     "public"."sluice_offsets" at jdbc:postgresql://h:5432/db, group sluice-pg})
     */
    String describe();

    /**
     * The position key of a table whose positions are kept in a place (stores of several sinks read as one): never
     * shown as it is, {@link #describeKey} puts it in words.
     *
     * @param place where the table's positions are kept ({@link #describe()} of its store)
     * @param table the table as its sink's SQL names it
     * @return the key
     */
    static String key(final String place, final String table)
    {
        return place + '\0' + table;
    }

    /**
     * @param key a position key: {@link #key} of a place and a table, or a table alone (a store read on its own)
     * @return the key in words, e.g. {@code table "public"."orders" (positions table "public"."sluice_offsets" at
     *     jdbc:postgresql://h:5432/db, group sluice-pg)}
     */
    static String describeKey(final String key)
    {
        final int at = key.indexOf('\0');
        return at < 0 ? "table " + key : "table " + key.substring(at + 1) + " (" + key.substring(0, at) + ")";
    }
}
