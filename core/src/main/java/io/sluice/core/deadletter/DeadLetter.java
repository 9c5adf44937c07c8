package io.sluice.core.deadletter;

import org.agrona.DirectBuffer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

import io.sluice.ringbuffers.RecordEvent;

/**
 * One record on its way to the dead-letter topic: a copy of its key, value and headers taken from its ring slot
 * (the slot is reused as soon as the stage moves on), where it came from, which offset to acknowledge once the broker
 * has the dead letter, and why. Built on the stage that decided the record's fate, handed to {@link DeadLetters};
 * immutable. Allocates: dead letters are off the hot path by definition.
 */
public final class DeadLetter
{
    /**
     * Why a record is a dead letter. Fields that do not apply are null ({@code code} 0).
     *
     * @param reason         the reason (metric label and header)
     * @param stage          where: {@code parse}, {@code classify}, {@code route}, {@code convert}, {@code insert},
     *                       {@code produce} ({@link DeadLetterHeaders})
     * @param message        what went wrong, in words
     * @param exceptionClass the Java class of the exception that decided it, or null when none did (an expected
     *                       outcome such as malformed JSON is a return code, not an exception)
     * @param branch         the branch, or null
     * @param table          the table ({@code database.table}), or null
     * @param column         the column, or null
     * @param path           the column's JSON path or metadata source, or null
     * @param code           the destination's error code, or 0
     */
    public record Why(DeadLetterReason reason, String stage, String message, String exceptionClass, String branch,
        String table, String column, String path, int code)
    {
        /**
         * A reason without branch, table or column.
         *
         * @param reason  the reason
         * @param stage   the stage
         * @param message what went wrong
         * @return the why
         */
        public static Why of(final DeadLetterReason reason, final String stage, final String message)
        {
            return new Why(reason, stage, message, null, null, null, null, null, 0);
        }
    }

    private final String pipeline;
    private final int trackerId;
    private final int generation;
    private final String topic;
    private final int partition;
    private final long offset;
    private final long timestampMs;
    private final int timestampType;
    private final byte[] key;
    private final byte[] value;
    private final RecordHeaders headers;
    private final int valueOmittedBytes;
    private final Why why;

    private DeadLetter(final String pipeline, final RecordEvent e, final String topic, final Why why)
    {
        this.pipeline = pipeline;
        this.trackerId = e.trackerId();
        this.generation = e.trackerGeneration();
        this.topic = topic;
        this.partition = e.partition();
        this.offset = e.offset();
        this.timestampMs = e.timestampMs();
        this.timestampType = e.timestampType();
        this.valueOmittedBytes = e.tooLargeBytes();
        this.value = copy(e.value(), e.tooLargeBytes() > 0 ? RecordEvent.NULL_LENGTH : e.valueLength());
        this.key = copy(e.key(), e.keyLength());
        this.headers = new RecordHeaders();
        final int count = e.headerCount();
        for (int i = 0; i < count; i++)
        {
            final DirectBuffer name = e.headerName(i);
            final String headerName = name.getStringWithoutLengthUtf8(0, name.capacity());
            final DirectBuffer headerValue = e.headerValue();
            headers.add(headerName, headerValue == null ? null : copy(headerValue, headerValue.capacity()));
        }
        this.why = why;
    }

    private DeadLetter(final String pipeline, final Origin origin, final ProducerRecord<byte[], byte[]> sent,
        final Why why)
    {
        this.pipeline = pipeline;
        this.trackerId = origin.trackerId();
        this.generation = origin.generation();
        this.topic = origin.topic();
        this.partition = origin.partition();
        this.offset = origin.offset();
        this.timestampMs = sent.timestamp() == null ? -1 : sent.timestamp();
        this.timestampType = origin.timestampType();
        this.valueOmittedBytes = 0;
        this.value = sent.value();
        this.key = sent.key();
        this.headers = new RecordHeaders();
        for (final Header h : sent.headers())
        {
            headers.add(h.key(), h.value());
        }
        this.why = why;
    }

