package io.sluice.core.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutionException;

import javax.net.ssl.SSLHandshakeException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

/**
 * The classification of producer and admin failures (issue 12, item 7), with the messages Kafka 4.1 gives: what is
 * permanent goes to the fallback, the dead letter or a stop; what may pass is retried; what is unknown is retried.
 */
class ProduceErrorsTest
{
    @Test
    void shouldCallARecordTooLargeForTheProducerOrTheBrokerPermanentForThatRecord()
    {
        final RecordTooLargeException producerSide = new RecordTooLargeException("The message is 9437310 bytes when "
            + "serialized which is larger than 1048576, which is the value of the max.request.size configuration.");
        assertEquals(ProduceErrors.Kind.RECORD_REFUSED, ProduceErrors.classify(producerSide));
        assertEquals(ProduceErrors.Kind.RECORD_REFUSED,
            ProduceErrors.classify(new ExecutionException(new RecordTooLargeException("larger than the server"))));
        assertTrue(ProduceErrors.permanent(ProduceErrors.Kind.RECORD_REFUSED));
    }

    @Test
    void shouldCallAnInvalidCollidingOrForbiddenTopicPermanentForTheTopic()
    {
        // CreateTopics' answer for x_eu when x.eu exists (Kafka 4: InvalidTopicException)
        assertEquals(ProduceErrors.Kind.TOPIC_REFUSED, ProduceErrors.classify(new InvalidTopicException(
            "Topic 'x_eu' collides with existing topic: x.eu")));
        assertEquals(ProduceErrors.Kind.TOPIC_REFUSED, ProduceErrors.classify(
            new TopicAuthorizationException("Not authorized to access topics: [secret]")));
        assertTrue(ProduceErrors.permanent(ProduceErrors.Kind.TOPIC_REFUSED));
    }

    @Test
    void shouldEndTheRunWhenTheProducerItselfIsRefused()
    {
        assertEquals(ProduceErrors.Kind.PRODUCER_REFUSED,
            ProduceErrors.classify(new SaslAuthenticationException("Authentication failed")));
        assertEquals(ProduceErrors.Kind.PRODUCER_REFUSED,
            ProduceErrors.classify(new KafkaException(new SSLHandshakeException("PKIX path building failed"))));
        // extends InvalidConfigurationException, as InvalidTopicException does: the table's order decides
        assertEquals(ProduceErrors.Kind.PRODUCER_REFUSED,
            ProduceErrors.classify(new UnsupportedVersionException("old broker")));
        assertFalse(ProduceErrors.permanent(ProduceErrors.Kind.PRODUCER_REFUSED));
    }

    @Test
    void shouldRetryWhatMayPassAndWhatTheTableDoesNotName()
    {
        assertEquals(ProduceErrors.Kind.TRANSIENT, ProduceErrors.classify(new NotEnoughReplicasException("2 of 3")));
        assertEquals(ProduceErrors.Kind.TRANSIENT, ProduceErrors.classify(new NotLeaderOrFollowerException("moved")));
        assertEquals(ProduceErrors.Kind.TRANSIENT,
            ProduceErrors.classify(new TimeoutException("Expiring 3 record(s) for t-0: 120000 ms has passed")));
        assertEquals(ProduceErrors.Kind.TRANSIENT, ProduceErrors.classify(new TopicExistsException("exists")));
        assertEquals(ProduceErrors.Kind.TRANSIENT, ProduceErrors.classify(new IllegalStateException("unknown")));
        assertEquals(ProduceErrors.Kind.TRANSIENT, ProduceErrors.classify(null));
        assertFalse(ProduceErrors.permanent(ProduceErrors.Kind.TRANSIENT));
    }

    @Test
    void shouldLookAgainAtATopicTheProducerDoesNotFindRatherThanCallItGone()
    {
        assertEquals(ProduceErrors.Kind.UNKNOWN_TOPIC,
            ProduceErrors.classify(new UnknownTopicOrPartitionException("This server does not host this topic")));
        // KafkaProducer.waitOnMetadata: also what a broker that is away gives
        assertEquals(ProduceErrors.Kind.UNKNOWN_TOPIC,
            ProduceErrors.classify(new TimeoutException("Topic gone not present in metadata after 60000 ms.")));
        assertFalse(ProduceErrors.permanent(ProduceErrors.Kind.UNKNOWN_TOPIC));
    }

    /** One row of the table of what a broker says about an internal topic. */
    private record Row(Throwable failure, ProduceErrors.Kind kind)
    {
    }

    @Test
    void shouldCallEveryRefusalThatSaysTheTopicIsInternalPermanentForTheTopic()
    {
        final List<Row> table = List.of(
            // Kafka 4.1's controller, CreateTopics for the KRaft metadata log (verified on the broker: RefusedTopicsIT)
            new Row(new InvalidRequestException("Creation of internal topic __cluster_metadata is prohibited."),
                ProduceErrors.Kind.TOPIC_REFUSED),
            new Row(new ExecutionException(new InvalidRequestException(
                "Creation of internal topic __cluster_metadata is prohibited.")), ProduceErrors.Kind.TOPIC_REFUSED),
            new Row(new KafkaException("create", new InvalidRequestException("CREATION OF INTERNAL TOPIC x")),
                ProduceErrors.Kind.TOPIC_REFUSED),
            // the broker's answer to a produce to an internal topic
            new Row(new InvalidTopicException("Cannot append to internal topic __consumer_offsets"),
                ProduceErrors.Kind.TOPIC_REFUSED),
            new Row(new TopicAuthorizationException("Not authorized to write to internal topic __transaction_state"),
                ProduceErrors.Kind.TOPIC_REFUSED),
            new Row(new PolicyViolationException("Internal topic names are refused by policy"),
                ProduceErrors.Kind.TOPIC_REFUSED),
            // by class alone this ends the run; about an internal topic it refuses that topic only
            new Row(new ClusterAuthorizationException("Cluster authorization failed for internal topic "
                + "__share_group_state"), ProduceErrors.Kind.TOPIC_REFUSED),
            new Row(new ClusterAuthorizationException("Cluster authorization failed."),
                ProduceErrors.Kind.PRODUCER_REFUSED),
            // an invalid request that says nothing of an internal topic stays what its class says (retried)
            new Row(new InvalidRequestException("Unexpected request"), ProduceErrors.Kind.TRANSIENT),
            new Row(new InvalidRequestException((String)null), ProduceErrors.Kind.TRANSIENT),
            // a retriable error is never made permanent by its words
            new Row(new NotEnoughReplicasException("internal topic __consumer_offsets has 1 of 3 replicas"),
                ProduceErrors.Kind.TRANSIENT),
            new Row(new TimeoutException("internal topic __transaction_state: request timed out"),
                ProduceErrors.Kind.TRANSIENT),
            // another class with the words is not in the rules: the class table decides
            new Row(new IllegalStateException("internal topic"), ProduceErrors.Kind.TRANSIENT));
        for (final Row r : table)
        {
            assertEquals(r.kind(), ProduceErrors.classify(r.failure()), String.valueOf(r.failure()));
        }
        for (final ProduceErrors.MessageRule rule : ProduceErrors.MESSAGE_RULES)
        {
            assertEquals(ProduceErrors.INTERNAL_TOPIC, rule.fragment(), rule.toString());
            assertTrue(ProduceErrors.permanent(rule.kind()), rule.toString());
        }
    }
}
