package io.sluice.sinks.clickhouse.json;

import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.MetadataColumn;
import io.sluice.core.gather.json.MetadataColumn.Source;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A ClickHouse column filled from the record's Kafka coordinates: core's {@link MetadataColumn} (the sources, their
 * specs, each value as a view) bound to the column's ClickHouse type, which decides whether the type takes the source
 * and writes what no view holds.
 *
 * <table>
 * <caption>Sources and the column types they take (Nullable and LowCardinality of them too)</caption>
 * <tr><th>source</th><th>types</th></tr>
 * <tr><td>{@code $topic}</td><td>String, FixedString, Enum</td></tr>
 * <tr><td>{@code $partition}, {@code $offset}</td><td>(U)Int*, Float*, Decimal, String</td></tr>
 * <tr><td>{@code $timestamp}</td><td>DateTime (s), DateTime64(p), (U)Int64 (ms), String (ms); a record without one is
 * missing</td></tr>
 * <tr><td>{@code $timestamp_type}</td><td>String, Enum; integer types take Kafka's id (0, 1, -1)</td></tr>
 * <tr><td>{@code $key}, {@code $header.NAME}</td><td>String and FixedString take the bytes as they are; any other
 * type takes them as a JSON value when they parse as one ({@code 42}, {@code {"a":1}}), else as a JSON string; a null
 * key or an absent header is the column's DEFAULT, NULL, or else the type's zero (an empty String, as the Kafka
 * engine's {@code _key} of an unkeyed record)</td></tr>
 * <tr><td>{@code $headers}</td><td>Map(String, String) or Array(Tuple(String, String)) (the same RowBinary bytes; a
 * Nullable(String) value keeps a null as NULL, else it is empty)</td></tr>
 * <tr><td>{@code $header_names}, {@code $header_values}</td><td>Array(String): the Kafka engine's
 * {@code _headers.name}, {@code _headers.value}</td></tr>
 * </table>
 * A missing timestamp follows the JSON rules (the column's DEFAULT, NULL, or the record fails naming the column).
 *
 * <p>Each value becomes a view the column's own encoder writes, so every conversion rule and range check of a JSON
 * value applies; only raw bytes into String and FixedString and the header lists are written here, in RowBinary
 * (ClickHouse's documented layout: a LEB128 length before a String, a 0/1 byte before a Nullable value, a LEB128
 * count before an Array or Map). One instance per bound column, used by the route stage thread; nothing allocates per
 * record.
 */
final class ClickHouseMetadataColumn
{
    /** {@link #write}: the column's bytes are written. */
    static final int WRITTEN = 1;
    /** {@link #write}: the value is in the view (possibly missing); the caller encodes it. */
    static final int VIEW = MetadataColumn.VIEW;

    private final MetadataColumn column;
    private final Source source;
    private final ColumnEncoder encoder;
    private final ClickHouseType type;
    private final boolean raw;
    private final boolean nullable;
    private final int fixedLength;
    private final boolean nullableValues;

    private ClickHouseMetadataColumn(final MetadataColumn column, final ClickHouseType type,
        final EncoderOptions options)
    {
        this.column = column;
        this.source = column.source();
        this.type = type;
        this.nullable = type.kind() == ClickHouseType.Kind.NULLABLE;
        final ClickHouseType base = base(type);
        this.encoder = ColumnEncoder.forType(type, source == Source.TIMESTAMP
            ? options.withEpochUnit(EncoderOptions.EpochUnit.MILLISECONDS)
            : source == Source.KEY || source == Source.HEADER ? options.withMissingAsDefault(true) : options);
        this.raw = (source == Source.KEY || source == Source.HEADER) && (base.kind() == ClickHouseType.Kind.STRING
            || base.kind() == ClickHouseType.Kind.FIXED_STRING);
        this.fixedLength = base.kind() == ClickHouseType.Kind.FIXED_STRING ? base.fixedLength() : -1;
        this.nullableValues = source.list() && listNullable(type);
        check(base);
    }

    /**
     * @param column  the column (for messages)
     * @param spec    the metadata spec, from {@link MetadataColumn#specOf}
     * @param type    the column's type
     * @param options conversion options
     * @return the bound column
     * @throws IllegalArgumentException naming the column, the source and the types it takes
     */
    static ClickHouseMetadataColumn bind(final String column, final String spec, final ClickHouseType type,
        final EncoderOptions options)
    {
        // an unknown source is refused first, naming the sources there are
        final MetadataColumn neutral = MetadataColumn.bind(column, spec, integer(base(type).kind()));
        try
        {
            return new ClickHouseMetadataColumn(neutral, type, options);
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("column " + column + " (" + type + ") cannot take " + spec + ": "
                + e.getMessage(), e);
        }
    }

    /** @return the spec, e.g. {@code $offset} */
    String spec()
    {
        return column.spec();
    }

    /** @return the encoder of the column (for $timestamp: with epoch milliseconds) */
    ColumnEncoder encoder()
    {
        return encoder;
    }

    /** @return whether the value comes from the key or headers, which the source copies only when asked */
    boolean readsKeyAndHeaders()
    {
        return column.readsKeyAndHeaders();
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
        if (source.list())
        {
            return headers(row.event(), out);
        }
        if (raw)
        {
            final DirectBuffer value = column.bytes(row);
            if (value != null)
            {
                return rawBytes(value, out);
            }
        }
        return column.view(row, view);
    }

    /** A key or header value into String or FixedString, as it is. */
    private int rawBytes(final DirectBuffer value, final Bytes<?> out)
    {
        final int length = value.capacity();
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
}
