package io.sluice.core.deadletter;

import org.apache.kafka.clients.producer.Producer;

/**
 * The Kafka clients a pipeline's {@link DeadLetters} use: one producer, and a way to make sure a dead-letter topic
 * exists. {@link KafkaDeadLetterClients} is the real one; tests may give Kafka's {@code MockProducer}.
 *
 * <p>Threads: called by the dead-letter agent's thread only (the producer's callbacks run on its I/O thread).
 */
public interface DeadLetterClients extends AutoCloseable
{
    /** @return the producer (idempotent, {@code acks=all}, byte arrays) */
    Producer<byte[], byte[]> producer();

    /**
     * Makes sure a topic exists: looks it up, and creates it when it is absent and creation is allowed. Blocks for at
     * most the admin client's timeout.
     *
     * @param topic             the topic
     * @param create            whether an absent topic may be created
     * @param partitions        partitions of a created topic, -1 for the broker's default
     * @param replicationFactor replicas of a created topic, -1 for the broker's default
     * @return null when the topic exists now, else why not (naming the topic) and whether that is for good
     */
    Missing ensureTopic(String topic, boolean create, int partitions, int replicationFactor);

    /**
     * Why a dead-letter topic is not there to write to.
     *
     * @param why       what failed, naming the topic
     * @param permanent true when asking again cannot help: the broker refused the lookup or the creation with an
     *                  error Kafka's taxonomy calls non-retriable (an invalid or colliding name, a missing ACL, a
     *                  policy, a replication factor the cluster cannot meet); false for an absent topic under
     *                  {@code create_topics = false} (an operator may create it), a timeout or the broker away
     */
    record Missing(String why, boolean permanent)
    {
    }

    /** Closes the clients, waiting at most a few seconds for buffered dead letters; never throws. */
    @Override
    void close();
}
