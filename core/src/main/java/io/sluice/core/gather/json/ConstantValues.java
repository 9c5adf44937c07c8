package io.sluice.core.gather.json;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;

/**
 * What every kind's JSON row encoder does the same way off the hot path: encoding a constant DEFAULT once at bind
 * (the catalog's JSON text of its value, through the column's own encoder) and showing a refused value in a record
 * error. Stateless; thread-safe.
 */
public final class ConstantValues
{
    /** {@link #encode}: the text is no JSON value. */
    public static final int NOT_JSON = Integer.MIN_VALUE;

    private ConstantValues()
    {
    }

    /** A column's encoder, as {@link #encode} calls it. */
    @FunctionalInterface
    public interface ValueWriter
    {
        /**
         * @param value the value
         * @param out   where its bytes go
         * @return 0 on success, else the kind's negative error code
         */
        int write(JsonValueView value, Bytes<?> out);
    }

    /**
     * Encodes a JSON value given as text once, e.g. a column's DEFAULT as the catalog evaluated it. Allocates; bind
     * time only.
     *
     * @param json   the value as JSON text ({@code 0}, {@code "x"}, {@code [1,2]})
     * @param writer the column's encoder
     * @param code   receives, in {@code code[0]}, 0, the writer's error code, or {@link #NOT_JSON}
     * @return the bytes written, or null when the text is no JSON value or the writer refused it
     */
    public static byte[] encode(final String json, final ValueWriter writer, final int[] code)
    {
        final byte[] doc = ("{\"v\":" + json + "}").getBytes(StandardCharsets.UTF_8);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), 64);
        if (scanner.scan(new UnsafeBuffer(doc), 0, doc.length) != JsonError.NONE)
        {
            code[0] = NOT_JSON;
            return null;
        }
        final JsonValueView v = new JsonValueView();
        scanner.value(0, v);
        final Bytes<Void> out = Bytes.allocateElasticDirect(64);
        try
        {
            code[0] = writer.write(v, out);
            if (code[0] != 0)
            {
                return null;
            }
            final byte[] bytes = new byte[(int)out.writePosition()];
            out.read(bytes);
            return bytes;
        }
        finally
        {
            out.releaseLast();
        }
    }

    /**
     * @param v the value a column could not take
     * @return {@code " (value ...)"} with its first 96 bytes of JSON text (a string in quotes, escapes as they stand
     *     in the record, a raw NUL shown as {@code \u0000}; 96 holds any Int256 or UInt256 and one digit past it in
     *     full), or empty for a missing value; for error messages only (allocates)
     */
    public static String shown(final JsonValueView v)
    {
        if (v.kind() == JsonKind.MISSING)
        {
            return "";
        }
        final int n = Math.min(v.length(), 96);
        final byte[] b = new byte[n];
        v.buffer().getBytes(v.offset(), b);
        final String text = new String(b, StandardCharsets.UTF_8).replace("\u0000", "\\u0000")
            + (v.length() > n ? "..." : "");
        return v.kind() == JsonKind.STRING ? " (value \"" + text + "\")" : " (value " + text + ")";
    }
}
