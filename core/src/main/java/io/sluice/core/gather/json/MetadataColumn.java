package io.sluice.core.gather.json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A column filled from the record's Kafka coordinates instead of a JSON path: a {@code columns} mapping whose value
 * starts with {@code $} ({@code src_offset = "$offset"}), or a column named like one of the ClickHouse Kafka engine's
 * virtual columns ({@code _topic}, {@code _partition}, {@code _offset}, {@code _timestamp}, {@code _timestamp_ms},
 * {@code _key}, {@code _headers.name}, {@code _headers.value}) that no mapping names. A JSON path never starts with
 * {@code $} here: a path whose first key starts with {@code $} is written {@code \$} ({@code "\\$id"} reads the key
 * {@code $id}), so the two cannot collide.
 *
 * <table>
 * <caption>Sources and the column types they take (Nullable and LowCardinality of them too)</caption>
 * <tr><th>source</th><th>value</th><th>types</th></tr>
 * <tr><td>{@code $topic}</td><td>the topic name</td><td>String, FixedString, Enum</td></tr>
 * <tr><td>{@code $partition}, {@code $offset}</td><td>the number</td><td>(U)Int*, Float*, Decimal, String</td></tr>
 * <tr><td>{@code $timestamp}</td><td>the record timestamp (ms)</td><td>DateTime (s), DateTime64(p), (U)Int64 (ms),
 * String (ms); a record without one is missing</td></tr>
 * <tr><td>{@code $timestamp_type}</td><td>CreateTime, LogAppendTime, NoTimestampType</td><td>String, Enum; integer
 * types take Kafka's id (0, 1, -1)</td></tr>
 * <tr><td>{@code $key}, {@code $header.NAME}</td><td>the key, the last header of that name</td><td>String and
 * FixedString take the bytes as they are; any other type takes them as a JSON value when they parse as one
 * ({@code 42}, {@code {"a":1}}), else as a JSON string; a null key or an absent header is the column's DEFAULT,
 * NULL, or else the type's zero (an empty String, as the Kafka engine's {@code _key} of an unkeyed record)</td></tr>
 * <tr><td>{@code $headers}</td><td>every header in order</td><td>Map(String, String) or
 * Array(Tuple(String, String)) (the same RowBinary bytes; a Nullable(String) value keeps a null as NULL, else it is
 * empty)</td></tr>
 * <tr><td>{@code $header_names}, {@code $header_values}</td><td>the names, the values</td><td>Array(String): the
 * Kafka engine's {@code _headers.name}, {@code _headers.value}</td></tr>
 * </table>
 * A missing timestamp follows the JSON rules (the column's DEFAULT, NULL, or the record fails naming the column).
 *
 * <p>Each value becomes a view the column's own encoder writes, so every conversion rule and range check of a JSON
 * value applies; only raw bytes into String and FixedString and the header lists are written here. One instance per
 * bound column, used by the route stage thread; nothing allocates per record (a topic's name bytes are kept once).
 */
final class MetadataColumn
{
    /** {@link #write}: the column's bytes are written. */
    static final int WRITTEN = 1;
    /** {@link #write}: the value is in the view (possibly missing); the caller encodes it. */
    static final int VIEW = 2;

    /** What a column is filled from. */
    enum Source
    {
        TOPIC("$topic"), PARTITION("$partition"), OFFSET("$offset"), TIMESTAMP("$timestamp"), TIMESTAMP_TYPE(
            "$timestamp_type"), KEY("$key"), HEADER(
                "$header."), HEADERS("$headers"), HEADER_NAMES("$header_names"), HEADER_VALUES("$header_values");

        final String spec;

        Source(final String spec)
        {
            this.spec = spec;
        }
    }

    /** The Kafka engine's virtual columns, filled without a mapping. */
    /** The metadata sources, for messages. */
    static final String SOURCES = "$topic, $partition, $offset, $timestamp, $timestamp_type, $key, $header.NAME, "
        + "$headers, $header_names, $header_values";
    private static final Map<String, String> VIRTUAL = Map.of("_topic", "$topic", "_partition", "$partition",
        "_offset", "$offset", "_timestamp", "$timestamp", "_timestamp_ms", "$timestamp", "_key", "$key",
        "_headers.name", "$header_names", "_headers.value", "$header_values");

    private final Source source;
    private final String spec;
    private final ColumnEncoder encoder;
    private final ClickHouseType type;
    private final byte[] headerName;
    private final UnsafeBuffer headerNameBuffer;
    private final boolean raw;
    private final boolean nullable;
    private final boolean numericId;
    private final int fixedLength;
    private final boolean nullableValues;
    private final UnsafeBuffer digits = new UnsafeBuffer(new byte[24]);
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of()), 128);
    private TopicRegistry topics;
    private UnsafeBuffer[] topicNames = new UnsafeBuffer[0];

    private MetadataColumn(final Source source, final String spec, final ClickHouseType type,
        final EncoderOptions options)
    {
        this.source = source;
        this.spec = spec;
        this.type = type;
        this.nullable = type.kind() == ClickHouseType.Kind.NULLABLE;
        final ClickHouseType base = base(type);
        this.encoder = ColumnEncoder.forType(type, source == Source.TIMESTAMP
            ? options.withEpochUnit(EncoderOptions.EpochUnit.MILLISECONDS)
            : source == Source.KEY || source == Source.HEADER ? options.withMissingAsDefault(true) : options);
        this.headerName = source == Source.HEADER
            ? spec.substring(Source.HEADER.spec.length()).getBytes(StandardCharsets.UTF_8)
            : null;
        this.headerNameBuffer = headerName == null ? null : new UnsafeBuffer(headerName);
        this.raw = (source == Source.KEY || source == Source.HEADER) && (base.kind() == ClickHouseType.Kind.STRING
            || base.kind() == ClickHouseType.Kind.FIXED_STRING);
        this.fixedLength = base.kind() == ClickHouseType.Kind.FIXED_STRING ? base.fixedLength() : -1;
        this.numericId = source == Source.TIMESTAMP_TYPE && integer(base.kind());
        this.nullableValues = (source == Source.HEADERS || source == Source.HEADER_NAMES
            || source == Source.HEADER_VALUES) && listNullable(type);
        check(base);
    }

    /**
     * A kind-neutral column ({@link KafkaMetadata}): no column type and no encoder; {@link #write} only fills the view
     * and never writes bytes. Header lists are not taken here.
     *
     * @param source    the source, not a header list
     * @param spec      the spec
     * @param raw       whether {@code $key} and {@code $header.NAME} bytes are taken as they are, as a JSON string
     *                  (well-formed UTF-8 only), rather than parsed as a JSON value
     * @param numericId whether {@code $timestamp_type} is Kafka's id rather than its name
     */
    private MetadataColumn(final Source source, final String spec, final boolean raw, final boolean numericId)
    {
        this.source = source;
        this.spec = spec;
        this.type = null;
        this.encoder = null;
        this.nullable = false;
        this.headerName = source == Source.HEADER
            ? spec.substring(Source.HEADER.spec.length()).getBytes(StandardCharsets.UTF_8)
            : null;
        this.headerNameBuffer = headerName == null ? null : new UnsafeBuffer(headerName);
        this.raw = raw && (source == Source.KEY || source == Source.HEADER);
        this.fixedLength = -1;
        this.numericId = numericId && source == Source.TIMESTAMP_TYPE;
        this.nullableValues = false;
    }

    /**
     * Binds a kind-neutral column ({@link KafkaMetadata}).
     *
     * @param column    the column (for messages)
     * @param spec      the metadata spec
     * @param raw       {@code $key} and {@code $header.NAME} bytes taken as they are (a string)
     * @param numericId {@code $timestamp_type} as Kafka's id
     * @return the column
     * @throws IllegalArgumentException for a header list or a spec that names no source
     */
    static MetadataColumn neutral(final String column, final String spec, final boolean raw, final boolean numericId)
    {
        for (final Source s : Source.values())
        {
            if (matches(s, spec))
            {
                if (s == Source.HEADERS || s == Source.HEADER_NAMES || s == Source.HEADER_VALUES)
                {
                    throw new IllegalArgumentException("column " + column + " cannot take " + spec + ": header lists "
                        + "are written for ClickHouse only; map one header by name ($header.NAME)");
                }
                return new MetadataColumn(s, spec, raw, numericId);
            }
        }
        throw new IllegalArgumentException("column " + column + " maps " + spec + ", which is no Kafka metadata "
            + "source: " + SOURCES + " (a JSON path starting with $ is written \\$...)");
    }

    /**
     * @param column  the column's name
     * @param mapping its {@code columns} mapping, or null
     * @return the metadata spec the column is filled from ({@code $offset}), or null when it reads a JSON path
     */
    static String specOf(final String column, final String mapping)
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
    static String jsonPath(final String mapping)
    {
        return mapping.startsWith("\\$") ? mapping.substring(1) : mapping;
    }

    /**
     * @param column the column (for messages)
     * @param spec   the metadata spec, from {@link #specOf}
     * @param type   the column's type
     * @param options conversion options
     * @return the bound column
     * @throws IllegalArgumentException naming the column, the source and the types it takes
     */
    static MetadataColumn bind(final String column, final String spec, final ClickHouseType type,
        final EncoderOptions options)
    {
        for (final Source s : Source.values())
        {
            if (matches(s, spec))
            {
                try
                {
                    return new MetadataColumn(s, spec, type, options);
                }
                catch (final IllegalArgumentException e)
                {
                    throw new IllegalArgumentException("column " + column + " (" + type + ") cannot take " + spec + ": "
                        + e.getMessage(), e);
                }
            }
        }
        throw new IllegalArgumentException("column " + column + " maps " + spec + ", which is no Kafka metadata "
            + "source: " + SOURCES + " (a JSON path starting with $ is written \\$...)");
    }

    /**
     * @param spec a metadata spec ({@link #specOf})
     * @return whether it names one of the sources
     */
    static boolean knownSource(final String spec)
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
    String spec()
    {
        return spec;
    }

    /** @return the encoder of the column (for $timestamp: with epoch milliseconds) */
    ColumnEncoder encoder()
    {
        return encoder;
    }

    /** @return whether the value comes from the key or headers, which the source copies only when asked */
    boolean readsKeyAndHeaders()
    {
        return source == Source.KEY || source == Source.HEADER || source == Source.HEADERS
            || source == Source.HEADER_NAMES || source == Source.HEADER_VALUES;
    }

    /**
     * Writes the column, or puts its value in {@code view} for the caller to encode.
     *
     * @param row  the record
     * @param out  the row buffer
     * @param view receives the value when {@link #VIEW} is returned
     * @return {@link #WRITTEN}, {@link #VIEW}, or a negative {@link ConversionError} code
     */
    int write(final JsonRecord row, final Bytes<?> out, final JsonValueView view)
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
            case KEY :
                return bytes(e.keyLength() < 0 ? null : e.key(), out, view);
            case HEADER :
                return bytes(e.lastHeader(headerNameBuffer, 0, headerName.length), out, view);
            default :
                return headers(e, out);
        }
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

    /** A key or header value: raw into String and FixedString, else as a JSON value (or a JSON string). */
    private int bytes(final DirectBuffer value, final Bytes<?> out, final JsonValueView view)
    {
        if (value == null)
        {
            view.setMissing();
            return VIEW;
        }
        final int length = value.capacity();
        if (raw && type == null)
        {
            // kind-neutral: the bytes as a string, for the caller's encoder
            if (!validUtf8(value, length))
            {
                return ConversionError.INVALID_STRING;
            }
            view.set(value, JsonKind.STRING, 0, length, false);
            return VIEW;
        }
        if (raw)
        {
            if (fixedLength >= 0 && length > fixedLength)
            {
                return ConversionError.TOO_LONG;
            }
            if (nullable)
            {
                RowBinary.writeInt8(out, 0);
            }
            if (fixedLength >= 0)
            {
                RowBinary.writeBytes(out, value, 0, length);
                RowBinary.writeZeros(out, fixedLength - length);
            }
            else
            {
                RowBinary.writeString(out, value, 0, length);
            }
            return WRITTEN;
        }
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

    /** {@code $headers} (a list of pairs), {@code $header_names} or {@code $header_values} (a list of strings). */
    private int headers(final RecordEvent e, final Bytes<?> out)
    {
        final int count = e.headerCount();
        RowBinary.writeVarUInt(out, count);
        for (int i = 0; i < count; i++)
        {
            final DirectBuffer name = e.headerName(i);
            final DirectBuffer value = e.headerValue();
            if (source != Source.HEADER_VALUES)
            {
                RowBinary.writeString(out, name, 0, name.capacity());
            }
            if (source != Source.HEADER_NAMES)
            {
                if (nullableValues)
                {
                    RowBinary.writeInt8(out, value == null ? 1 : 0);
                    if (value != null)
                    {
                        RowBinary.writeString(out, value, 0, value.capacity());
                    }
                }
                else if (value == null)
                {
                    RowBinary.writeVarUInt(out, 0);
                }
                else
                {
                    RowBinary.writeString(out, value, 0, value.capacity());
                }
            }
        }
        return WRITTEN;
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

    /** Checks the column's type takes the source (see the class comment). */
    private void check(final ClickHouseType base)
    {
        final ClickHouseType.Kind k = base.kind();
        final boolean ok = switch (source)
        {
            case TOPIC -> k == ClickHouseType.Kind.STRING || k == ClickHouseType.Kind.FIXED_STRING || enumeration(k);
            case PARTITION, OFFSET -> integer(k) || k == ClickHouseType.Kind.FLOAT32 || k == ClickHouseType.Kind.FLOAT64
                || k == ClickHouseType.Kind.DECIMAL || k == ClickHouseType.Kind.STRING;
            case TIMESTAMP -> k == ClickHouseType.Kind.DATETIME || k == ClickHouseType.Kind.DATETIME64
                || k == ClickHouseType.Kind.INT64 || k == ClickHouseType.Kind.UINT64 || k == ClickHouseType.Kind.STRING;
            case TIMESTAMP_TYPE -> k == ClickHouseType.Kind.STRING || enumeration(k) || integer(k);
            case KEY, HEADER -> true;
            case HEADERS -> pairs(type);
            default -> type.kind() == ClickHouseType.Kind.ARRAY && text(type.nested(0), true);
        };
        if (!ok)
        {
            throw new IllegalArgumentException(switch (source)
            {
                case TOPIC -> "it takes String, FixedString or an Enum";
                case PARTITION, OFFSET -> "it takes an integer, Float, Decimal or String type";
                case TIMESTAMP -> "it takes DateTime, DateTime64, Int64 or UInt64 (ms) or String";
                case TIMESTAMP_TYPE -> "it takes String, an Enum or an integer type (Kafka's id)";
                case HEADERS -> "it takes Map(String, String) or Array(Tuple(String, String))";
                default -> "it takes Array(String)";
            });
        }
    }

    private static ClickHouseType base(final ClickHouseType t)
    {
        ClickHouseType b = t;
        while (b.kind() == ClickHouseType.Kind.NULLABLE || b.kind() == ClickHouseType.Kind.LOW_CARDINALITY)
        {
            b = b.nested(0);
        }
        return b;
    }

    private static boolean pairs(final ClickHouseType t)
    {
        if (t.kind() == ClickHouseType.Kind.MAP)
        {
            return text(t.nested(0), false) && text(t.nested(1), true);
        }
        return t.kind() == ClickHouseType.Kind.ARRAY && t.nested(0).kind() == ClickHouseType.Kind.TUPLE
            && t.nested(0).nestedTypes().size() == 2 && text(t.nested(0).nested(0), false)
            && text(t.nested(0).nested(1), true);
    }

    /** Whether the header list's values (or names) are Nullable(String). */
    private static boolean listNullable(final ClickHouseType t)
    {
        final ClickHouseType value = t.kind() == ClickHouseType.Kind.MAP
            ? t.nested(1)
            : t.kind() == ClickHouseType.Kind.ARRAY && t.nested(0).kind() == ClickHouseType.Kind.TUPLE
                ? t.nested(0).nested(1)
                : t.kind() == ClickHouseType.Kind.ARRAY ? t.nested(0) : t;
        ClickHouseType v = value;
        if (v.kind() == ClickHouseType.Kind.LOW_CARDINALITY)
        {
            v = v.nested(0);
        }
        return v.kind() == ClickHouseType.Kind.NULLABLE;
    }

    private static boolean text(final ClickHouseType t, final boolean nullableAllowed)
    {
        ClickHouseType b = t;
        if (b.kind() == ClickHouseType.Kind.LOW_CARDINALITY)
        {
            b = b.nested(0);
        }
        if (nullableAllowed && b.kind() == ClickHouseType.Kind.NULLABLE)
        {
            b = b.nested(0);
        }
        return b.kind() == ClickHouseType.Kind.STRING;
    }

    private static boolean integer(final ClickHouseType.Kind k)
    {
        return switch (k)
        {
            case INT8, INT16, INT32, INT64, INT128, INT256, UINT8, UINT16, UINT32, UINT64, UINT128, UINT256 -> true;
            default -> false;
        };
    }

    private static boolean enumeration(final ClickHouseType.Kind k)
    {
        return k == ClickHouseType.Kind.ENUM8 || k == ClickHouseType.Kind.ENUM16;
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
