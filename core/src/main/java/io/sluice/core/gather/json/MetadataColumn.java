package io.sluice.core.gather.json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A column filled from the record's Kafka coordinates instead of a JSON path: a {@code columns} mapping whose value
 * starts with {@code $} ({@code src_offset = "$offset"}), or a column named like one of the Kafka engine's virtual
 * columns ({@code _topic}, {@code _partition}, {@code _offset}, {@code _timestamp}, {@code _timestamp_ms},
 * {@code _key}, {@code _headers.name}, {@code _headers.value}) that no mapping names. A JSON path never starts with
 * {@code $} here: a path whose first key starts with {@code $} is written {@code \$} ({@code "\\$id"} reads the key
 * {@code $id}), so the two cannot collide.
 *
 * <table>
 * <caption>Sources and their values</caption>
 * <tr><th>source</th><th>value</th></tr>
 * <tr><td>{@code $topic}</td><td>the topic name, a JSON string</td></tr>
 * <tr><td>{@code $partition}, {@code $offset}</td><td>the number</td></tr>
 * <tr><td>{@code $timestamp}</td><td>the record timestamp (ms since the epoch); a record without one is
 * missing</td></tr>
 * <tr><td>{@code $timestamp_type}</td><td>CreateTime, LogAppendTime, NoTimestampType, or Kafka's id (0, 1, -1) for a
 * column that takes a number</td></tr>
 * <tr><td>{@code $key}, {@code $header.NAME}</td><td>the key, the last header of that name: a JSON value when the
 * bytes parse as one ({@code 42}, {@code {"a":1}}), else a JSON string; a null key or an absent header is missing
 * (the kind's encoder may take the bytes as they are, {@link #bytes})</td></tr>
 * <tr><td>{@code $headers}, {@code $header_names}, {@code $header_values}</td><td>every header in order, the names,
 * the values: lists no single view holds, which the kind's encoder writes from the record's headers</td></tr>
 * </table>
 *
 * <p>This is the kind-neutral half: the sources, their spec parsing (also {@link ColumnMappings}'s check) and each
 * value as a view ({@link #view}) the column's own encoder converts, so every conversion rule and range check of a
 * JSON value applies. Which column types take which source, and the bytes written without a view, are the kind's
 * (ClickHouse: {@code ClickHouseMetadataColumn} in sinks/). One instance per bound column, used by the route stage
 * thread; nothing allocates per record (a topic's name bytes are kept once).
 */
public final class MetadataColumn
{
    /** {@link #view}: the value is in the view (possibly missing); the caller encodes it. */
    public static final int VIEW = 2;

    /** What a column is filled from. */
    public enum Source
    {
        /** {@code $topic}: the topic name. */
        TOPIC("$topic"),
        /** {@code $partition}: the partition number. */
        PARTITION("$partition"),
        /** {@code $offset}: the record's offset. */
        OFFSET("$offset"),
        /** {@code $timestamp}: the record timestamp, ms since the epoch. */
        TIMESTAMP("$timestamp"),
        /** {@code $timestamp_type}: CreateTime, LogAppendTime or NoTimestampType (or Kafka's id). */
        TIMESTAMP_TYPE("$timestamp_type"),
        /** {@code $key}: the record key. */
        KEY("$key"),
        /** {@code $header.NAME}: the last header of that name. */
        HEADER("$header."),
        /** {@code $headers}: every header in order, name and value. */
        HEADERS("$headers"),
        /** {@code $header_names}: every header's name in order. */
        HEADER_NAMES("$header_names"),
        /** {@code $header_values}: every header's value in order. */
        HEADER_VALUES("$header_values");

        private final String spec;

        Source(final String spec)
        {
            this.spec = spec;
        }

        /** @return its spec, e.g. {@code $offset}; {@code $header.} for {@link #HEADER} (the name follows) */
        public String spec()
        {
            return spec;
        }

        /** @return whether the value is a list of the record's headers, which no single view holds */
        public boolean list()
        {
            return this == HEADERS || this == HEADER_NAMES || this == HEADER_VALUES;
        }
    }

    /** The metadata sources, for messages. */
    public static final String SOURCES = "$topic, $partition, $offset, $timestamp, $timestamp_type, $key, $header.NAME, "
        + "$headers, $header_names, $header_values";
    /** The Kafka engine's virtual columns, filled without a mapping. */
    private static final Map<String, String> VIRTUAL = Map.of("_topic", "$topic", "_partition", "$partition",
        "_offset", "$offset", "_timestamp", "$timestamp", "_timestamp_ms", "$timestamp", "_key", "$key",
        "_headers.name", "$header_names", "_headers.value", "$header_values");

    private final Source source;
    private final String spec;
    private final byte[] headerName;
    private final UnsafeBuffer headerNameBuffer;
    private final boolean numericId;
    private final UnsafeBuffer digits = new UnsafeBuffer(new byte[24]);
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of()), 128);
    private TopicRegistry topics;
    private UnsafeBuffer[] topicNames = new UnsafeBuffer[0];

    private MetadataColumn(final Source source, final String spec, final boolean numericTimestampType)
    {
        this.source = source;
        this.spec = spec;
        this.headerName = source == Source.HEADER
            ? spec.substring(Source.HEADER.spec.length()).getBytes(StandardCharsets.UTF_8)
            : null;
        this.headerNameBuffer = headerName == null ? null : new UnsafeBuffer(headerName);
        this.numericId = source == Source.TIMESTAMP_TYPE && numericTimestampType;
    }

    /**
     * @param column  the column's name
     * @param mapping its {@code columns} mapping, or null
     * @return the metadata spec the column is filled from ({@code $offset}), or null when it reads a JSON path
     */
    public static String specOf(final String column, final String mapping)
    {
        if (mapping != null)
        {
            return mapping.startsWith("$") ? mapping : null;
        }
        return VIRTUAL.get(column);
    }

    /**
     * @param mapping a {@code columns} mapping that is not a metadata spec
     * @return the JSON path it names ({@code \$x} is the path {@code $x})
     */
    public static String jsonPath(final String mapping)
    {
        return mapping.startsWith("\\$") ? mapping.substring(1) : mapping;
    }

    /**
     * @param column               the column (for messages)
     * @param spec                 the metadata spec, from {@link #specOf}
     * @param numericTimestampType whether {@code $timestamp_type} is Kafka's id (0, 1, -1) rather than its name, for
     *                             a column that takes a number; ignored by the other sources
     * @return the bound column (allocates; bind time)
     * @throws IllegalArgumentException naming the column and the sources there are, when the spec names none
     */
    public static MetadataColumn bind(final String column, final String spec, final boolean numericTimestampType)
    {
        return new MetadataColumn(sourceOf(column, spec), spec, numericTimestampType);
    }

    /**
     * @param column the column (for messages)
     * @param spec   the metadata spec, from {@link #specOf}
     * @return the source it names
     * @throws IllegalArgumentException naming the column and the sources there are, when the spec names none
     */
    public static Source sourceOf(final String column, final String spec)
    {
        for (final Source s : Source.values())
        {
            if (matches(s, spec))
            {
                return s;
            }
        }
        throw new IllegalArgumentException("column " + column + " maps " + spec + ", which is no Kafka metadata "
            + "source: " + SOURCES + " (a JSON path starting with $ is written \\$...)");
    }

    /**
     * @param spec a metadata spec ({@link #specOf})
     * @return whether it names one of the sources
     */
    public static boolean knownSource(final String spec)
    {
        for (final Source s : Source.values())
        {
            if (matches(s, spec))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(final Source s, final String spec)
    {
        return s == Source.HEADER ? spec.startsWith(s.spec) && spec.length() > s.spec.length() : spec.equals(s.spec);
    }

    /** @return the spec, e.g. {@code $offset} */
    public String spec()
    {
        return spec;
    }

    /** @return what the column is filled from */
    public Source source()
    {
        return source;
    }

    /** @return whether the value comes from the key or headers, which the source copies only when asked */
    public boolean readsKeyAndHeaders()
    {
        return source == Source.KEY || source == Source.HEADER || source == Source.HEADERS
            || source == Source.HEADER_NAMES || source == Source.HEADER_VALUES;
    }

    /**
     * Puts the column's value in {@code view} for the column's encoder to convert: a number, a string, the key's or a
     * header's bytes as a JSON value or string, or missing.
     *
     * @param row  the record
     * @param view receives the value (valid until the next call on this column)
     * @return {@link #VIEW}, or a negative {@link ConversionError} code: {@code INVALID_STRING} for a key or header
     *     that is neither JSON nor UTF-8, {@code WRONG_KIND} for a list source ({@link Source#list()}), which the
     *     kind writes from the record's headers
     */
    public int view(final JsonRecord row, final JsonValueView view)
    {
        final RecordEvent e = row.event();
        switch (source)
        {
            case TOPIC :
                final UnsafeBuffer name = topicName(row, e.topicId());
                view.set(name, JsonKind.STRING, 0, name.capacity(), false);
                return VIEW;
            case PARTITION :
                return number(e.partition(), view);
            case OFFSET :
                return number(e.offset(), view);
            case TIMESTAMP :
                if (e.timestampMs() < 0)
                {
                    view.setMissing();
                    return VIEW;
                }
                return number(e.timestampMs(), view);
            case TIMESTAMP_TYPE :
                return timestampType(e.timestampType(), view);
            case KEY, HEADER :
                return bytes(bytes(row), view);
            default :
                return ConversionError.WRONG_KIND;
        }
    }

    /**
     * The bytes of {@code $key} or {@code $header.NAME} as they are, for a kind that writes them without a view.
     *
     * @param row the record
     * @return the key, or the last header of the column's name; null for a null key, an absent header or another
     *     source; valid until the record's slot is reused
     */
    public DirectBuffer bytes(final JsonRecord row)
    {
        final RecordEvent e = row.event();
        return switch (source)
        {
            case KEY -> e.keyLength() < 0 ? null : e.key();
            case HEADER -> e.lastHeader(headerNameBuffer, 0, headerName.length);
            default -> null;
        };
    }

    private int number(final long value, final JsonValueView view)
    {
        final int length = format(value, digits);
        view.set(digits, JsonKind.NUMBER, 0, length, false);
        return VIEW;
    }

    private int timestampType(final int id, final JsonValueView view)
    {
        if (numericId)
        {
            return number(id, view);
        }
        final String n = RecordEvent.timestampTypeName(id);
        for (int i = 0; i < n.length(); i++)
        {
            digits.putByte(i, (byte)n.charAt(i));
        }
        view.set(digits, JsonKind.STRING, 0, n.length(), false);
        return VIEW;
    }

    /** A key or header value as a JSON value (or a JSON string); missing when null. */
    private int bytes(final DirectBuffer value, final JsonValueView view)
    {
        if (value == null)
        {
            view.setMissing();
            return VIEW;
        }
        final int length = value.capacity();
        if (scanner.validate(value, 0, length) == JsonError.NONE)
        {
            int start = 0;
            int end = length;
            while (start < end && value.getByte(start) <= ' ')
            {
                start++;
            }
            while (end > start && value.getByte(end - 1) <= ' ')
            {
                end--;
            }
            final int kind = scanner.rootKind();
            if (kind == JsonKind.STRING)
            {
                boolean escaped = false;
                for (int i = start + 1; i < end - 1 && !escaped; i++)
                {
                    escaped = value.getByte(i) == '\\';
                }
                view.set(value, kind, start + 1, end - start - 2, escaped);
            }
            else
            {
                view.set(value, kind, start, end - start, false);
            }
            return VIEW;
        }
        if (!validUtf8(value, length))
        {
            return ConversionError.INVALID_STRING;
        }
        view.set(value, JsonKind.STRING, 0, length, false);
        return VIEW;
    }

    private UnsafeBuffer topicName(final JsonRecord row, final int topicId)
    {
        if (topicId >= topicNames.length)
        {
            topicNames = Arrays.copyOf(topicNames, Math.max(topicId + 1, topicNames.length * 2));
        }
        UnsafeBuffer b = topicNames[topicId];
        if (b == null)
        {
            final TopicRegistry registry = topics != null ? topics : row.topics();
            topics = registry;
            final String name = registry == null ? "" : registry.name(topicId);
            b = new UnsafeBuffer(name.getBytes(StandardCharsets.UTF_8));
            topicNames[topicId] = b;
        }
        return b;
    }

    /** Writes a long's decimal digits at the buffer's start; returns their count. */
    static int format(final long value, final UnsafeBuffer into)
    {
        if (value == Long.MIN_VALUE)
        {
            final byte[] min = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
            into.putBytes(0, min);
            return min.length;
        }
        long v = Math.abs(value);
        int digitCount = 1;
        for (long p = v; p >= 10; p /= 10)
        {
            digitCount++;
        }
        final int sign = value < 0 ? 1 : 0;
        if (sign == 1)
        {
            into.putByte(0, (byte)'-');
        }
        for (int i = sign + digitCount - 1; i >= sign; i--)
        {
            into.putByte(i, (byte)('0' + v % 10));
            v /= 10;
        }
        return sign + digitCount;
    }

    /** Whether the bytes are well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF). */
    static boolean validUtf8(final DirectBuffer b, final int length)
    {
        int i = 0;
        while (i < length)
        {
            final int c = b.getByte(i) & 0xFF;
            final int n = c < 0x80
                ? 0
                : c >= 0xC2 && c <= 0xDF
                    ? 1
                    : c >= 0xE0 && c <= 0xEF
                        ? 2
                        : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
            if (n < 0 || i + n >= length)
            {
                return false;
            }
            for (int k = 1; k <= n; k++)
            {
                if ((b.getByte(i + k) & 0xC0) != 0x80)
                {
                    return false;
                }
            }
            if (n == 2
                && (c == 0xE0 && (b.getByte(i + 1) & 0xFF) < 0xA0 || c == 0xED && (b.getByte(i + 1) & 0xFF) > 0x9F)
                || n == 3
                    && (c == 0xF0 && (b.getByte(i + 1) & 0xFF) < 0x90 || c == 0xF4 && (b.getByte(i + 1) & 0xFF) > 0x8F))
            {
                return false;
            }
            i += n + 1;
        }
        return true;
    }
}
