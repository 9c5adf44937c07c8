package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.ringbuffers.RecordEvent;

/**
 * The envelope lines of {@code route --envelope} and {@code explain --envelope}, one reader for both: every member
 * checked for its type, the value taken as written, and a line that is not exactly one envelope refused with the
 * member it names (the hostile trial of 2026-12-04: a key that was an object replaced the value, an array of headers
 * read as a tombstone, a second envelope after the first was ignored, timestamps of 1.9 and partitions of -3 were
 * taken, and explain and route disagreed on duplicate members).
 */
class DryRunInputTest
{
    private static final String W = "{\"id\":1,\"type\":\"WatchEvent\"}";
    private static final String P = "{\"id\":2,\"type\":\"PushEvent\"}";

    private final DryRunInput input = new DryRunInput(true, 1 << 20);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"key\":{\"value\":" + P + "},\"value\":" + W
            + "} | not an envelope: \"key\" must be a string or null, not an object",
        "{\"key\":[1],\"value\":" + W + "} | not an envelope: \"key\" must be a string or null, not an array",
        "{\"key\":42,\"value\":" + W + "} | not an envelope: \"key\" must be a string or null, not a number",
        "{\"headers\":[\"a\"],\"value\":" + W
            + "} | not an envelope: \"headers\" must be an object of strings or null, not an array",
        "{\"headers\":{\"h\":{\"value\":1}},\"value\":" + W
            + "} | not an envelope: header \"h\" must be a string or null, not an object",
        "{\"headers\":{\"h\":1.5},\"value\":" + W
            + "} | not an envelope: header \"h\" must be a string or null, not a number",
        "{\"value\":" + W + "} {\"value\":" + P
            + "} | not an envelope: data after the end of the top-level value at byte 39",
        "{\"value\":" + W + "} garbage | not an envelope: data after the end of the top-level value at byte 39",
        "{\"value\":" + W + ",\"value\":" + P + "} | not an envelope: member \"value\" appears twice",
        "{\"value\":" + W + ",\"value\":null} | not an envelope: member \"value\" appears twice",
        "{\"key\":\"a\",\"key\":\"b\",\"value\":{}} | not an envelope: member \"key\" appears twice",
        "{\"timestamp\":\"1700000000000\",\"value\":{}} | not an envelope: \"timestamp\" must be an integer from 0 to 9223372036854775807 (milliseconds since the epoch), not \"1700000000000\"",
        "{\"timestamp\":1.9,\"value\":{}} | not an envelope: \"timestamp\" must be an integer from 0 to 9223372036854775807 (milliseconds since the epoch), not 1.9",
        "{\"timestamp\":-1,\"value\":{}} | not an envelope: \"timestamp\" must be an integer from 0 to 9223372036854775807 (milliseconds since the epoch), not -1",
        "{\"partition\":-3,\"value\":{}} | not an envelope: \"partition\" must be an integer from 0 to 2147483647, not -3",
        "{\"partition\":2147483648,\"value\":{}} | not an envelope: \"partition\" must be an integer from 0 to 2147483647, not 2147483648",
        "{\"partition\":2.5e0,\"value\":{}} | not an envelope: \"partition\" must be an integer from 0 to 2147483647, not 2.5e0",
        "{\"offset\":9223372036854775808,\"value\":{}} | not an envelope: \"offset\" must be an integer from 0 to 9223372036854775807, not 9223372036854775808",
        "{\"offset\":null,\"value\":{}} | not an envelope: \"offset\" must be an integer from 0 to 9223372036854775807, not null",
        "{\"key\":\"k\",\"valeu\":" + W
            + "} | not an envelope: unknown member \"valeu\" (an envelope's members: key, headers, timestamp, partition, offset, value)",
        "{\"valeu\":" + W
            + "} | not an envelope: the object has none of the members of {\"key\": ..., \"headers\": {...}, \"timestamp\": ms, \"partition\": n, \"offset\": n, \"value\": ...} (its first member: \"valeu\"); without --envelope each line is the record itself",
        "{\"value\":{},\"a\\\"b\":1} | not an envelope: unknown member \"a\\\"b\" (an envelope's members: key, headers, timestamp, partition, offset, value)",
        "{} | not an envelope: the object has none of the members of {\"key\": ..., \"headers\": {...}, \"timestamp\": ms, \"partition\": n, \"offset\": n, \"value\": ...}; without --envelope each line is the record itself",
        "{\"offset\":\"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\"} | not an envelope: \"offset\" must be an integer from 0 to 9223372036854775807, not \"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9...",
        "[1] | not an envelope: expected an object {\"key\": ..., \"headers\": {...}, \"timestamp\": ms, \"partition\": n, \"offset\": n, \"value\": ...}",
        "{\"value\":{\"a\":1} | not an envelope: document truncated: input ended inside a value at byte 16",
        "{\"key\":\"\\ud800\",\"value\":{}} | not an envelope: unpaired UTF-16 surrogate escape in a string at byte 8"})
    void shouldRefuseALineThatIsNotExactlyOneEnvelopeNamingWhy(final String line, final String why)
    {
        assertEquals(why, fill(line));
    }

    @Test
    void shouldReadEveryMemberAsAKafkaRecordHasIt()
    {
        assertNull(fill("{\"key\":\"k\\u00e9\",\"headers\":{\"tenant\":\"acme\",\"tenant\":null,\"x\":\"\"},"
            + "\"timestamp\":1700000000123,\"partition\":3,\"offset\":9223372036854775807,\"value\":" + W + "}"));
        final RecordEvent r = input.record();
        assertEquals("k\u00e9", new String(bytes(r.keyLength(), r.key()), StandardCharsets.UTF_8));
        assertEquals(W, value(r));
        assertEquals(1_700_000_000_123L, r.timestampMs());
        assertEquals(RecordEvent.CREATE_TIME, r.timestampType());
        assertEquals(3, r.partition());
        assertEquals(Long.MAX_VALUE, r.offset());
        assertEquals(3, r.headerCount(), "names may repeat, as Kafka's headers may");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"value\":\"abc\"} | \"abc\"",
        "{\"value\":\"a \\\"q\\\" {\"} | \"a \\\"q\\\" {\"",
        "{\"value\":42} | 42",
        "{\"value\":true} | true",
        "{\"value\":[1,{\"a\":2}]} | [1,{\"a\":2}]",
        "{\"value\":{\"a\":1,\"a\":2}} | {\"a\":1,\"a\":2}",
        "`{ \"value\" : { \"x\" : 1 } }  ` | { \"x\" : 1 }"})
    void shouldTakeTheValueAsWrittenForTheEngineToJudge(final String line, final String value)
    {
        // a duplicate key inside the value is the sink's duplicate_keys business, not the envelope's
        assertNull(fill(line));
        assertEquals(value, value(input.record()));
    }

    @Test
    void shouldReadAMissingOrNullValueAsATombstoneAndDefaultTheCoordinates()
    {
        for (final String line : new String[]{"{\"key\":\"k\"}", "{\"key\":\"k\",\"value\":null}", "{\"offset\":3}"})
        {
            final long before = System.currentTimeMillis();
            assertNull(fill(line));
            final RecordEvent r = input.record();
            assertEquals(-1, r.valueLength(), line);
            assertEquals(0, r.partition(), line);
            assertTrue(r.timestampMs() >= before, "a record sent without a timestamp is stamped when sent: " + line);
        }
    }

    @Test
    void shouldSkipBlankLinesAsTheFileSourceDoesAndTakeARawLineWhole()
    {
        assertEquals(DryRunInput.BLANK, fill(" \t "));
        final DryRunInput raw = new DryRunInput(false, 64);
        final byte[] line = "\"abc\"".getBytes(StandardCharsets.UTF_8);
        assertNull(raw.fill(line, line.length));
        assertEquals("\"abc\"", value(raw.record()));
        final byte[] big = ("{\"pad\":\"" + "x".repeat(100) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals("the record of 110 bytes exceeds engine.max_record_bytes (64)", raw.fill(big, big.length));
        assertEquals(64, raw.lineLimit());
        assertEquals(6L * (1 << 20) + (1 << 20), input.lineLimit());
    }

    private String fill(final String line)
    {
        final byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return input.fill(b, b.length);
    }

    private static String value(final RecordEvent r)
    {
        return new String(bytes(r.valueLength(), r.value()), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final int length, final org.agrona.DirectBuffer b)
    {
        final byte[] out = new byte[length];
        b.getBytes(0, out);
        return out;
    }
}
