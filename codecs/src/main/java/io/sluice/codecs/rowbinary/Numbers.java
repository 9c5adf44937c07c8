package io.sluice.codecs.rowbinary;

import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;

/**
 * Exact conversions of JSON number text (RFC 8259 grammar) to integers, decimals and floats, without allocation
 * except in the rare float fallback. Results are left in an {@link EncodeScratch}.
 */
final class Numbers
{
    private static final long MAX_EXPONENT = 1_000_000_000L;
    private static final long U64_MAX_DIV_10 = 1844674407370955161L;

    private static final double[] DOUBLE_POW10 = new double[23];
    private static final float[] FLOAT_POW10 = new float[11];
    /** 10^0 .. 10^18, the chunk multipliers of {@link #parseWide}. */
    private static final long[] LONG_POW10 = new long[19];

    static
    {
        double d = 1;
        for (int i = 0; i < DOUBLE_POW10.length; i++)
        {
            DOUBLE_POW10[i] = d;
            d *= 10;
        }
        float f = 1;
        for (int i = 0; i < FLOAT_POW10.length; i++)
        {
            FLOAT_POW10[i] = f;
            f *= 10;
        }
        long p = 1;
        for (int i = 0; i < LONG_POW10.length; i++)
        {
            LONG_POW10[i] = p;
            p *= 10;
        }
    }

    private Numbers()
    {
    }

    private static boolean isDigit(final int c)
    {
        return c >= '0' && c <= '9';
    }

    /**
     * Splits number text into sign, integer digits, fraction digits and exponent, checking the JSON grammar
     * (no leading {@code +}, no leading zeros, digits on both sides of the point, no surrounding spaces).
     *
     * @return {@link ConversionError#NONE} or {@link ConversionError#NOT_A_NUMBER}.
     */
    static int split(final DirectBuffer b, final int offset, final int length, final EncodeScratch s)
    {
        final int end = offset + length;
        int i = offset;
        if (i >= end)
        {
            return ConversionError.NOT_A_NUMBER;
        }
        s.negative = b.getByte(i) == '-';
        if (s.negative && ++i >= end)
        {
            return ConversionError.NOT_A_NUMBER;
        }
        s.intStart = i;
        if (b.getByte(i) == '0')
        {
            i++;
        }
        else
        {
            while (i < end && isDigit(b.getByte(i)))
            {
                i++;
            }
        }
        s.intEnd = i;
        if (i == s.intStart)
        {
            return ConversionError.NOT_A_NUMBER;
        }
        s.fracStart = i;
        s.fracEnd = i;
        s.exponent = 0;
        if (i < end && b.getByte(i) == '.')
        {
            s.fracStart = ++i;
            while (i < end && isDigit(b.getByte(i)))
            {
                i++;
            }
            s.fracEnd = i;
            if (s.fracEnd == s.fracStart)
            {
                return ConversionError.NOT_A_NUMBER;
            }
        }
        if (i < end && (b.getByte(i) == 'e' || b.getByte(i) == 'E'))
        {
            if (++i >= end)
            {
                return ConversionError.NOT_A_NUMBER;
            }
            boolean negativeExponent = false;
            final int sign = b.getByte(i);
            if (sign == '+' || sign == '-')
            {
                negativeExponent = sign == '-';
                i++;
            }
            final int digitsStart = i;
            long e = 0;
            while (i < end && isDigit(b.getByte(i)))
            {
                e = Math.min(MAX_EXPONENT, e * 10 + (b.getByte(i) - '0'));
                i++;
            }
            if (i == digitsStart)
            {
                return ConversionError.NOT_A_NUMBER;
            }
            s.exponent = negativeExponent ? -e : e;
        }
        return i == end ? ConversionError.NONE : ConversionError.NOT_A_NUMBER;
    }

    private static int digitAt(final DirectBuffer b, final EncodeScratch s, final int index)
    {
        final int intDigits = s.intEnd - s.intStart;
        return index < intDigits
            ? b.getByte(s.intStart + index) - '0'
            : b.getByte(s.fracStart + index - intDigits) - '0';
    }

