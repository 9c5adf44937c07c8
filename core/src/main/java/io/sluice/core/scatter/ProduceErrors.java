package io.sluice.core.scatter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.net.ssl.SSLException;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidRequiredAcksException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The explicit table of what a failed send or topic request means for the record, read from Kafka's own exception
 * taxonomy (kafka-clients {@code org.apache.kafka.common.errors}: {@code RetriableException} and its subclasses are
 * worth retrying; an {@code ApiException} that is not one fails the same way every time). The kinds:
 *
 * <ul>
 *   <li>{@link Kind#RECORD_REFUSED}: this record cannot be produced in its form, to any topic of the same limits
 *       (larger than {@code max.request.size} or {@code buffer.memory} on the producer, or than the broker's
 *       {@code message.max.bytes} / the topic's {@code max.message.bytes}; invalid for the topic, such as a record
 *       without a key for a compacted topic; a timestamp outside the topic's window). Other records are fine.</li>
 *   <li>{@link Kind#TOPIC_REFUSED}: no record can go to this topic: its name is invalid or internal
 *       ({@code __consumer_offsets}), it collides with an existing topic once {@code .} and {@code _} are the same
 *       (Kafka 4 refuses to create it), the user lacks the ACL for it, or a policy refuses it.</li>
 *   <li>{@link Kind#UNKNOWN_TOPIC}: the producer did not find the topic (retriable in Kafka's taxonomy: metadata may
 *       lag a creation, and the producer's "not present in metadata" timeout also comes when the broker is away).
 *       Not permanent by itself: the record is read again and the admin client looks the topic up; with
 *       {@code create_topics = true} it creates it again, with {@code create_topics = false} a topic the broker
 *       does not have is ABSENT, which is permanent (the records routed to it take the fallback, else stop).</li>
 *   <li>{@link Kind#PRODUCER_REFUSED}: the producer itself is refused (authentication, the TLS handshake, cluster
 *       authorization, an unsupported version): nothing can be produced, the run ends whatever the fallback.</li>
 *   <li>{@link Kind#TRANSIENT}: anything else, including every {@code RetriableException} (a leader moving, not
 *       enough replicas, a timeout) and what the table does not name: the record is nacked and read again (the
 *       stall limit bounds it). Unknown errors are transient on purpose: treating a transient error as permanent
 *       would send a record to its fallback topic, a wrong destination, which is worse than a stall.</li>
 * </ul>
 *
 * <p>Before the class table, {@link #MESSAGE_RULES}: a non-retriable error of a listed class whose message says the
 * topic is internal ({@value #INTERNAL_TOPIC}, case-insensitive) is {@link Kind#TOPIC_REFUSED}, whatever its class
 * alone would mean. Kafka's controller answers a CreateTopics for the KRaft metadata log with
 * {@code InvalidRequestException} "Creation of internal topic __cluster_metadata is prohibited." (Kafka 4.1
 * {@code ControllerApis}), a class that by itself is no reason to give up; the broker answers a produce to an internal
 * topic with {@code InvalidTopicException} "Cannot append to internal topic ..."; an authorizer may word its refusal
 * of an internal topic as a cluster authorization failure, which by class would end the run. A
 * {@code RetriableException} is never made permanent by its message.
 *
 * <p>The first cause in the chain that a rule or the table names decides (the table is ordered most specific first,
 * since {@code InvalidTopicException} and {@code UnsupportedVersionException} both extend
 * {@code InvalidConfigurationException}). Thread-safe (stateless).
 */
public final class ProduceErrors
{
    /** What a failure means for the record. */
    public enum Kind
    {
        /** Retry: the record is nacked and read again. */
        TRANSIENT,
        /** The producer did not find the topic: looked up (or created) again, the record read again. */
        UNKNOWN_TOPIC,
        /** Permanent for this record: to the fallback, else stop. */
        RECORD_REFUSED,
        /** Permanent for every record of the topic: to the fallback, else stop. */
        TOPIC_REFUSED,
        /** Permanent for the producer: the run ends. */
        PRODUCER_REFUSED
    }

    /** Kafka's exceptions and what they mean, most specific first (the first match in a cause chain wins). */
    public static final Map<Class<? extends Throwable>, Kind> TABLE = table();

    /** What a broker's message says when it refuses a topic for being internal (matched case-insensitively). */
    public static final String INTERNAL_TOPIC = "internal topic";

    /**
     * A rule read before {@link #TABLE}: a failure of this class (or a subclass) whose message contains the fragment
     * (case-insensitive) means the kind.
     *
     * @param type     the exception class
     * @param fragment what the message contains
     * @param kind     what it means
     */
    public record MessageRule(Class<? extends Throwable> type, String fragment, Kind kind)
    {
    }

    /** The message rules, in order (the first match wins); only for non-retriable errors. */
    public static final List<MessageRule> MESSAGE_RULES = List.of(
        new MessageRule(InvalidRequestException.class, INTERNAL_TOPIC, Kind.TOPIC_REFUSED),
        new MessageRule(InvalidTopicException.class, INTERNAL_TOPIC, Kind.TOPIC_REFUSED),
        new MessageRule(TopicAuthorizationException.class, INTERNAL_TOPIC, Kind.TOPIC_REFUSED),
        new MessageRule(ClusterAuthorizationException.class, INTERNAL_TOPIC, Kind.TOPIC_REFUSED),
        new MessageRule(PolicyViolationException.class, INTERNAL_TOPIC, Kind.TOPIC_REFUSED));

    private ProduceErrors()
    {
    }

    private static Map<Class<? extends Throwable>, Kind> table()
    {
        final Map<Class<? extends Throwable>, Kind> t = new LinkedHashMap<>();
        t.put(RecordTooLargeException.class, Kind.RECORD_REFUSED);
        t.put(RecordBatchTooLargeException.class, Kind.RECORD_REFUSED);
        t.put(InvalidRecordException.class, Kind.RECORD_REFUSED);
        t.put(InvalidTimestampException.class, Kind.RECORD_REFUSED);
        t.put(UnknownTopicOrPartitionException.class, Kind.UNKNOWN_TOPIC);
        t.put(InvalidTopicException.class, Kind.TOPIC_REFUSED);
        t.put(TopicAuthorizationException.class, Kind.TOPIC_REFUSED);
        t.put(PolicyViolationException.class, Kind.TOPIC_REFUSED);
        t.put(InvalidReplicationFactorException.class, Kind.TOPIC_REFUSED);
        t.put(InvalidPartitionsException.class, Kind.TOPIC_REFUSED);
        t.put(ClusterAuthorizationException.class, Kind.PRODUCER_REFUSED);
        t.put(TransactionalIdAuthorizationException.class, Kind.PRODUCER_REFUSED);
        t.put(AuthorizationException.class, Kind.PRODUCER_REFUSED);
        t.put(AuthenticationException.class, Kind.PRODUCER_REFUSED);
        t.put(SSLException.class, Kind.PRODUCER_REFUSED);
        t.put(UnsupportedVersionException.class, Kind.PRODUCER_REFUSED);
        t.put(UnsupportedForMessageFormatException.class, Kind.PRODUCER_REFUSED);
        t.put(InvalidRequiredAcksException.class, Kind.PRODUCER_REFUSED);
        t.put(InvalidConfigurationException.class, Kind.TOPIC_REFUSED);
        return Collections.unmodifiableMap(t);
    }

    /**
     * @param failure what a send's callback, an admin future or the producer threw (may be null)
     * @return what it means for the record; {@link Kind#TRANSIENT} for null or anything the table does not name
     */
    public static Kind classify(final Throwable failure)
    {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (c instanceof TimeoutException && String.valueOf(c.getMessage()).contains("not present in metadata"))
            {
                // the producer waited max.block.ms for the topic's metadata (KafkaProducer.waitOnMetadata)
                return Kind.UNKNOWN_TOPIC;
            }
            if (!(c instanceof RetriableException))
            {
                final Kind byMessage = byMessage(c);
                if (byMessage != null)
                {
                    return byMessage;
                }
            }
            for (final Map.Entry<Class<? extends Throwable>, Kind> e : TABLE.entrySet())
            {
                if (e.getKey().isInstance(c))
                {
                    return e.getValue();
                }
            }
        }
        return Kind.TRANSIENT;
    }

    private static Kind byMessage(final Throwable c)
    {
        final String message = c.getMessage();
        if (message == null)
        {
            return null;
        }
        final String lower = message.toLowerCase(Locale.ROOT);
        for (final MessageRule r : MESSAGE_RULES)
        {
            if (r.type().isInstance(c) && lower.contains(r.fragment()))
            {
                return r.kind();
            }
        }
        return null;
    }

    /**
     * @param kind a classified failure
     * @return whether the record can never be produced to this topic as it is (fallback, else dead letter, else
     *         stop)
     */
    public static boolean permanent(final Kind kind)
    {
        return kind == Kind.RECORD_REFUSED || kind == Kind.TOPIC_REFUSED;
    }
}
