package io.sluice.codecs.json;

/**
 * The kind of a JSON value found at a path, as plain {@code int} constants so the hot path carries no objects.
 *
 * <p>{@link #MISSING} means the path did not resolve to a value: the key or index is absent, an intermediate value
 * has the wrong shape, or the document was malformed before the value ended.
 */
public final class JsonKind
{
    /** No value at the path. */
    public static final int MISSING = 0;
    /** A JSON string; its view covers the raw bytes between the quotes. */
    public static final int STRING = 1;
    /** A JSON number; its view covers the token as written, e.g. {@code -1.5e3}. */
    public static final int NUMBER = 2;
    /** The literal {@code true}. */
    public static final int TRUE = 3;
    /** The literal {@code false}. */
    public static final int FALSE = 4;
    /** The literal {@code null}. */
    public static final int NULL = 5;
    /** A JSON object; its view covers the whole value including its braces. */
    public static final int OBJECT = 6;
    /** A JSON array; its view covers the whole value from {@code [} to {@code ]}. */
    public static final int ARRAY = 7;

    private static final String[] NAMES = {"MISSING", "STRING", "NUMBER", "TRUE", "FALSE", "NULL", "OBJECT", "ARRAY"};

    private static final String[] NOT_AN_OBJECT = {
        "value is empty or blank, not a JSON object (invalid JSON)",
        "value is a JSON string, not an object",
        "value is a JSON number, not an object",
        "value is the JSON literal true, not an object",
        "value is the JSON literal false, not an object",
        "value is the JSON literal null, not an object",
        null,
        "value is a JSON array, not an object"};

    private JsonKind()
    {
    }

    /**
     * The upper-case name of a kind, for logs and messages.
     *
     * @param kind one of the constants of this class.
     * @return its name, or {@code "UNKNOWN(k)"} for any other value.
     */
    public static String name(final int kind)
    {
        return kind >= 0 && kind < NAMES.length ? NAMES[kind] : "UNKNOWN(" + kind + ")";
    }

    /**
     * Why a Kafka value whose top-level value has this kind is not a row: "value is a JSON array, not an object",
     * "value is a JSON number, not an object", "value is the JSON literal null, not an object", ..., and for
     * {@link #MISSING} (an empty or blank value) "value is empty or blank, not a JSON object (invalid JSON)". A
     * constant; nothing is allocated.
     *
     * @param kind the top-level kind, e.g. {@link JsonScanner#rootKind()}.
     * @return the message, or null for {@link #OBJECT} (and for values that are no kind).
     */
    public static String notAnObject(final int kind)
    {
        return kind >= 0 && kind < NOT_AN_OBJECT.length ? NOT_AN_OBJECT[kind] : null;
    }

    /**
     * The kind a value has, judged from its first byte; the byte is assumed to start a value the scanner accepted.
     *
     * @param firstByte the first byte of the value.
     * @return the kind, or {@link #MISSING} if the byte cannot start a JSON value.
     */
    static int ofFirstByte(final int firstByte)
    {
        switch (firstByte)
        {
            case '"' :
                return STRING;
            case '{' :
                return OBJECT;
            case '[' :
                return ARRAY;
            case 't' :
                return TRUE;
            case 'f' :
                return FALSE;
            case 'n' :
                return NULL;
            default :
                return firstByte == '-' || (firstByte >= '0' && firstByte <= '9') ? NUMBER : MISSING;
        }
    }
}