    /**
     * Parses an exactly integral number: {@code 42}, {@code -7}, {@code 5.0}, {@code 1e3}, {@code 1.5e1}; a non-zero
     * fraction is {@link ConversionError#NOT_AN_INTEGER}; a magnitude of 2^64 or more (or more than 20 significant
     * digits) is {@link ConversionError#OUT_OF_RANGE}.
     *
     * @return a code; on success {@code s.resultLow} is the magnitude as unsigned 64-bit and {@code s.negative} the
     *     sign (false for zero).
     */
    static int parseInteger(final DirectBuffer b, final int offset, final int length, final EncodeScratch s)
    {
        final int code = split(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            return code;
        }
        final int digits = (s.intEnd - s.intStart) + (s.fracEnd - s.fracStart);
        final int intDigits = s.intEnd - s.intStart;
        long m = 0;
        long pending = 0;
        for (int k = 0; k < digits; k++)
        {
            final int d = digitAt(b, s, k);
            if (d == 0)
            {
                if (m != 0)
                {
                    pending++;
                }
                continue;
            }
            for (; pending > 0; pending--)
            {
                if (Long.compareUnsigned(m, U64_MAX_DIV_10) > 0)
                {
                    return ConversionError.OUT_OF_RANGE;
                }
                m *= 10;
            }
            if (Long.compareUnsigned(m, U64_MAX_DIV_10) > 0 || (m == U64_MAX_DIV_10 && d > 5))
            {
                return ConversionError.OUT_OF_RANGE;
            }
            m = m * 10 + d;
        }
        if (m == 0)
        {
            s.negative = false;
            s.resultLow = 0;
            return ConversionError.NONE;
        }
        // value = m * 10^(pending + intDigits - digits + exponent), m without trailing zeros
        long exp10 = pending + intDigits - digits + s.exponent;
        if (exp10 < 0)
        {
            return ConversionError.NOT_AN_INTEGER;
        }
        for (; exp10 > 0; exp10--)
        {
            if (Long.compareUnsigned(m, U64_MAX_DIV_10) > 0)
            {
                return ConversionError.OUT_OF_RANGE;
            }
            m *= 10;
        }
        s.resultLow = m;
        return ConversionError.NONE;
    }

    /**
     * Parses a signed integer in {@code [min, max]}.
     *
     * @return a code; the value in {@code s.resultLow}.
     */
    static int parseSigned(final DirectBuffer b, final int offset, final int length, final long min, final long max,
        final EncodeScratch s)
    {
        final int code = parseInteger(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            return code;
        }
        final long magnitude = s.resultLow;
        if (s.negative)
        {
            // -min as unsigned: for Long.MIN_VALUE this is 2^63
            if (Long.compareUnsigned(magnitude, -min) > 0)
            {
                return ConversionError.OUT_OF_RANGE;
            }
            s.resultLow = -magnitude;
        }
        else if (Long.compareUnsigned(magnitude, max) > 0)
        {
            return ConversionError.OUT_OF_RANGE;
        }
        return ConversionError.NONE;
    }

    /**
     * Parses an unsigned integer up to {@code max} (as unsigned; -1 means 2^64 - 1).
     *
     * @return a code; the value in {@code s.resultLow}.
     */
    static int parseUnsigned(final DirectBuffer b, final int offset, final int length, final long max,
        final EncodeScratch s)
    {
        final int code = parseInteger(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            return code;
        }
        if ((s.negative && s.resultLow != 0) || Long.compareUnsigned(s.resultLow, max) > 0)
        {
            return ConversionError.OUT_OF_RANGE;
        }
        return ConversionError.NONE;
    }

