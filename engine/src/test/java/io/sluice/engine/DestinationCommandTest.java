package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonStrings;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;
import io.sluice.core.naming.HostileNames;

/**
 * {@code engine.jar destination}: the dry run of a sink's destination template prints exactly
 * {@code {"database": ..., "table": ..., "sql": ...}}, exits 1 naming topic and template when the topic cannot
 * produce a destination, 2 on a bad configuration, and never connects (the endpoints here do not exist). The seed's
 * and cases D1 to D3's tables run through the command end to end; the hostile names come back intact through JSON.
 */
class DestinationCommandTest
{
    private static final String HEAD = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"   # never contacted
        """;

    @TempDir
    Path dir;

    /** One sink following everything, with the given database, table template and identifier policy. */
    private static String sink(final String name, final String database, final String table, final String policy)
    {
        return """
            [[sinks]]
            name = "%s"
            kind = "clickhouse"
            pattern = '(?s).*'
            group_id = "g"
            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:1"
            database = %s
            target_table = %s
            identifier = "%s"
            """.formatted(name, toml(database), toml(table), policy);
    }

    /** A TOML basic string holding {@code s} exactly: everything outside printable ASCII is a unicode escape. */
    static String toml(final String s)
    {
        final StringBuilder sb = new StringBuilder("\"");
        s.codePoints().forEach(c ->
        {
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7F)
            {
                sb.append(c > 0xFFFF ? String.format("\\U%08X", c) : String.format("\\u%04X", c));
            }
            else
            {
                sb.append((char)c);
            }
        });
        return sb.append('"').toString();
    }

    /** A destination template whose every character is literal text. */
    static String literal(final String name)
    {
        return name.replace("{", "{{").replace("}", "}}");
    }

    private record Run(int code, List<String> lines, String err)
    {
    }

    private Run run(final String config, final String sink, final String topic, final String branch, final boolean all)
        throws IOException
    {
        final Path file = dir.resolve("sluice.toml");
        Files.writeString(file, HEAD + config);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = DestinationCommand.run(file, sink, topic, branch, all, new PrintWriter(out),
            new PrintWriter(err));
        final String text = out.toString();
        assertTrue(text.isEmpty() || text.endsWith("\n"), "output ends with a line feed: " + text);
        final List<String> lines = text.isEmpty()
            ? List.of()
            : List.of(text.substring(0, text.length() - 1).split("\n", -1));
        for (final String line : lines)
        {
            final byte[] b = line.getBytes(StandardCharsets.UTF_8);
            assertEquals(JsonError.NONE, new JsonScanner(JsonPathSet.compile(List.of("table")), 8)
                .validate(new UnsafeBuffer(b), 0, b.length), "valid JSON: " + line);
        }
        return new Run(code, lines, err.toString());
    }

    private String one(final String database, final String table, final String policy, final String topic)
        throws IOException
    {
        final Run r = run(sink("s", database, table, policy), "s", topic, null, false);
        assertEquals(0, r.code(), r.toString());
        assertEquals(1, r.lines().size(), r.toString());
        return r.lines().get(0);
    }

    /**
     * Issue 22 item 8: a postgres sink names its destination through its provider: schema and table verbatim (a
     * dotted topic is one table, case kept), quoted with double quotes; a name over PostgreSQL's 63 bytes is refused
     * naming its length, never truncated.
     */
    @Test
    void shouldPrintAPostgresDestinationQuotedVerbatim() throws IOException
    {
        final String pg = """
            [[sinks]]
            name = "pg"
            kind = "postgres"
            pattern = '(?s).*'
            group_id = "g"
            [sinks.plugin_config]
            url = "postgresql://127.0.0.1:1/analytics"
            username = "sluice"
            password = "never-printed"
            schema = "public"
            target_table = "{topic}"
            """;
        final Run r = run(pg, "pg", "orders.eu", null, false);
        assertEquals(0, r.code(), r.toString());
        // "database" stays (the documented field of every kind); "schema" says what it is in PostgreSQL
        assertEquals(List.of("{\"database\": \"public\", \"schema\": \"public\", \"table\": \"orders.eu\", "
            + "\"sql\": \"\\\"public\\\".\\\"orders.eu\\\"\"}"), r.lines());
        assertEquals("\"public\".\"orders.eu\"", field(r.lines().get(0), "sql"));
        assertEquals("\"public\".\"Orders\"", field(run(pg, "pg", "Orders", null, false).lines().get(0), "sql"));
        final Run longName = run(pg, "pg", "t".repeat(64), null, false);
        assertEquals(1, longName.code(), longName.toString());
        assertTrue(longName.toString().contains("64 bytes"), longName.toString());
        assertTrue(!longName.toString().contains("never-printed"), longName.toString());
    }

    /** The decoded string at a top-level key of a JSON object line, or null when it is JSON null. */
    static String field(final String line, final String key)
    {
        final byte[] b = line.getBytes(StandardCharsets.UTF_8);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of(key)), 8);
        assertEquals(JsonError.NONE, scanner.scan(new UnsafeBuffer(b), 0, b.length), line);
        final JsonValueView v = new JsonValueView();
        scanner.value(0, v);
        if (v.kind() == JsonKind.NULL)
        {
            return null;
        }
        assertEquals(JsonKind.STRING, v.kind(), key + " in " + line);
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[v.length() + 1]);
        final int n = JsonStrings.unescape(v.buffer(), v.offset(), v.length(), dst, 0);
        assertTrue(n >= 0, JsonError.describe(n));
        final byte[] out = new byte[n];
        dst.getBytes(0, out);
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void shouldPrintTheSeedsThreeLineDesignExactly() throws IOException
    {
        assertEquals("{\"database\": \"default\", \"table\": \"user_42\", \"sql\": \"`default`.`user_42`\"}",
            one("default", "user_{topic_segment[-1]}", "rewrite", "users.42"));
    }

    @ParameterizedTest(name = "{0} of {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        // seed: destination templates
        "events                          | orders.eu                 | events",
        "events_{topic}                  | orders                    | events_orders",
        "{topic_segment[0]}_events       | shop.orders               | shop_events",
        "{topic_segment[-1]}             | orders-eu                 | orders_eu",
        // D1: dots and hyphens never re-scope the table
        "{topic}                         | foo.bar.table-name        | foo_bar_table_name",
        "{topic}                         | test-table-master         | test_table_master",
        "kafka_{topic}                   | this.is.a.test.topic      | kafka_this_is_a_test_topic",
        // D2: leading digits and reserved words
        "{topic}                         | 1test                     | _1test",
        "{topic}                         | 01802_empsalary           | _01802_empsalary",
        "{topic}                         | table                     | table",
        "{topic}                         | RÖKSKÅP_1                 | R_KSK_P_1",
        // D3: segments from the end
        "{topic_segment[-1]}             | acme.cdc.inventory.orders | orders",
        "{topic_segment[-2]}_{topic_segment[-1]} | acme.cdc.inventory.orders | inventory_orders",
        "{topic_segment[0]}              | acme.cdc.inventory.orders | acme",
        "{topic_segment[-1]}             | hello.dbo.table1          | table1"})
    void shouldResolveTheSeedsAndTheCasesTemplatesUnderRewrite(final String template, final String topic,
        final String table) throws IOException
    {
        final String line = one("analytics", template, "rewrite", topic);
        assertEquals(
            "{\"database\": \"analytics\", \"table\": \"" + table + "\", \"sql\": \"`analytics`.`" + table + "`\"}",
            line);
    }

    @Test
    void shouldKeepTheNameVerbatimAndQuoteItUnderQuote() throws IOException
    {
        assertEquals("{\"database\": \"analytics\", \"table\": \"orders.eu\", \"sql\": \"`analytics`.`orders.eu`\"}",
            one("analytics", "{topic}", "quote", "orders.eu"));
        assertEquals("{\"database\": \"shop\", \"table\": \"shop.foo-bar\", \"sql\": \"`shop`.`shop.foo-bar`\"}",
            one("{topic_segment[0]}", "{topic}", "quote", "shop.foo-bar"));
    }

    @Test
    void shouldExitOneNamingTopicAndTemplateWhenSegmentsAreMissing() throws IOException
    {
        final Run r = run(sink("s", "analytics", "{topic_segment[9]}", "rewrite"), "s", "acme.cdc.inventory.orders",
            null, false);
        assertEquals(1, r.code());
        assertEquals(
            List.of("{\"database\": null, \"table\": null, \"sql\": null, \"reason\": \"sink s, branch default: "
                + "target_table topic 'acme.cdc.inventory.orders' has 4 segments; template '{topic_segment[9]}' needs segment 9\"}"),
            r.lines());

        final Run db = run(sink("s", "{topic_segment[-3]}", "t", "rewrite"), "s", "a.b", null, false);
        assertEquals(1, db.code());
        assertEquals(
            "sink s, branch default: database topic 'a.b' has 2 segments; template '{topic_segment[-3]}' needs "
                + "segment -3",
            field(db.lines().get(0), "reason"));

        final Run empty = run(sink("s", "d", "user_{topic_segment[1]}", "rewrite"), "s", "users..x", null, false);
        assertEquals(1, empty.code());
        assertTrue(field(empty.lines().get(0), "reason").contains("topic 'users..x' has an empty segment 1"),
            empty.toString());
    }

    @Test
    void shouldExitOneForATopicTheSinkDoesNotFollow() throws IOException
    {
        final String config = sink("s", "d", "user_{topic_segment[-1]}", "rewrite").replace("'(?s).*'", "'users\\..*'");
        final Run r = run(config, "s", "usersX42", null, false);
        assertEquals(1, r.code());
        assertEquals(
            "sink s does not follow topic usersX42: it does not match the pattern users\\..* (the whole name must "
                + "match)",
            field(r.lines().get(0), "reason"));
        assertEquals(0, run(config, "s", "users.42", null, false).code());

        final String listed = sink("s", "d", "t_{topic}", "rewrite").replace("pattern = '(?s).*'",
            "topics = [\"a\", \"b\"]");
        assertEquals(1, run(listed, "s", "c", null, false).code());
        assertEquals(0, run(listed, "s", "b", null, false).code());
    }

    @Test
    void shouldPickTheFirstBranchOrTheOneNamedOrPrintEveryBranch() throws IOException
    {
        final String config = sink("s", "analytics", "other_{topic_segment[-1]}", "rewrite") + """
            [[sinks.branches]]
            name = "clicks"
            when = { path = "type", equals = "click" }
            target_table = "clicks_{topic_segment[1]}"
            [[sinks.branches]]
            name = "views"
            when = { path = "type", equals = "view" }
            database = "raw"
            target_table = "views"
            [[sinks.branches]]
            name = "rest"
            """;
        final Run first = run(config, "s", "shop.eu.web", null, false);
        assertEquals(
            List.of("{\"database\": \"analytics\", \"table\": \"clicks_eu\", \"sql\": \"`analytics`.`clicks_eu`\"}"),
            first.lines());
        assertTrue(first.err().contains("sink s has 3 branches; showing the first (clicks)"), first.err());
        final Run named = run(config, "s", "shop.eu.web", "views", false);
        assertEquals(List.of("{\"database\": \"raw\", \"table\": \"views\", \"sql\": \"`raw`.`views`\"}"),
            named.lines());
        assertEquals("", named.err(), "no note when the branch is named");
        final Run all = run(config, "s", "shop", null, true);
        assertEquals(1, all.code(), "one branch cannot resolve a one-segment topic");
        assertEquals(List.of(
            "{\"branch\": \"clicks\", \"database\": null, \"table\": null, \"sql\": null, \"reason\": \"sink s, branch clicks: "
                + "target_table topic 'shop' has 1 segment; template 'clicks_{topic_segment[1]}' needs segment 1\"}",
            "{\"branch\": \"views\", \"database\": \"raw\", \"table\": \"views\", \"sql\": \"`raw`.`views`\"}",
            "{\"branch\": \"rest\", \"database\": \"analytics\", \"table\": \"other_shop\", \"sql\": \"`analytics`.`other_shop`\"}"),
            all.lines());

        final Run unknown = run(config, "s", "shop", "nope", false);
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("sink \"s\" has no branch named \"nope\" (branches: clicks, views, rest)"),
            unknown.err());
        assertEquals(2, run(config, "s", "shop", "views", true).code(), "--branch and --all-branches together");
    }

    @Test
    void shouldResolveABranchWithThePolicyAndNamesOfTheSinkItWritesTo() throws IOException
    {
        // sink "s" rewrites names; its branch "raw" writes to sink "t", which quotes them verbatim and has its own
        // database and table template; sink "t" consumes nothing
        final String config = sink("s", "analytics", "ev_{topic}", "rewrite") + """
            [[sinks.branches]]
            name = "raw"
            when = { path = "k", equals = "raw" }
            sink = "t"
            [[sinks.branches]]
            name = "rest"
            [[sinks]]
            name = "t"
            kind = "clickhouse"
            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:2"
            database = "archive"
            target_table = "raw_{topic}"
            identifier = "quote"
            """;
        final Run all = run(config, "s", "shop.eu", null, true);
        assertEquals(0, all.code(), all.toString());
        assertEquals(List.of(
            "{\"branch\": \"raw\", \"sink\": \"t\", \"database\": \"archive\", \"table\": \"raw_shop.eu\", "
                + "\"sql\": \"`archive`.`raw_shop.eu`\"}",
            "{\"branch\": \"rest\", \"database\": \"analytics\", \"table\": \"ev_shop_eu\", "
                + "\"sql\": \"`analytics`.`ev_shop_eu`\"}"),
            all.lines());
        final Run target = run(config, "t", "shop.eu", null, true);
        assertEquals(2, target.code());
        assertTrue(target.err().contains("sink \"t\" has no pattern or topics: it is only a target of branches of "
            + "other sinks (s/raw)"), target.err());
    }

    @Test
    void shouldExitTwoOnABadConfigurationOrAnUnknownSink() throws IOException
    {
        final Run bad = run(sink("s", "d", "user_{value}", "rewrite"), "s", "users.1", null, false);
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("{value} belongs to a source's routing template"), bad.err());
        final Run policy = run(sink("s", "d", "t", "verbatim"), "s", "users.1", null, false);
        assertEquals(2, policy.code());
        assertTrue(policy.err().contains("identifier"), policy.err());
        final Run unknown = run(sink("s", "d", "t", "rewrite"), "nope", "users.1", null, false);
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("no sink named \"nope\" (sinks: s)"), unknown.err());
        assertTrue(unknown.lines().isEmpty());
    }

    /** Every hostile name, as a topic under quote and as literal template text under both policies, survives JSON. */
    @Test
    void shouldEscapeHostileNamesSoTheyDecodeBackExactly() throws IOException
    {
        final List<String> failures = new ArrayList<>();
        for (final String name : HostileNames.NAMES)
        {
            final String quoted = one("analytics", "{topic}", "quote", name);
            check(failures, name, quoted, name, "quote, topic");

            final String literal = one("analytics", literal(name) + "_{topic_segment[-1]}", "quote", "a.b");
            check(failures, name, literal, name + "_b", "quote, literal");

            final String rewritten = one(literal(name), literal(name), "rewrite", "t");
            final String table = field(rewritten, "table");
            if (!table.matches("[A-Za-z_][A-Za-z0-9_]*") || !table.equals(field(rewritten, "database")))
            {
                failures.add("rewrite of " + name + ": " + rewritten);
            }
        }
        assertEquals(List.of(), failures);
    }

    private static void check(final List<String> failures, final String name, final String line, final String table,
        final String what)
    {
        if (!table.equals(field(line, "table")) || !"analytics".equals(field(line, "database"))
            || !ClickHouseIdentifiers.qualified("analytics", table).equals(field(line, "sql"))
            || line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0)
        {
            failures.add(what + " of " + name + ": " + line);
        }
    }

    @Test
    void shouldBeACommandOfTheJarThatPrintsOnlyTheObject() throws IOException
    {
        final Path file = dir.resolve("jar.toml");
        Files.writeString(file, HEAD + sink("users", "analytics", "user_{topic_segment[-1]}", "rewrite"));
        final PrintStream stdout = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try
        {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            assertEquals(0, Main.commandLine().execute("destination", "--config", file.toString(), "--sink", "users",
                "--topic", "users.42"));
            assertEquals(1, Main.commandLine().execute("destination", "--config", file.toString(), "--sink", "users",
                "--topic", "users."));
            assertEquals(2, Main.commandLine().execute("destination", "--config", file.toString(), "--sink", "users"));
        }
        finally
        {
            System.setOut(stdout);
        }
        assertEquals("{\"database\": \"analytics\", \"table\": \"user_42\", \"sql\": \"`analytics`.`user_42`\"}\n"
            + "{\"database\": null, \"table\": null, \"sql\": null, \"reason\": \"sink users, branch default: target_table "
            + "topic 'users.' has an empty segment -1; template 'user_{topic_segment[-1]}' would produce a name with an "
            + "empty part\"}\n",
            captured.toString(StandardCharsets.UTF_8));
    }
}
