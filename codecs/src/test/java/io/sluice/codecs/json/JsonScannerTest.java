package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;

class JsonScannerTest
{
    private static final class Scan
    {
        final JsonScanner scanner;
        final UnsafeBuffer buffer;
        final int length;
        final int code;

        Scan(final List<String> paths, final String json, final boolean validate, final int maxDepth)
        {
            scanner = new JsonScanner(JsonPathSet.compile(paths), maxDepth);
            final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            buffer = Buffers.offHeap(bytes);
            length = bytes.length;
            code = validate ? scanner.validate(buffer, Buffers.PAD, length) : scanner.scan(buffer, Buffers.PAD, length);
        }

        String text(final int path)
        {
            final JsonValueView view = new JsonValueView();
            scanner.value(path, view);
            if (view.isMissing())
            {
                return null;
            }
            final byte[] raw = new byte[view.length()];
            view.buffer().getBytes(view.offset(), raw);
            return new String(raw, StandardCharsets.UTF_8);
        }

        String derived(final int path)
        {
            final JsonValueView view = new JsonValueView();
            scanner.value(path, view);
            final UnsafeBuffer dst = new UnsafeBuffer(new byte[256]);
            final int n = RoutingValues.derive(view, dst, 3);
            return n == RoutingValues.MISSING ? null : dst.getStringWithoutLengthUtf8(3, n);
        }
    }

    private static Scan scan(final String json, final String... paths)
    {
        return new Scan(List.of(paths), json, false, JsonScanner.DEFAULT_MAX_DEPTH);
    }

    private static Scan validate(final String json, final String... paths)
    {
        return new Scan(List.of(paths), json, true, JsonScanner.DEFAULT_MAX_DEPTH);
    }

    @Test
    void shouldFindNestedPathsWithKindsAndRanges()
    {
        final Scan s = scan(
            "{\"id\":\"42\",\"user\":{\"id\":7,\"ok\":true,\"no\":false,\"n\":null,\"o\":{},\"a\":[1]}}",
            "id", "user.id", "user.ok", "user.no", "user.n", "user.o", "user.a", "user.zz");
        assertEquals(JsonError.NONE, s.code);
        assertEquals(JsonKind.STRING, s.scanner.kind(0));
        assertEquals("42", s.text(0));
        assertEquals(Buffers.PAD + 7, s.scanner.valueOffset(0), "absolute offset of the string's first byte");
        assertEquals(2, s.scanner.valueLength(0));
        assertEquals(JsonKind.NUMBER, s.scanner.kind(1));
        assertEquals("7", s.text(1));
        assertEquals(JsonKind.TRUE, s.scanner.kind(2));
        assertEquals(JsonKind.FALSE, s.scanner.kind(3));
        assertEquals(JsonKind.NULL, s.scanner.kind(4));
        assertEquals("null", s.text(4));
        assertEquals(JsonKind.OBJECT, s.scanner.kind(5));
        assertEquals("{}", s.text(5));
        assertEquals(JsonKind.ARRAY, s.scanner.kind(6));
        assertEquals("[1]", s.text(6));
        assertEquals(JsonKind.MISSING, s.scanner.kind(7));
    }

    @Test
    void shouldTellKeysApartThatShareTheirFirstEightBytesOrArePrefixesOfEachOther()
    {
        // names alike in their first 8 bytes, shorter and longer than each other, and escaped keys
        final Scan s = scan("{\"abcdefgh\":1,\"abcdefgh2\":2,\"abcdefgh1\":3,\"abcdefg\":4,\"abcdefghi\":5,\"abc\":6,"
            + "\"a\":7,\"ab\":8,\"\":9}", "abcdefgh1", "abcdefgh2", "abcdefgh", "abcdefg", "ab", "a", "abcdefgh12");
        assertEquals(JsonError.NONE, s.code);
        final String[] want = {"3", "2", "1", "4", "8", "7", null};
        for (int path = 0; path < want.length; path++)
        {
            assertEquals(want[path], s.text(path), "path " + path);
        }
        assertEquals("7", scan("{\"\\u0061b\":7}", "ab").text(0), "an escaped key is compared unescaped");
        assertEquals("5", scan("{\"\\u0061bcdefghijk\":5}", "abcdefghijk").text(0));
    }

