package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;

/** {@code engine.jar route}: the dry run prints one JSON object per input line, in order, and never connects. */
class RouteCommandTest
{
    private static final String CONFIG = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"   # never contacted

        [[sources]]
        name = "users"
        kind = "stdin"
        [[sources.topics]]
        topic = { strategy = "field", path = "user.id", template = "users.{value}" }

        [[sources]]
        name = "tenants"
        kind = "embedded"
        [[sources.topics]]
        topic = { strategy = "header", header = "tenant", template = "tenant.{value}", fallback = "tenant.unknown" }

        [[sources]]
        name = "shards"
        kind = "stdin"
        [[sources.topics]]
        topic = { strategy = "hash", buckets = 12, template = "shard.{value}" }
        """;

    @TempDir
    Path dir;

    private String[] route(final String source, final boolean envelope, final String input) throws IOException
    {
        final Path file = dir.resolve("sluice.toml");
        Files.writeString(file, CONFIG);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = RouteCommand.run(file, source, envelope,
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
            new PrintWriter(err));
        assertEquals(0, code, err.toString());
        final String[] lines = out.toString().split("\n", -1);
        assertEquals("", lines[lines.length - 1], "output ends with a line feed");
        final String[] result = Arrays.copyOf(lines, lines.length - 1);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("topic")), 8);
        for (final String line : result)
        {
            final byte[] b = line.getBytes(StandardCharsets.UTF_8);
            assertEquals(JsonError.NONE, scanner.validate(new UnsafeBuffer(b), 0, b.length), line);
        }
        return result;
    }

    @Test
    void shouldPrintOneObjectPerLineInOrder() throws IOException
    {
        final String[] out = route("users", false, """
            {"user":{"id":42}}
            {"user":{"id":"acme corp"}}
            {"user":{}}
            {"user":{"id":null}}

            not json
            {"user":{"id":"orders/eu"}}
            """);
        assertEquals(List.of(
            "{\"topic\": \"users.42\"}",
            "{\"topic\": \"users.acme_corp\", \"routing_value\": \"acme corp\", \"rendered\": \"users.acme corp\", "
                + "\"sanitised\": \"users.acme_corp\"}",
            "{\"topic\": null, \"reason\": \"field user.id: no value at the path\"}",
            "{\"topic\": null, \"reason\": \"field user.id: null at the path\"}",
            "{\"topic\": null, \"reason\": \"blank line (file and stdin sources skip blank lines)\"}",
            "{\"topic\": null, \"reason\": \"field user.id: no value at the path: the record is not valid JSON (unexpected byte at byte 1)\"}",
            "{\"topic\": \"users.orders_eu\", \"routing_value\": \"orders/eu\", \"rendered\": \"users.orders/eu\", "
                + "\"sanitised\": \"users.orders_eu\"}"),
            List.of(out));
    }

    @Test
    void shouldReadKeysAndHeadersFromEnvelopes() throws IOException
    {
        final String[] tenants = route("tenants", true, """
            {"key": null, "headers": {"tenant": "acme corp"}, "value": {"x": 1}}
            {"key": "k", "headers": {}, "value": {"x": 1}}
            {"key": "k", "headers": {"tenant": null}, "value": null}
            {"value": {"x": 1}, "headers": {"other": "a", "tenant": "t\\u00e9"}}
            {"key": 5, "value": {}}
            [1, 2]
            {"user_id": "u1", "tenant": "acme"}
            """);
        assertEquals(List.of(
            "{\"topic\": \"tenant.acme_corp\", \"routing_value\": \"acme corp\", \"rendered\": \"tenant.acme corp\", "
                + "\"sanitised\": \"tenant.acme_corp\"}",
            "{\"topic\": \"tenant.unknown\", \"fallback\": true, \"reason\": \"header tenant: the record has no header tenant\"}",
            "{\"topic\": \"tenant.unknown\", \"fallback\": true, \"reason\": \"header tenant: header tenant is null\"}",
            "{\"topic\": \"tenant.t_\", \"routing_value\": \"t\u00e9\", \"rendered\": \"tenant.t\u00e9\", "
                + "\"sanitised\": \"tenant.t_\"}",
            "{\"topic\": null, \"reason\": \"not an envelope: \\\"key\\\" must be a string or null, not a number\"}",
            "{\"topic\": null, \"reason\": \"not an envelope: expected an object {\\\"key\\\": ..., \\\"headers\\\": {...}, "
                + "\\\"timestamp\\\": ms, \\\"partition\\\": n, \\\"offset\\\": n, \\\"value\\\": ...}\"}",
            "{\"topic\": null, \"reason\": \"not an envelope: the object has none of the members of {\\\"key\\\": ..., "
                + "\\\"headers\\\": {...}, \\\"timestamp\\\": ms, \\\"partition\\\": n, \\\"offset\\\": n, \\\"value\\\": ...} "
                + "(its first member: \\\"user_id\\\"); without --envelope each line is the record itself\"}"),
            List.of(tenants));

        // R1: key 100:48069 -> bucket 9 of 12; R2's sign bit through 12 buckets as well
        final String[] shards = route("shards", true, """
            {"key": "100:48069", "headers": {}, "value": {}}
            {"key": null, "headers": {}, "value": {}}
            """);
        assertEquals(List.of("{\"topic\": \"shard.9\"}",
            "{\"topic\": null, \"reason\": \"hash of key into 12 buckets: the record has no key\"}"), List.of(shards));
    }

    private static final String RESERVED = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"   # never contacted

        [[sources]]
        name = "raw"
        kind = "stdin"
        [[sources.topics]]
        topic = { strategy = "field", path = "t", template = "{value}" }

        [[sources]]
        name = "rawfb"
        kind = "stdin"
        [[sources.topics]]
        topic = { strategy = "field", path = "t", template = "{value}", fallback = "fb" }

        [[sources]]
        name = "keyed"
        kind = "stdin"
        [[sources.topics]]
        topic = { strategy = "key", template = "__{value}", fallback = "fb" }

        [[sources]]
        name = "headed"
        kind = "stdin"
        [[sources.topics]]
        topic = { strategy = "header", header = "h", template = "{value}_state" }
        """;

