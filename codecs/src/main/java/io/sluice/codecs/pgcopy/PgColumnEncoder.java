package io.sluice.codecs.pgcopy;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;

/**
 * Writes a JSON value as one field of a PostgreSQL binary COPY tuple (its int32 length, then the value in the
 * binary format of the column's type), compiled once per column from its {@link PgType}.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #encode} returns {@link ConversionError#NONE} or a negative code of {@link ConversionError} or
 *       {@link PgCopyError}, and allocates nothing in steady state (the only exception: real/double precision text
 *       that misses the exact fast path, as for ClickHouse, see {@code docs/codecs.md}). On a failure some bytes
 *       may already be written: the caller rewinds {@code out.writePosition()} to where the tuple started and
 *       decides (skip the record, dead-letter it, fail).</li>
 *   <li>JSON {@code null} and a missing value are SQL NULL (length -1) in a nullable column; into a column declared
 *       NOT NULL they fail with {@link ConversionError#NULL_NOT_ALLOWED} or
 *       {@link ConversionError#MISSING_NOT_ALLOWED} (a column with a DEFAULT the caller wants applied is left out
 *       of the COPY column list instead).</li>
 *   <li>Every value PostgreSQL's receive function would refuse (and so fail the whole COPY) is refused here, per
 *       value: NUL characters, too many characters, numeric overflow, invalid UUIDs and dates, out-of-range
 *       numbers; the rules per JSON kind and column type are in {@code docs/postgres.md}, "Types".</li>
 * </ul>
 *
 * <p>Encoders are immutable and thread-safe; the mutable state lives in the caller's per-thread {@link PgScratch}.
 * Values must come from {@link io.sluice.codecs.json.JsonScanner} or {@link io.sluice.codecs.json.JsonCursor},
 * which validated their bytes (UTF-8 is not checked again).
 */
public abstract class PgColumnEncoder
{
    private final PgType type;
    private final boolean nullable;

    PgColumnEncoder(final PgType type, final boolean nullable)
    {
        this.type = type;
        this.nullable = nullable;
    }

    /**
     * Compiles an encoder.
     *
     * @param type     the column type (for a domain, its base type; see {@link PgType}).
     * @param nullable false for a column declared NOT NULL ({@code pg_attribute.attnotnull}).
     * @return the encoder.
     */
    public static PgColumnEncoder forType(final PgType type, final boolean nullable)
    {
        return PgEncoders.build(type, nullable);
    }

    /**
     * Parses the type text ({@link PgType#parse}) and compiles an encoder.
     *
     * @param typeText the column type, e.g. {@code numeric(10,2)} or {@code text[]}.
     * @param nullable false for a NOT NULL column.
     * @return the encoder.
     * @throws IllegalArgumentException if the type text is malformed or unsupported.
     */
    public static PgColumnEncoder forType(final String typeText, final boolean nullable)
    {
        return forType(PgType.parse(typeText), nullable);
    }

    /**
     * Writes one field: its int32 length and value, or -1 for NULL.
     *
     * @param value   the JSON value (may be missing).
     * @param out     the batch buffer; written at and advancing {@code writePosition}.
     * @param scratch the calling thread's scratch.
     * @return {@link ConversionError#NONE} or a negative code ({@link PgCopyError#describe}); partial bytes may
     *     have been written.
     */
    public final int encode(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
    {
        final int kind = value.kind();
        if (kind == JsonKind.NULL || kind == JsonKind.MISSING)
        {
            if (!nullable)
            {
                return kind == JsonKind.NULL ? ConversionError.NULL_NOT_ALLOWED : ConversionError.MISSING_NOT_ALLOWED;
            }
            PgCopy.writeNull(out);
            return ConversionError.NONE;
        }
        return encodeField(value, out, scratch);
    }

    /** Writes the length and a value that is neither null nor missing. */
    final int encodeField(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
    {
        final long at = out.writePosition();
        PgCopy.writeInt32(out, 0);
        final int code = encodeValue(value, out, scratch);
        if (code == ConversionError.NONE)
        {
            PgCopy.putInt32(out, at, (int)(out.writePosition() - at - 4));
        }
        return code;
    }

    /** Writes the bytes of a value that is neither null nor missing, without length. */
    abstract int encodeValue(JsonValueView value, Bytes<?> out, PgScratch scratch);

    /**
     * The column type this encoder was compiled for.
     *
     * @return the type.
     */
    public PgType type()
    {
        return type;
    }

    /**
     * Whether NULL may be written.
     *
     * @return false for a NOT NULL column.
     */
    public boolean nullable()
    {
        return nullable;
    }

    /**
     * An error message naming the column, its type, the JSON path and the reason, for the caller's error channel
     * (allocates; not for the success path).
     *
     * @param column the column name.
     * @param path   the JSON path the value was read from.
     * @param code   a code returned by {@link #encode}.
     * @return e.g. {@code column 's' (text) at path 's': NUL character (U+0000): ... (SQLSTATE 22021)}.
     */
    public String describeFailure(final String column, final String path, final int code)
    {
        return "column '" + column + "' (" + type + ") at path '" + path + "': " + PgCopyError.describe(code);
    }
}
