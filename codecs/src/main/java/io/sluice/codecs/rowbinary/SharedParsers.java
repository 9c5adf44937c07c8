package io.sluice.codecs.rowbinary;

import org.agrona.DirectBuffer;

/**
 * The value parsers the RowBinary encoders use, opened to the other codecs of this module (PostgreSQL's binary COPY
 * in {@code io.sluice.codecs.pgcopy}) so that every sink reads the same JSON value the same way: one number grammar,
 * one date and date-time grammar, one UUID form.
 *
 * <p>Every method allocates nothing (except {@link #parseDouble}/{@link #parseFloat} outside their exact fast path,
 * see {@code docs/codecs.md}), returns {@link ConversionError#NONE} or a negative {@link ConversionError} code, and
 * leaves its result in the given {@link EncodeScratch} ({@link EncodeScratch#resultLow()},
 * {@link EncodeScratch#resultHigh()}, or the parts of a split number). Thread safety is that of the scratch: one per
 * thread.
 */
public final class SharedParsers
{
    private SharedParsers()
    {
    }

    /**
     * Splits JSON number text into sign, integer digits, fraction digits and exponent (RFC 8259 grammar: no leading
     * {@code +}, no leading zeros, digits on both sides of the point, no spaces); the parts are read with
     * {@link EncodeScratch#negative()}, {@link EncodeScratch#intStart()} ... {@link EncodeScratch#exponent()}.
     *
     * @param b      the buffer.
     * @param offset index of the first byte.
     * @param length number of bytes.
     * @param s      the scratch receiving the parts.
     * @return {@link ConversionError#NONE} or {@link ConversionError#NOT_A_NUMBER}.
     */
    public static int split(final DirectBuffer b, final int offset, final int length, final EncodeScratch s)
    {
        return Numbers.split(b, offset, length, s);
    }

    /**
     * Parses an exactly integral number ({@code 42}, {@code 5.0}, {@code 1e3}) within {@code [min, max]}.
     *
     * @param b      the buffer.
     * @param offset index of the first byte.
     * @param length number of bytes.
     * @param min    the smallest value accepted.
     * @param max    the largest value accepted.
     * @param s      the scratch; the value in {@link EncodeScratch#resultLow()}.
     * @return {@link ConversionError#NONE}, {@link ConversionError#NOT_A_NUMBER},
     *     {@link ConversionError#NOT_AN_INTEGER} or {@link ConversionError#OUT_OF_RANGE}.
     */
    public static int parseSigned(final DirectBuffer b, final int offset, final int length, final long min,
        final long max, final EncodeScratch s)
    {
        return Numbers.parseSigned(b, offset, length, min, max, s);
    }

    /**
     * Parses a decimal into {@code trunc(value * 10^scale)} (toward zero) with at most {@code precision} significant
     * digits, exactly.
     *
     * @param b         the buffer.
     * @param offset    index of the first byte.
     * @param length    number of bytes.
     * @param precision the most significant digits accepted (at most 38).
     * @param scale     the number of fraction digits kept.
     * @param s         the scratch; the signed 128-bit result in {@link EncodeScratch#resultHigh()}:{@link
     *                  EncodeScratch#resultLow()}.
     * @return {@link ConversionError#NONE}, {@link ConversionError#NOT_A_NUMBER} or
     *     {@link ConversionError#OUT_OF_RANGE}.
     */
    public static int parseDecimal(final DirectBuffer b, final int offset, final int length, final int precision,
        final int scale, final EncodeScratch s)
    {
        return Numbers.parseDecimal(b, offset, length, precision, scale, s);
    }

    /**
     * Parses a correctly rounded double; with {@code allowSpecial} also {@code nan}, {@code inf}, {@code +inf},
     * {@code -inf} in any case.
     *
     * @param b            the buffer.
     * @param offset       index of the first byte.
     * @param length       number of bytes.
     * @param allowSpecial whether the special spellings are accepted (for JSON strings).
     * @param s            the scratch; the IEEE 754 bits in {@link EncodeScratch#resultLow()}.
     * @return {@link ConversionError#NONE}, {@link ConversionError#NOT_A_NUMBER} or
     *     {@link ConversionError#OUT_OF_RANGE} (a finite text that overflows).
     */
    public static int parseDouble(final DirectBuffer b, final int offset, final int length,
        final boolean allowSpecial, final EncodeScratch s)
    {
        return Numbers.parseDouble(b, offset, length, allowSpecial, s);
    }