    private String[] routeReserved(final String source, final boolean envelope, final String input) throws IOException
    {
        final Path file = dir.resolve("reserved.toml");
        Files.writeString(file, RESERVED);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        assertEquals(0, RouteCommand.run(file, source, envelope,
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
            new PrintWriter(err)), err.toString());
        return out.toString().split("\n");
    }

    @Test
    void shouldShowANameKafkaReservesAsRefusedAsTheEngineRefusesIt() throws IOException
    {
        final String input = """
            {"t": "__cluster_metadata"}
            {"t": " __consumer_offsets\\t"}
            {"t": "__cluster.metadata"}
            {"t": "__CLUSTER_METADATA"}
            {"t": "__remote_log_metadata"}
            """;
        final String internal = "is internal to Kafka (Kafka reserves it for ";
        final String[] raw = routeReserved("raw", false, input);
        assertEquals(5, raw.length, String.join("\n", raw));
        assertTrue(raw[0].startsWith("{\"topic\": null, \"refused\": \"__cluster_metadata\", \"reason\": \"topic "
            + "__cluster_metadata " + internal + "the KRaft metadata log)"), raw[0]);
        assertTrue(raw[0].contains("; the rule has no fallback\", "), raw[0]);
        assertTrue(raw[1].startsWith("{\"topic\": null, \"refused\": \"__consumer_offsets\", \"reason\": \"topic "
            + "__consumer_offsets " + internal), raw[1]);
        assertTrue(raw[2].startsWith("{\"topic\": null, \"refused\": \"__cluster.metadata\", \"reason\": \"topic "
            + "__cluster.metadata collides with Kafka's internal topic __cluster_metadata"), raw[2]);
        // Kafka topic names are case-sensitive: an ordinary topic
        assertEquals("{\"topic\": \"__CLUSTER_METADATA\"}", raw[3]);
        assertTrue(raw[4].contains("\"refused\": \"__remote_log_metadata\""), raw[4]);

        final String[] fb = routeReserved("rawfb", false, input);
        assertTrue(fb[0].startsWith("{\"topic\": \"fb\", \"fallback\": true, \"refused\": \"__cluster_metadata\", "
            + "\"reason\": \"topic __cluster_metadata " + internal), fb[0]);
        assertTrue(!fb[0].contains("no fallback"), fb[0]);
        assertEquals("{\"topic\": \"__CLUSTER_METADATA\"}", fb[3]);

        // from the key and from a header, through a template
        final String[] keyed = routeReserved("keyed", true, """
            {"key": "cluster_metadata", "value": {}}
            {"key": "cluster metadata", "value": {}}
            {"key": "orders", "value": {}}
            """);
        assertTrue(keyed[0].startsWith("{\"topic\": \"fb\", \"fallback\": true, \"refused\": "
            + "\"__cluster_metadata\""), keyed[0]);
        assertTrue(keyed[1].startsWith("{\"topic\": \"fb\", \"fallback\": true, \"refused\": "
            + "\"__cluster_metadata\""), keyed[1]);
        assertEquals("{\"topic\": \"__orders\"}", keyed[2]);
        final String[] headed = routeReserved("headed", true, """
            {"headers": {"h": "__transaction"}, "value": {}}
            {"headers": {"h": "__share_group"}, "value": {}}
            {"headers": {"h": "__TRANSACTION"}, "value": {}}
            """);
        assertTrue(headed[0].startsWith("{\"topic\": null, \"refused\": \"__transaction_state\""), headed[0]);
        assertTrue(headed[1].startsWith("{\"topic\": null, \"refused\": \"__share_group_state\""), headed[1]);
        assertEquals("{\"topic\": \"__TRANSACTION_state\"}", headed[2]);
    }

