package io.sluice.core.source;

import org.apache.kafka.common.KafkaException;

/**
 * Explains the group coordinator's failures that have a known cause the client's message does not name. With the
 * classic consumer group protocol the coordinator stores the group's subscriptions and assignment as one record in
 * {@code __consumer_offsets}; with thousands of topics in one group (a pattern over a topic per user) that record
 * outgrows the broker's {@code max.message.bytes} for the topic (1 MiB by default), the broker logs "The request
 * included a message larger than the max message size the server will accept" and answers the JoinGroup or
 * SyncGroup with UNKNOWN_SERVER_ERROR, which the client reports as "Unexpected error from SyncGroup: The server
 * experienced an unexpected error when processing the request." (measured with Kafka 4.1 at 10,000 topics of 44-byte
 * names, docs/benchmarks.md). Thread-safe (stateless).
 */
final class GroupCoordinatorErrors
{
    private GroupCoordinatorErrors()
    {
    }

    /**
     * @param e          what the consumer threw
     * @param group      the consumer group
     * @param partitions the partitions this member held
     * @return {@code e} itself, or for a JoinGroup/SyncGroup failure of the coordinator a {@link KafkaException}
     *         with the same cause that says what to look at and what to change
     */
    static KafkaException explain(final KafkaException e, final String group, final int partitions)
    {
        final String m = String.valueOf(e.getMessage());
        if (!m.startsWith("Unexpected error from SyncGroup") && !m.startsWith("Unexpected error from JoinGroup"))
        {
            return e;
        }
        return new KafkaException(m + " (group " + group + ", " + partitions + " partitions held by this member). "
            + "If the broker logged \"message larger than the max message size\" for __consumer_offsets, the "
            + "group's subscriptions and assignment outgrew one record of it (the classic group protocol stores "
            + "them so; thousands of topics in one group do it): raise max.message.bytes of __consumer_offsets "
            + "(kafka-configs --alter --entity-type topics --entity-name __consumer_offsets --add-config "
            + "max.message.bytes=16777216), or split the topics over several groups (docs/tuning.md, "
            + "\"A topic per user\")", e);
    }
}