    /**
     * Parses a correctly rounded float (rounded once, from the decimal text), as {@link #parseDouble}.
     *
     * @param b            the buffer.
     * @param offset       index of the first byte.
     * @param length       number of bytes.
     * @param allowSpecial whether the special spellings are accepted.
     * @param s            the scratch; the IEEE 754 bits in the low 32 bits of {@link EncodeScratch#resultLow()}.
     * @return {@link ConversionError#NONE}, {@link ConversionError#NOT_A_NUMBER} or
     *     {@link ConversionError#OUT_OF_RANGE}.
     */
    public static int parseFloat(final DirectBuffer b, final int offset, final int length,
        final boolean allowSpecial, final EncodeScratch s)
    {
        return Numbers.parseFloat(b, offset, length, allowSpecial, s);
    }

    /**
     * Whether ASCII text equals a lower-case ASCII word, ignoring the case of the text.
     *
     * @param b      the buffer.
     * @param offset index of the first byte.
     * @param length number of bytes.
     * @param ascii  the lower-case word.
     * @return true if equal.
     */
    public static boolean equalsIgnoreCase(final DirectBuffer b, final int offset, final int length,
        final String ascii)
    {
        return Numbers.equalsIgnoreCase(b, offset, length, ascii);
    }

    /**
     * Parses a {@code YYYY-MM-DD} date at the start of the text (proleptic Gregorian; years 0000..9999).
     *
     * @param b      the buffer.
     * @param offset index of the first byte.
     * @param length number of bytes (at least 10).
     * @return days since 1970-01-01, or {@link Long#MIN_VALUE} if malformed or no real date.
     */
    public static long parseDate(final DirectBuffer b, final int offset, final int length)
    {
        return DateTimes.parseDate(b, offset, length);
    }

    /**
     * Parses an ISO-8601 date-time as the RowBinary DateTime encoders do, a text without zone being UTC.
     *
     * @param b      the buffer.
     * @param offset index of the first byte.
     * @param length number of bytes.
     * @param s      the scratch; UTC epoch seconds in {@link EncodeScratch#resultHigh()}, nanoseconds
     *               (0..999,999,999, digits beyond 9 truncated) in {@link EncodeScratch#resultLow()}.
     * @return {@link ConversionError#NONE} or {@link ConversionError#BAD_DATETIME}.
     */
    public static int parseDateTimeUtc(final DirectBuffer b, final int offset, final int length,
        final EncodeScratch s)
    {
        return DateTimes.parseDateTime(b, offset, length, ZoneOffsets.UTC, s);
    }

    /**
     * Days since 1970-01-01 of a proleptic Gregorian date.
     *
     * @param year  the year (0 is 1 BC).
     * @param month 1..12.
     * @param day   1..31.
     * @return the days.
     */
    public static long daysFromCivil(final long year, final int month, final int day)
    {
        return DateTimes.daysFromCivil(year, month, day);
    }

    /**
     * Parses a UUID in the canonical 36-character 8-4-4-4-12 hex form, either case; no other form.
     *
     * @param b      the buffer.
     * @param offset index of the first byte.
     * @param length number of bytes.
     * @param s      the scratch; the first 8 bytes (big-endian) in {@link EncodeScratch#resultHigh()}, the last 8
     *               in {@link EncodeScratch#resultLow()}.
     * @return {@link ConversionError#NONE} or {@link ConversionError#BAD_UUID}.
     */
    public static int parseUuid(final DirectBuffer b, final int offset, final int length, final EncodeScratch s)
    {
        if (length != 36)
        {
            return ConversionError.BAD_UUID;
        }
        long high = 0;
        long low = 0;
        int digits = 0;
        for (int i = 0; i < 36; i++)
        {
            final int c = b.getByte(offset + i);
            if (i == 8 || i == 13 || i == 18 || i == 23)
            {
                if (c != '-')
                {
                    return ConversionError.BAD_UUID;
                }
                continue;
            }
            final int h = hex(c);
            if (h < 0)
            {
                return ConversionError.BAD_UUID;
            }
            if (digits++ < 16)
            {
                high = (high << 4) | h;
            }
            else
            {
                low = (low << 4) | h;
            }
        }
        s.resultHigh = high;
        s.resultLow = low;
        return ConversionError.NONE;
    }

    private static int hex(final int c)
    {
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        final int lower = c | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }
}