    /**
     * Parses an exactly integral number into a 128- or 256-bit integer, signed (Int128, Int256) or not (UInt128,
     * UInt256), by the same rules as {@link #parseInteger}: the JSON number grammar (no {@code +}, no spaces, no
     * leading zeros, no hex), integral forms such as {@code 5.0} and {@code 1e3} accepted, a non-zero fraction
     * {@link ConversionError#NOT_AN_INTEGER}, a value outside the type's range {@link ConversionError#OUT_OF_RANGE}
     * (never wrapped). As {@link #parseInteger} does at 2^64, a significand (the digits without leading and trailing
     * zeros) of 2^128 or more (2^256 for 4 words) is OUT_OF_RANGE even when the number has a fraction.
     *
     * <p>No BigInteger, nothing allocated: up to 18 digits at a time are gathered in a long, then the accumulator (2 or
     * 4 longs in the scratch) is multiplied by 10^n and the chunk added, with the carries.
     *
     * <p>Ranges (ClickHouse documentation, "Int | UInt Types"): Int128 [-2^127, 2^127 - 1], UInt128 [0, 2^128 - 1],
     * Int256 [-2^255, 2^255 - 1], UInt256 [0, 2^256 - 1].
     *
     * @param words  2 for the 128-bit types, 4 for the 256-bit ones.
     * @param signed whether the type is signed.
     * @return a code; on success the two's complement value in {@code s.resultLow} (bits 0-63), {@code s.resultHigh}
     *     (64-127) and, for 4 words, {@code s.resultWord2} (128-191) and {@code s.resultWord3} (192-255).
     */
    static int parseWide(final DirectBuffer b, final int offset, final int length, final int words,
        final boolean signed, final EncodeScratch s)
    {
        final int code = split(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            return code;
        }
        s.resultLow = 0;
        s.resultHigh = 0;
        s.resultWord2 = 0;
        s.resultWord3 = 0;
        final int intDigits = s.intEnd - s.intStart;
        final int digits = intDigits + (s.fracEnd - s.fracStart);
        int first = 0;
        while (first < digits && digitAt(b, s, first) == 0)
        {
            first++;
        }
        if (first == digits)
        {
            s.negative = false;
            return ConversionError.NONE;
        }
        int last = digits - 1;
        while (digitAt(b, s, last) == 0)
        {
            last--;
        }
        long chunk = 0;
        int chunkDigits = 0;
        for (int k = first; k <= last; k++)
        {
            chunk = chunk * 10 + digitAt(b, s, k);
            if (++chunkDigits == 18)
            {
                if (!timesPowerOfTenPlus(s, words, 18, chunk))
                {
                    return ConversionError.OUT_OF_RANGE;
                }
                chunk = 0;
                chunkDigits = 0;
            }
        }
        if (chunkDigits > 0 && !timesPowerOfTenPlus(s, words, chunkDigits, chunk))
        {
            return ConversionError.OUT_OF_RANGE;
        }
        // value = significand * 10^(intDigits - (last + 1) + exponent)
        long exp10 = intDigits - (last + 1L) + s.exponent;
        if (exp10 < 0)
        {
            return ConversionError.NOT_AN_INTEGER;
        }
        while (exp10 > 0)
        {
            // the significand is at least 1, so this overflows within 78 powers of ten
            final int n = (int)Math.min(exp10, 18);
            if (!timesPowerOfTenPlus(s, words, n, 0))
            {
                return ConversionError.OUT_OF_RANGE;
            }
            exp10 -= n;
        }
        return wideRange(words, signed, s);
    }

    /** Checks the magnitude left by {@link #parseWide} against the type's range and applies the sign. */
    private static int wideRange(final int words, final boolean signed, final EncodeScratch s)
    {
        if (!signed)
        {
            // zero was handled by the caller, so a negative value here is below zero
            return s.negative ? ConversionError.OUT_OF_RANGE : ConversionError.NONE;
        }
        final long top = words == 2 ? s.resultHigh : s.resultWord3;
        if (top < 0)
        {
            // the magnitude is 2^(bits - 1) or more: only -2^(bits - 1) fits, whose two's complement is itself
            final boolean lowerZero = words == 2
                ? s.resultLow == 0
                : (s.resultLow | s.resultHigh | s.resultWord2) == 0;
            return s.negative && top == Long.MIN_VALUE && lowerZero
                ? ConversionError.NONE
                : ConversionError.OUT_OF_RANGE;
        }
        if (s.negative)
        {
            negate(words, s);
        }
        return ConversionError.NONE;
    }

    /** Two's complement negation of the {@code words} low words of the accumulator (not zero). */
    private static void negate(final int words, final EncodeScratch s)
    {
        // ~x + 1, the carry running up while a word is zero
        long w = ~s.resultLow + 1;
        long carry = w == 0 ? 1 : 0;
        s.resultLow = w;
        w = ~s.resultHigh + carry;
        carry = carry == 1 && w == 0 ? 1 : 0;
        s.resultHigh = w;
        if (words == 4)
        {
            w = ~s.resultWord2 + carry;
            carry = carry == 1 && w == 0 ? 1 : 0;
            s.resultWord2 = w;
            s.resultWord3 = ~s.resultWord3 + carry;
        }
    }

