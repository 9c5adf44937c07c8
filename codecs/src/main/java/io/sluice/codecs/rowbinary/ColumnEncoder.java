package io.sluice.codecs.rowbinary;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonValueView;

/**
 * Converts a JSON value into one ClickHouse column value in RowBinary, compiled once per column type.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #encode} returns {@link ConversionError#NONE} or a negative {@link ConversionError} code and
 *       allocates nothing in steady state (the only exception: Float32/Float64 text that misses the exact fast path,
 *       see {@code docs/codecs.md}). On a failure some bytes may already have been written: the caller rewinds
 *       {@code out.writePosition()} to where the row started and decides (skip the row, dead-letter it, fail).</li>
 *   <li>A {@link io.sluice.codecs.json.JsonKind#MISSING MISSING} value is written as NULL into Nullable, as an
 *       empty Array or Map, and otherwise fails with {@link ConversionError#MISSING_NOT_ALLOWED} (or writes the
 *       type's default with {@link EncoderOptions#missingAsDefault()}).</li>
 *   <li>JSON {@code null} is NULL into Nullable and an empty Array or Map; into anything else it fails with
 *       {@link ConversionError#NULL_NOT_ALLOWED} unless {@link EncoderOptions#nullAsDefault()} is on, which writes
 *       the type's zero value.</li>
 *   <li>A String column takes a JSON string as its unescaped text, and any other value (number, true, false,
 *       object, array) as the raw JSON text exactly as it appears in the record: useful for catch-all
 *       {@code payload String} columns.</li>
 *   <li>Integer columns (Int8 to Int256, UInt8 to UInt256) take JSON numbers and numeric strings whose value is
 *       exactly integral ({@code 42}, {@code "42"}, {@code 5.0}, {@code 1e3}); a fraction is
 *       {@link ConversionError#NOT_AN_INTEGER}; every width is range-checked ({@link ConversionError#OUT_OF_RANGE},
 *       never a wrap-around). Booleans are 1 and 0 (ClickHouse's {@code input_format_json_read_bools_as_numbers});
 *       objects and arrays {@link ConversionError#WRONG_KIND}.</li>
 *   <li>Other conversions (floats, Bool, dates, date-times and epoch units, UUID, Decimal, Enum, Map keys, Tuple)
 *       are described on each encoder and in {@code docs/codecs.md}.</li>
 * </ul>
 *
 * <p>Encoders are immutable and thread-safe; the mutable state lives in the caller's per-thread
 * {@link EncodeScratch}. Values given to an encoder must come from {@link io.sluice.codecs.json.JsonScanner} or
 * {@link io.sluice.codecs.json.JsonCursor}, which validated their bytes (UTF-8 is not checked again).
 */
public abstract class ColumnEncoder
{
    private final ClickHouseType type;

    ColumnEncoder(final ClickHouseType type)
    {
        this.type = type;
    }

    /**
     * Compiles an encoder with {@link EncoderOptions#DEFAULTS}.
     *
     * @param type the column type.
     * @return the encoder.
     */
    public static ColumnEncoder forType(final ClickHouseType type)
    {
        return forType(type, EncoderOptions.DEFAULTS);
    }

    /**
     * Compiles an encoder.
     *
     * @param type    the column type.
     * @param options conversion options.
     * @return the encoder.
     */
    public static ColumnEncoder forType(final ClickHouseType type, final EncoderOptions options)
    {
        return Encoders.build(type, type, options, 0);
    }

    /**
     * Parses the type text and compiles an encoder.
     *
     * @param typeText the column type as ClickHouse spells it.
     * @param options  conversion options.
     * @return the encoder.
     * @throws IllegalArgumentException if the type text is malformed or unsupported.
     */
    public static ColumnEncoder forType(final String typeText, final EncoderOptions options)
    {
        return forType(ClickHouseType.parse(typeText), options);
    }

    /**
     * Writes one value.
     *
     * @param value   the JSON value (may be missing).
     * @param out     the buffer; written at and advancing {@code writePosition}.
     * @param scratch the calling thread's scratch.
     * @return {@link ConversionError#NONE} or a negative {@link ConversionError} code (partial bytes may have been
     *     written).
     */
    public abstract int encode(JsonValueView value, Bytes<?> out, EncodeScratch scratch);

    /**
     * Writes the type's default (zero) value, as {@code nullAsDefault} does.
     *
     * @param out the buffer.
     */
    public abstract void encodeDefault(Bytes<?> out);

    /**
     * The column type this encoder was compiled for.
     *
     * @return the type.
     */
    public ClickHouseType type()
    {
        return type;
    }

    /**
     * An error message naming the column and its type, for the caller's error channel (allocates; not for the
     * success path).
     *
     * @param column the column name.
     * @param code   a code returned by {@link #encode}.
     * @return e.g. {@code column 'name' (String): null into a non-Nullable column without a default}.
     */
    public String describeFailure(final String column, final int code)
    {
        return "column '" + column + "' (" + type + "): " + ConversionError.describe(code);
    }
}
