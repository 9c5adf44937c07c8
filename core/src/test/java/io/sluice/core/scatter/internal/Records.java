package io.sluice.core.scatter.internal;

import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.ringbuffers.RecordEvent;

/** Builds record events on the heap for tests, as a source would copy them. */
final class Records
{
    private Records()
    {
    }

    static byte[] utf8(final String s)
    {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** A record with a JSON value and nothing else. */
    static RecordEvent value(final String json)
    {
        return record(utf8(json), null);
    }

    /**
     * @param value   value bytes or null
     * @param key     key bytes or null
     * @param headers name, value (UTF-8 text or null), name, value, ...
     */
    static RecordEvent record(final byte[] value, final byte[] key, final String... headers)
    {
        final RecordEvent e = new RecordEvent(new UnsafeBuffer(new byte[1 << 16]));
        fill(e, value, key, headers);
        return e;
    }

    static void fill(final RecordEvent e, final byte[] value, final byte[] key, final String... headers)
    {
        e.beginRecord(null, 0, 0, 0, 0L, 0L, 0, 1);
        e.putValue(value);
        e.putKey(key);
        for (int i = 0; i < headers.length; i += 2)
        {
            e.putHeader(headers[i], utf8(headers[i + 1]));
        }
    }
}