    @Test
    void shouldCompareKeysAtTheVeryEndOfTheBuffer()
    {
        // a buffer that ends right after the document: a key compare must not read past its capacity
        final byte[] bytes = "{\"bb\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer exact = new UnsafeBuffer(bytes);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("a", "bb", "c")),
            JsonScanner.DEFAULT_MAX_DEPTH);
        assertEquals(JsonError.NONE, scanner.scan(exact, 0, bytes.length));
        assertEquals(JsonKind.NUMBER, scanner.kind(0));
        assertEquals(12, scanner.valueOffset(0));
        assertEquals(JsonKind.NUMBER, scanner.kind(1));
        assertEquals(6, scanner.valueOffset(1));
        assertEquals(JsonKind.MISSING, scanner.kind(2));
    }

    @Test
    void shouldFindUntilEveryPathIsFoundUnderFailAndLeaveTheRestUnread()
    {
        final byte[] bytes = "{\"type\":\"a\",\"type\":\"b\",\"x\":[1}".getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final JsonScanner fail = new JsonScanner(JsonPathSet.compile(List.of("type")), JsonScanner.DEFAULT_MAX_DEPTH,
            DuplicateKeys.FAIL);
        assertEquals(JsonError.NONE, fail.find(buffer, 0, bytes.length), "stops at the first type");
        assertEquals(JsonKind.STRING, fail.kind(0));
        assertEquals(9, fail.valueOffset(0));
        assertEquals(JsonError.DUPLICATE_KEY, fail.scan(buffer, 0, bytes.length), "scan reads on and finds the rest");
        final byte[] dup = "{\"id\":1,\"id\":2,\"type\":\"a\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(JsonError.DUPLICATE_KEY, new JsonScanner(JsonPathSet.compile(List.of("id", "type")),
            JsonScanner.DEFAULT_MAX_DEPTH, DuplicateKeys.FAIL).find(new UnsafeBuffer(dup), 0, dup.length),
            "a duplicate before the last path is found still fails");
        final JsonScanner last = new JsonScanner(JsonPathSet.compile(List.of("type")), JsonScanner.DEFAULT_MAX_DEPTH,
            DuplicateKeys.LAST);
        assertThrows(IllegalStateException.class, () -> last.find(buffer, 0, bytes.length));
    }

    @Test
    void shouldResolveNumericSegmentsCaseR7()
    {
        // Case R7 (shared/cases/README.md; php-json-path#7, jessie#97).
        assertEquals("250", scan("{\"heads\":{\"0\":{\"value\":250}}}", "heads.0.value").derived(0));
        final String items = "{\"items\":[{\"sku\":\"A-1\"},{\"sku\":\"B/2\"}]}";
        assertEquals("B/2", scan(items, "items.1.sku").derived(0), "sanitising to B_2 happens in routing");
        assertEquals("A-1", scan(items, "items.0.sku").derived(0));
        assertEquals(null, scan(items, "items.5.sku").derived(0));
        assertEquals(null, scan("{\"items\":{\"sku\":\"x\"}}", "items.0.sku").derived(0));
        assertEquals("x", scan("{\"a\":[[1,2],[3,[\"w\",\"x\"]]]}", "a.1.1.1").derived(0));
        assertEquals(null, scan("{\"a\":{\"01\":1}}", "a.1").derived(0));
        assertEquals("1", scan("{\"a\":{\"01\":1}}", "a.01").derived(0));
        assertEquals(null, scan("{\"a\":[5,6]}", "a.01").derived(0), "01 is not an array index");
    }

    @Test
    void shouldDeriveRoutingValuesPerSeed000()
    {
        final Scan s = scan("{\"s\":\"acme\",\"n\":42,\"f\":-1.5e3,\"t\":true,\"x\":false,\"z\":null,\"o\":{\"a\":1},"
            + "\"a\":[1],\"e\":\"\",\"u\":\"caf\\u00e9 \\\"q\\\"\"}",
            "s", "n", "f", "t", "x", "z", "o", "a", "missing", "e", "u");
        assertEquals("acme", s.derived(0));
        assertEquals("42", s.derived(1));
        assertEquals("-1.5e3", s.derived(2));
        assertEquals("true", s.derived(3));
        assertEquals("false", s.derived(4));
        assertEquals(null, s.derived(5));
        assertEquals(null, s.derived(6));
        assertEquals(null, s.derived(7));
        assertEquals(null, s.derived(8));
        assertEquals("", s.derived(9), "empty text; the routing rule treats it as missing after sanitising");
        assertEquals("café \"q\"", s.derived(10));
        assertTrue(s.scanner.escaped(10));
        assertFalse(s.scanner.escaped(0));
    }

    @Test
    void shouldMatchEscapedAndUnicodeKeys()
    {
        final Scan s = scan("{\"a.b\":1,\"k\\u0065y\":2,\"caf\u00e9\":3,\"\\ud83d\\ude00\":4}",
            "a\\.b", "key", "café", "\ud83d\ude00");
        assertEquals(JsonError.NONE, s.code);
        assertEquals("1", s.text(0));
        assertEquals("2", s.text(1));
        assertEquals("3", s.text(2));
        assertEquals("4", s.text(3));
    }

    @Test
    void shouldLetTheFirstDuplicateKeyWin()
    {
        final Scan s = validate("{\"a\":{\"b\":1},\"a\":{\"b\":2,\"c\":3},\"x\":1,\"x\":2}", "a.b", "a.c", "x");
        assertEquals(JsonError.NONE, s.code);
        assertEquals("1", s.text(0));
        assertEquals(null, s.text(1), "the second 'a' is not looked into");
        assertEquals("1", s.text(2));
    }

    @Test
    void shouldReportDuplicatePathsUnderEveryIndex()
    {
        final Scan s = scan("{\"a\":5}", "a", "a");
        assertEquals("5", s.text(0));
        assertEquals("5", s.text(1));
    }

    @Test
    void shouldReportBothParentAndChild()
    {
        final Scan s = scan("{\"p\":{\"c\":\"v\"}}", "p", "p.c");
        assertEquals("{\"c\":\"v\"}", s.text(0));
        assertEquals("v", s.text(1));
    }

    @Test
    void shouldStopOnceAllPathsAreFound()
    {
        final Scan early = scan("{\"a\":1,\"b\": ]garbage", "a");
        assertEquals(JsonError.NONE, early.code, "bytes after the last path are not looked at");
        assertEquals("1", early.text(0));
        final Scan full = validate("{\"a\":1,\"b\": ]garbage", "a");
        assertEquals(JsonError.UNEXPECTED_BYTE, full.code);
        assertEquals(12, full.scanner.errorOffset());
        assertEquals("1", full.text(0), "completed before the error");
    }

    @Test
    void shouldNotYieldAValueWhenTheErrorComesFirst()
    {
        final Scan s = scan("{\"x\":\"\u0001\",\"a\":1}", "a");
        assertEquals(JsonError.CONTROL_CHAR_IN_STRING, s.code);
        assertEquals(6, s.scanner.errorOffset());
        assertEquals(JsonKind.MISSING, s.scanner.kind(0));

        final Scan number = scan("{\"a\":12x}", "a");
        assertEquals(JsonError.BAD_NUMBER, number.code);
        assertEquals(JsonKind.MISSING, number.scanner.kind(0), "12x is never the number 12");

        final Scan truncated = scan("{\"a\":\"abc", "a");
        assertEquals(JsonError.TRUNCATED, truncated.code);
        assertEquals(truncated.length, truncated.scanner.errorOffset());
        assertEquals(JsonKind.MISSING, truncated.scanner.kind(0));

        final Scan inner = scan("{\"a\":{\"b\":1,\"c\":tru}}", "a");
        assertEquals(JsonError.UNEXPECTED_BYTE, inner.code);
        assertEquals(JsonKind.MISSING, inner.scanner.kind(0), "an object is complete only at its closing brace");

        final Scan literal = scan("{\"a\":nul", "a");
        assertEquals(JsonError.TRUNCATED, literal.code);
    }

    @Test
    void shouldReportErrorKindsAndOffsets()
    {
        assertError("", JsonError.EMPTY_DOCUMENT, 0);
        assertError("  \n", JsonError.EMPTY_DOCUMENT, 3);
        assertError("{\"a\":1} x", JsonError.TRAILING_DATA, 8);
        assertError("{\"a\":01}", JsonError.BAD_NUMBER, 6);
        assertError("{\"a\":-}", JsonError.BAD_NUMBER, 6);
        assertError("{\"a\":1.}", JsonError.BAD_NUMBER, 7);
        assertError("{\"a\":1e+}", JsonError.BAD_NUMBER, 8);
        assertError("{\"a\":\"\\x\"}", JsonError.BAD_ESCAPE, 6);
        assertError("{\"a\":\"\\u12G4\"}", JsonError.BAD_ESCAPE, 6);
        assertError("{\"a\":\"\\ud800\"}", JsonError.LONE_SURROGATE, 6);
        assertError("{\"a\":\"\\udc00\\ud800\"}", JsonError.LONE_SURROGATE, 6);
        assertError("{\"a\":[1,]}", JsonError.UNEXPECTED_BYTE, 8);
        assertError("{\"a\" 1}", JsonError.UNEXPECTED_BYTE, 5);
        assertError("{\"a\":1,}", JsonError.UNEXPECTED_BYTE, 7);
        assertError("{'a':1}", JsonError.UNEXPECTED_BYTE, 1);
        assertError("[[[1]]]", JsonError.TOO_DEEP, 2, 2);
        assertError("{\"a\":{\"b\":{}}}", JsonError.TOO_DEEP, 10, 2);
        assertError("[1,2", JsonError.TRUNCATED, 4);
    }

    @Test
    void shouldRejectInvalidUtf8AtTheLeadByte()
    {
        final byte[][] bad = {
            {(byte)0xC0, (byte)0x80}, {(byte)0xE0, (byte)0x80, (byte)0x80}, {(byte)0xED, (byte)0xA0, (byte)0x80},
            {(byte)0xF4, (byte)0x90, (byte)0x80, (byte)0x80}, {(byte)0x80}, {(byte)0xFF}, {(byte)0xC3, 'x'}};
        for (final byte[] sequence : bad)
        {
            final byte[] doc = new byte[sequence.length + 9];
            System.arraycopy("{\"a\":\"".getBytes(StandardCharsets.US_ASCII), 0, doc, 0, 6);
            System.arraycopy(sequence, 0, doc, 6, sequence.length);
            doc[doc.length - 3] = '"';
            doc[doc.length - 2] = '}';
            doc[doc.length - 1] = ' ';
            final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("a")), 8);
            final DirectBuffer buffer = Buffers.offHeap(doc);
            assertEquals(JsonError.INVALID_UTF8, scanner.scan(buffer, Buffers.PAD, doc.length));
            assertEquals(6, scanner.errorOffset());
            assertEquals(JsonKind.MISSING, scanner.kind(0));
        }
        final Scan good = scan("{\"a\":\"\u00e9\u20ac\ud83d\ude00 and a long ascii tail to use the word path\"}", "a");
        assertEquals(JsonError.NONE, good.code);
    }

    @Test
    void shouldValidateTopLevelScalarsAndLeavePathsMissing()
    {
        final Scan s = validate(" \"just a string\" ", "a");
        assertEquals(JsonError.NONE, s.code);
        assertEquals(JsonKind.MISSING, s.scanner.kind(0));
        assertEquals(JsonError.NONE, validate("-0.5e-7").code);
        assertEquals(JsonError.NONE, validate("null").code);
        assertEquals(JsonError.UNEXPECTED_BYTE, validate("nulls").code);
        final Scan array = scan("[{\"a\":1}]", "0.a");
        assertEquals("1", array.text(0));
    }

    @Test
    void shouldReuseOneScannerAcrossDocuments()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("a", "b")), 16);
        final UnsafeBuffer one = Buffers.offHeap("{\"a\":1,\"b\":2}");
        final UnsafeBuffer two = Buffers.offHeap("{\"b\":3}");
        assertEquals(JsonError.NONE, scanner.scan(one, Buffers.PAD, 13));
        assertEquals(JsonKind.NUMBER, scanner.kind(0));
        assertEquals(JsonError.NONE, scanner.scan(two, Buffers.PAD, 7));
        assertEquals(JsonKind.MISSING, scanner.kind(0), "results are reset per scan");
        assertEquals(JsonKind.NUMBER, scanner.kind(1));
        assertEquals(Buffers.PAD + 5, scanner.valueOffset(1));
    }

    private static void assertError(final String json, final int code, final int offset)
    {
        assertError(json, code, offset, JsonScanner.DEFAULT_MAX_DEPTH);
    }

    private static void assertError(final String json, final int code, final int offset, final int maxDepth)
    {
        final Scan s = new Scan(List.of("a.b.c"), json, false, maxDepth);
        assertEquals(JsonError.describe(code), JsonError.describe(s.code), json);
        assertEquals(offset, s.scanner.errorOffset(), json);
        assertEquals(code, s.scanner.errorCode());
        final Scan v = new Scan(List.of(), json, true, maxDepth);
        assertEquals(JsonError.describe(code), JsonError.describe(v.code), "skipping agrees: " + json);
        assertEquals(offset, v.scanner.errorOffset(), "skipping agrees: " + json);
    }

    @Test
    void shouldRejectRangesOutsideTheBufferBeforeReading()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("a")), 8);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);
        org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class,
            () -> scanner.scan(buffer, 10, 7));
        org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class,
            () -> scanner.scan(buffer, -1, 2));
        org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class,
            () -> scanner.validate(buffer, 0, 17));
    }
}