    /**
     * Where a record that already left its ring slot came from (its source position and tracker).
     *
     * @param trackerId     its tracker id
     * @param generation    the tracker generation it was registered under
     * @param topic         its source topic (or file, stdin)
     * @param partition     its partition
     * @param offset        its offset
     * @param timestampType its timestamp type ({@code RecordEvent.timestampType()})
     */
    public record Origin(int trackerId, int generation, String topic, int partition, long offset, int timestampType)
    {
    }

    /**
     * A dead letter of a record as a scatter producer sent it (its key, value and headers are the producer's copies,
     * shared, not copied again: neither side changes them), for a record the broker refused after its slot was reused.
     *
     * @param pipeline the pipeline's name
     * @param origin   where the record came from
     * @param sent     the record as it was sent (its timestamp is the source's, or null)
     * @param why      why it is a dead letter
     * @return the dead letter
     */
    public static DeadLetter ofSent(final String pipeline, final Origin origin,
        final ProducerRecord<byte[], byte[]> sent,
        final Why why)
    {
        return new DeadLetter(pipeline, origin, sent, why);
    }

    /**
     * Copies a record out of its ring slot. The slot's key and headers are what the source copied: a gather source
     * copies them from the start when its pipeline has a dead-letter policy.
     *
     * @param pipeline the pipeline's name
     * @param event    the record's slot (read during the call only)
     * @param topic    the record's topic name
     * @param why      why it is a dead letter
     * @return the dead letter
     */
    public static DeadLetter of(final String pipeline, final RecordEvent event, final String topic, final Why why)
    {
        return new DeadLetter(pipeline, event, topic, why);
    }

    /**
     * The record the producer sends: the original key, value and headers, then the headers that say why, with no
     * timestamp (the producer stamps the send time; the original is in {@code sluice.errors.timestamp}) and no
     * partition (the producer's partitioner places it by its key).
     *
     * @param deadLetterTopic the resolved, sanitised dead-letter topic
     * @return a new producer record
     */
    ProducerRecord<byte[], byte[]> toProducerRecord(final String deadLetterTopic)
    {
        final RecordHeaders h = new RecordHeaders(headers.toArray());
        DeadLetterHeaders.append(this, h);
        // stamped when it is produced, not with the record's timestamp (sluice.errors.timestamp keeps that): a dead
        // letter of a record older than the topic's retention.ms would be deleted at the broker's next retention check
        return new ProducerRecord<>(deadLetterTopic, null, null, key, value, h);
    }

    private static byte[] copy(final DirectBuffer b, final int length)
    {
        if (length < 0)
        {
            return null;
        }
        final byte[] out = new byte[length];
        b.getBytes(0, out, 0, length);
        return out;
    }

    /** @return the pipeline's name */
    public String pipeline()
    {
        return pipeline;
    }

    /** @return the record's tracker id, or -1 when none follows it */
    public int trackerId()
    {
        return trackerId;
    }

    /** @return the tracker generation it was registered under */
    public int generation()
    {
        return generation;
    }

    /** @return the record's topic */
    public String topic()
    {
        return topic;
    }

    /** @return its partition */
    public int partition()
    {
        return partition;
    }

    /** @return its offset (a line index for a file or stdin source) */
    public long offset()
    {
        return offset;
    }

    /** @return its timestamp, epoch ms, or a negative value when it has none */
    public long timestampMs()
    {
        return timestampMs;
    }

    /** @return its timestamp type's name */
    public String timestampTypeName()
    {
        return RecordEvent.timestampTypeName(timestampType);
    }

    /** @return the size of a value too large to carry, else 0 */
    public int valueOmittedBytes()
    {
        return valueOmittedBytes;
    }

    /** @return why */
    public Why why()
    {
        return why;
    }

    /** @return bytes this dead letter holds (key, value, headers), for the queue's bound */
    int bytes()
    {
        int n = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        for (final Header h : headers)
        {
            n += h.key().length() + (h.value() == null ? 0 : h.value().length);
        }
        return n + 256;
    }

    /** @return e.g. {@code events-0@17} */
    public String where()
    {
        return topic + "-" + partition + "@" + offset;
    }

    @Override
    public String toString()
    {
        return "dead letter of " + where() + " (" + why.reason().label() + "): " + why.message();
    }
}
