package io.sluice.core.naming;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicNameSanitizerTest
{
    private static final Pattern UNICODE_WHITE_SPACE = Pattern.compile("\\p{IsWhite_Space}");

    // ---- the seed's sanitising table, row by row ----

    @ParameterizedTest
    @ValueSource(strings = {
        "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", "a.b", "a_b", "a-b",
        "tenant.acme-corp_01", "...", "._-"})
    void shouldKeepLettersDigitsDotUnderscoreAndHyphen(final String name)
    {
        assertEquals(name, sanitizeBoth(name));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a b|a_b", "a/b|a_b", "a+b|a_b", "a@b|a_b", "a#b|a_b", "a~b|a_b", "a(b)|a_b_", "a{value}|a_value_",
        "a%20b|a_20b", "a!b|a_b", "a$b|a_b", "a&b|a_b", "a[b]|a_b_", "a<b>|a_b_"})
    void shouldReplaceAnythingElseWithUnderscore(final String input, final String expected)
    {
        assertEquals(expected, sanitizeBoth(input));
    }

    @Test
    void shouldTrimSurroundingWhitespace()
    {
        assertEquals("acme", sanitizeBoth("  acme \t\r\n"));
    }

    @Test
    void shouldCutAt249Characters()
    {
        assertEquals("a".repeat(249), sanitizeBoth("a".repeat(1000)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t", "\r\n"})
    void shouldTreatEmptyAfterAllThatAsMissing(final String input)
    {
        assertNull(sanitizeBoth(input));
    }

    @Test
    void shouldProduceTheSeedsExampleForATenantCalledAcmeCorp()
    {
        assertEquals("tenant.acme_corp", sanitizeBoth("tenant.acme corp"));
    }

    // ---- R3: characters Kafka rejects ----

    @Test
    void shouldReplaceTheSlashInOrdersEu()
    {
        assertEquals("orders_eu", sanitizeBoth("orders/eu"));
    }

    static Stream<String> r3IllegalCharacters()
    {
        return Stream.of("/", "\\", ",", "\u0000", ":", "\"", "'", ";", "*", "?", "\t", "\r", "\n", "=");
    }

    @ParameterizedTest
    @MethodSource("r3IllegalCharacters")
    void shouldReplaceEveryCharacterKafkaRejects(final String c)
    {
        final String value = "Is " + c + "illegal";
        assertThrows(InvalidTopicException.class, () -> Topic.validate(value), "Kafka rejects the raw value");

        final String name = sanitizeBoth(value);

        assertEquals("Is__illegal", name);
        assertDoesNotThrow(() -> Topic.validate(name));
    }

    // ---- R4: only ASCII letters and digits survive; trim comes first ----

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "café|caf_",
        "'  user events  '|user_events",
        "foo:bar|foo_bar",
        "foo=bar|foo_bar",
        "foo bar|foo_bar"})
    void shouldKeepOnlyAsciiAndTrimFirst(final String input, final String expected)
    {
        assertEquals(expected, sanitizeBoth(input));
        assertDoesNotThrow(() -> Topic.validate(expected));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "é|_", "€|_", "😀|_", "a😀b|a_b", "日本語|___", "RÖKSKÅP|R_KSK_P", "Ω.Ω|_._", "ǅ|_", "١٢٣|___"})
    void shouldReplaceEachNonAsciiCodePointWithOneUnderscore(final String input, final String expected)
    {
        assertEquals(expected, sanitizeBoth(input));
    }

    @Test
    void shouldReplaceADecomposedAccentAsTwoCodePoints()
    {
        assertEquals("cafe_", sanitizeBoth("cafe\u0301"));
    }

    @Test
    void shouldReplaceAnUnpairedSurrogateInAStringWithOneUnderscore()
    {
        assertEquals("a_b", TopicNameSanitizer.sanitize("a\uD800b"));
        assertEquals("a_b", TopicNameSanitizer.sanitize("a\uDC00b"));
    }

    static Stream<Arguments> invalidUtf8()
    {
        return Stream.of(
            Arguments.of("stray continuation byte", bytes(0x61, 0x80, 0x62), "a_b"),
            Arguments.of("two stray continuation bytes", bytes(0x80, 0xBF), "__"),
            Arguments.of("truncated 3-byte sequence", bytes(0xE2, 0x82, 0x78), "__x"),
            Arguments.of("truncated at the end", bytes(0x78, 0xE2, 0x82), "x__"),
            Arguments.of("lone lead byte", bytes(0xC3), "_"),
            Arguments.of("overlong NUL", bytes(0xC0, 0x80), "__"),
            Arguments.of("overlong slash", bytes(0xE0, 0x80, 0xAF), "___"),
            Arguments.of("encoded surrogate", bytes(0xED, 0xA0, 0x80), "___"),
            Arguments.of("above U+10FFFF", bytes(0xF4, 0x90, 0x80, 0x80), "____"),
            Arguments.of("0xF5 lead", bytes(0xF5, 0x80, 0x80, 0x80), "____"),
            Arguments.of("0xFF", bytes(0x61, 0xFF, 0x62), "a_b"),
            Arguments.of("valid after invalid", bytes(0xE2, 0xC3, 0xA9), "__"),
            Arguments.of("invalid lead before a no-break space", bytes(0x61, 0xE2, 0xC2, 0xA0), "a_"),
            Arguments.of("largest code point", bytes(0xF4, 0x8F, 0xBF, 0xBF), "_"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidUtf8")
    void shouldReplaceEachByteThatIsNotWellFormedUtf8WithOneUnderscore(
        final String description, final byte[] input, final String expected)
    {
        assertEquals(expected, sanitizeBytes(input), description);
    }

    // ---- R5: the limit is 249 characters ----

    @ParameterizedTest
    @CsvSource({"200,200", "249,249", "250,249", "300,249"})
    void shouldCutAtTheLimitOf249Characters(final int inputLength, final int expectedLength)
    {
        final String name = sanitizeBoth("a".repeat(inputLength));

        assertEquals("a".repeat(expectedLength), name);
        assertDoesNotThrow(() -> Topic.validate(name));
    }

    @Test
    void shouldTrimBeforeCutting()
    {
        final String input = "ab" + "c".repeat(248) + "   ";

        assertEquals("ab" + "c".repeat(247), sanitizeBoth(input));
    }

    @Test
    void shouldTrimLeadingWhitespaceBeforeCutting()
    {
        assertEquals("a".repeat(249), sanitizeBoth(" ".repeat(500) + "a".repeat(300)));
    }

    @Test
    void shouldCountTheLimitInCharactersAfterReplacement()
    {
        assertEquals("_".repeat(249), sanitizeBoth("é".repeat(300)));
        assertEquals("a" + "_".repeat(248), sanitizeBoth("a" + "😀".repeat(300)));
    }

    // ---- R6 (sanitising part): blank never becomes a topic ----

    @ParameterizedTest
    @ValueSource(strings = {
        "", " ", "  ", "\t", "\n", "\r", "\f", "\u000B", " \t\r\n\f\u000B ", "\u00A0", "\u3000", "\u2028\u2029",
        "\u0085", "\u1680", "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A", "\u202F\u205F",
        " \u00A0\u3000 "})
    void shouldTreatBlankAsMissing(final String blank)
    {
        assertNull(sanitizeBoth(blank));
        assertTrue(TopicNameSanitizer.isBlank(blank));
    }

    @Test
    void shouldNotTreatNonBlankAsBlank()
    {
        assertFalse(TopicNameSanitizer.isBlank(" a "));
        assertFalse(TopicNameSanitizer.isBlank(buffer("\u200B"), 0, 3));
    }

    @Test
    void shouldTreatNullAsMissing()
    {
        assertNull(TopicNameSanitizer.sanitize((String)null));
        assertTrue(TopicNameSanitizer.isBlank((String)null));
    }

    @ParameterizedTest
    @ValueSource(strings = {".", "..", " . ", "\u3000..\u3000"})
    void shouldTreatTheNamesKafkaRejectsAsMissing(final String input)
    {
        assertNull(sanitizeBoth(input));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"...|...", "._|._", "/.|_.", "./|._"})
    void shouldKeepOtherDotNamesThatKafkaAccepts(final String input, final String expected)
    {
        assertEquals(expected, sanitizeBoth(input));
        assertDoesNotThrow(() -> Topic.validate(expected));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "'\u00A0acme\u00A0'|acme", "'\u3000acme\u3000'|acme", "'\u2003a b\u2003'|a_b", "'a\u00A0b'|a_b",
        "'a\u3000b'|a_b", "'\u200Bacme'|_acme", "'\uFEFFacme'|_acme", "'\u001Facme'|_acme"})
    void shouldTrimUnicodeWhitespaceButReplaceItInside(final String input, final String expected)
    {
        assertEquals(expected, sanitizeBoth(input));
    }

    @Test
    void shouldMatchTheUnicodeWhiteSpacePropertyExactly()
    {
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++)
        {
            final boolean expected = UNICODE_WHITE_SPACE.matcher(new String(Character.toChars(cp))).matches();
            if (expected != TopicNameSanitizer.isWhitespace(cp))
            {
                fail("U+" + Integer.toHexString(cp) + " expected whitespace=" + expected);
            }
        }
    }

    @Test
    void shouldTrimEveryWhitespaceCodePointFromBothEndsOfABuffer()
    {
        for (int cp = 0; cp <= 0x3000; cp++)
        {
            if (!TopicNameSanitizer.isWhitespace(cp))
            {
                continue;
            }
            final String ws = new String(Character.toChars(cp));
            assertEquals("x", sanitizeBytes((ws + "x" + ws).getBytes(StandardCharsets.UTF_8)), ws);
            assertTrue(TopicNameSanitizer.isBlank(buffer(ws), 0, ws.getBytes(StandardCharsets.UTF_8).length));
        }
    }

    // ---- buffer contract ----

    @Test
    void shouldReadAndWriteAtTheGivenOffsetsAndLeaveOtherBytesAlone()
    {
        final byte[] input = "XXX tenant/a XXX".getBytes(StandardCharsets.US_ASCII);
        final UnsafeBuffer src = new UnsafeBuffer(input);
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[20]);
        dst.setMemory(0, 20, (byte)'#');

        final int length = TopicNameSanitizer.sanitize(src, 3, 10, dst, 5);

        assertEquals(8, length);
        assertEquals("#####tenant_a#######", dst.getStringWithoutLengthAscii(0, 20));
    }

    @Test
    void shouldSanitiseInPlace()
    {
        final UnsafeBuffer buffer = buffer("  users/é😀  ");

        final int length = TopicNameSanitizer.sanitize(buffer, 0, buffer.capacity(), buffer, 0);

        assertEquals("users___", buffer.getStringWithoutLengthAscii(0, length));
    }

    @Test
    void shouldNeedNoMoreRoomThanTheInputOr249Bytes()
    {
        final UnsafeBuffer src = buffer("ab/");
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[3]);
        assertEquals(3, TopicNameSanitizer.sanitize(src, 0, 3, dst, 0));

        final UnsafeBuffer longSrc = buffer("x".repeat(5000));
        final UnsafeBuffer exact = new UnsafeBuffer(new byte[TopicNameSanitizer.MAX_LENGTH]);
        assertEquals(249, TopicNameSanitizer.sanitize(longSrc, 0, 5000, exact, 0));
    }

    @Test
    void shouldPassMissingThrough()
    {
        final UnsafeBuffer buffer = buffer("abc");

        assertEquals(TopicNameSanitizer.MISSING,
            TopicNameSanitizer.sanitize(buffer, 0, TopicNameSanitizer.MISSING, buffer, 0));
    }

    @Test
    void shouldRejectANegativeLengthOtherThanMissing()
    {
        final UnsafeBuffer buffer = buffer("abc");

        assertThrows(IllegalArgumentException.class, () -> TopicNameSanitizer.sanitize(buffer, 0, -2, buffer, 0));
    }

    // ---- metric-name collisions ----

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a.b|a_b|true", "a_b|a.b|true", "a.b_c|a_b.c|true", "a.b|a.b|false", "a_b|a_b|false", "a.b|a-b|false",
        "a.b|a_bc|false", "ab|ba|false", "x|y|false"})
    void shouldDetectNamesWhoseMetricNamesCollide(final String a, final String b, final boolean expected)
    {
        assertEquals(expected, TopicNameSanitizer.collidesInMetrics(a, b));
        assertEquals(expected, !a.equals(b) && Topic.hasCollision(a, b), "agrees with Kafka's Topic.hasCollision");
    }

    @Test
    void shouldAgreeWithKafkaOnRandomCollisions()
    {
        final Random random = new Random(7);
        final char[] alphabet = {'a', 'b', '.', '_', '-'};
        for (int n = 0; n < 10_000; n++)
        {
            final String a = randomFrom(random, alphabet, 1 + random.nextInt(5));
            final String b = randomFrom(random, alphabet, 1 + random.nextInt(5));
            assertEquals(!a.equals(b) && Topic.hasCollision(a, b), TopicNameSanitizer.collidesInMetrics(a, b),
                a + " vs " + b);
        }
    }

    // ---- property: 10,000 random strings ----

    @Test
    void shouldProduceMissingOrALegalKafkaTopicForRandomStrings()
    {
        final long seed = 20_240_601L;
        final Random random = new Random(seed);
        int missing = 0;
        for (int n = 0; n < 10_000; n++)
        {
            final String input = randomString(random);
            final String name = TopicNameSanitizer.sanitize(input);
            final String context = "seed " + seed + ", case " + n + ", input " + escape(input);

            assertEquals(referenceSanitize(input), name, context);
            if (name == null)
            {
                missing++;
                continue;
            }
            assertTrue(name.length() <= TopicNameSanitizer.MAX_LENGTH, context);
            assertDoesNotThrow(() -> Topic.validate(name), context);
            assertEquals(name, sanitizeBytes(input.getBytes(StandardCharsets.UTF_8)), context);
        }
        assertTrue(missing > 0 && missing < 10_000, "the generator covers both outcomes: " + missing);
    }

    @Test
    void shouldProduceMissingOrALegalKafkaTopicForRandomBytes()
    {
        final Random random = new Random(42);
        for (int n = 0; n < 10_000; n++)
        {
            final byte[] input = new byte[random.nextInt(600)];
            random.nextBytes(input);
            final String name = sanitizeBytes(input);
            if (name != null)
            {
                assertTrue(name.length() <= TopicNameSanitizer.MAX_LENGTH);
                assertDoesNotThrow(() -> Topic.validate(name), () -> Arrays.toString(input));
            }
        }
    }

    @Test
    void shouldAgreeWithTheStringVersionOnWellFormedInput()
    {
        final Random random = new Random(99);
        for (int n = 0; n < 2_000; n++)
        {
            final String input = randomString(random).replaceAll("[\\uD800-\\uDFFF]", "s");
            assertEquals(TopicNameSanitizer.sanitize(input), sanitizeBytes(input.getBytes(StandardCharsets.UTF_8)));
        }
    }

    // ---- zero allocation ----

    @Test
    void shouldNotAllocateWhenSanitisingABuffer()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        final List<UnsafeBuffer> inputs = List.of(
            buffer("  tenant.acme corp  "), buffer("café/€😀"), buffer("x".repeat(400)), buffer(" \u3000 "));
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[TopicNameSanitizer.MAX_LENGTH]);
        final UnsafeBuffer[] array = inputs.toArray(new UnsafeBuffer[0]);

        long sink = run(array, dst, 50_000);
        final long threadId = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        sink += run(array, dst, 100_000);
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertTrue(sink != 0);
        assertTrue(allocated / 100_000.0 < 0.01, "allocated " + allocated + " bytes in 100,000 calls");
    }

    private static long run(final UnsafeBuffer[] inputs, final UnsafeBuffer dst, final int iterations)
    {
        long sum = 0;
        for (int i = 0; i < iterations; i++)
        {
            final UnsafeBuffer src = inputs[i & 3];
            sum += TopicNameSanitizer.sanitize(src, 0, src.capacity(), dst, 0);
        }
        return sum;
    }

    // ---- helpers ----

    /** Sanitises through both entry points, checks they agree, and returns the String result. */
    static String sanitizeBoth(final String input)
    {
        final String viaString = TopicNameSanitizer.sanitize(input);
        final String viaBuffer = sanitizeBytes(input.getBytes(StandardCharsets.UTF_8));
        assertEquals(viaString, viaBuffer, "String and buffer versions agree");
        return viaString;
    }

    static String sanitizeBytes(final byte[] input)
    {
        final byte[] padded = new byte[input.length + 8];
        System.arraycopy(input, 0, padded, 4, input.length);
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[Math.min(input.length, 249) + 4]);
        final int length = TopicNameSanitizer.sanitize(new UnsafeBuffer(padded), 4, input.length, dst, 2);
        if (length == TopicNameSanitizer.MISSING)
        {
            return null;
        }
        return dst.getStringWithoutLengthAscii(2, length);
    }

    /** An independent, code-point based statement of the rules. */
    static String referenceSanitize(final String input)
    {
        final int[] cps = input.codePoints().toArray();
        int start = 0;
        int end = cps.length;
        while (start < end && isUnicodeWhiteSpace(cps[start]))
        {
            start++;
        }
        while (end > start && isUnicodeWhiteSpace(cps[end - 1]))
        {
            end--;
        }
        final StringBuilder out = new StringBuilder();
        for (int i = start; i < end && out.length() < 249; i++)
        {
            final int cp = cps[i];
            final boolean legal = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
                cp == '.' || cp == '_' || cp == '-';
            out.append(legal ? (char)cp : '_');
        }
        final String name = out.toString();
        return name.isEmpty() || name.equals(".") || name.equals("..") ? null : name;
    }

    private static boolean isUnicodeWhiteSpace(final int cp)
    {
        return UNICODE_WHITE_SPACE.matcher(new String(Character.toChars(cp))).matches();
    }

    /** Random strings mixing ASCII, whitespace, controls, BMP, surrogate pairs, lone surrogates and long runs. */
    static String randomString(final Random random)
    {
        final int length = random.nextInt(10) == 0 ? 200 + random.nextInt(200) : random.nextInt(12);
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++)
        {
            switch (random.nextInt(9))
            {
                case 0 -> sb.append((char)(0x20 + random.nextInt(0x5F)));
                case 1 -> sb.append("abcXYZ019._-".charAt(random.nextInt(12)));
                case 2 -> sb.append(" \t\n\r\f\u000B\u00A0\u3000\u2028\u0085\u200A".charAt(random.nextInt(11)));
                case 3 -> sb.append((char)random.nextInt(0x20));
                case 4 -> sb.append((char)(0x80 + random.nextInt(0xD800 - 0x80)));
                case 5 -> sb.appendCodePoint(0x10000 + random.nextInt(Character.MAX_CODE_POINT - 0x10000 + 1));
                case 6 -> sb.append((char)(0xD800 + random.nextInt(0x800)));
                case 7 -> sb.append((char)(0xE000 + random.nextInt(0x2000)));
                default -> sb.append('.');
            }
        }
        return sb.toString();
    }

    static String escape(final String s)
    {
        final StringBuilder sb = new StringBuilder("\"");
        s.chars()
            .forEach(c -> sb.append(c >= 0x20 && c < 0x7F ? String.valueOf((char)c) : String.format("\\u%04X", c)));
        return sb.append('"').toString();
    }

    private static String randomFrom(final Random random, final char[] alphabet, final int length)
    {
        final char[] chars = new char[length];
        for (int i = 0; i < length; i++)
        {
            chars[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return new String(chars);
    }

    static UnsafeBuffer buffer(final String s)
    {
        return new UnsafeBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] bytes(final int... values)
    {
        final byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            out[i] = (byte)values[i];
        }
        return out;
    }
}
