package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;

/**
 * The kind of a Kafka value's top-level value (case T2: only an object is a row) and the elements of a top-level
 * array scanned one by one (ClickHouse's JSONEachRow reads {@code [{...},{...}]} as rows on current releases).
 */
class TopLevelValueTest
{
    private static int length(final String json)
    {
        return json.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void shouldReportTheTopLevelKindFromTheScanAndWithoutOne()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("id")), 8, DuplicateKeys.FAIL);
        final Object[][] cases = {
            {"{\"id\":5}", JsonKind.OBJECT, JsonError.NONE, null},
            {" [{\"id\":5,\"name\":\"e\"},{\"id\":6,\"name\":\"f\"}]", JsonKind.ARRAY, JsonError.NONE,
                "value is a JSON array, not an object"},
            {"42", JsonKind.NUMBER, JsonError.NONE, "value is a JSON number, not an object"},
            {"\"str\"", JsonKind.STRING, JsonError.NONE, "value is a JSON string, not an object"},
            {"true", JsonKind.TRUE, JsonError.NONE, "value is the JSON literal true, not an object"},
            {"false", JsonKind.FALSE, JsonError.NONE, "value is the JSON literal false, not an object"},
            {"null", JsonKind.NULL, JsonError.NONE, "value is the JSON literal null, not an object"},
            {"", JsonKind.MISSING, JsonError.EMPTY_DOCUMENT,
                "value is empty or blank, not a JSON object (invalid JSON)"},
            {"  \t\r\n", JsonKind.MISSING, JsonError.EMPTY_DOCUMENT,
                "value is empty or blank, not a JSON object (invalid JSON)"},
            {"{\"id\":", JsonKind.OBJECT, JsonError.TRUNCATED, null},
        };
        for (final Object[] c : cases)
        {
            final String json = (String)c[0];
            final UnsafeBuffer buffer = Buffers.offHeap(json);
            assertEquals(c[2], scanner.scan(buffer, Buffers.PAD, length(json)), json);
            assertEquals(c[1], scanner.rootKind(), json);
            assertEquals(c[1], JsonScanner.topLevelKind(buffer, Buffers.PAD, length(json)), json);
            assertEquals(c[3], JsonKind.notAnObject(scanner.rootKind()), json);
        }
        // a scalar or array top level never yields a value for a path: no row of defaults can come from it
        final String array = "[{\"id\":5}]";
        scanner.scan(Buffers.offHeap(array), Buffers.PAD, length(array));
        assertEquals(JsonKind.MISSING, scanner.kind(0));
        assertEquals(JsonKind.MISSING, JsonScanner.topLevelKind(Buffers.offHeap("x"), Buffers.PAD, 1));
    }

    /** Scans a document's elements and returns, per element, "kind:id" or the error. */
    private static List<String> elements(final JsonScanner scanner, final String json)
    {
        final UnsafeBuffer buffer = Buffers.offHeap(json);
        final List<String> out = new ArrayList<>();
        final int begin = scanner.beginElements(buffer, Buffers.PAD, length(json));
        if (begin != JsonError.NONE)
        {
            out.add("begin " + JsonError.describe(begin) + " at " + scanner.errorOffset());
            return out;
        }
        final JsonValueView view = new JsonValueView();
        int index;
        int expected = 0;
        while ((index = scanner.nextElement()) >= 0)
        {
            assertEquals(expected++, index);
            scanner.value(0, view);
            final String id;
            if (view.isMissing())
            {
                id = "-";
            }
            else
            {
                final byte[] raw = new byte[view.length()];
                view.buffer().getBytes(view.offset(), raw);
                id = new String(raw, StandardCharsets.UTF_8);
            }
            final byte[] element = new byte[scanner.elementLength()];
            buffer.getBytes(scanner.elementOffset(), element);
            out.add(JsonKind.name(scanner.rootKind()) + ":" + id + ":" + new String(element, StandardCharsets.UTF_8));
        }
        if (index != JsonScanner.NO_MORE_ELEMENTS)
        {
            out.add(JsonError.describe(index) + " at " + scanner.errorOffset());
        }
        assertEquals(JsonScanner.NO_MORE_ELEMENTS, scanner.nextElement(), "the iteration stays ended");
        return out;
    }

    @Test
    void shouldScanEachElementOfATopLevelArrayAsARecordCaseT2()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("id")), 8, DuplicateKeys.FAIL);
        assertEquals(List.of("OBJECT:5:{\"id\":5,\"name\":\"e\"}", "OBJECT:6:{\"id\":6,\"name\":\"f\"}"),
            elements(scanner, "[{\"id\":5,\"name\":\"e\"},{\"id\":6,\"name\":\"f\"}]"));
        assertEquals(List.of(), elements(scanner, " [ ] "));
        assertEquals(List.of("OBJECT:1:{\"id\":1}", "NUMBER:-:42", "NULL:-:null", "ARRAY:-:[{\"id\":3}]",
            "STRING:-:\"s\""), elements(scanner, "[ {\"id\":1} , 42,null,[{\"id\":3}],\"s\"]\n"),
            "the caller refuses elements that are not objects; nested arrays are not flattened");
    }

    @Test
    void shouldEndTheIterationWithTheErrorThatStopsIt()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("id")), 3, DuplicateKeys.FAIL);
        assertEquals(List.of("OBJECT:1:{\"id\":1}", "duplicate key at 18"),
            elements(scanner, "[{\"id\":1},{\"id\":2,\"id\":3}]"));
        assertEquals(List.of("OBJECT:1:{\"id\":1}", "unexpected byte at 10"), elements(scanner, "[{\"id\":1},]"));
        assertEquals(List.of("OBJECT:1:{\"id\":1}", "unexpected byte at 9"), elements(scanner, "[{\"id\":1}{}]"));
        assertEquals(List.of("OBJECT:1:{\"id\":1}", "document truncated: input ended inside a value at 9"),
            elements(scanner, "[{\"id\":1}"));
        assertEquals(List.of("OBJECT:1:{\"id\":1}", "data after the end of the top-level value at 11"),
            elements(scanner, "[{\"id\":1}] x"));
        assertEquals(List.of("nesting deeper than the configured maximum depth at 7"),
            elements(scanner, "[{\"a\":[[1]]}]"), "depth counts from the array: [ { [ [ is 4 > 3");
        assertEquals(List.of("begin unexpected byte at 1"), elements(scanner, " {\"id\":1}"));
        assertEquals(List.of("begin empty document at 2"), elements(scanner, "  "));
    }

    @Test
    void shouldMakeAFollowingScanStartOver()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("id")), 8, DuplicateKeys.LAST);
        final String array = "[{\"id\":1},{\"id\":2}]";
        scanner.beginElements(Buffers.offHeap(array), Buffers.PAD, length(array));
        assertEquals(0, scanner.nextElement());
        final String object = "{\"id\":9}";
        assertEquals(JsonError.NONE, scanner.scan(Buffers.offHeap(object), Buffers.PAD, length(object)));
        assertEquals(JsonScanner.NO_MORE_ELEMENTS, scanner.nextElement());
        assertNull(scanner.duplicateKey());
    }
}
