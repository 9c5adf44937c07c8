package io.sluice.core.gather.json;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;

/**
 * A column filled from the record's Kafka coordinates, for a sink kind other than ClickHouse: the value is put in a
 * {@link JsonValueView} for the kind's own column encoder, never written here, so every conversion rule and range
 * check of a JSON value applies. The sources are those of {@code MetadataColumn} (a {@code columns} mapping that
 * starts with {@code $}), without the header lists:
 *
 * <table>
 * <caption>Sources and the value the view holds</caption>
 * <tr><th>source</th><th>view</th></tr>
 * <tr><td>{@code $topic}</td><td>a string: the topic name</td></tr>
 * <tr><td>{@code $partition}, {@code $offset}</td><td>a number</td></tr>
 * <tr><td>{@code $timestamp}</td><td>a number: epoch milliseconds ({@link Time#EPOCH_MILLIS}) or epoch seconds with
 * three fraction digits ({@link Time#EPOCH_SECONDS}, for an encoder that reads numbers as epoch seconds); missing
 * when the record has no timestamp</td></tr>
 * <tr><td>{@code $timestamp_type}</td><td>a string ({@code CreateTime}, {@code LogAppendTime},
 * {@code NoTimestampType}) or Kafka's id as a number (0, 1, -1)</td></tr>
 * <tr><td>{@code $key}, {@code $header.NAME}</td><td>{@link Bytes#RAW}: the bytes as they are, as a string whose
 * bytes are taken literally (bytes that are not well-formed UTF-8 fail with
 * {@link ConversionError#INVALID_STRING}); {@link Bytes#JSON}: the JSON value the bytes hold ({@code 42},
 * {@code {"a":1}}), else the bytes as a string as for RAW; a null key or an absent header (the last of that
 * name is read) is missing</td></tr>
 * </table>
 *
 * <p>One instance per bound column, used by one route stage thread; {@link #fill} allocates nothing per record (a
 * topic's name bytes are kept once).
 */
public final class KafkaMetadata
{
    /** How {@code $key} and {@code $header.NAME} bytes are read. */
    public enum Bytes
    {
        /** As they are: a string (for text columns). */
        RAW,
        /** As a JSON value when they parse as one, else as a string (for JSON, number, uuid... columns). */
        JSON
    }

    /** The unit of {@code $timestamp}. */
    public enum Time
    {
        /** Epoch milliseconds, an integer. */
        EPOCH_MILLIS,
        /** Epoch seconds with three fraction digits ({@code 1736235881.542}). */
        EPOCH_SECONDS
    }

    /** The sources, for messages. */
    public static final String SOURCES = "$topic, $partition, $offset, $timestamp, $timestamp_type, $key, "
        + "$header.NAME";

    private final MetadataColumn column;
    private final boolean seconds;
    /** {@code $key} or {@code $header.NAME} bytes taken as they are ({@link Bytes#RAW}). */
    private final boolean raw;
    private final UnsafeBuffer digits = new UnsafeBuffer(new byte[32]);

    private KafkaMetadata(final MetadataColumn column, final boolean seconds, final boolean raw)
    {
        this.column = column;
        this.seconds = seconds;
        this.raw = raw && (column.source() == MetadataColumn.Source.KEY
            || column.source() == MetadataColumn.Source.HEADER);
    }

    /**
     * @param mapping a column's {@code columns} mapping, or null
     * @return whether the mapping names Kafka metadata (it starts with {@code $}) rather than a JSON path
     */
    public static boolean isMetadata(final String mapping)
    {
        return mapping != null && mapping.startsWith("$");
    }

    /**
     * @param mapping a {@code columns} mapping that is not metadata ({@link #isMetadata})
     * @return the JSON path it names: {@code \$x} is the path {@code $x}, anything else is itself
     */
    public static String jsonPath(final String mapping)
    {
        return MetadataColumn.jsonPath(mapping);
    }

    /**
     * Binds a column to a source, off the hot path.
     *
     * @param column    the column's name, for messages
     * @param spec      the mapping ({@code $offset}, {@code $header.trace})
     * @param bytes     how {@code $key} and {@code $header.NAME} bytes are read (ignored for other sources)
     * @param time      the unit of {@code $timestamp} (ignored for other sources)
     * @param numericId whether {@code $timestamp_type} is Kafka's id rather than its name
     * @return the bound source
     * @throws IllegalArgumentException naming the column when the spec is no source or is a header list
     */
    public static KafkaMetadata bind(final String column, final String spec, final Bytes bytes, final Time time,
        final boolean numericId)
    {
        if (!MetadataColumn.knownSource(spec))
        {
            throw new IllegalArgumentException("column " + column + " maps " + spec + ", which is no Kafka metadata "
                + "source: " + SOURCES + " (a JSON path starting with $ is written \\$...)");
        }
        final MetadataColumn bound = MetadataColumn.bind(column, spec, numericId);
        if (bound.source().list())
        {
            throw new IllegalArgumentException("column " + column + " cannot take " + spec + ": header lists "
                + "are written for ClickHouse only; map one header by name ($header.NAME)");
        }
        return new KafkaMetadata(bound, time == Time.EPOCH_SECONDS && "$timestamp".equals(spec), bytes == Bytes.RAW);
    }

    /** @return the spec, e.g. {@code $offset} */
    public String spec()
    {
        return column.spec();
    }

    /** @return whether the value comes from the key or a header, which the source copies only when asked */
    public boolean readsKeyAndHeaders()
    {
        return column.readsKeyAndHeaders();
    }

    /**
     * Puts the record's value in the view.
     *
     * @param row  the record
     * @param view receives the value (possibly missing)
     * @return {@link ConversionError#NONE}, or a negative {@link ConversionError} code (raw bytes that are not UTF-8)
     */
    public int fill(final JsonRecord row, final JsonValueView view)
    {
        if (seconds)
        {
            final long ms = row.event().timestampMs();
            if (ms < 0)
            {
                view.setMissing();
                return ConversionError.NONE;
            }
            int n = MetadataColumn.format(ms / 1000, digits);
            final long fraction = ms % 1000;
            digits.putByte(n, (byte)'.');
            digits.putByte(n + 1, (byte)('0' + fraction / 100));
            digits.putByte(n + 2, (byte)('0' + fraction / 10 % 10));
            digits.putByte(n + 3, (byte)('0' + fraction % 10));
            n += 4;
            view.set(digits, JsonKind.NUMBER, 0, n, false);
            return ConversionError.NONE;
        }
        if (raw)
        {
            final DirectBuffer b = column.bytes(row);
            if (b == null)
            {
                view.setMissing();
                return ConversionError.NONE;
            }
            if (!MetadataColumn.validUtf8(b, b.capacity()))
            {
                return ConversionError.INVALID_STRING;
            }
            view.set(b, JsonKind.STRING, 0, b.capacity(), false);
            return ConversionError.NONE;
        }
        final int rc = column.view(row, view);
        return rc < 0 ? rc : ConversionError.NONE;
    }
}