    /**
     * The accumulator of {@code words} longs in the scratch's result words (least significant first) becomes
     * {@code accumulator * 10^n + addend}.
     *
     * @param n      1..18.
     * @param addend 0..10^n - 1.
     * @return false when the result does not fit {@code 64 * words} bits (the accumulator is then garbage).
     */
    private static boolean timesPowerOfTenPlus(final EncodeScratch s, final int words, final int n,
        final long addend)
    {
        final long m = LONG_POW10[n];
        long w = s.resultLow;
        long product = w * m;
        // the high half of the unsigned product: m is positive, w may be read as signed
        long high = Math.multiplyHigh(w, m) + ((w >> 63) & m);
        long sum = product + addend;
        s.resultLow = sum;
        long carry = high + (Long.compareUnsigned(sum, product) < 0 ? 1 : 0);

        w = s.resultHigh;
        product = w * m;
        high = Math.multiplyHigh(w, m) + ((w >> 63) & m);
        sum = product + carry;
        s.resultHigh = sum;
        carry = high + (Long.compareUnsigned(sum, product) < 0 ? 1 : 0);
        if (words == 2)
        {
            return carry == 0;
        }

        w = s.resultWord2;
        product = w * m;
        high = Math.multiplyHigh(w, m) + ((w >> 63) & m);
        sum = product + carry;
        s.resultWord2 = sum;
        carry = high + (Long.compareUnsigned(sum, product) < 0 ? 1 : 0);

        w = s.resultWord3;
        product = w * m;
        high = Math.multiplyHigh(w, m) + ((w >> 63) & m);
        sum = product + carry;
        s.resultWord3 = sum;
        carry = high + (Long.compareUnsigned(sum, product) < 0 ? 1 : 0);
        return carry == 0;
    }

    /**
     * Parses a decimal into the integer {@code trunc(value * 10^scale)} with at most {@code precision} digits,
     * exactly: digits beyond the scale are truncated toward zero (as ClickHouse's text parsing of Decimal does),
     * more than {@code precision} digits are {@link ConversionError#OUT_OF_RANGE}.
     *
     * @return a code; the signed 128-bit result in {@code s.resultHigh}:{@code s.resultLow}.
     */
    static int parseDecimal(final DirectBuffer b, final int offset, final int length, final int precision,
        final int scale, final EncodeScratch s)
    {
        final int code = split(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            return code;
        }
        final int intDigits = s.intEnd - s.intStart;
        final int digits = intDigits + (s.fracEnd - s.fracStart);
        // the result is the number formed by the first (intDigits + scale + exponent) digits, zero-padded
        final long take = intDigits + (long)scale + s.exponent;
        long hi = 0;
        long lo = 0;
        int significant = 0;
        for (long k = 0; k < take; k++)
        {
            final int d = k < digits ? digitAt(b, s, (int)k) : 0;
            if (significant == 0 && d == 0)
            {
                if (k >= digits)
                {
                    break;
                }
                continue;
            }
            if (++significant > precision)
            {
                return ConversionError.OUT_OF_RANGE;
            }
            // (hi:lo) = (hi:lo) * 10 + d; fits: at most 38 digits < 2^127
            final long loTimes10High = Math.multiplyHigh(lo, 10) + ((lo >> 63) & 10);
            final long newLo = lo * 10 + d;
            final long carry = Long.compareUnsigned(newLo, lo * 10) < 0 ? 1 : 0;
            hi = hi * 10 + loTimes10High + carry;
            lo = newLo;
        }
        if (s.negative && (hi | lo) != 0)
        {
            lo = -lo;
            hi = ~hi + (lo == 0 ? 1 : 0);
        }
        s.resultHigh = hi;
        s.resultLow = lo;
        return ConversionError.NONE;
    }

    /**
     * Parses a correctly rounded double: exactly computed for up to 15 significant digits and a decimal exponent
     * within +-22 (Clinger's fast path), otherwise by {@link Double#parseDouble}, which allocates a String (rare).
     * Also accepts {@code nan}, {@code inf}, {@code +inf}, {@code -inf} (any case), ClickHouse's spellings, when
     * {@code allowSpecial}.
     *
     * @return a code ({@link ConversionError#OUT_OF_RANGE} when the value overflows to infinity); the bits in
     *     {@code s.resultLow}.
     */
    static int parseDouble(final DirectBuffer b, final int offset, final int length, final boolean allowSpecial,
        final EncodeScratch s)
    {
        final int code = split(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            if (allowSpecial)
            {
                final double special = special(b, offset, length);
                if (special == special || isNan(b, offset, length))
                {
                    s.resultLow = Double.doubleToRawLongBits(special);
                    return ConversionError.NONE;
                }
            }
            return code;
        }
        final long mantissa = smallMantissa(b, s, 15);
        if (mantissa >= 0)
        {
            final long exp10 = s.resultHigh;
            if (exp10 >= -22 && exp10 <= 22)
            {
                double v = mantissa;
                v = exp10 < 0 ? v / DOUBLE_POW10[(int)-exp10] : v * DOUBLE_POW10[(int)exp10];
                s.resultLow = Double.doubleToRawLongBits(s.negative ? -v : v);
                return ConversionError.NONE;
            }
        }
        final double v = Double.parseDouble(ascii(b, offset, length));
        if (Double.isInfinite(v))
        {
            return ConversionError.OUT_OF_RANGE;
        }
        s.resultLow = Double.doubleToRawLongBits(v);
        return ConversionError.NONE;
    }

