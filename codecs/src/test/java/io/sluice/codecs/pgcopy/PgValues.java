package io.sluice.codecs.pgcopy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.testing.Buffers;

/** One-shot encoding of a JSON value into one binary COPY field, for tests (allocates). */
final class PgValues
{
    private PgValues()
    {
    }

    /** The JSON value placed in a document {"v": value} off-heap at an offset, scanned; null for a missing value. */
    static JsonValueView view(final String jsonValue)
    {
        final String document = jsonValue == null ? "{}" : "{\"v\":" + jsonValue + "}";
        final byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = Buffers.offHeap(bytes);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), JsonScanner.DEFAULT_MAX_DEPTH);
        final int scanned = scanner.validate(buffer, Buffers.PAD, bytes.length);
        if (scanned != JsonError.NONE)
        {
            throw new IllegalArgumentException("invalid JSON " + jsonValue + ": " + JsonError.describe(scanned));
        }
        final JsonValueView value = new JsonValueView();
        scanner.value(0, value);
        return value;
    }

    /** The result code of encoding into a nullable column of the type. */
    static int code(final String type, final String jsonValue)
    {
        final Bytes<?> out = Bytes.allocateElasticDirect(64);
        try
        {
            return PgColumnEncoder.forType(type, true).encode(view(jsonValue), out, new PgScratch(1 << 16));
        }
        finally
        {
            out.releaseLast();
        }
    }

    /**
     * The result code of encoding a value the scanner never checked (its view set by hand, as
     * {@link JsonValueView#set} allows): the scanner refuses unpaired surrogate escapes itself, the encoders must
     * too.
     */
    static int codeUnscanned(final String type, final int kind, final String raw)
    {
        final byte[] bytes = raw.getBytes(StandardCharsets.UTF_8);
        final JsonValueView value = new JsonValueView();
        value.set(Buffers.offHeap(bytes), kind, Buffers.PAD, bytes.length, raw.indexOf('\\') >= 0);
        final Bytes<?> out = Bytes.allocateElasticDirect(64);
        try
        {
            return PgColumnEncoder.forType(type, true).encode(value, out, new PgScratch(1 << 16));
        }
        finally
        {
            out.releaseLast();
        }
    }

    /** The field bytes (int32 length, then the value) of a value into a column of the type. */
    static byte[] field(final PgColumnEncoder encoder, final String jsonValue)
    {
        final Bytes<?> out = Bytes.allocateElasticDirect(64);
        try
        {
            final int code = encoder.encode(view(jsonValue), out, new PgScratch(1 << 16));
            if (code != ConversionError.NONE)
            {
                throw new IllegalArgumentException(encoder.describeFailure("v", "v", code) + " (" + jsonValue + ")");
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

    /** The field bytes of a value into a nullable column of the type text. */
    static byte[] field(final String type, final String jsonValue)
    {
        return field(PgColumnEncoder.forType(type, true), jsonValue);
    }

    /** The value bytes only (the field without its int32 length), checking that the length is right. */
    static byte[] value(final String type, final String jsonValue)
    {
        final byte[] f = field(type, jsonValue);
        final int length = ((f[0] & 0xff) << 24) | ((f[1] & 0xff) << 16) | ((f[2] & 0xff) << 8) | (f[3] & 0xff);
        if (length != f.length - 4)
        {
            throw new AssertionError("field length " + length + " but " + (f.length - 4) + " value bytes");
        }
        final byte[] v = new byte[length];
        System.arraycopy(f, 4, v, 0, length);
        return v;
    }

    static String hex(final String type, final String jsonValue)
    {
        return Buffers.hex(value(type, jsonValue));
    }
}
