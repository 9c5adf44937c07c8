package io.sluice.codecs.rowbinary;

/**
 * Result codes of {@link ColumnEncoder#encode}: {@link #NONE} is zero, every failure is negative. They are expected
 * outcomes on the hot path (bad input data), never exceptions.
 */
public final class ConversionError
{
    /** The value was written. */
    public static final int NONE = 0;
    /** The number, date or date-time is outside the column type's range (never wrapped around or clamped). */
    public static final int OUT_OF_RANGE = -101;
    /** The text is not a number in JSON number syntax (after unescaping, for numeric strings). */
    public static final int NOT_A_NUMBER = -102;
    /** JSON {@code null} into a column that is not Nullable, without {@link EncoderOptions#nullAsDefault()}. */
    public static final int NULL_NOT_ALLOWED = -103;
    /** No value at the path, into a column that is not Nullable, Array or Map, without
     * {@link EncoderOptions#missingAsDefault()}. */
    public static final int MISSING_NOT_ALLOWED = -104;
    /** Not an ISO-8601 date-time or epoch number this encoder accepts (a well-formed one outside the type's range
     * is {@link #OUT_OF_RANGE}). */
    public static final int BAD_DATETIME = -105;
    /** Not a {@code YYYY-MM-DD} date or day number (a well-formed one outside the type's range is
     * {@link #OUT_OF_RANGE}). */
    public static final int BAD_DATE = -106;
    /** Not a UUID in the canonical 8-4-4-4-12 hex form. */
    public static final int BAD_UUID = -107;
    /** Not {@code true}, {@code false}, {@code 0} or {@code 1}. */
    public static final int BAD_BOOL = -108;
    /** Neither a name nor a number of the Enum's elements. */
    public static final int BAD_ENUM = -109;
    /** A string that cannot be decoded: bad escape, lone surrogate or invalid UTF-8. */
    public static final int INVALID_STRING = -110;
    /** Longer than a FixedString(N), or longer than the scratch buffer ({@code maxStringBytes}) when decoding is
     * needed. */
    public static final int TOO_LONG = -111;
    /** A JSON value of a kind the column cannot take, e.g. an object into Int32. */
    public static final int WRONG_KIND = -112;
    /** A Decimal value that is not a number. */
    public static final int BAD_DECIMAL = -113;
    /** A number with a non-zero fraction into an integer column ({@code 1.5}); integral forms such as {@code 5.0}
     * or {@code 1e3} are accepted. */
    public static final int NOT_AN_INTEGER = -114;
    /** A Tuple from a JSON array with a different number of elements, or from an object into an unnamed Tuple. */
    public static final int TUPLE_ARITY = -115;
    /** A nested object or array that the cursor found malformed (only for views not produced by the scanner). */
    public static final int BAD_JSON = -116;

    private ConversionError()
    {
    }

    /**
     * A short human-readable description of a code.
     *
     * @param code a code of this class.
     * @return the description.
     */
    public static String describe(final int code)
    {
        switch (code)
        {
            case NONE :
                return "no error";
            case OUT_OF_RANGE :
                return "value out of range for the column type";
            case NOT_A_NUMBER :
                return "not a number";
            case NULL_NOT_ALLOWED :
                return "null into a non-Nullable column without a default";
            case MISSING_NOT_ALLOWED :
                return "missing value into a non-Nullable column without a default";
            case BAD_DATETIME :
                return "not a valid date-time (ISO-8601, YYYY-MM-DD hh:mm:ss or an epoch number)";
            case BAD_DATE :
                return "not a valid date (YYYY-MM-DD or a day number)";
            case BAD_UUID :
                return "not a valid UUID";
            case BAD_BOOL :
                return "not a boolean (true, false, 0, 1)";
            case BAD_ENUM :
                return "not a name or value of the Enum";
            case INVALID_STRING :
                return "string cannot be decoded (bad escape, lone surrogate or invalid UTF-8)";
            case TOO_LONG :
                return "string too long";
            case WRONG_KIND :
                return "JSON value of a kind the column cannot take";
            case BAD_DECIMAL :
                return "not a decimal number";
            case NOT_AN_INTEGER :
                return "number with a fraction into an integer column";
            case TUPLE_ARITY :
                return "wrong number of Tuple elements";
            case BAD_JSON :
                return "malformed nested JSON";
            default :
                return "unknown conversion error " + code;
        }
    }
}
