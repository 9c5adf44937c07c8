package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;

/**
 * Duplicate keys at extracted paths (case T4, RFC 8259 §4) under the three policies: fail names the key, first and
 * last pick one occurrence, and every scanner of a record with the same policy sees the same value.
 */
class DuplicateKeysTest
{
    private static final String T4 = "{\"id\":1,\"id\":2,\"name\":\"first\",\"name\":\"second\"}";

    private static final class Scan
    {
        final JsonScanner scanner;
        final int code;

        Scan(final DuplicateKeys policy, final String json, final boolean validate, final String... paths)
        {
            scanner = new JsonScanner(JsonPathSet.compile(List.of(paths)), JsonScanner.DEFAULT_MAX_DEPTH, policy);
            final UnsafeBuffer buffer = Buffers.offHeap(json);
            final int length = json.getBytes(StandardCharsets.UTF_8).length;
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
    }

    private static Scan scan(final DuplicateKeys policy, final String json, final String... paths)
    {
        return new Scan(policy, json, false, paths);
    }

    @Test
    void shouldFailNamingTheFirstDuplicatedKeyCaseT4()
    {
        final Scan s = scan(DuplicateKeys.FAIL, T4, "id", "name");
        assertEquals(JsonError.DUPLICATE_KEY, s.code);
        assertEquals("id", s.scanner.duplicateKey());
        assertEquals(T4.indexOf("\"id\":2"), s.scanner.errorOffset(), "offset of the second occurrence's quote");
        assertEquals("duplicate key", JsonError.describe(s.code));
    }

    @Test
    void shouldPickTheFirstOrTheLastOccurrenceCaseT4()
    {
        final Scan first = scan(DuplicateKeys.FIRST, T4, "id", "name");
        assertEquals(JsonError.NONE, first.code);
        assertEquals("1", first.text(0));
        assertEquals("first", first.text(1));
        final Scan last = scan(DuplicateKeys.LAST, T4, "id", "name");
        assertEquals(JsonError.NONE, last.code);
        assertEquals("2", last.text(0));
        assertEquals("second", last.text(1));
    }

    @Test
    void shouldSeeADuplicateThatFollowsTheLastPathFound()
    {
        // a scan that stopped once both paths were found would never see the second id
        final String json = "{\"id\":1,\"name\":\"a\",\"big\":[1,2,3],\"id\":2}";
        assertEquals(JsonError.DUPLICATE_KEY, scan(DuplicateKeys.FAIL, json, "id", "name").code);
        assertEquals("2", scan(DuplicateKeys.LAST, json, "id", "name").text(0));
        final Scan first = scan(DuplicateKeys.FIRST, json, "id", "name");
        assertEquals(JsonError.NONE, first.code);
        assertEquals("1", first.text(0));
    }

    @Test
    void shouldIgnoreDuplicatesOfKeysNoPathReads()
    {
        for (final DuplicateKeys policy : DuplicateKeys.values())
        {
            final Scan s = scan(policy, "{\"id\":1,\"x\":1,\"x\":{\"y\":2},\"u\":{\"k\":1,\"k\":2}}", "id");
            assertEquals(JsonError.NONE, s.code, policy.name());
            assertEquals("1", s.text(0), policy.name());
            assertNull(s.scanner.duplicateKey());
        }
    }

    @Test
    void shouldTreatAnEscapedSpellingAsTheSameKey()
    {
        final String json = "{\"id\":1,\"\\u0069d\":2}";
        assertEquals(JsonError.DUPLICATE_KEY, scan(DuplicateKeys.FAIL, json, "id").code);
        assertEquals("2", scan(DuplicateKeys.LAST, json, "id").text(0));
    }

    @Test
    void shouldFindDuplicatesInsideNestedObjectsAndNameTheirPath()
    {
        final String json = "{\"user\":{\"id\":7,\"a.b\":1,\"a.b\":2,\"id\":8}}";
        final Scan fail = scan(DuplicateKeys.FAIL, json, "user.id", "user.a\\.b");
        assertEquals(JsonError.DUPLICATE_KEY, fail.code);
        assertEquals("user.a\\.b", fail.scanner.duplicateKey(), "in path syntax, the dot of the name escaped");
        final Scan last = scan(DuplicateKeys.LAST, json, "user.id", "user.a\\.b");
        assertEquals("8", last.text(0));
        assertEquals("2", last.text(1));
    }