    /**
     * Parses a correctly rounded float (single rounding from the decimal text, never via double): exact fast path for
     * up to 7 significant digits and a decimal exponent within +-10, otherwise {@link Float#parseFloat} (allocates).
     *
     * @return a code; the bits in {@code s.resultLow}.
     */
    static int parseFloat(final DirectBuffer b, final int offset, final int length, final boolean allowSpecial,
        final EncodeScratch s)
    {
        final int code = split(b, offset, length, s);
        if (code != ConversionError.NONE)
        {
            if (allowSpecial)
            {
                final double special = special(b, offset, length);
                if (special == special || isNan(b, offset, length))
                {
                    s.resultLow = Float.floatToRawIntBits((float)special);
                    return ConversionError.NONE;
                }
            }
            return code;
        }
        final long mantissa = smallMantissa(b, s, 7);
        if (mantissa >= 0)
        {
            final long exp10 = s.resultHigh;
            if (exp10 >= -10 && exp10 <= 10)
            {
                float v = mantissa;
                v = exp10 < 0 ? v / FLOAT_POW10[(int)-exp10] : v * FLOAT_POW10[(int)exp10];
                s.resultLow = Float.floatToRawIntBits(s.negative ? -v : v);
                return ConversionError.NONE;
            }
        }
        final float v = Float.parseFloat(ascii(b, offset, length));
        if (Float.isInfinite(v))
        {
            return ConversionError.OUT_OF_RANGE;
        }
        s.resultLow = Float.floatToRawIntBits(v);
        return ConversionError.NONE;
    }

    /**
     * The significand of a split number without leading or trailing zeros if it has at most {@code maxDigits}
     * digits, with its decimal exponent in {@code s.resultHigh}; -1 if it has more digits.
     */
    private static long smallMantissa(final DirectBuffer b, final EncodeScratch s, final int maxDigits)
    {
        final int intDigits = s.intEnd - s.intStart;
        final int digits = intDigits + (s.fracEnd - s.fracStart);
        long m = 0;
        int significant = 0;
        long pending = 0;
        for (int k = 0; k < digits; k++)
        {
            final int d = digitAt(b, s, k);
            if (d == 0)
            {
                if (m != 0)
                {
                    pending++;
                }
                continue;
            }
            significant += (int)pending + 1;
            if (significant > maxDigits)
            {
                return -1;
            }
            for (; pending > 0; pending--)
            {
                m *= 10;
            }
            m = m * 10 + d;
        }
        s.resultHigh = m == 0 ? 0 : pending + intDigits - digits + s.exponent;
        return m;
    }

    private static String ascii(final DirectBuffer b, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        b.getBytes(offset, bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static boolean isNan(final DirectBuffer b, final int offset, final int length)
    {
        return equalsIgnoreCase(b, offset, length, "nan");
    }

    /** The value of {@code inf}/{@code +inf}/{@code -inf}/{@code nan} (NaN for anything else). */
    private static double special(final DirectBuffer b, final int offset, final int length)
    {
        if (equalsIgnoreCase(b, offset, length, "inf") || equalsIgnoreCase(b, offset, length, "+inf"))
        {
            return Double.POSITIVE_INFINITY;
        }
        if (equalsIgnoreCase(b, offset, length, "-inf"))
        {
            return Double.NEGATIVE_INFINITY;
        }
        return Double.NaN;
    }

    static boolean equalsIgnoreCase(final DirectBuffer b, final int offset, final int length, final String ascii)
    {
        if (length != ascii.length())
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            final int c = b.getByte(offset + i);
            final int lower = c >= 'A' && c <= 'Z' ? c + 32 : c;
            if (lower != ascii.charAt(i))
            {
                return false;
            }
        }
        return true;
    }
}
