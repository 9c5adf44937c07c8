package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;
import io.sluice.codecs.testing.TestData;

/**
 * {@link JsonReader#skipStructure}, the bracket-counting skip of values off every path, against the byte-at-a-time
 * {@link StructureReference}: the same end or the same error at the same offset, on real events, on random
 * structures with backslash runs and brackets at every position of a word, cut at every length, and from every
 * bracket of every file of nst/JSONTestSuite.
 */
class StructureSkipTest
{
    private static int skip(final byte[] doc, final int index, final int depth, final int maxDepth)
    {
        final UnsafeBuffer buffer = Buffers.offHeap(doc);
        final JsonReader reader = new JsonReader(maxDepth);
        reader.reset(buffer, Buffers.PAD + doc.length);
        final int after = reader.skipStructure(Buffers.PAD + index, depth);
        if (after < 0)
        {
            errorOffset = reader.errorIndex - Buffers.PAD;
            return reader.errorCode;
        }
        return after - Buffers.PAD;
    }

    private static int errorOffset;

    private static void assertSameAsReference(final byte[] doc, final int maxDepth, final String context)
    {
        final int expected = StructureReference.skip(doc, 0, doc.length, 0, maxDepth);
        final int actual = skip(doc, 0, 0, maxDepth);
        assertEquals(expected, actual, context);
        if (expected < 0)
        {
            assertEquals(StructureReference.errorOffset, errorOffset, "error offset: " + context);
        }
    }

    @Test
    void shouldEndWhereTheReferenceEndsOnEveryGithubEvent() throws Exception
    {
        for (final byte[] event : TestData.githubEvents())
        {
            assertEquals(event.length, skip(event, 0, 0, 128));
        }
    }

    @Test
    void shouldMatchTheReferenceOnEveryPrefixOfAnEvent() throws Exception
    {
        final byte[] event = TestData.githubEvents().get(0);
        for (int n = 1; n <= event.length; n++)
        {
            final byte[] prefix = Arrays.copyOf(event, n);
            assertSameAsReference(prefix, 128, "prefix " + n);
        }
    }