    @Test
    void shouldReplaceEverythingBelowADuplicatedParentUnderLast()
    {
        final String json = "{\"a\":{\"b\":1,\"c\":2},\"a\":{\"b\":3}}";
        final Scan last = scan(DuplicateKeys.LAST, json, "a.b", "a.c", "a");
        assertEquals(JsonError.NONE, last.code);
        assertEquals("3", last.text(0));
        assertNull(last.text(1), "a.c belonged to the replaced a");
        assertEquals("{\"b\":3}", last.text(2));
        final Scan first = scan(DuplicateKeys.FIRST, json, "a.b", "a.c", "a");
        assertEquals("1", first.text(0));
        assertEquals("2", first.text(1));
        final Scan fail = scan(DuplicateKeys.FAIL, json, "a.c");
        assertEquals(JsonError.DUPLICATE_KEY, fail.code);
        assertEquals("a", fail.scanner.duplicateKey(), "the parent is what occurs twice");
        // a parent replaced by a scalar: the path below it is missing
        assertNull(scan(DuplicateKeys.LAST, "{\"a\":{\"b\":1},\"a\":5}", "a.b").text(0));
    }

    @Test
    void shouldLetEveryScannerWithThePolicyAgreeOnAValue()
    {
        // a route reads "id" alone, a branch condition reads "type", a table reads both: all see the same values
        final String json = "{\"type\":\"a\",\"id\":1,\"type\":\"b\",\"id\":2}";
        for (final DuplicateKeys policy : List.of(DuplicateKeys.FIRST, DuplicateKeys.LAST))
        {
            final Scan route = scan(policy, json, "id");
            final Scan branch = scan(policy, json, "type");
            final Scan row = scan(policy, json, "type", "id");
            assertEquals(route.text(0), row.text(1), policy.name());
            assertEquals(branch.text(0), row.text(0), policy.name());
        }
        assertEquals(JsonError.DUPLICATE_KEY, scan(DuplicateKeys.FAIL, json, "id").code);
        assertEquals(JsonError.DUPLICATE_KEY, scan(DuplicateKeys.FAIL, json, "type").code);
    }

    @Test
    void shouldNotMistakeArrayElementsOrRepeatedDocumentsForDuplicates()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("items.0.sku", "items.1.sku")), 16,
            DuplicateKeys.FAIL);
        final String json = "{\"items\":[{\"sku\":\"A\"},{\"sku\":\"B\"}]}";
        final UnsafeBuffer buffer = Buffers.offHeap(json);
        for (int round = 0; round < 3; round++)
        {
            assertEquals(JsonError.NONE, scanner.scan(buffer, Buffers.PAD, json.length()));
        }
        assertEquals(JsonError.NONE, scanner.validate(buffer, Buffers.PAD, json.length()));
    }

    @Test
    void shouldReadTheWholeDocumentUnlessTheFirstWins()
    {
        // trailing garbage after every path was found: only FIRST stops before it
        final String json = "{\"id\":1} x";
        assertEquals(JsonError.NONE, scan(DuplicateKeys.FIRST, json, "id").code);
        assertEquals(JsonError.TRAILING_DATA, scan(DuplicateKeys.FAIL, json, "id").code);
        assertEquals(JsonError.TRAILING_DATA, scan(DuplicateKeys.LAST, json, "id").code);
    }

    @Test
    void shouldParseTheConfigNames()
    {
        assertEquals(DuplicateKeys.FAIL, DuplicateKeys.fromConfig("fail"));
        assertEquals(DuplicateKeys.FIRST, DuplicateKeys.fromConfig("first"));
        assertEquals(DuplicateKeys.LAST, DuplicateKeys.fromConfig("last"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> DuplicateKeys.fromConfig("FAIL"));
        assertEquals("duplicate_keys must be \"fail\", \"first\" or \"last\", not \"FAIL\"", e.getMessage());
        assertEquals(DuplicateKeys.FIRST, new JsonScanner(JsonPathSet.compile(List.of("a")), 4).duplicateKeys(),
            "the two-argument constructor keeps the first occurrence, as before");
    }
}
