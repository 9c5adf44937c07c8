package io.sluice.core.gather.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonStrings;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The top-level keys some column reads, for {@code unknown_fields = "fail"}: a record whose top level has a key that
 * no column reads (by its own name or as the first part of a mapped path) fails, naming the key. Compares a record's
 * keys as UTF-8 bytes (unescaping a key only when it has escapes) without allocating unless a record fails; the check
 * walks the record's top-level keys once. Nested objects are not checked. Kind-neutral: a kind's JSON row encoder
 * calls {@link #check} after it encoded the row.
 *
 * <p>One instance per bound encoder; used by the route stage thread only.
 */
public final class KnownFields
{
    private static final int JSON_WHITESPACE_MAX = ' ';

    private final byte[][][] byLength;
    private final JsonCursor cursor = new JsonCursor();
    private final JsonValueView root = new JsonValueView();
    private final JsonValueView key = new JsonValueView();
    private final UnsafeBuffer unescaped;

    /**
     * @param names the top-level keys the bound columns read (allocates; bind time)
     */
    public KnownFields(final Set<String> names)
    {
        int longest = 0;
        final List<byte[]> encoded = new ArrayList<>();
        for (final String n : names)
        {
            final byte[] b = n.getBytes(StandardCharsets.UTF_8);
            encoded.add(b);
            longest = Math.max(longest, b.length);
        }
        byLength = new byte[longest + 1][][];
        for (int len = 0; len <= longest; len++)
        {
            final int l = len;
            byLength[len] = encoded.stream().filter(b -> b.length == l).toArray(byte[][]::new);
        }
        // an escaped key decodes to at most a sixth of its raw length ("\u0041" is one byte)
        unescaped = new UnsafeBuffer(new byte[6 * longest + 16]);
    }

    /**
     * Checks the record's top-level keys.
     *
     * @param row     the record (its Kafka value is read from the ring slot)
     * @param element scratch view for each member's value
     * @return null when every top-level key is read by some column (or the value is not an object), else the message
     *     naming the first that is not, or the JSON error that ended the walk
     */
    public String check(final JsonRecord row, final JsonValueView element)
    {
        final RecordEvent e = row.event();
        final DirectBuffer value = e.value();
        int start = 0;
        int end = e.valueLength();
        while (start < end && (value.getByte(start) & 0xFF) <= JSON_WHITESPACE_MAX)
        {
            start++;
        }
        while (end > start && (value.getByte(end - 1) & 0xFF) <= JSON_WHITESPACE_MAX)
        {
            end--;
        }
        if (end - start < 2 || value.getByte(start) != '{')
        {
            return null; // not an object: its columns are all missing, and they said so
        }
        root.set(value, JsonKind.OBJECT, start, end - start, false);
        cursor.wrap(root);
        while (cursor.next(element))
        {
            cursor.key(key);
            if (!known(key))
            {
                return "unknown field " + describe(key)
                    + ": no column of the table reads it (unknown_fields = \"fail\")";
            }
        }
        return cursor.errorCode() == JsonError.NONE
            ? null
            : "malformed JSON: " + JsonError.describe(cursor.errorCode()) + " at byte " + cursor.errorIndex();
    }

    private boolean known(final JsonValueView k)
    {
        DirectBuffer buffer = k.buffer();
        int offset = k.offset();
        int length = k.length();
        if (k.escaped())
        {
            if (length > unescaped.capacity())
            {
                return false;
            }
            length = JsonStrings.unescape(buffer, offset, length, unescaped, 0);
            if (length < 0)
            {
                return false;
            }
            buffer = unescaped;
            offset = 0;
        }
        if (length >= byLength.length)
        {
            return false;
        }
        for (final byte[] name : byLength[length])
        {
            int i = 0;
            while (i < length && buffer.getByte(offset + i) == name[i])
            {
                i++;
            }
            if (i == length)
            {
                return true;
            }
        }
        return false;
    }

    private String describe(final JsonValueView k)
    {
        final byte[] raw = new byte[k.length()];
        k.buffer().getBytes(k.offset(), raw);
        return "\"" + new String(raw, StandardCharsets.UTF_8) + "\"";
    }
}
