package io.sluice.codecs.pgcopy;

import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.EncodeScratch;

/**
 * Per-thread working memory of the {@link PgColumnEncoder}s: the shared parsers' {@link EncodeScratch}, a cursor and
 * an element view for arrays, and a digit buffer for numeric. Allocated once; encoding allocates nothing. Not
 * thread-safe: one per encoding thread, shared by all of that thread's encoders.
 */
public final class PgScratch
{
    final EncodeScratch parse;
    final JsonCursor cursor = new JsonCursor();
    final JsonValueView element = new JsonValueView();
    final byte[] digits;

    /**
     * Creates scratch space.
     *
     * @param maxValueBytes the longest escaped string, in raw bytes, that may need unescaping, and the longest
     *                      numeric text; longer ones fail with {@link io.sluice.codecs.rowbinary.ConversionError#TOO_LONG}.
     * @throws IllegalArgumentException if negative.
     */
    public PgScratch(final int maxValueBytes)
    {
        this.parse = new EncodeScratch(maxValueBytes);
        this.digits = new byte[Math.max(64, maxValueBytes) + 2];
    }

    /**
     * The parsers' scratch inside, e.g. to share with ClickHouse encoders on the same thread.
     *
     * @return the scratch.
     */
    public EncodeScratch parse()
    {
        return parse;
    }
}