    @Test
    void shouldMatchTheReferenceOnRandomStructures()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] alphabet = {'"', '"', '"', '\\', '\\', '\\', '{', '}', '[', ']', 'a', ' ', ',', ':', '1', 'u',
            (byte)0xC3, (byte)0xA9, 0x01, '\n'};
        for (int round = 0; round < 20_000; round++)
        {
            final int length = 1 + random.nextInt(round % 10 == 0 ? 600 : 150);
            final byte[] doc = new byte[length];
            doc[0] = random.nextBoolean() ? (byte)'{' : (byte)'[';
            for (int i = 1; i < length; i++)
            {
                doc[i] = alphabet[random.nextInt(alphabet.length)];
            }
            assertSameAsReference(doc, 1 + random.nextInt(12), "round " + round + ": " +
                new String(doc, StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void shouldMatchTheReferenceFromEveryBracketOfTheJsonTestSuite() throws Exception
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> stream = Files.list(TestData.jsonTestSuite()))
        {
            stream.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().forEach(files::add);
        }
        assertEquals(318, files.size(), "the whole test_parsing directory");
        int starts = 0;
        for (final Path file : files)
        {
            final byte[] doc = Files.readAllBytes(file);
            final UnsafeBuffer buffer = Buffers.offHeap(doc);
            for (final int maxDepth : new int[]{1024, 3})
            {
                final JsonReader reader = new JsonReader(maxDepth);
                reader.reset(buffer, Buffers.PAD + doc.length);
                for (int at = 0; at < doc.length; at++)
                {
                    if (doc[at] != '{' && doc[at] != '[')
                    {
                        continue;
                    }
                    final int expected = StructureReference.skip(doc, at, doc.length, 0, maxDepth);
                    final int after = reader.skipStructure(Buffers.PAD + at, 0);
                    final String context = file.getFileName() + " from " + at + " depth limit " + maxDepth;
                    if (expected < 0)
                    {
                        assertEquals(JsonError.describe(expected), JsonError.describe(after < 0 ? reader.errorCode : 0),
                            context);
                        assertEquals(StructureReference.errorOffset, reader.errorIndex - Buffers.PAD,
                            "error offset: " + context);
                    }
                    else
                    {
                        assertEquals(expected, after - Buffers.PAD, context);
                    }
                    starts++;
                }
            }
        }
        assertTrue(starts > 10_000, "brackets tried: " + starts);
    }

    /**
     * A scan whose paths match nothing skips every member of the top-level object (or element of the top-level
     * array) by structure. Every fault of the suite's files lies at the top level of its document or breaks its
     * structure (an unclosed string or bracket, a bracket of the wrong kind, a stray backslash, too deep), so on the
     * suite such a scan fails exactly where, and as, the full validation does (the scan's looser acceptance inside
     * skipped values is {@code JsonScannerOracleTest}'s business).
     */
    @Test
    void shouldScanTheJsonTestSuiteAsValidateDoes() throws Exception
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("zzz.q", "9.q")), 1024);
        final JsonScanner full = new JsonScanner(JsonPathSet.compile(List.of()), 1024);
        int rejected = 0;
        try (Stream<Path> stream = Files.list(TestData.jsonTestSuite()))
        {
            for (final Path file : stream.sorted().toList())
            {
                final byte[] doc = Files.readAllBytes(file);
                final UnsafeBuffer buffer = Buffers.offHeap(doc);
                final int validate = full.validate(buffer, Buffers.PAD, doc.length);
                final int scan = scanner.scan(buffer, Buffers.PAD, doc.length);
                final String context = file.getFileName().toString();
                assertEquals(JsonError.describe(validate), JsonError.describe(scan), context);
                if (validate != JsonError.NONE)
                {
                    assertEquals(full.errorOffset(), scanner.errorOffset(), context);
                    rejected++;
                }
            }
        }
        assertTrue(rejected > 200, "n_ and most i_ files rejected: " + rejected);
    }

    @Test
    void shouldMatchTheReferenceOnLongStringsWithBackslashRunsBeforeQuotes()
    {
        // strings longer than the 16-byte step, quotes behind backslash runs of every length up to 9 (an odd run
        // escapes the quote, an even one does not), runs that start at the string's first byte, near the end
        final SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 20_000; round++)
        {
            final StringBuilder sb = new StringBuilder(random.nextBoolean() ? "{\"k\":" : "[");
            final int strings = 1 + random.nextInt(4);
            for (int n = 0; n < strings; n++)
            {
                sb.append(n > 0 ? "," : "").append('"');
                final int parts = random.nextInt(4);
                for (int p = 0; p < parts; p++)
                {
                    sb.append("x".repeat(random.nextInt(40))).append("\\".repeat(random.nextInt(10)));
                    sb.append(random.nextInt(3) == 0 ? "\"" : "y");
                }
                sb.append("\\\\".repeat(random.nextInt(2))).append('"');
            }
            sb.append(random.nextInt(5) == 0 ? "" : sb.charAt(0) == '{' ? "}" : "]");
            final byte[] doc = sb.toString().getBytes(StandardCharsets.US_ASCII);
            assertSameAsReference(doc, 8, "round " + round + ": " + sb);
        }
    }

    @Test
    void shouldCarryEscapesAcrossWords()
    {
        // a backslash run ending at every position around 8- and 64-byte boundaries, of odd and even length
        for (int run = 1; run <= 5; run++)
        {
            for (int at = 50; at < 140; at++)
            {
                final StringBuilder sb = new StringBuilder("[\"");
                while (sb.length() < at - run)
                {
                    sb.append('x');
                }
                sb.append("\\".repeat(run)).append("\"]\"]");
                final byte[] doc = sb.toString().getBytes(StandardCharsets.US_ASCII);
                assertSameAsReference(doc, 8, "run " + run + " at " + at);
            }
        }
    }

    @Test
    void shouldReportWhatItChecks()
    {
        assertEquals(JsonError.UNEXPECTED_BYTE, skip(bytes("{\"a\":[1}"), 0, 0, 8), "a bracket of the wrong kind");
        assertEquals(7, errorOffset);
        assertEquals(JsonError.UNEXPECTED_BYTE, skip(bytes("{\"a\":\\\"}"), 0, 0, 8), "a backslash outside a string");
        assertEquals(5, errorOffset);
        assertEquals(JsonError.TRUNCATED, skip(bytes("{\"a\":\"}"), 0, 0, 8), "a string that never closes");
        assertEquals(JsonError.TOO_DEEP, skip(bytes("[[[[]]]]"), 0, 1, 3), "deeper than the limit");
        assertEquals(2, errorOffset);
        // not checked: grammar, escape letters, UTF-8, control characters, numbers, literals
        final byte[] loose = bytes("{\"a\" 1 tru \"\\q\u0001\" ,, [01]}");
        assertEquals(loose.length, skip(loose, 0, 0, 8));
        final byte[] badUtf8 = {'[', '"', (byte)0xFF, (byte)0xC0, '"', ']'};
        assertEquals(badUtf8.length, skip(badUtf8, 0, 0, 8));
    }

    @Test
    void shouldSkipOnlyOffPathSubtreesInScanAndNothingInValidate()
    {
        final byte[] doc = bytes("{\"id\":1,\"junk\":{\"x\":tru, \"y\":\"\\q\"},\"name\":\"n\",\"more\":[1 2]}");
        final UnsafeBuffer buffer = Buffers.offHeap(doc);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("id", "name", "zzz")), 16);
        assertEquals(JsonError.NONE, scanner.scan(buffer, Buffers.PAD, doc.length));
        assertEquals(JsonKind.STRING, scanner.kind(1));
        assertEquals(JsonError.UNEXPECTED_BYTE, scanner.validate(buffer, Buffers.PAD, doc.length));
        // what the scan reads is validated in full: a bad value at a path, or between members, still fails
        final byte[] bad = bytes("{\"id\":tru,\"junk\":{}}");
        assertEquals(JsonError.UNEXPECTED_BYTE, scanner.scan(Buffers.offHeap(bad), Buffers.PAD, bad.length));
        final byte[] missingComma = bytes("{\"id\":1 \"junk\":{}}");
        assertEquals(JsonError.UNEXPECTED_BYTE,
            scanner.scan(Buffers.offHeap(missingComma), Buffers.PAD, missingComma.length));
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
