package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;

/**
 * {@code engine.jar explain} against what a real run stores: the bundled GitHub sample runs through
 * examples/github-events.toml into ClickHouse, then explain reads the same lines, once with {@code --connect} and once
 * with {@code --schema} (the example's CREATE TABLE file, no connection). For every record, the table and the values
 * explain prints must equal the row ClickHouse returns in TabSeparated, column for column; and every row in the
 * tables must be one explain announced.
 */
class ExplainIT
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String database;
    private static String topic;
    private static Path config;
    private static List<byte[]> lines;

    @BeforeAll
    static void setUp(@TempDir final Path dir) throws Exception
    {
        final String suffix = Long.toString(System.currentTimeMillis(), 36);
        database = "explain_it_" + suffix;
        topic = "explain-it-" + suffix;
        final Path root = TestServices.projectRoot();
        TestServices.sqlFile(root.resolve("examples/github-events.sql"),
            Map.of("github.", database + ".", "DATABASE IF NOT EXISTS github", "DATABASE IF NOT EXISTS " + database));
        lines = TestServices.sampleLines();
        TestServices.createTopic(topic, 4);
        TestServices.produce(topic, lines);
        final String toml = Files.readString(root.resolve("examples/github-events.toml"))
            .replace("127.0.0.1:19092", TestServices.bootstrap())
            .replace("http://127.0.0.1:18123", TestServices.clickhouse())
            .replace("database = \"github\"", "database = \"" + database + "\"")
            .replace("pattern = 'github\\.events'", "topics = [\"" + topic + "\"]")
            .replace("group_id = \"sluice-github\"", "group_id = \"explain-" + suffix + "\"");
        config = dir.resolve("github.toml");
        Files.writeString(config, toml);
        assertEquals(SluiceEngine.EXIT_OK, new SluiceEngine(ConfigLoader.parse(toml), s -> new ClickHouseDriver(),
            new GatherPipeline.RunOptions(true)).run());
    }

    @Test
    void shouldPrintWhatTheRunStoredRowForRowWhenConnected() throws Exception
    {
        assertExplainEqualsStoredRows(explain(null));
    }

    @Test
    void shouldPrintWhatTheRunStoredRowForRowFromTheSchemaFile(@TempDir final Path dir) throws Exception
    {
        final Path schema = dir.resolve("schema.sql");
        Files.writeString(schema, Files.readString(TestServices.projectRoot().resolve("examples/github-events.sql"))
            .replace("github.", database + "."));
        assertExplainEqualsStoredRows(explain(schema));
    }

    @Test
    void shouldNameTheColumnAndPathOfAConversionError() throws Exception
    {
        final List<JsonNode> out = explain(null,
            "{\"id\":\"not a number\",\"type\":\"WatchEvent\",\"created_at\":\"2015-01-01T00:00:00Z\"}\n");
        final JsonNode r = out.get(0);
        assertEquals("watch", r.get("branch").asText(), r.toString());
        assertEquals("when type equals \"WatchEvent\"; no earlier branch's condition matched",
            r.get("matched").asText(), r.toString());
        assertEquals("id", r.get("column").asText(), r.toString());
        assertEquals("id", r.get("path").asText(), r.toString());
        assertTrue(r.get("error").asText().contains("column id (UInt64) from path id"), r.toString());
        assertTrue(r.get("outcome").asText().contains("on_error = \"fail\""), r.toString());
    }

    @Test
    void shouldSayWhyARecordTookItsBranchAndRefuseOneMalformedAfterTheClassifiersKey() throws Exception
    {
        final List<JsonNode> out = explain(null,
            "{\"id\":\"1\",\"type\":\"PushEvent\",\"created_at\":\"2015-01-01T00:00:00Z\"}\n"
                + "{\"id\":\"2\",\"type\":\"GollumEvent\",\"created_at\":\"2015-01-01T00:00:00Z\"}\n"
                + "{\"id\":\"3\",\"type\":\"PushEvent\",\"payload\":{\"size\":1,]}\n");
        assertEquals("when type equals \"PushEvent\"", out.get(0).get("matched").asText(), out.get(0).toString());
        assertEquals("other", out.get(1).get("branch").asText(), out.get(1).toString());
        assertEquals("catch-all (no when); no earlier branch's condition matched", out.get(1).get("matched").asText(),
            out.get(1).toString());
        assertTrue(out.get(2).get("error").asText().startsWith("malformed JSON: "), out.get(2).toString());
        assertTrue(out.get(2).get("outcome").asText().contains("on_error = \"fail\""), out.get(2).toString());
    }

    @Test
    void shouldSayAnEnvelopesScalarValueIsNotAnObjectAsTheRunDoes() throws Exception
    {
        final List<JsonNode> out = explain(null, true, "{\"value\":\"abc\"}\n{\"value\":42}\n{\"value\":true}\n"
            + "{\"value\":[1,{\"a\":2}]}\n{\"key\":\"k\",\"value\":\"a \\\"quoted\\\" {\"}\n");
        assertEquals(5, out.size(), out.toString());
        final String[] kinds = {"a JSON string", "a JSON number", "the JSON literal true", "a JSON array",
            "a JSON string"};
        for (int i = 0; i < kinds.length; i++)
        {
            assertEquals("value is " + kinds[i] + ", not an object", out.get(i).get("error").asText(),
                out.get(i).toString());
        }
        // a blank line is skipped, as file and stdin sources skip it; a line that is not one envelope is no record
        final List<JsonNode> other = explain(null, true, "\n{\"key\":{\"value\":{\"type\":\"PushEvent\"}},"
            + "\"value\":{\"id\":\"2\",\"type\":\"WatchEvent\",\"created_at\":\"2015-01-01T00:00:00Z\"}}\n");
        assertEquals("blank line (file and stdin sources skip blank lines)", other.get(0).get("skipped").asText(),
            other.get(0).toString());
        assertEquals("not an envelope: \"key\" must be a string or null, not an object",
            other.get(1).get("error").asText(), other.get(1).toString());
        assertTrue(other.get(1).get("outcome").asText().startsWith("not read"), other.get(1).toString());
    }

    private static void assertExplainEqualsStoredRows(final List<JsonNode> out) throws Exception
    {
        assertEquals(lines.size(), out.size(), "one object per input line");
        // table -> id -> the values explain printed, tab-joined as TabSeparated joins them
        final Map<String, Map<String, String>> explained = new TreeMap<>();
        for (final JsonNode r : out)
        {
            assertTrue(r.has("columns"), r.toString());
            final List<String> values = new ArrayList<>();
            for (final JsonNode c : r.get("columns"))
            {
                values.add(c.get("value").asText());
            }
            assertEquals("id", r.get("columns").get(0).get("name").asText());
            explained.computeIfAbsent(r.get("table").asText(), t -> new TreeMap<>()).put(values.get(0),
                String.join("\t", values));
        }
        long compared = 0;
        for (final Map.Entry<String, Map<String, String>> t : explained.entrySet())
        {
            final Map<String, String> stored = new TreeMap<>();
            for (final String row : TestServices.sql("SELECT * FROM " + database + "." + t.getKey()
                + " FORMAT TabSeparated").split("\n"))
            {
                if (!row.isEmpty())
                {
                    stored.put(row.substring(0, row.indexOf('\t')), row);
                }
            }
            assertEquals(stored.keySet(), t.getValue().keySet(), "ids in " + t.getKey());
            for (final Map.Entry<String, String> e : t.getValue().entrySet())
            {
                assertEquals(stored.get(e.getKey()), e.getValue(), t.getKey() + " id " + e.getKey());
                compared++;
            }
        }
        assertEquals(lines.size(), compared);
    }

    private static List<JsonNode> explain(final Path schema) throws Exception
    {
        final ByteArrayOutputStream in = new ByteArrayOutputStream();
        for (final byte[] l : lines)
        {
            in.write(l);
            in.write('\n');
        }
        return explain(schema, in.toString(StandardCharsets.UTF_8));
    }

    private static List<JsonNode> explain(final Path schema, final String input) throws Exception
    {
        return explain(schema, false, input);
    }

    private static List<JsonNode> explain(final Path schema, final boolean envelope, final String input)
        throws Exception
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config, "github", null, envelope, schema, schema == null, "UTC",
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
            new PrintWriter(err));
        assertEquals(0, code, err.toString());
        final List<JsonNode> nodes = new ArrayList<>();
        for (final String line : out.toString().split("\n"))
        {
            if (!line.isEmpty())
            {
                nodes.add(JSON.readTree(line));
            }
        }
        return nodes;
    }
}
