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

    /** @return where the positions are kept, for messages (e.g. {@code "public"."sluice_offsets" at ...}) */
    String describe();
}