    /**
     * Where sanitising changed the rendered name, or the name is refused (reserved, or nothing legal is left), the
     * routing value, the rendered name and the sanitised name follow the existing members, so the user sees why.
     */
    @Test
    void shouldShowTheRoutingValueAndTheSanitisedNameWhenSanitisingMattered() throws IOException
    {
        final String[] raw = routeReserved("raw", false, """
            {"t": " __consumer_offsets\\t"}
            {"t": "__cluster_metadata"}
            {"t": "plain"}
            {"t": "caf\u00e9 \u20ac"}
            {"t": ".."}
            {"t": 7}
            """);
        assertTrue(raw[0].startsWith("{\"topic\": null, \"refused\": \"__consumer_offsets\", \"reason\": "), raw[0]);
        assertTrue(raw[0].endsWith("; the rule has no fallback\", \"routing_value\": \" __consumer_offsets\\t\", "
            + "\"rendered\": \"__consumer_offsets\", \"sanitised\": \"__consumer_offsets\"}"), raw[0]);
        assertTrue(raw[1].endsWith(", \"routing_value\": \"__cluster_metadata\", \"rendered\": \"__cluster_metadata\", "
            + "\"sanitised\": \"__cluster_metadata\"}"), raw[1]);
        assertEquals("{\"topic\": \"plain\"}", raw[2], "nothing changed, nothing refused: as before");
        assertEquals(
            "{\"topic\": \"caf___\", \"routing_value\": \"caf\u00e9 \u20ac\", \"rendered\": \"caf\u00e9 \u20ac\", "
                + "\"sanitised\": \"caf___\"}",
            raw[3]);
        assertTrue(raw[4].startsWith("{\"topic\": null, \"reason\": \"field t: the name '..' is not a topic name after "
            + "sanitising"), raw[4]);
        assertTrue(raw[4].endsWith("\", \"routing_value\": \"..\", \"rendered\": \"..\", \"sanitised\": null}"),
            raw[4]);
        assertEquals("{\"topic\": \"7\"}", raw[5]);

        final String[] keyed = routeReserved("keyed", true, """
            {"key": "cluster metadata", "value": {}}
            """);
        assertTrue(keyed[0].startsWith("{\"topic\": \"fb\", \"fallback\": true, \"refused\": \"__cluster_metadata\""),
            keyed[0]);
        assertTrue(keyed[0].endsWith(", \"routing_value\": \"cluster metadata\", \"rendered\": \"__cluster metadata\", "
            + "\"sanitised\": \"__cluster_metadata\"}"), keyed[0]);
        final String[] fb = routeReserved("rawfb", false, "{\"t\": \".\"}\n");
        assertTrue(fb[0].startsWith("{\"topic\": \"fb\", \"fallback\": true, \"reason\": "), fb[0]);
        assertTrue(fb[0].endsWith(", \"routing_value\": \".\", \"rendered\": \".\", \"sanitised\": null}"), fb[0]);
    }

    @Test
    void shouldTreatAnEnvelopeFieldValueAsTheRecord() throws IOException
    {
        final String[] out = route("users", true, "{\"key\": \"k\", \"value\": {\"user\": {\"id\": \"u1\"}}}\r\n"
            + "{\"value\": {\"user\": {\"id\": 7}}, \"key\": null}");
        assertEquals(List.of("{\"topic\": \"users.u1\"}", "{\"topic\": \"users.7\"}"), List.of(out));
    }

