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
        assertTrue(y.toString().contains("null"), "a's null_as_default = false refuses the null: " + y);
        assertFalse(y.has("columns") && "default".equals(y.get("columns").get(1).get("source").asText()),
            "a's branch does not take the default: " + y);
    }

    /** A branch that writes to a kind whose provider cannot show its rows is refused up front, naming it (exit 2). */
    @Test
    void aBranchToAKindThatCannotShowItsRowsIsRefusedNamingIt(@TempDir final Path dir) throws Exception
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
        final Path schema = dir.resolve("schema.sql");
        Files.writeString(schema, "CREATE TABLE main.y (`n` UInt32) ENGINE = MergeTree ORDER BY n;\n");
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config, "a", null, false, schema, false, "UTC",
            new ByteArrayInputStream("{\"t\":\"x\",\"n\":1}\n".getBytes(StandardCharsets.UTF_8)),
            new PrintWriter(out), new PrintWriter(err));
        assertEquals(2, code, err.toString());
        assertTrue(err.toString().contains("branch x writes to a sink of kind \"postgres\""), err.toString());
        assertEquals("", out.toString());
    }
}
