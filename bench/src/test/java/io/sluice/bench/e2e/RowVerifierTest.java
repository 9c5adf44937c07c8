package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;

/**
 * The verifier against the example's configuration, tables and data, with the rows ClickHouse would send back
 * (TabSeparated, DateTime as epoch seconds) written out by hand for three records: the first two PushEvents and the
 * first DeleteEvent (line 79, routed to the catch-all other_events with its payload as JSON text).
 */
class RowVerifierTest
{
    private static final long STEP = 10_000_000_000L;
    private static final String PUSH_1 = "2489368070\t1420070400\tdavidjhulse\tdavidjhulse/davesbingrewardsbot\t"
        + "536740396\t1\t1\trefs/heads/master\ta9b22a6d80c1e0bb49c1cf75a3c075b642c28f81";
    private static final String PUSH_2 = "2489368072\t1420070400\tjmoon018\tjmoon018/rshell-unit-tester\t536740397\t1\t1\t"
        + "refs/heads/master\t56688cc528224d40679b7e83c105b27367443a8c";
    private static final String DELETE = "2489368440\tDeleteEvent\t1420070430\tRsgm\tfloor-17/webchat\t"
        + "{\"ref\":\"webrtc-testing\",\"ref_type\":\"branch\",\"pusher_type\":\"user\"}";

    private static RowVerifier verifier;
    private static int sampleLines;

    @BeforeAll
    static void build() throws Exception
    {
        final List<byte[]> sample = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
            new GZIPInputStream(Files.newInputStream(ExampleSchemas.DATA)), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                if (!line.isBlank())
                {
                    sample.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        sampleLines = sample.size();
        verifier = new RowVerifier(ConfigLoader.load(ExampleSchemas.TOML).sinks().get(0), "db",
            ExampleSchemas.schemas(), sample, STEP);
    }

    /** @return a query that answers each table's SELECT with the given rows (none for the others) */
    private static RowVerifier.Query tables(final Map<String, List<String>> rows)
    {
        return sql ->
        {
            for (final Map.Entry<String, List<String>> e : rows.entrySet())
            {
                if (sql.contains("FROM `db`.`" + e.getKey() + "`"))
                {
                    final String body = String.join("\n", e.getValue()) + (e.getValue().isEmpty() ? "" : "\n");
                    return new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
                }
            }
            return new ByteArrayInputStream(new byte[0]);
        };
    }

    @Test
    void shouldFindRightRowsInTheirTablesExact() throws Exception
    {
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(0, 2),
            tables(Map.of("push_events", List.of(PUSH_2, PUSH_1))));
        assertTrue(r.exact(2), r.toString());
        assertEquals(2, r.rowsPerTable().get("push_events"));
        assertEquals(0, r.rowsPerTable().get("other_events"));
    }

