package io.sluice.core.deadletter;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Headers;

/**
 * The headers a dead letter carries besides the record's own (which come first, unchanged), and how they are
 * written. Where Kafka Connect's {@code DeadLetterQueueReporter} has a header for the same fact, its name is used
 * as Connect spells it ({@code __connect.errors.topic}, {@code .partition}, {@code .offset},
 * {@code .exception.class.name}, {@code .exception.message}), so that tools and replay scripts written for Connect's
 * dead-letter queues read Sluice's too. The facts Connect has no header for, or spells with values of its own
 * (Connect's {@code stage} is one of its converter and task stages), take {@code sluice.errors.} with the same shape.
 * Every value is UTF-8 text; numbers are decimal. A dead letter of a dead letter keeps the earlier headers and adds
 * its own after them: the last header of a name (Kafka's {@code Headers.lastHeader}) is the latest failure's.
 *
 * <p>Stateless, thread-safe.
 */
public final class DeadLetterHeaders
{
    /** Kafka Connect's prefix of its error context headers ({@code DeadLetterQueueReporter.ERROR_HEADER_PREFIX}). */
    public static final String CONNECT_PREFIX = "__connect.errors.";
    /** The record's topic (Connect's name). */
    public static final String TOPIC = CONNECT_PREFIX + "topic";
    /** The record's partition (Connect's name). */
    public static final String PARTITION = CONNECT_PREFIX + "partition";
    /** The record's offset (Connect's name). */
    public static final String OFFSET = CONNECT_PREFIX + "offset";
    /** The Java class of the exception that decided the record's fate, when one did (Connect's name). */
    public static final String EXCEPTION_CLASS = CONNECT_PREFIX + "exception.class.name";
    /** Why, in words: the same message the log line gives (Connect's name). */
    public static final String EXCEPTION_MESSAGE = CONNECT_PREFIX + "exception.message";

    /** Sluice's prefix for the facts Connect has no header for. */
    public static final String PREFIX = "sluice.errors.";
    /** The pipeline ({@code [[sinks]]} or {@code [[sources]]} name). */
    public static final String PIPELINE = PREFIX + "pipeline";
    /** Where it failed: {@code parse}, {@code classify}, {@code route}, {@code convert}, {@code insert}, {@code produce}. */
    public static final String STAGE = PREFIX + "stage";
    /** The {@link DeadLetterReason} label. */
    public static final String REASON = PREFIX + "reason";
    /** The record's timestamp, epoch milliseconds (the dead letter's own timestamp is when it was produced). */
    public static final String TIMESTAMP = PREFIX + "timestamp";
    /** The record's timestamp type: {@code CreateTime}, {@code LogAppendTime} or {@code NoTimestampType}. */
    public static final String TIMESTAMP_TYPE = PREFIX + "timestamp.type";
    /** The branch the record reached, when it reached one. */
    public static final String BRANCH = PREFIX + "branch";
    /** The table ({@code database.table}), when known. */
    public static final String TABLE = PREFIX + "table";
    /** The column that could not be written, when known. */
    public static final String COLUMN = PREFIX + "column";
    /** The JSON path (or metadata source) of that column, when known. */
    public static final String PATH = PREFIX + "path";
    /** The destination's error code (ClickHouse's exception code), when there is one. */
    public static final String CODE = PREFIX + "code";
    /** Present when the value is not carried (a record above max_record_bytes): its size in bytes. */
    public static final String VALUE_OMITTED = PREFIX + "value.omitted";

    /** {@value #STAGE} of a record that is not JSON (or is a tombstone, or too large). */
    public static final String STAGE_PARSE = "parse";
    /** {@value #STAGE} of a record that no branch takes, or whose classifier failed. */
    public static final String STAGE_CLASSIFY = "classify";
    /** {@value #STAGE} of a scatter record whose routing rule found no topic. */
    public static final String STAGE_ROUTE = "route";
    /** {@value #STAGE} of a record with a value its column cannot take. */
    public static final String STAGE_CONVERT = "convert";
    /** {@value #STAGE} of a record whose batch ClickHouse refused for its data. */
    public static final String STAGE_INSERT = "insert";
    /** {@value #STAGE} of a scatter record the broker refused. */
    public static final String STAGE_PRODUCE = "produce";

    private DeadLetterHeaders()
    {
    }

    /**
     * Appends the headers that say why to a dead letter's headers (after the record's own).
     *
     * @param letter  the dead letter
     * @param headers its headers, holding the record's own
     */
    static void append(final DeadLetter letter, final Headers headers)
    {
        final DeadLetter.Why why = letter.why();
        add(headers, TOPIC, letter.topic());
        add(headers, PARTITION, Integer.toString(letter.partition()));
        add(headers, OFFSET, Long.toString(letter.offset()));
        add(headers, EXCEPTION_CLASS, why.exceptionClass());
        add(headers, EXCEPTION_MESSAGE, why.message());
        add(headers, PIPELINE, letter.pipeline());
        add(headers, STAGE, why.stage());
        add(headers, REASON, why.reason().label());
        // a record without a timestamp (NoTimestampType: a file or stdin line) has none to carry, not 0
        final boolean stamped = letter.timestampMs() >= 0 && !"NoTimestampType".equals(letter.timestampTypeName());
        add(headers, TIMESTAMP, stamped ? Long.toString(letter.timestampMs()) : null);
        add(headers, TIMESTAMP_TYPE, letter.timestampTypeName());
        add(headers, BRANCH, why.branch());
        add(headers, TABLE, why.table());
        add(headers, COLUMN, why.column());
        add(headers, PATH, why.path());
        add(headers, CODE, why.code() == 0 ? null : Integer.toString(why.code()));
        add(headers, VALUE_OMITTED, letter.valueOmittedBytes() > 0
            ? Integer.toString(letter.valueOmittedBytes())
            : null);
    }

    private static void add(final Headers headers, final String name, final String value)
    {
        if (value != null)
        {
            headers.add(name, value.getBytes(StandardCharsets.UTF_8));
        }
    }
}