    @Test
    void shouldFailARecordAboveMaxRecordBytesAsTheEngineDoesAndGoOn() throws IOException
    {
        final Path file = dir.resolve("small.toml");
        Files.writeString(file, "[engine]\nmax_record_bytes = 64\n" + CONFIG);
        final String big = "{\"user\":{\"id\":1},\"pad\":\"" + "x".repeat(100) + "\"}";
        for (final boolean envelope : new boolean[]{false, true})
        {
            final String input = envelope
                ? "{\"key\": null, \"value\": " + big + "}\n{\"value\": {\"user\":{\"id\":2}}}\n"
                : big + "\n{\"user\":{\"id\":2}}\n";
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            assertEquals(0, RouteCommand.run(file, "users", envelope,
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
                new PrintWriter(err)), err.toString());
            final String[] lines = out.toString().split("\n");
            assertEquals(2, lines.length, out.toString());
            // a file or stdin source measures the line, a kafka source the record it takes into its ring
            assertTrue(lines[0].matches("\\{\"topic\": null, \"reason\": \"the record of "
                + (envelope ? "\\d+" : String.valueOf(big.length()))
                + " bytes exceeds engine.max_record_bytes \\(64\\)\"}"), lines[0]);
            assertEquals("{\"topic\": \"users.2\"}", lines[1]);
        }
    }

    @Test
    void shouldCountALineBeyondItsLimitWithoutKeepingIt() throws IOException
    {
        final byte[] input = ("x".repeat(10_000) + "\r\nshort\r\n").getBytes(StandardCharsets.US_ASCII);
        final RouteCommand.LineReader lines = new RouteCommand.LineReader(new ByteArrayInputStream(input), 100);
        assertTrue(lines.next());
        assertTrue(lines.truncated());
        assertEquals(10_001, lines.lineBytes(), "every byte up to the line feed is counted");
        assertEquals(100, lines.length());
        assertTrue(lines.next());
        assertTrue(!lines.truncated());
        assertEquals("short", new String(lines.bytes(), 0, lines.length(), StandardCharsets.US_ASCII));
        assertTrue(!lines.next());
    }

    @Test
    void shouldExitTwoOnABadConfigurationOrAnUnknownSource() throws IOException
    {
        final Path bad = dir.resolve("bad.toml");
        Files.writeString(bad, CONFIG.replace("template = \"users.{value}\"", "template = \"users.{user}\""));
        final StringWriter err = new StringWriter();
        assertEquals(2, RouteCommand.run(bad, "users", false, new ByteArrayInputStream(new byte[0]),
            new PrintWriter(new StringWriter()), new PrintWriter(err)));
        assertTrue(
            err.toString().contains("sources[0].topics[0].topic.template (line 8): routing template 'users.{user}'"),
            err.toString());

        final Path good = dir.resolve("good.toml");
        Files.writeString(good, CONFIG);
        final StringWriter err2 = new StringWriter();
        assertEquals(2, RouteCommand.run(good, "nope", false, new ByteArrayInputStream(new byte[0]),
            new PrintWriter(new StringWriter()), new PrintWriter(err2)));
        assertTrue(err2.toString().contains("no source named \"nope\" (sources: users, tenants, shards)"),
            err2.toString());
    }

    @Test
    void shouldCheckAndDryRunTheShippedExample() throws IOException
    {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("examples/scatter-users.toml")))
        {
            root = root.getParent();
        }
        final Path example = root.resolve("examples/scatter-users.toml");
        assertEquals(0, Main.commandLine().execute("check", "--config", example.toString()));
        final StringWriter out = new StringWriter();
        assertEquals(0, RouteCommand.run(example, "github-by-type", false, new ByteArrayInputStream(
            "{\"type\":\"PushEvent\",\"actor\":{\"login\":\"x\"}}\n{\"actor\":{\"login\":\"x\"}}\n"
                .getBytes(StandardCharsets.UTF_8)),
            new PrintWriter(out), new PrintWriter(new StringWriter())));
        assertEquals("{\"topic\": \"github.PushEvent\"}\n{\"topic\": \"github.unrouted\", \"fallback\": true, "
            + "\"reason\": \"field type: no value at the path\"}\n", out.toString());
    }

    @Test
    void shouldBeACommandOfTheJar() throws IOException
    {
        final Path file = dir.resolve("sluice.toml");
        Files.writeString(file, CONFIG);
        final InputStream stdin = System.in;
        try
        {
            System.setIn(new ByteArrayInputStream("{\"user\":{\"id\":1}}\n".getBytes(StandardCharsets.UTF_8)));
            assertEquals(0, Main.commandLine().execute("route", "--config", file.toString(), "--source", "users"));
            assertEquals(2, Main.commandLine().execute("route", "--config", file.toString()));
        }
        finally
        {
            System.setIn(stdin);
        }
    }
}
