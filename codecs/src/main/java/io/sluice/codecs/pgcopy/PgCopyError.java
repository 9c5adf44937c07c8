package io.sluice.codecs.pgcopy;

import io.sluice.codecs.rowbinary.ConversionError;

/**
 * Result codes of {@link PgColumnEncoder#encode}: {@link ConversionError#NONE} (zero), any negative
 * {@link ConversionError} code (the conversions shared with the ClickHouse encoders), or one of the PostgreSQL
 * refusals below. Each names the SQLSTATE the server would have raised for the whole COPY, so the one value is
 * refused instead of the batch.
 */
public final class PgCopyError
{
    /** A NUL character (U+0000) in text, varchar, char, an enum label or jsonb: PostgreSQL cannot store it
     * (22021 for text, 22P05 for jsonb's {@code &#92;u0000}). */
    public static final int NUL_CHARACTER = -201;
    /** More characters than varchar(n) or char(n) allows, the excess not all spaces (22001). */
    public static final int TOO_MANY_CHARACTERS = -202;
    /** A numeric with more integer digits than precision - scale allows after rounding (22003). */
    public static final int NUMERIC_OVERFLOW = -203;
    /** A jsonb document with a {@code &#92;u} escape of an unpaired surrogate (22P02). */
    public static final int UNPAIRED_SURROGATE = -204;
    /** Not one of the enum's labels (22P02). */
    public static final int NOT_AN_ENUM_LABEL = -205;
    /** A date or timestamp PostgreSQL's input refuses or cannot hold (year 0000, beyond its range: 22008). */
    public static final int DATE_OUT_OF_RANGE = -206;
    /** A numeric beyond what the type can hold at all (weight above 32767 base-10000 digits, or more than 16383
     * fraction digits: 22003). */
    public static final int NUMERIC_FORMAT_OVERFLOW = -207;

    private PgCopyError()
    {
    }

    /**
     * A short human-readable description of a code.
     *
     * @param code a code of this class or of {@link ConversionError}.
     * @return the description.
     */
    public static String describe(final int code)
    {
        switch (code)
        {
            case NUL_CHARACTER :
                return "NUL character (U+0000): PostgreSQL cannot store it in text or jsonb (SQLSTATE 22021)";
            case TOO_MANY_CHARACTERS :
                return "more characters than the column's length allows (SQLSTATE 22001)";
            case NUMERIC_OVERFLOW :
                return "numeric field overflow: more integer digits than precision - scale (SQLSTATE 22003)";
            case UNPAIRED_SURROGATE :
                return "unpaired surrogate \\u escape in a JSON string: jsonb refuses it (SQLSTATE 22P02)";
            case NOT_AN_ENUM_LABEL :
                return "not a label of the enum (SQLSTATE 22P02)";
            case DATE_OUT_OF_RANGE :
                return "date or timestamp out of PostgreSQL's range, or year 0000 (SQLSTATE 22008)";
            case NUMERIC_FORMAT_OVERFLOW :
                return "value overflows numeric format (SQLSTATE 22003)";
            default :
                return ConversionError.describe(code);
        }
    }
}
