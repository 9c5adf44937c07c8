package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;

class JsonCursorTest
{
    private static String text(final JsonValueView view)
    {
        final byte[] raw = new byte[view.length()];
        view.buffer().getBytes(view.offset(), raw);
        return JsonKind.name(view.kind()) + ":" + new String(raw, StandardCharsets.UTF_8);
    }

    private static JsonValueView find(final String json, final String path)
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of(path)), 16);
        final UnsafeBuffer buffer = Buffers.offHeap(json);
        assertEquals(JsonError.NONE, scanner.validate(buffer, Buffers.PAD, buffer.capacity() - 2 * Buffers.PAD));
        final JsonValueView view = new JsonValueView();
        scanner.value(0, view);
        return view;
    }

    @Test
    void shouldIterateArrayElements()
    {
        final JsonCursor cursor = new JsonCursor();
        cursor.wrap(find("{\"a\":[ 1 , \"x\\n\" ,true,null,{\"k\":[2]},[],-3.5e1 ]}", "a"));
        final JsonValueView element = new JsonValueView();
        final List<String> seen = new ArrayList<>();
        while (cursor.next(element))
        {
            seen.add(text(element));
        }
        assertEquals(List.of("NUMBER:1", "STRING:x\\n", "TRUE:true", "NULL:null", "OBJECT:{\"k\":[2]}", "ARRAY:[]",
            "NUMBER:-3.5e1"), seen);
        assertEquals(JsonError.NONE, cursor.errorCode());
        assertFalse(cursor.next(element), "stays at the end");
    }

    @Test
    void shouldIterateObjectMembersWithKeys()
    {
        final JsonCursor cursor = new JsonCursor();
        cursor.wrap(find("{\"o\":{\"k\\u0031\":\"v\",\"k2\":{\"z\":1},\"k2\":0}}", "o"));
        final JsonValueView element = new JsonValueView();
        final JsonValueView key = new JsonValueView();
        final List<String> seen = new ArrayList<>();
        while (cursor.next(element))
        {
            cursor.key(key);
            seen.add(text(key) + (key.escaped() ? "(escaped)" : "") + "=" + text(element));
        }
        assertEquals(List.of("STRING:k\\u0031(escaped)=STRING:v", "STRING:k2=OBJECT:{\"z\":1}", "STRING:k2=NUMBER:0"),
            seen);
    }

    @Test
    void shouldHandleEmptyContainersAndNonContainers()
    {
        final JsonCursor cursor = new JsonCursor();
        final JsonValueView element = new JsonValueView();
        cursor.wrap(find("{\"a\":{ }}", "a"));
        assertFalse(cursor.next(element));
        assertEquals(JsonError.NONE, cursor.errorCode());
        cursor.wrap(find("{\"a\":[]}", "a"));
        assertFalse(cursor.next(element));
        cursor.wrap(find("{\"a\":5}", "a"));
        assertFalse(cursor.next(element));
        assertEquals(JsonError.NOT_A_CONTAINER, cursor.errorCode());
    }

    @Test
    void shouldReportErrorsInHandMadeViews()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer("[1,,2]".getBytes(StandardCharsets.US_ASCII));
        final JsonValueView view = new JsonValueView();
        view.set(buffer, JsonKind.ARRAY, 0, 6, false);
        final JsonCursor cursor = new JsonCursor();
        cursor.wrap(view);
        final JsonValueView element = new JsonValueView();
        assertTrue(cursor.next(element));
        assertFalse(cursor.next(element));
        assertEquals(JsonError.UNEXPECTED_BYTE, cursor.errorCode());
        assertEquals(3, cursor.errorIndex());
    }
}
