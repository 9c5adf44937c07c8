package io.sluice.core.deadletter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.DeadLetterConfig;
import io.sluice.core.stage.PipelineControl;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The dead-letter stage with Kafka's own {@code MockProducer} in place of the broker connection (the broker's side is
 * {@code DeadLetterIT}'s): what a dead letter carries, byte for byte and header by header; that the record's offset is
 * acknowledged only when the send completes, and failed (never acknowledged) when it fails or the topic is missing;
 * and the template over the record's topic, sanitised.
 */
class DeadLettersTest
{
    /** A MockProducer and a scripted topic check. */
    private static final class Clients implements DeadLetterClients
    {
        final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(),
            new ByteArraySerializer());
        final Map<String, DeadLetterClients.Missing> missing = new LinkedHashMap<>();
        final List<String> asked = new ArrayList<>();

        @Override
        public Producer<byte[], byte[]> producer()
        {
            return producer;
        }

        @Override
        public DeadLetterClients.Missing ensureTopic(final String topic, final boolean create, final int partitions,
            final int replicationFactor)
        {
            asked.add(topic + (create ? " create " + partitions + "/" + replicationFactor : ""));
            return missing.get(topic);
        }

        @Override
        public void close()
        {
        }
    }

    private final PartitionTrackers trackers = new PartitionTrackers(1024);
    private final AckTracker tracker = trackers.trackerFor(new TopicPartition("orders.eu", 2), 40);
    private final Clients clients = new Clients();
    private final PipelineControl control = new PipelineControl();
    private final DeadLetters stage = new DeadLetters("p", new DeadLetterConfig("dlq.{topic}", true, 3, -1), clients,
        trackers, control, 4, 1 << 20);

    private RecordEvent event(final long offset)
    {
        assertEquals(AckTracker.REGISTERED, tracker.tryRegister(offset));
        final RecordEvent e = new RecordEvent(new UnsafeBuffer(new byte[1024]));
        e.beginRecord(null, 512, 0, 2, offset, 1_700_000_000_123L, trackers.idOf(new TopicPartition("orders.eu", 2)),
            tracker.generation());
        e.timestampType(RecordEvent.LOG_APPEND_TIME);
        e.putValue(new byte[]{'{', 'x', 0, (byte)0xff});
        e.putKey(new byte[]{1, 2, 3});
        e.putHeader("h", new byte[]{9});
        e.putHeader("h", null);
        e.putHeader("__connect.errors.topic", "older".getBytes(StandardCharsets.UTF_8));
        return e;
    }

    private static String header(final ProducerRecord<byte[], byte[]> r, final String name)
    {
        final Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldCarryTheRecordByteForByteWithTheHeadersThatSayWhy()
    {
        final DeadLetter.Why why = new DeadLetter.Why(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_CONVERT,
            "column n (UInt8) from path n: out of range", null, "clicks", "db.clicks", "n", "n", 0);
        assertEquals(DeadLetters.OFFERED, stage.offer(DeadLetter.of("p", event(40), "orders.eu", why)));
        assertFalse(stage.idle());
        assertEquals(1, stage.doWork());
        assertEquals(List.of("dlq.orders.eu create 3/-1"), clients.asked, "the topic is made sure of once");
        final ProducerRecord<byte[], byte[]> r = clients.producer.history().get(0);
        assertEquals("dlq.orders.eu", r.topic());
        assertNull(r.partition(), "the producer's partitioner places it by its key");
        assertNull(r.timestamp(), "time-stamped when produced (the record's is in sluice.errors.timestamp)");
        assertArrayEquals(new byte[]{1, 2, 3}, r.key());
        assertArrayEquals(new byte[]{'{', 'x', 0, (byte)0xff}, r.value());
        final Header[] hs = r.headers().toArray();
        assertEquals("h", hs[0].key());
        assertArrayEquals(new byte[]{9}, hs[0].value());
        assertEquals("h", hs[1].key());
        assertNull(hs[1].value(), "a null header value stays null");
        assertEquals("older", new String(hs[2].value(), StandardCharsets.UTF_8), "the record's own headers first");
        assertEquals("orders.eu", header(r, "__connect.errors.topic"), "the last of a name is this failure's");
        assertEquals("2", header(r, "__connect.errors.partition"));
        assertEquals("40", header(r, "__connect.errors.offset"));
        assertEquals("column n (UInt8) from path n: out of range", header(r, "__connect.errors.exception.message"));
        assertNull(header(r, "__connect.errors.exception.class.name"), "no exception decided it");
        assertEquals("p", header(r, "sluice.errors.pipeline"));
        assertEquals("convert", header(r, "sluice.errors.stage"));
        assertEquals("invalid", header(r, "sluice.errors.reason"));
        assertEquals("1700000000123", header(r, "sluice.errors.timestamp"));
        assertEquals("LogAppendTime", header(r, "sluice.errors.timestamp.type"));
        assertEquals("clicks", header(r, "sluice.errors.branch"));
        assertEquals("db.clicks", header(r, "sluice.errors.table"));
        assertEquals("n", header(r, "sluice.errors.column"));
        assertEquals("n", header(r, "sluice.errors.path"));
        assertNull(header(r, "sluice.errors.code"));

        assertEquals(40, tracker.watermark(), "nothing is committable before the broker acknowledged it");
        clients.producer.completeNext();
        assertEquals(41, tracker.watermark());
        assertTrue(stage.idle());
        assertEquals(1, stage.written(DeadLetterReason.INVALID));
    }

    @Test
    void shouldFailTheOffsetWhenTheDeadLetterCannotBeWritten()
    {
        final DeadLetter.Why why = DeadLetter.Why.of(DeadLetterReason.UNROUTED, DeadLetterHeaders.STAGE_CLASSIFY,
            "no branch matches the record");
        stage.offer(DeadLetter.of("p", event(40), "orders.eu", why));
        stage.doWork();
        clients.producer.errorNext(new RecordTooLargeException("too large for dlq.orders.eu"));
        assertTrue(tracker.failed());
        assertEquals(40, tracker.failedOffset());
        assertTrue(tracker.failureReason().contains("its dead letter could not be written: producing it to "
            + "dlq.orders.eu failed"), tracker.failureReason());
        assertEquals(40, tracker.watermark(), "the offset is never acknowledged");
        assertEquals(1, stage.notWritten());
        assertEquals(0, stage.written(DeadLetterReason.UNROUTED));
        assertTrue(stage.idle(), "settled: the re-read sends it again");
        assertTrue(stage.lastError().contains("RecordTooLargeException"), stage.lastError());
        assertTrue(control.failed(), "too large fails the same way every time: the pipeline stops at once");
        assertTrue(control.failureReason().startsWith("p: record orders.eu-2@40 (unrouted"), control.failureReason());
        assertTrue(control.failureReason().contains("dlq.orders.eu"), control.failureReason());
    }

    @Test
    void shouldStopAtOnceOnlyForRefusalsKafkaCallsNonRetriable()
    {
        assertTrue(DeadLetters.permanent(new InvalidTopicException("Topic 'x_eu' collides with existing topic: x.eu")));
        assertTrue(DeadLetters.permanent(new ExecutionException(new TopicAuthorizationException("denied"))));
        assertTrue(DeadLetters.permanent(new InvalidRequestException("Creation of internal topic __cluster_metadata "
            + "is prohibited.")));
        assertTrue(DeadLetters.permanent(new SaslAuthenticationException("bad password")));
        assertFalse(DeadLetters.permanent(new TimeoutException("Topic dlq not present in metadata after 30000 ms.")));
        assertFalse(DeadLetters.permanent(new NotEnoughReplicasException("2 of 3")));
        assertFalse(DeadLetters.permanent(new UnknownTopicOrPartitionException("dlq")));
        assertFalse(DeadLetters.permanent(new KafkaException("producer closed")));
        assertFalse(DeadLetters.permanent(null));
    }

    @Test
    void shouldStopAtOnceWhenTheBrokerRefusesToCreateTheTopicButStallWhenItTimesOut()
    {
        final DeadLetter.Why why = DeadLetter.Why.of(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_PARSE, "bad");
        clients.missing.put("dlq.orders.eu", new DeadLetterClients.Missing("the admin client did not answer", false));
        stage.offer(DeadLetter.of("p", event(40), "orders.eu", why));
        stage.doWork();
        assertEquals(40, tracker.failedOffset());
        assertFalse(control.failed(), "a timeout may pass: re-read until the stall limit");

        final AckTracker other = trackers.trackerFor(new TopicPartition("x.eu", 0), 0);
        assertEquals(AckTracker.REGISTERED, other.tryRegister(0));
        final RecordEvent e = new RecordEvent(new UnsafeBuffer(new byte[1024]));
        e.beginRecord(null, 512, 0, 0, 0, 1_700_000_000_123L, trackers.idOf(new TopicPartition("x.eu", 0)),
            other.generation());
        e.putValue(new byte[]{'{', '}'});
        clients.missing.put("dlq.x.eu", new DeadLetterClients.Missing("creating dead-letter topic dlq.x.eu failed: "
            + "InvalidTopicException: collides with existing topic: dlq_x_eu", true));
        stage.offer(DeadLetter.of("p", e, "x.eu", why));
        stage.doWork();
        assertTrue(other.failed());
        assertTrue(control.failed(), "a collision is for good: the pipeline stops at once");
        assertTrue(control.failureReason().contains("record x.eu-0@0") && control.failureReason().contains(
            "collides with existing topic: dlq_x_eu"), control.failureReason());
    }

    @Test
    void shouldFailTheOffsetWhenTheTopicIsMissingAndBelieveItForASecond()
    {
        clients.missing.put("dlq.orders.eu", new DeadLetterClients.Missing("dead-letter topic dlq.orders.eu does not "
            + "exist (create it, or set create_topics = true)", false));
        final DeadLetter.Why why = DeadLetter.Why.of(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_PARSE, "bad");
        stage.offer(DeadLetter.of("p", event(40), "orders.eu", why));
        stage.offer(DeadLetter.of("p", event(41), "orders.eu", why));
        stage.doWork();
        stage.doWork();
        assertEquals(1, clients.asked.size(), "asked once, then believed for a second");
        assertTrue(clients.producer.history().isEmpty());
        assertEquals(40, tracker.failedOffset());
        assertTrue(tracker.failureReason().endsWith("does not exist (create it, or set create_topics = true)"),
            tracker.failureReason());
        assertEquals(2, stage.notWritten());
        assertFalse(control.failed(), "an operator may create it: re-read until the stall limit");
    }

    @Test
    void shouldHoldBackWhenFullAndDropWhatIsQueuedOnAbandon()
    {
        final DeadLetter.Why why = DeadLetter.Why.of(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_PARSE, "bad");
        for (int i = 0; i < 4; i++)
        {
            assertEquals(DeadLetters.OFFERED, stage.offer(DeadLetter.of("p", event(40 + i), "orders.eu", why)));
        }
        assertEquals(DeadLetters.FULL, stage.offer(DeadLetter.of("p", event(44), "orders.eu", why)));
        stage.abandon();
        for (int i = 0; i < 4; i++)
        {
            stage.doWork();
        }
        assertTrue(stage.idle());
        assertEquals(40, tracker.watermark(), "abandoned dead letters stay unacknowledged: they are read again");
        assertFalse(tracker.failed());
        assertEquals(DeadLetters.CLOSED, stage.offer(DeadLetter.of("p", event(45), "orders.eu", why)));
    }

    @Test
    void shouldFailARecordWhoseTopicTheTemplateCannotName()
    {
        final DeadLetters segments = new DeadLetters("p", new DeadLetterConfig("dlq.{topic_segment[3]}", false, 1,
            -1), clients, trackers, control, 4, 1 << 20);
        segments.offer(DeadLetter.of("p", event(40), "orders.eu", DeadLetter.Why.of(DeadLetterReason.INVALID,
            DeadLetterHeaders.STAGE_PARSE, "bad")));
        segments.doWork();
        assertTrue(tracker.failureReason().contains("dead_letter_topic dlq.{topic_segment[3]} does not resolve for "
            + "topic orders.eu"), tracker.failureReason());
        assertTrue(control.failed(), "no retry makes the template resolve: the pipeline stops at once");
    }

    @Test
    void shouldNeverCreateNorWriteADeadLetterTopicKafkaReserves()
    {
        // "__{topic_segment[1]}" over orders.eu is ordinary; over a topic whose second segment is consumer_offsets not
        final AckTracker other = trackers.trackerFor(new TopicPartition("x.consumer_offsets", 0), 0);
        final DeadLetters reserved = new DeadLetters("p", new DeadLetterConfig("__{topic_segment[1]}", true, 1, -1),
            clients, trackers, control, 4, 1 << 20);
        assertEquals(AckTracker.REGISTERED, other.tryRegister(0));
        final RecordEvent e = new RecordEvent(new UnsafeBuffer(new byte[1024]));
        e.beginRecord(null, 512, 0, 0, 0, 1_700_000_000_123L, trackers.idOf(new TopicPartition("x.consumer_offsets",
            0)), other.generation());
        e.putValue(new byte[]{'{', '}'});
        reserved.offer(DeadLetter.of("p", e, "x.consumer_offsets", DeadLetter.Why.of(DeadLetterReason.INVALID,
            DeadLetterHeaders.STAGE_PARSE, "bad")));
        reserved.doWork();
        assertTrue(other.failureReason().contains("dead_letter_topic __{topic_segment[1]} gives __consumer_offsets "
            + "for topic x.consumer_offsets: topic __consumer_offsets is internal to Kafka"), other.failureReason());
        assertTrue(clients.asked.isEmpty(), "never looked up nor created: " + clients.asked);
        assertTrue(clients.producer.history().isEmpty());
        assertEquals(1, reserved.notWritten());
        assertTrue(control.failureReason().contains("record x.consumer_offsets-0@0")
            && control.failureReason().contains("is internal to Kafka"), control.failureReason());
    }

    @Test
    void shouldNameTheRenderedValueWhenOnlySanitisingMakesTheNameReserved()
    {
        final AckTracker other = trackers.trackerFor(new TopicPartition("a.cluster metadata", 0), 0);
        final DeadLetters reserved = new DeadLetters("p", new DeadLetterConfig("__{topic_segment[1]}", true, 1, -1),
            clients, trackers, control, 4, 1 << 20);
        assertEquals(AckTracker.REGISTERED, other.tryRegister(0));
        final RecordEvent e = new RecordEvent(new UnsafeBuffer(new byte[1024]));
        e.beginRecord(null, 512, 0, 0, 0, 1_700_000_000_123L, trackers.idOf(new TopicPartition("a.cluster metadata",
            0)), other.generation());
        e.putValue(new byte[]{'{', '}'});
        reserved.offer(DeadLetter.of("p", e, "a.cluster metadata", DeadLetter.Why.of(DeadLetterReason.INVALID,
            DeadLetterHeaders.STAGE_PARSE, "bad")));
        reserved.doWork();
        assertTrue(control.failureReason().contains("gives __cluster_metadata (rendered \"__cluster metadata\", then "
            + "sanitised)"), control.failureReason());
        assertTrue(clients.asked.isEmpty(), "never looked up nor created: " + clients.asked);
    }
}
