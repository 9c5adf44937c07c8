package io.sluice.codecs.rowbinary;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Checks the allocation-free conversions against the JDK on many random inputs: integers and decimals against
 * {@link BigDecimal}, floats against {@link Double#parseDouble} and {@link Float#parseFloat} (correct rounding),
 * local date-times in a zone against {@code java.time}.
 */
class ConversionOracleTest
{
    private static UnsafeBuffer bytes(final String text)
    {
        return new UnsafeBuffer(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static String randomNumber(final SplittableRandom random)
    {
        final StringBuilder text = new StringBuilder();
        if (random.nextBoolean())
        {
            text.append('-');
        }
        final int intDigits = 1 + random.nextInt(random.nextInt(4) == 0 ? 25 : 10);
        text.append(1 + random.nextInt(9));
        for (int i = 1; i < intDigits; i++)
        {
            text.append(random.nextInt(5) == 0 ? '0' : (char)('0' + random.nextInt(10)));
        }
        if (random.nextInt(3) == 0)
        {
            text.setLength(text.charAt(0) == '-' ? 1 : 0);
            text.append('0');
        }
        if (random.nextBoolean())
        {
            text.append('.');
            final int fracDigits = 1 + random.nextInt(12);
            for (int i = 0; i < fracDigits; i++)
            {
                text.append(random.nextInt(3) == 0 ? '0' : (char)('0' + random.nextInt(10)));
            }
        }
        if (random.nextInt(4) == 0)
        {
            text.append(random.nextBoolean() ? 'e' : 'E');
            final int e = random.nextInt(-30, 31);
            text.append(e < 0 ? "-" : random.nextBoolean() ? "+" : "").append(Math.abs(e));
        }
        return text.toString();
    }

    @Test
    void shouldParseIntegersAndDecimalsExactly()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final EncodeScratch s = new EncodeScratch(64);
        final BigInteger u64 = BigInteger.ONE.shiftLeft(64);
        for (int i = 0; i < 200_000; i++)
        {
            final String text = randomNumber(random);
            final BigDecimal exact = new BigDecimal(text);
            final UnsafeBuffer b = bytes(text);

            final int code = Numbers.parseSigned(b, 0, text.length(), Long.MIN_VALUE, Long.MAX_VALUE, s);
            BigInteger integral = null;
            try
            {
                integral = exact.toBigIntegerExact();
            }
            catch (final ArithmeticException ex)
            {
                // not integral
            }
            if (integral == null)
            {
                // documented: significands of 2^64 or more are OUT_OF_RANGE even when the value has a fraction
                if (exact.stripTrailingZeros().unscaledValue().abs().compareTo(u64) < 0)
                {
                    assertEquals(ConversionError.NOT_AN_INTEGER, code, text);
                }
            }
            else if (integral.bitLength() <= 63)
            {
                assertEquals(ConversionError.NONE, code, text);
                assertEquals(integral.longValueExact(), s.resultLow, text);
            }
            else
            {
                assertEquals(ConversionError.OUT_OF_RANGE, code, text);
            }

            final int scale = random.nextInt(0, 12);
            final int precision = random.nextInt(Math.max(1, scale), 39);
            final int decimal = Numbers.parseDecimal(b, 0, text.length(), precision, scale, s);
            final BigInteger scaled = exact.setScale(scale, RoundingMode.DOWN).unscaledValue();
            if (scaled.abs().compareTo(BigInteger.TEN.pow(precision)) >= 0)
            {
                assertEquals(ConversionError.OUT_OF_RANGE, decimal, text + " Decimal(" + precision + "," + scale + ")");
            }
            else
            {
                assertEquals(ConversionError.NONE, decimal, text);
                final BigInteger actual = BigInteger.valueOf(s.resultHigh).shiftLeft(64)
                    .add(new BigInteger(Long.toUnsignedString(s.resultLow)));
                assertEquals(scaled, actual, text + " Decimal(" + precision + "," + scale + ")");
            }
        }
    }

    @Test
    void shouldRoundFloatsCorrectly()
    {
        final SplittableRandom random = new SplittableRandom(11);
        final EncodeScratch s = new EncodeScratch(64);
        for (int i = 0; i < 200_000; i++)
        {
            final String text = i % 2 == 0 ? randomNumber(random) : Double.toString(random.nextDouble() * 1e6);
            final UnsafeBuffer b = bytes(text);
            assertEquals(ConversionError.NONE, Numbers.parseDouble(b, 0, text.length(), false, s), text);
            assertEquals(Double.doubleToRawLongBits(Double.parseDouble(text)), s.resultLow, text);
            final float expected = Float.parseFloat(text);
            if (Float.isInfinite(expected))
            {
                assertEquals(ConversionError.OUT_OF_RANGE, Numbers.parseFloat(b, 0, text.length(), false, s), text);
                continue;
            }
            assertEquals(ConversionError.NONE, Numbers.parseFloat(b, 0, text.length(), false, s), text);
            assertEquals(Float.floatToRawIntBits(expected), (int)s.resultLow, text);
        }
    }

    @Test
    void shouldResolveLocalTimesLikeJavaTime()
    {
        final SplittableRandom random = new SplittableRandom(3);
        for (final String zoneName : new String[]{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
            "Asia/Kolkata", "America/Sao_Paulo", "Pacific/Apia", "UTC"})
        {
            final ZoneId zone = ZoneId.of(zoneName);
            final ZoneOffsets offsets = new ZoneOffsets(zone);
            for (int i = 0; i < 50_000; i++)
            {
                final long local = random.nextLong(-2208988800L, 10413791999L);
                // bias a third of the samples to the minutes around DST changes
                final long sample = i % 3 == 0
                    ? (local / 86400) * 86400 + 3600 * random.nextInt(4) +
                        60 * random.nextInt(60)
                    : local;
                final LocalDateTime dateTime = LocalDateTime.ofEpochSecond(sample, 0, java.time.ZoneOffset.UTC);
                assertEquals(dateTime.atZone(zone).toEpochSecond(), offsets.toEpochSecond(sample),
                    zoneName + " " + dateTime);
            }
        }
    }
}
