package io.sluice.core.gather;

import static io.sluice.core.gather.RouteHarness.column;
import static io.sluice.core.gather.RouteHarness.string;
import static io.sluice.core.gather.RouteHarness.uint32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a Kafka value must be to be a row (issue 11, cases T2-T4), through the real route stage and insert worker:
 * only a JSON object is a row; any other JSON value, an empty or blank value and malformed JSON follow
 * {@code on_error} before a branch is chosen (never a catch-all row, never unrouted); a tombstone is no row and
 * follows {@code tombstones}; a duplicated key follows {@code duplicate_keys}, and the branch and the row read the
 * same occurrence.
 */
class RecordFateTest
{
    private static String sink(final String extra, final String branches)
    {
        return """
            [[sinks]]
            name = "s"
            kind = "test"
            topics = ["t"]
            group_id = "g"
            unmatched = "skip"
            """ + extra + """
            [sinks.plugin_config]
            endpoint = "http://unused:8123"
            database = "db"
            target_table = "t"
            max_rows = 1000
            """ + branches;
    }

    private static RouteHarness harness(final String extra)
    {
        // a catch-all branch: a value that is not an object must never reach it
        return new RouteHarness(sink(extra, "[[sinks.branches]]\nname = \"all\"\n"))
            .table("t", column("id", "Nullable(UInt32)"), column("name", "Nullable(String)"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[{\"id\":5,\"name\":\"e\"},{\"id\":6,\"name\":\"f\"}] | value is a JSON array, not an object",
        "42 | value is a JSON number, not an object",
        "\"str\" | value is a JSON string, not an object",
        "true | value is the JSON literal true, not an object",
        "false | value is the JSON literal false, not an object",
        "null | value is the JSON literal null, not an object",
        "'   [1] ' | value is a JSON array, not an object",
        "'' | value is empty or blank, not a JSON object (invalid JSON)",
        "'   ' | value is empty or blank, not a JSON object (invalid JSON)",
        "{\"id\":1 | malformed JSON: document truncated"})
    void shouldRefuseAnythingButAnObjectBeforeAnyBranchAndNameTheRecord(final String value, final String why)
    {
        final RouteHarness h = harness("on_error = \"fail\"\n");
        h.offer(value);
        assertTrue(h.control.failed(), "on_error = fail stops the pipeline");
        final String reason = h.control.failureReason();
        assertTrue(reason.startsWith("record t-0@0: " + why), reason);
        assertEquals(0, h.stats.droppedUnrouted.get(), "never unrouted");
        assertEquals(0, h.stats.recordsRouted.get(), "never a row of the catch-all branch");
    }

    @Test
    void shouldCountNonObjectsAsInvalidUnderSkipAndWriteTheObjectsAround()
    {
        // T2 under on_error = skip: the array and the number are no rows (18.16: "expected {")
        final RouteHarness h = harness("on_error = \"skip\"\n");
        h.offer("{\"id\":4,\"name\":\"d\"}");
        h.offer("[{\"id\":5,\"name\":\"e\"},{\"id\":6,\"name\":\"f\"}]");
        h.offer("42");
        h.offer("{\"id\":7,\"name\":\"g\"}");
        h.flush();
        assertEquals(List.of(List.of(4L, "d"), List.of(7L, "g")), h.rows("t", RecordFateTest::idName));
        assertEquals(2, h.stats.droppedInvalid.get());
        assertEquals(0, h.stats.droppedUnrouted.get());
        assertEquals(4, h.watermark(), "the skipped offsets commit");
    }

    @Test
    void shouldSkipATombstoneByDefaultAndTreatEmptyAndBlankValuesAsInvalidJson()
    {
        // T3: {"id":10}, null, "", "   ", {"id":11}
        final RouteHarness h = harness("on_error = \"skip\"\n");
        h.offer("{\"id\":10}");
        h.offer(null);
        h.offer("");
        h.offer("   ");
        h.offer("{\"id\":11}");
        h.flush();
        assertEquals(List.of(List.of(10L, "NULL"), List.of(11L, "NULL")), h.rows("t", RecordFateTest::idName));
        assertEquals(1, h.stats.droppedTombstone.get(), "the tombstone, reason tombstone");
        assertEquals(2, h.stats.droppedInvalid.get(), "the empty and the blank value, reason invalid");
        assertEquals(5, h.watermark());
        assertFalse(h.control.failed());
    }

    @Test
    void shouldSkipATombstoneEvenWhenOnErrorFails()
    {
        final RouteHarness h = harness("on_error = \"fail\"\n");
        h.offer(null);
        h.offer("{\"id\":1}");
        h.flush();
        assertFalse(h.control.failed(), String.valueOf(h.control.failureReason()));
        assertEquals(1, h.stats.droppedTombstone.get());
        assertEquals(List.of(1L), h.writtenOffsets("t"));
    }

    @Test
    void shouldStopOnATombstoneWithTombstonesFailWhateverOnErrorSays()
    {
        final RouteHarness h = harness("on_error = \"skip\"\ntombstones = \"fail\"\n");
        h.offer("{\"id\":1}");
        h.offer(null);
        assertTrue(h.control.failed());
        assertTrue(h.control.failureReason().startsWith("record t-0@1: record value is null (a tombstone): it is no "
            + "row (tombstones = fail)"), h.control.failureReason());
        assertEquals(0, h.stats.droppedTombstone.get());
    }

    /** Case T4 under each policy: {@code {"id":1,"id":2,"name":"first","name":"second"}} into t(id, name). */
    @ParameterizedTest
    @CsvSource({"first, 1, first", "last, 2, second"})
    void shouldTakeTheChosenOccurrenceOfADuplicatedKey(final String policy, final long id, final String name)
    {
        final RouteHarness h = harness("on_error = \"fail\"\nduplicate_keys = \"" + policy + "\"\n");
        h.offer("{\"id\":1,\"id\":2,\"name\":\"first\",\"name\":\"second\"}");
        h.flush();
        assertFalse(h.control.failed(), String.valueOf(h.control.failureReason()));
        assertEquals(List.of(List.of(id, name)), h.rows("t", RecordFateTest::idName));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "duplicate_keys = \"fail\"\n"})
    void shouldRefuseADuplicatedKeyByDefaultNamingIt(final String setting)
    {
        final RouteHarness h = harness("on_error = \"skip\"\n" + setting);
        h.offer("{\"id\":1,\"id\":2,\"name\":\"first\",\"name\":\"second\"}");
        h.offer("{\"id\":3,\"x\":1,\"x\":2,\"name\":\"c\"}");
        h.flush();
        // the second record's duplicate is of a key no column reads: not looked for, as ClickHouse
        assertEquals(List.of(List.of(3L, "c")), h.rows("t", RecordFateTest::idName));
        assertEquals(1, h.stats.droppedInvalid.get());

        final RouteHarness f = harness("on_error = \"fail\"\n" + setting);
        f.offer("{\"id\":1,\"id\":2,\"name\":\"first\",\"name\":\"second\"}");
        assertTrue(f.control.failureReason().startsWith("record t-0@0: duplicate key id at byte 8"),
            f.control.failureReason());
    }

    /** A branch condition and a column read the same duplicated key: the branch and the row always agree. */
    @ParameterizedTest
    @CsvSource({"first, a, a", "last, b, b"})
    void shouldChooseTheBranchAndWriteTheRowFromTheSameOccurrence(final String policy, final String table,
        final String kind)
    {
        final RouteHarness h = new RouteHarness(sink("on_error = \"fail\"\nduplicate_keys = \"" + policy + "\"\n", """
            [[sinks.branches]]
            name = "a"
            when = { path = "kind", equals = "a" }
            target_table = "a"
            [[sinks.branches]]
            name = "b"
            target_table = "b"
            """)).table("a", column("id", "UInt32"), column("kind", "String"))
            .table("b", column("id", "UInt32"), column("kind", "String"));
        h.offer("{\"kind\":\"a\",\"id\":1,\"kind\":\"b\"}");
        h.flush();
        assertFalse(h.control.failed(), String.valueOf(h.control.failureReason()));
        assertEquals(List.of(List.of(1L, kind)), h.rows(table, b -> List.of(uint32(b), string(b))));
        assertEquals(List.of(), h.writtenOffsets(table.equals("a") ? "b" : "a"));
    }

    @Test
    void shouldRefuseADuplicatedConditionKeyBeforeAnyBranchUnderFail()
    {
        final RouteHarness h = new RouteHarness(sink("on_error = \"skip\"\n", """
            [[sinks.branches]]
            name = "a"
            when = { path = "kind", equals = "a" }
            target_table = "a"
            [[sinks.branches]]
            name = "b"
            target_table = "b"
            """)).table("a", column("id", "UInt32")).table("b", column("id", "UInt32"));
        h.offer("{\"kind\":\"a\",\"id\":1,\"kind\":\"b\"}");
        h.flush();
        assertEquals(1, h.stats.droppedInvalid.get());
        assertEquals(0, h.stats.droppedUnrouted.get());
        assertEquals(List.of(), h.written);
    }

    /**
     * Under duplicate_keys = fail the decode pass stops at the classifier's key and the rest is read once, by the
     * chosen branch's pass or, for a record no branch takes, by a whole pass: malformed JSON after the classifier's
     * key is still an invalid record (on_error, stage parse), never a row and never unrouted, as under last; under
     * first each pass stops once its paths are found, so bytes after them are not read.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fail", "first", "last"})
    void shouldRefuseMalformedJsonAfterTheClassifiersKeyWhetherABranchTakesTheRecordOrNone(final String policy)
    {
        final RouteHarness h = new RouteHarness(sink("on_error = \"skip\"\nduplicate_keys = \"" + policy + "\"\n", """
            [[sinks.branches]]
            name = "a"
            when = { path = "kind", equals = "a" }
            target_table = "a"
            """)).table("a", column("id", "UInt32"));
        h.offer("{\"kind\":\"a\",\"id\":1,\"x\":[1,}"); // matched, a bracket of the wrong kind after kind
        h.offer("{\"kind\":\"z\",\"id\":2,\"x\":tru}"); // unmatched, a bad literal after kind
        h.offer("{\"kind\":\"z\",\"id\":3}"); // unmatched, well-formed
        h.offer("{\"kind\":\"a\",\"id\":4}");
        h.offer("{\"kind\":\"a\",\"id\":5,\"y\":\"\\q\"}"); // matched, a bad escape in a root member no column reads
        h.flush();
        assertFalse(h.control.failed(), String.valueOf(h.control.failureReason()));
        // under first, bytes after the last path found are not read (docs/codecs.md): nothing is invalid there
        final long invalid = policy.equals("first") ? 0 : 3;
        assertEquals(invalid, h.stats.droppedInvalid.get(), policy);
        assertEquals(policy.equals("first") ? 2 : 1, h.stats.droppedUnrouted.get(), policy);
        assertEquals(policy.equals("first")
            ? List.of(List.of(1L), List.of(4L), List.of(5L))
            : List.of(List.of(4L)), h.rows("a", b -> List.of(uint32(b))));
    }

    private static List<Object> idName(final net.openhft.chronicle.bytes.Bytes<?> b)
    {
        final long id = b.readUnsignedByte() == 1 ? -1 : uint32(b);
        return List.of(id, b.readUnsignedByte() == 1 ? "NULL" : string(b));
    }
}
