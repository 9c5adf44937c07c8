package io.sluice.core.scatter;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * Topic administration for a scatter pipeline: list, look up and create topics. Called off the hot path, by one
 * thread at a time (the pipeline's starting thread, then its admin thread). Every method blocks for at most the
 * client's request timeout.
 */
public interface TopicAdmin extends AutoCloseable
{
    /** What the broker said about one topic. */
    enum Outcome
    {
        /** The topic exists (it was there already, or another client created it first). */
        EXISTS,
        /** This call created the topic. */
        CREATED,
        /** The topic does not exist. */
        ABSENT,
        /** The request failed; see the message. */
        FAILED
    }

    /**
     * The result for one topic.
     *
     * @param outcome what happened
     * @param error   for FAILED, the broker's or client's message; else null
     * @param cause   for FAILED, the exception (classified by {@link ProduceErrors}), or null
     */
    record Result(Outcome outcome, String error, Throwable cause)
    {
        /**
         * @param outcome what happened
         * @param error   for FAILED, the message; else null
         */
        public Result(final Outcome outcome, final String error)
        {
            this(outcome, error, null);
        }
    }

    /**
     * @return the names of every topic the broker has
     * @throws RuntimeException when the broker cannot be reached within the client's timeout
     */
    Set<String> listTopics();

    /**
     * The topics the broker flags as internal in its listing (Kafka's {@code TopicListing.isInternal}: today
     * {@code __consumer_offsets}, {@code __transaction_state}, {@code __share_group_state} once they exist), so that a
     * name a newer broker reserves is refused as the known ones are ({@link io.sluice.core.naming.ReservedTopics}).
     *
     * @return the names, possibly empty; the default implementation knows none
     * @throws RuntimeException when the broker cannot be reached within the client's timeout
     */
    default Set<String> listInternalTopics()
    {
        return Set.of();
    }

    /**
     * Looks up topics.
     *
     * @param names topic names
     * @return for every name EXISTS, ABSENT or FAILED
     */
    Map<String, Result> describeTopics(Collection<String> names);

    /**
     * Creates topics in one request; a topic that exists already (concurrent creation by another client) is
     * EXISTS, not an error.
     *
     * @param names             topic names
     * @param partitions        partitions, or -1 for the broker's default
     * @param replicationFactor replicas, or -1 for the broker's default
     * @return for every name CREATED, EXISTS or FAILED
     */
    Map<String, Result> createTopics(Collection<String> names, int partitions, int replicationFactor);

    /** Closes the connection; never throws. */
    @Override
    void close();
}
