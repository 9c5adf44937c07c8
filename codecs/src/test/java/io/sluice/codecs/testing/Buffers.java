package io.sluice.codecs.testing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;

/** Test helpers that place bytes off-heap at an offset, as record slots do. */
public final class Buffers
{
    /** Offset at which {@link #offHeap} places the bytes, so tests catch absolute/relative offset mix-ups. */
    public static final int PAD = 13;

    private Buffers()
    {
    }

    /**
     * Copies bytes into a fresh direct buffer at {@link #PAD}, with {@link #PAD} bytes of junk after them.
     *
     * @param bytes the bytes.
     * @return the buffer.
     */
    public static UnsafeBuffer offHeap(final byte[] bytes)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes.length + 2 * PAD));
        buffer.setMemory(0, buffer.capacity(), (byte)'"');
        buffer.putBytes(PAD, bytes);
        return buffer;
    }

    /**
     * UTF-8 bytes of a text, placed by {@link #offHeap(byte[])}.
     *
     * @param text the text.
     * @return the buffer.
     */
    public static UnsafeBuffer offHeap(final String text)
    {
        return offHeap(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Lower-case hex with spaces, e.g. {@code "00 01 78"}.
     *
     * @param bytes the bytes.
     * @return the hex text.
     */
    public static String hex(final byte[] bytes)
    {
        final StringBuilder out = new StringBuilder();
        for (final byte b : bytes)
        {
            if (out.length() > 0)
            {
                out.append(' ');
            }
            out.append(String.format("%02x", b & 0xff));
        }
        return out.toString();
    }
}
