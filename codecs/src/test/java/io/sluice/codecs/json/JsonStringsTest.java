package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;

class JsonStringsTest
{
    /** Unescapes the raw contents of a JSON string literal given without quotes; returns hex or the error name. */
    private static String unescape(final String raw)
    {
        final byte[] bytes = raw.getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer src = Buffers.offHeap(bytes);
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[JsonStrings.maxUnescapedLength(bytes.length) + 5]);
        final int n = JsonStrings.unescape(src, Buffers.PAD, bytes.length, dst, 5);
        if (n < 0)
        {
            return JsonError.describe(n);
        }
        final byte[] out = new byte[n];
        dst.getBytes(5, out);
        return Buffers.hex(out);
    }

    @Test
    void shouldJoinSurrogatePairsIntoOneFourByteCharacterCaseV4()
    {
        // Case V4 (posthog#9368, langwatch#6078, ClickHouse#1076): never the 6-byte CESU-8 form.
        assertEquals("f0 9f 98 80", unescape("\\ud83d\\ude00"));
        assertEquals("f0 9f 98 80", unescape("\\uD83D\\uDE00"));
        assertEquals("e2 80 a8", unescape("\\u2028"));
        assertEquals("61 00 62", unescape("a\\u0000b"));
    }

    @Test
    void shouldDecodeEveryEscape()
    {
        assertEquals("22 5c 2f 08 0c 0a 0d 09", unescape("\\\"\\\\\\/\\b\\f\\n\\r\\t"));
        assertEquals("c3 a9 41 7f", unescape("\\u00e9\\u0041\\u007F"));
        assertEquals("f4 8f bf bf", unescape("\\udbff\\udfff"));
        assertEquals("c3 a9 e2 82 ac", unescape("é€"), "raw UTF-8 is copied");
        assertEquals("", unescape(""));
    }

    @Test
    void shouldRejectLoneSurrogatesAndBadEscapes()
    {
        assertEquals(JsonError.describe(JsonError.LONE_SURROGATE), unescape("\\ud83d"));
        assertEquals(JsonError.describe(JsonError.LONE_SURROGATE), unescape("\\ud83dx"));
        assertEquals(JsonError.describe(JsonError.LONE_SURROGATE), unescape("\\ude00"));
        assertEquals(JsonError.describe(JsonError.LONE_SURROGATE), unescape("\\ud83d\\u0041"));
        assertEquals(JsonError.describe(JsonError.LONE_SURROGATE), unescape("\\ud83d\\n"));
        assertEquals(JsonError.describe(JsonError.TRUNCATED), unescape("\\ud83d\\"));
        assertEquals(JsonError.describe(JsonError.TRUNCATED), unescape("\\u00"));
        assertEquals(JsonError.describe(JsonError.TRUNCATED), unescape("ab\\"));
        assertEquals(JsonError.describe(JsonError.BAD_ESCAPE), unescape("\\a"));
        assertEquals(JsonError.describe(JsonError.BAD_ESCAPE), unescape("\\u00zz"));
        assertEquals(JsonError.describe(JsonError.CONTROL_CHAR_IN_STRING), unescape("a\tb"));
        assertEquals(JsonError.describe(JsonError.UNEXPECTED_BYTE), unescape("a\"b"));
    }

    @Test
    void shouldRejectInvalidUtf8()
    {
        final byte[] bytes = {'a', (byte)0xED, (byte)0xA0, (byte)0x80};
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[8]);
        assertEquals(JsonError.INVALID_UTF8, JsonStrings.unescape(new UnsafeBuffer(bytes), 0, 4, dst, 0));
        final byte[] cut = {'a', (byte)0xE2, (byte)0x82};
        assertEquals(JsonError.INVALID_UTF8, JsonStrings.unescape(new UnsafeBuffer(cut), 0, 3, dst, 0));
    }

    @Test
    void shouldCheckTheDestinationBeforeWriting()
    {
        final UnsafeBuffer src = new UnsafeBuffer("abcdef".getBytes(StandardCharsets.US_ASCII));
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[8]);
        assertEquals(JsonError.BUFFER_TOO_SMALL, JsonStrings.unescape(src, 0, 6, dst, 3));
        assertEquals(6, JsonStrings.unescape(src, 0, 6, dst, 2));
    }
}
