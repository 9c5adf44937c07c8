package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;

/**
 * The verifier's PostgreSQL dialect against examples/github-events-postgres.{toml,sql} and the example's data, with
 * rows as {@code COPY (SELECT ...) TO STDOUT} sends them back (text format: tabs, {@code \N}, backslash escapes;
 * timestamps as epoch seconds, booleans as 1/0, jsonb as its text).
 */
class RowVerifierPostgresTest
{
    private static final long STEP = 10_000_000_000L;
    private static final String PUSH_1 = "2489368070\t1420070400\tdavidjhulse\tdavidjhulse/davesbingrewardsbot\t"
        + "536740396\t1\t1\trefs/heads/master\ta9b22a6d80c1e0bb49c1cf75a3c075b642c28f81";
    /** jsonb's own text of the payload: keys reordered, a space after each colon and comma. */
    private static final String DELETE = "2489368440\tDeleteEvent\t1420070430\tRsgm\tfloor-17/webchat\t"
        + "{\"ref\": \"webrtc-testing\", \"ref_type\": \"branch\", \"pusher_type\": \"user\"}";

    private static RowVerifier verifier;
    private static final List<String> queries = new ArrayList<>();

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
        verifier = new RowVerifier(RowVerifier.Dialect.POSTGRES,
            ConfigLoader.parse(Files.readString(ExampleSchemas.ROOT.resolve("examples/github-events-postgres.toml")),
                name -> name.equals("PGPASSWORD") ? "unused" : null).sinks().get(0),
            "bench", schemas(), sample, STEP);
    }

    /** @return the tables of the example's SQL as BenchRun passes them: data_type, Nullable(...) where nullable */
    private static Map<String, List<String[]>> schemas() throws Exception
    {
        final String sql = Files.readString(ExampleSchemas.ROOT.resolve("examples/github-events-postgres.sql"))
            .replaceAll("--[^\n]*", "");
        final Map<String, List<String[]>> m = new LinkedHashMap<>();
        final Matcher t = Pattern.compile("\"public\"\\.\"(\\w+)\" \\(([^;]*)\\);").matcher(sql);
        while (t.find())
        {
            final List<String[]> cols = new ArrayList<>();
            for (final String c : t.group(2).split(","))
            {
                final Matcher col = Pattern.compile("\"(\\w+)\" (\\w+)(.*)").matcher(c.strip());
                if (!col.matches())
                {
                    continue;
                }
                final String type = col.group(2).equals("timestamptz") ? "timestamp with time zone" : col.group(2);
                final boolean nullable = !col.group(3).contains("NOT NULL") && !col.group(3).contains("PRIMARY KEY");
                cols.add(new String[]{col.group(1), nullable ? "Nullable(" + type + ")" : type});
            }
            m.put(t.group(1), cols);
        }
        assertEquals(8, m.size(), m.keySet().toString());
        return m;
    }

    private static RowVerifier.Query tables(final Map<String, List<String>> rows)
    {
        return sql ->
        {
            queries.add(sql);
            for (final Map.Entry<String, List<String>> e : rows.entrySet())
            {
                if (sql.contains("FROM \"bench\".\"" + e.getKey() + "\")"))
                {
                    final String body = String.join("\n", e.getValue()) + (e.getValue().isEmpty() ? "" : "\n");
                    return new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
                }
            }
            return new ByteArrayInputStream(new byte[0]);
        };
    }

    @Test
    void shouldAskWithCopyToStdoutInPostgresTerms() throws Exception
    {
        queries.clear();
        verifier.verify(new RowVerifier.Expected(0, 1), tables(Map.of("push_events", List.of(PUSH_1))));
        final String push = queries.stream().filter(q -> q.contains("\"push_events\"")).findFirst().orElseThrow();
        assertTrue(push.startsWith("COPY (SELECT \"id\", extract(epoch FROM \"created_at\")::bigint, "), push);
        assertTrue(push.endsWith(" FROM \"bench\".\"push_events\") TO STDOUT"), push);
        final String pr = queries.stream().filter(q -> q.contains("\"pull_request_events\"")).findFirst()
            .orElseThrow();
        assertTrue(pr.contains("\"merged\"::int"), pr);
        final String other = queries.stream().filter(q -> q.contains("\"other_events\"")).findFirst().orElseThrow();
        assertTrue(other.contains("\"payload\"::text"), other);
    }

    @Test
    void shouldAcceptRightRowsAndJsonbsOwnText() throws Exception
    {
        final Map<String, List<String>> rows = Map.of("push_events", List.of(PUSH_1), "other_events",
            List.of(DELETE));
        // record 0 is line 0 (PUSH_1); the DeleteEvent is line 78: ask for records 0..78, expect all but two lost
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(0, 79), tables(rows));
        assertEquals(0, r.wrong(), r.examples().toString());
        assertEquals(0, r.misplaced());
        assertEquals(0, r.unknown());
        assertEquals(2, r.rows());
        assertEquals(77, r.lost());
    }

    @Test
    void shouldFindAWrongValueAndANullWhereAValueBelongs() throws Exception
    {
        final Map<String, List<String>> rows = Map.of("push_events", List.of(
            PUSH_1.replace("davidjhulse\t", "\\N\t")));
        final RowVerifier.Result r = verifier.verify(new RowVerifier.Expected(0, 1), tables(rows));
        assertEquals(1, r.wrong(), r.examples().toString());
        assertFalse(r.exact(1));
        assertTrue(r.examples().get(0).contains("actor_login is NULL, not 'davidjhulse'"), r.examples().toString());
    }
}
