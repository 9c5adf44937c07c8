package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explain} follows a branch to the sink it writes to: branch {@code x} of sink {@code a} names sink {@code b},
 * so it is shown with b's name, database and table, and encoded with b's {@code null_as_default} (a JSON null into a
 * non-Nullable column with a DEFAULT takes the default), while branch {@code y} keeps a's (the same null fails the
 * record). Without a server: the tables come from a schema file.
 */
class ExplainSplitAcrossSinksTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eachBranchIsBoundWithItsOwnSinksSettings(@TempDir final Path dir) throws Exception
    {
        final Path config = dir.resolve("x.toml");
        Files.writeString(config, """
            [kafka]
            bootstrap_servers = "127.0.0.1:1"

            [[sinks]]
            name = "a"
            kind = "clickhouse"
            topics = ["events"]
            group_id = "explain-x"

            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:1"
            database = "main"

            [[sinks.branches]]
            name = "x"
            when = { path = "t", equals = "x" }
            sink = "b"

            [[sinks.branches]]
            name = "y"
            target_table = "y"

            [[sinks]]
            name = "b"
            kind = "clickhouse"

            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:2"
            database = "archive"
            target_table = "x_table"
            null_as_default = true
            """);
        final Path schema = dir.resolve("schema.sql");
        Files.writeString(schema, """
            CREATE TABLE archive.x_table (`n` UInt32, `s` String DEFAULT 'dflt') ENGINE = MergeTree ORDER BY n;
            CREATE TABLE main.y (`n` UInt32, `s` String DEFAULT 'dflt') ENGINE = MergeTree ORDER BY n;
            """);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config, "a", null, false, schema, false, "UTC",
            new ByteArrayInputStream("{\"t\":\"x\",\"n\":1,\"s\":null}\n{\"t\":\"y\",\"n\":2,\"s\":null}\n"
                .getBytes(StandardCharsets.UTF_8)),
            new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        final String[] lines = out.toString().split("\n");
        assertEquals(2, lines.length, out.toString());

        // both sinks of one kind, only one named: the message names the sink without a file and offers the file given
        final StringWriter noFile = new StringWriter();
        assertEquals(2, ExplainCommand.run(config, "a", null, false, List.of("b=" + schema), false, "UTC",
            new ByteArrayInputStream(new byte[0]), new PrintWriter(new StringWriter()), new PrintWriter(noFile)));
        assertTrue(noFile.toString().contains("no --schema file for sink a (kind clickhouse)"), noFile.toString());
        assertTrue(noFile.toString().contains("Give --schema a=FILE, or one --schema FILE without SINK= for every "
            + "sink not named (e.g. --schema " + schema + " if it also declares the tables of a)"), noFile.toString());
        final JsonNode x = JSON.readTree(lines[0]);
        assertEquals("x", x.get("branch").asText(), x.toString());
        assertEquals("b", x.get("sink").asText(), x.toString());
        assertEquals("archive", x.get("database").asText(), x.toString());
        assertEquals("x_table", x.get("table").asText(), x.toString());
        final JsonNode s = x.get("columns").get(1);
        assertEquals("s", s.get("name").asText(), x.toString());
        assertEquals("default", s.get("source").asText(), "b's null_as_default: " + x);

        final JsonNode y = JSON.readTree(lines[1]);
        assertEquals("y", y.get("branch").asText(), y.toString());
        assertFalse(y.has("sink"), "a branch of its own sink names none: " + y);
        assertEquals("main", y.get("database").asText(), y.toString());
        assertFalse(y.has("schema"), "ClickHouse's namespace is only the database: " + y);
        assertTrue(y.toString().contains("null"), "a's null_as_default = false refuses the null: " + y);
        assertFalse(y.has("columns") && "default".equals(y.get("columns").get(1).get("source").asText()),
            "a's branch does not take the default: " + y);
    }

    /**
     * A split across kinds: branch x writes to a postgres sink, y to the ClickHouse sink it belongs to; each reads its
     * tables from a file in its own dialect ({@code --schema p=pg.sql} for x, {@code --schema ch.sql} for the rest)
     * and shows its values as its database prints them. Without a file for p, or with two for every sink, the command
     * stops naming what is missing (exit 2).
     */
    @Test
    void aSplitAcrossKindsReadsEachSinksTablesInItsOwnDialect(@TempDir final Path dir) throws Exception
    {
        final Path config = dir.resolve("pg.toml");
        Files.writeString(config, """
            [kafka]
            bootstrap_servers = "127.0.0.1:1"

            [[sinks]]
            name = "a"
            kind = "clickhouse"
            topics = ["events"]
            group_id = "explain-pg"

            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:1"
            database = "main"

            [[sinks.branches]]
            name = "x"
            when = { path = "t", equals = "x" }
            sink = "p"

            [[sinks.branches]]
            name = "y"
            target_table = "y"

            [[sinks]]
            name = "p"
            kind = "postgres"

            [sinks.plugin_config]
            url = "postgresql://127.0.0.1:1/analytics"
            username = "u"
            password = "pw"
            target_table = "x"
            """);
        final Path ch = dir.resolve("ch.sql");
        Files.writeString(ch, "CREATE TABLE main.y (`n` UInt32, `b` Bool) ENGINE = MergeTree ORDER BY n;\n");
        final Path pg = dir.resolve("pg.sql");
        Files.writeString(pg, "CREATE TABLE public.x (n integer NOT NULL, b boolean, at timestamptz DEFAULT now());\n");
        final String input = "{\"t\":\"x\",\"n\":1,\"b\":true}\n{\"t\":\"y\",\"n\":2,\"b\":true}\n";
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config, "a", null, false, List.of(ch.toString(), "p=" + pg), false, "UTC",
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
            new PrintWriter(err));
        assertEquals(0, code, err.toString());
        final String[] lines = out.toString().split("\n");
        final JsonNode x = JSON.readTree(lines[0]);
        assertEquals("p", x.get("sink").asText(), lines[0]);
        assertEquals("public.x", x.get("database").asText() + "." + x.get("table").asText());
        assertEquals("public", x.get("schema").asText(), "a PostgreSQL sink's namespace under its own name: " + x);
        assertEquals("t", x.get("columns").get(1).get("value").asText(), "PostgreSQL prints a boolean as t");
        assertEquals("server default", x.get("columns").get(2).get("source").asText(), lines[0]);
        final JsonNode y = JSON.readTree(lines[1]);
        assertEquals("true", y.get("columns").get(1).get("value").asText(), "ClickHouse prints a Bool as true");

        final StringWriter noFile = new StringWriter();
        assertEquals(2, ExplainCommand.run(config, "a", null, false, List.of("a=" + ch), false, "UTC",
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(new StringWriter()),
            new PrintWriter(noFile)));
        assertTrue(noFile.toString().contains("no --schema file for sink p (kind postgres), which a branch writes to: "
            + "every --schema given names a sink (a=" + ch + ")"), noFile.toString());
        assertTrue(noFile.toString().contains("Give --schema p=FILE, or one --schema FILE without SINK= for every sink "
            + "not named"), noFile.toString());
        assertFalse(noFile.toString().contains("e.g."), "a file of another kind is no fix: " + noFile);
        final StringWriter two = new StringWriter();
        assertEquals(2, ExplainCommand.run(config, "a", null, false, List.of(ch.toString(), pg.toString()), false,
            "UTC", new ByteArrayInputStream(new byte[0]), new PrintWriter(new StringWriter()), new PrintWriter(two)));
        assertTrue(two.toString().contains("a second FILE for every sink"), two.toString());
    }
}
