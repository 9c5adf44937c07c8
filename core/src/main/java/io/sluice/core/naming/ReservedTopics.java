package io.sluice.core.naming;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.internals.Topic;

/**
 * The topic names Kafka keeps for itself, and the one test of whether a routed name is one of them. No record is ever
 * produced to such a name and Sluice never asks the broker to create it: a routed record whose sanitised topic is
 * reserved is refused for good before any create or produce (the rule's fallback, else the dead-letter topic, else the
 * pipeline stops naming the topic and this reason).
 *
 * <p>The list, with where Kafka defines each name (Apache Kafka 4.1):
 * <ul>
 *   <li>{@code __consumer_offsets}: the group coordinator's offsets and group metadata
 *       ({@code org.apache.kafka.common.internals.Topic.GROUP_METADATA_TOPIC_NAME});</li>
 *   <li>{@code __transaction_state}: the transaction coordinator's log
 *       ({@code Topic.TRANSACTION_STATE_TOPIC_NAME});</li>
 *   <li>{@code __share_group_state}: the share coordinator's state, KIP-932
 *       ({@code Topic.SHARE_GROUP_STATE_TOPIC_NAME});</li>
 *   <li>{@code __cluster_metadata}: the KRaft metadata log, KIP-500 ({@code Topic.CLUSTER_METADATA_TOPIC_NAME}; not in
 *       {@code Topic.isInternal}, and the controller answers a CreateTopics for it with INVALID_REQUEST "Creation of
 *       internal topic __cluster_metadata is prohibited", which the client's taxonomy calls neither retriable nor
 *       topic-specific);</li>
 *   <li>{@code __remote_log_metadata}: tiered storage's remote log metadata, KIP-405
 *       ({@code TopicBasedRemoteLogMetadataManagerConfig.REMOTE_LOG_METADATA_TOPIC_NAME} in kafka-storage; a broker
 *       without tiered storage lets a client create it as an ordinary topic, which a later enabling of tiered
 *       storage would then find with the wrong layout).</li>
 * </ul>
 * Besides these, any name {@code Topic.isInternal} of the kafka-clients on the class path reports (so a name a later
 * client adds is covered), and any name the broker itself reports as internal (the {@code isInternal} flag of its
 * topic listing, passed in by the caller that connects).
 *
 * <p>A name is also refused when it differs from a reserved one only in {@code .} versus {@code _}
 * ({@code __consumer.offsets}): Kafka's metric names read the two alike, so Kafka refuses to create such a name while
 * the reserved topic exists ({@code Topic.hasCollision}); and a broker whose reserved topic does not exist yet (a
 * cluster where no group has committed) accepts it, which would then keep Kafka from creating its own topic. Kafka
 * topic names are case-sensitive ({@code Topic.validate} compares bytes), so {@code __CLUSTER_METADATA} or
 * {@code __Consumer_Offsets} are ordinary names. The test applies to the name after sanitising
 * ({@link TopicNameSanitizer}), so a value that becomes a reserved name only once trimmed or once an illegal character
 * is replaced ({@code " __cluster_metadata "}, {@code "__cluster metadata"}) is refused too.
 *
 * <p>Stateless and thread-safe. Allocates (off the hot path: once per distinct topic name).
 */
public final class ReservedTopics
{
    /** The names Kafka reserves, in the order above, each with what it holds. */
    public static final Map<String, String> NAMES = names();

    private ReservedTopics()
    {
    }

    private static Map<String, String> names()
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put(Topic.GROUP_METADATA_TOPIC_NAME, "the group coordinator's offsets and group metadata");
        m.put(Topic.TRANSACTION_STATE_TOPIC_NAME, "the transaction coordinator's log");
        m.put(Topic.SHARE_GROUP_STATE_TOPIC_NAME, "the share coordinator's state");
        m.put(Topic.CLUSTER_METADATA_TOPIC_NAME, "the KRaft metadata log");
        m.put("__remote_log_metadata", "tiered storage's remote log metadata");
        return Collections.unmodifiableMap(m);
    }

    /**
     * Why records cannot go to a topic of this name, when Kafka reserves it (the list above or
     * {@code Topic.isInternal}), or it differs from a reserved name only in {@code .} versus {@code _}.
     *
     * @param topic a sanitised topic name, not null
     * @return the reason, naming the topic (and the reserved name it collides with), or null when the name is ordinary
     */
    public static String refusal(final String topic)
    {
        return refusal(topic, List.of());
    }

    /**
     * As {@link #refusal(String)}, also refusing the names the broker reports as internal.
     *
     * @param topic          a sanitised topic name, not null
     * @param brokerInternal the names the broker's topic listing flags {@code isInternal} (may be empty)
     * @return the reason, naming the topic, or null when the name is ordinary
     */
    public static String refusal(final String topic, final Collection<String> brokerInternal)
    {
        final String holds = NAMES.get(topic);
        if (holds != null)
        {
            return reserved(topic, "Kafka reserves it for " + holds);
        }
        if (Topic.isInternal(topic))
        {
            return reserved(topic, "Kafka's Topic.isInternal names it");
        }
        if (brokerInternal.contains(topic))
        {
            return reserved(topic, "the broker lists it as internal");
        }
        final String unified = Topic.unifyCollisionChars(topic);
        for (final String name : NAMES.keySet())
        {
            if (Topic.unifyCollisionChars(name).equals(unified))
            {
                return collision(topic, name);
            }
        }
        for (final String name : brokerInternal)
        {
            if (Topic.unifyCollisionChars(name).equals(unified))
            {
                return collision(topic, name);
            }
        }
        return null;
    }

    private static String reserved(final String topic, final String why)
    {
        return "topic " + topic + " is internal to Kafka (" + why + "): no record can be produced to it, and it is "
            + "never created";
    }

    private static String collision(final String topic, final String name)
    {
        return "topic " + topic + " collides with Kafka's internal topic " + name + ": the same name once '.' and '_' "
            + "are read alike (as Kafka's metric names read them), so it is never created (it would keep Kafka from "
            + "creating " + name + ")";
    }
}
