package io.sluice.codecs.json;

/**
 * Error codes reported by the JSON scanner, cursor and string decoder, as plain {@code int} constants.
 *
 * <p>{@link #NONE} is zero; every error is negative and {@code <= -2}, so that {@code -1} stays free for
 * {@link RoutingValues#MISSING} and the two ranges never overlap. Each code is paired with a byte offset by the
 * component that reports it (for example {@link JsonScanner#errorOffset()}).
 */
public final class JsonError
{
    /** No error. */
    public static final int NONE = 0;
    /** The document or string ended before the value was complete (the offset is the end of the input). */
    public static final int TRUNCATED = -2;
    /** A byte that the JSON grammar does not allow at this place (also: a byte-order mark, a bare word). */
    public static final int UNEXPECTED_BYTE = -3;
    /** Bytes inside a string that are not well-formed UTF-8 (RFC 3629: overlong forms, surrogates encoded in
     * UTF-8, code points above U+10FFFF and stray continuation bytes are all rejected). */
    public static final int INVALID_UTF8 = -4;
    /** An unescaped control character (U+0000 to U+001F) inside a string. */
    public static final int CONTROL_CHAR_IN_STRING = -5;
    /** A backslash followed by anything other than {@code " \ / b f n r t u}, or {@code \}{@code u} without four
     * hex digits. */
    public static final int BAD_ESCAPE = -6;
    /** A {@code \}{@code u} escape of a UTF-16 surrogate that is not part of a high-then-low pair. */
    public static final int LONE_SURROGATE = -7;
    /** Containers nested deeper than the configured maximum depth. */
    public static final int TOO_DEEP = -8;
    /** A number that breaks the JSON grammar ({@code 01}, {@code 1.}, {@code -}, {@code 1e}, {@code 1x}, ...). */
    public static final int BAD_NUMBER = -9;
    /** Anything but whitespace after the top-level value. */
    public static final int TRAILING_DATA = -10;
    /** The input holds no value at all (empty or whitespace only). */
    public static final int EMPTY_DOCUMENT = -11;
    /** The destination buffer is too small for the decoded bytes. */
    public static final int BUFFER_TOO_SMALL = -12;
    /** A cursor was asked to iterate a value that is not an object or an array. */
    public static final int NOT_A_CONTAINER = -13;
    /** An object holds a key twice at a path being extracted, under {@link DuplicateKeys#FAIL} (the offset is the
     * second occurrence's opening quote; {@link JsonScanner#duplicateKey()} names the path). */
    public static final int DUPLICATE_KEY = -14;

    private JsonError()
    {
    }

    /**
     * A short human-readable description of a code, for logs and error messages.
     *
     * @param code a code of this class.
     * @return the description; unknown codes are described as such.
     */
    public static String describe(final int code)
    {
        switch (code)
        {
            case NONE :
                return "no error";
            case TRUNCATED :
                return "document truncated: input ended inside a value";
            case UNEXPECTED_BYTE :
                return "unexpected byte";
            case INVALID_UTF8 :
                return "invalid UTF-8 in a string";
            case CONTROL_CHAR_IN_STRING :
                return "unescaped control character in a string";
            case BAD_ESCAPE :
                return "invalid escape sequence in a string";
            case LONE_SURROGATE :
                return "unpaired UTF-16 surrogate escape in a string";
            case TOO_DEEP :
                return "nesting deeper than the configured maximum depth";
            case BAD_NUMBER :
                return "malformed number";
            case TRAILING_DATA :
                return "data after the end of the top-level value";
            case EMPTY_DOCUMENT :
                return "empty document";
            case BUFFER_TOO_SMALL :
                return "destination buffer too small";
            case NOT_A_CONTAINER :
                return "value is not an object or an array";
            case DUPLICATE_KEY :
                return "duplicate key";
            default :
                return "unknown JSON error " + code;
        }
    }
}