    @Test
    void shouldCountEveryKindOfFault() throws Exception
    {
        final Map<String, List<String>> rows = new HashMap<>();
        rows.put("push_events", List.of(PUSH_1.replace("\t1\t1\t", "\t2\t1\t"), PUSH_1.replace("\t1\t1\t", "\t2\t1\t"),
            "999\t1420070400\tx\ty\t1\t1\t1\tr\th"));
        rows.put("watch_events", List.of("2489368072\t1420070400\tjmoon018\tjmoon018/rshell-unit-tester\tstarted"));
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(0, 3), tables(rows));
        assertEquals(4, r.rows());
        assertEquals(1, r.wrong(), r.examples().toString()); // size 2, not 1
        assertEquals(1, r.duplicates());
        assertEquals(1, r.unknown()); // id 999
        assertEquals(1, r.misplaced()); // a PushEvent in watch_events
        assertEquals(1, r.lost()); // record 3 (a PushEvent too) is nowhere
        assertEquals(2, r.distinct());
        assertFalse(r.exact(3));
        assertFalse(r.rowsRight());
        assertTrue(r.examples().get(0).contains("size is '2', not '1'"), r.examples().toString());
    }

    @Test
    void shouldKeepRowsRightWhenRecordsAreOnlyLost() throws Exception
    {
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(0, 2),
            tables(Map.of("push_events", List.of(PUSH_1))));
        assertTrue(r.rowsRight());
        assertEquals(1, r.lost());
        assertFalse(r.exact(2));
        assertEquals(List.of("lost: id 2489368072 (record 1, for push_events) is in no table"), r.examples());
    }

    @Test
    void shouldGiveCopiesTheirIdStep() throws Exception
    {
        // record 0 of copy 1 is line 1 with STEP added to its id
        final String copy = PUSH_1.replaceFirst("^2489368070", String.valueOf(2489368070L + STEP));
        assertTrue(verifier.verify(new RowVerifier.Expected(1, 1), tables(Map.of("push_events", List.of(copy))))
            .exact(1));
        assertEquals(1, verifier.verify(new RowVerifier.Expected(1, 1),
            tables(Map.of("push_events", List.of(PUSH_1)))).unknown());
    }

    @Test
    void shouldIndexACopyFarPastTheFirst() throws Exception
    {
        // the live phase after a 1,000,000-record topic starts at copy 118: its ids were above 2^41 and could not be
        // packed with their record numbers ("id 2207244207336 is too big to index"); they are packed relative now
        final long copyNumber = (1L << 41) / STEP + 5;
        final String copy = PUSH_1.replaceFirst("^2489368070", String.valueOf(2489368070L + copyNumber * STEP));
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(copyNumber, 1),
            tables(Map.of("push_events", List.of(copy, PUSH_1))));
        assertEquals(1, r.distinct(), r.toString());
        assertEquals(1, r.unknown(), "the first copy's id is not in this run");
    }

    @Test
    void shouldIndexARunWhoseIdsSpanPastTwoToThe41() throws Exception
    {
        // a 2,000,000-record topic is 236 copies from copy 0: its last ids are 2.36 x 10^12 above its first, past the
        // 2^41 the packed index held ("id 2207244207336 is too far from the run's smallest id 2489368070 to index")
        final long copyNumber = (1L << 41) / STEP + 5;
        final long lines = sampleLines;
        final String late = PUSH_1.replaceFirst("^2489368070", String.valueOf(2489368070L + copyNumber * STEP));
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(0, (copyNumber + 1) * lines),
            tables(Map.of("push_events", List.of(PUSH_1, late))));
        assertEquals(2, r.distinct(), r.toString());
        assertEquals(0, r.unknown(), r.toString());
        assertEquals(0, r.wrong(), r.toString());
        assertEquals((copyNumber + 1) * lines - 2, r.lost());
    }

    @Test
    void shouldCompareJsonTextAsJson() throws Exception
    {
        final RowVerifier.Expected e = new RowVerifier.Expected(0, 79);
        // the input's bytes, and the same object written otherwise (spaces, an escaped character, key order kept)
        for (final String payload : List.of(
            "{\"ref\":\"webrtc-testing\",\"ref_type\":\"branch\",\"pusher_type\":\"user\"}",
            "{\"ref\": \"webrtc\\u002dtesting\", \"ref_type\": \"branch\", \"pusher_type\": \"user\"}"))
        {
            final String row = DELETE.substring(0, DELETE.lastIndexOf('\t') + 1) + payload.replace("\\", "\\\\");
            final RowVerifier.Result r = verifier.verify(e, tables(Map.of("other_events", List.of(row))));
            assertEquals(0, r.wrong(), r.examples().toString());
            assertEquals(78, r.lost());
        }
        final String other = DELETE.replace("\"user\"", "\"bot\"");
        assertEquals(1, verifier.verify(e, tables(Map.of("other_events", List.of(other)))).wrong());
    }

    @Test
    void shouldUnescapeClickHouseTabSeparated()
    {
        final String s = "a\\tb\\\\c\\nd\\'e\\0";
        assertEquals("a\tb\\c\nd'e\0", RowVerifier.unescape(s, 0, s.length()));
        assertNull(RowVerifier.unescape("\\N", 0, 2));
        assertEquals("\\N", RowVerifier.unescape("\\\\N", 0, 3));
        final String[] f = RowVerifier.fields("1\t\\N\t\t x", 4);
        assertEquals("1", f[0]);
        assertNull(f[1]);
        assertEquals("", f[2]);
        assertEquals(" x", f[3]);
        assertThrows(IllegalStateException.class, () -> RowVerifier.fields("1\t2", 3));
        assertThrows(IllegalStateException.class, () -> RowVerifier.fields("1\t2\t3", 2));
    }

    @Test
    void shouldReadLeadingIdsAsProduceChangesThem()
    {
        assertEquals(2489368070L, RowVerifier.leadingId("{\"id\":\"2489368070\",\"type\":\"x\"}".getBytes()));
        assertEquals(-1, RowVerifier.leadingId("{\"type\":\"x\",\"id\":\"1\"}".getBytes()));
        assertEquals(-1, RowVerifier.leadingId("{\"id\":\"12a\"}".getBytes()));
        assertEquals(-1, RowVerifier.leadingId("{\"id\":1}".getBytes()));
    }
}
