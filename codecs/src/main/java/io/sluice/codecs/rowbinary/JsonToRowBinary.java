package io.sluice.codecs.rowbinary;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;

/**
 * One-shot conversion of a JSON value to the RowBinary bytes of one column value: type text plus JSON text in,
 * bytes out. For tests, tools and golden files (the sink's round trips through a real ClickHouse use it); it
 * allocates and is not for the hot path, where {@link ColumnEncoder} with a reused {@link EncodeScratch} is used.
 *
 * <p>Thread-safe (every call uses its own objects).
 */
public final class JsonToRowBinary
{
    private JsonToRowBinary()
    {
    }

    /**
     * Encodes with {@link EncoderOptions#DEFAULTS}.
     *
     * @param typeText  the column type, e.g. {@code Nullable(String)}.
     * @param jsonValue the JSON text of the value, e.g. {@code "\"x\""} or {@code "[0, null]"}; null for a missing
     *                  (absent) value.
     * @return the RowBinary bytes of the value.
     * @throws IllegalArgumentException if the type is malformed, the JSON is malformed, or the conversion fails; the
     *                                  message names the problem.
     */
    public static byte[] encode(final String typeText, final String jsonValue)
    {
        return encode(typeText, jsonValue, EncoderOptions.DEFAULTS);
    }

    /**
     * Encodes with the given options.
     *
     * @param typeText  the column type.
     * @param jsonValue the JSON text of the value; null for a missing value.
     * @param options   conversion options.
     * @return the RowBinary bytes of the value.
     * @throws IllegalArgumentException if the type or JSON is malformed or the conversion fails.
     */
    public static byte[] encode(final String typeText, final String jsonValue, final EncoderOptions options)
    {
        final ColumnEncoder encoder = ColumnEncoder.forType(typeText, options);
        final String document = jsonValue == null ? "{}" : "{\"v\":" + jsonValue + "}";
        final byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), JsonScanner.DEFAULT_MAX_DEPTH);
        final int scanned = scanner.validate(buffer, 0, bytes.length);
        if (scanned != JsonError.NONE)
        {
            throw new IllegalArgumentException("invalid JSON " + jsonValue + ": " + JsonError.describe(scanned) +
                " at byte " + (scanner.errorOffset() - 5));
        }
        final JsonValueView value = new JsonValueView();
        scanner.value(0, value);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        try
        {
            final int code = encoder.encode(value, out, new EncodeScratch(Math.max(64, bytes.length)));
            if (code != ConversionError.NONE)
            {
                throw new IllegalArgumentException(encoder.describeFailure("value", code) + " (" + jsonValue + ")");
            }
            final byte[] result = new byte[(int)out.writePosition()];
            out.read(result);
            return result;
        }
        finally
        {
            out.releaseLast();
        }
    }
}
