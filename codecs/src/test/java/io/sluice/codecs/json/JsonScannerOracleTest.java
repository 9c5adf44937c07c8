package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.codecs.testing.Buffers;
import io.sluice.codecs.testing.TestData;

/**
 * Compares the scanner with a full parser (Jackson's tree model): on valid documents every path agrees in kind and
 * value; on broken documents the scanner never throws, {@code validate} never accepts what Jackson rejects, {@code
 * scan} (which checks skipped objects and arrays for structure only) never fails before {@code validate}'s first
 * error and yields only valid values, and neither yields a value that ends after its error.
 */
class JsonScannerOracleTest
{
    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();

    /** Accepts duplicate keys and numbers beyond BigDecimal's scale (as doubles), like the scanner. */
    private static final ObjectMapper LENIENT = JsonMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();

    private static final List<String> GITHUB_PATHS = List.of("id", "type", "actor.login", "repo.name", "created_at",
        "payload.size", "payload.action", "payload.commits.0.sha", "payload.commits.1.author.name", "org.login",
        "payload.pull_request.head.repo.owner.login", "payload.issue.labels.0.name", "public", "payload.forkee",
        "payload.commits", "payload.pull_request.body", "payload.comment.body", "payload.release.assets");

    private static JsonNode lookup(final JsonNode root, final JsonPath path)
    {
        JsonNode node = root;
        for (int s = 0; s < path.segmentCount() && node != null; s++)
        {
            if (node.isObject())
            {
                node = node.get(path.segment(s));
            }
            else if (node.isArray() && path.arrayIndex(s) >= 0)
            {
                node = node.get(path.arrayIndex(s));
            }
            else
            {
                node = null;
            }
        }
        return node;
    }

    private static int kindOf(final JsonNode node)
    {
        if (node == null || node.isMissingNode())
        {
            return JsonKind.MISSING;
        }
        switch (node.getNodeType())
        {
            case STRING :
                return JsonKind.STRING;
            case NUMBER :
                return JsonKind.NUMBER;
            case BOOLEAN :
                return node.booleanValue() ? JsonKind.TRUE : JsonKind.FALSE;
            case NULL :
                return JsonKind.NULL;
            case OBJECT :
                return JsonKind.OBJECT;
            case ARRAY :
                return JsonKind.ARRAY;
            default :
                throw new IllegalStateException(node.getNodeType().toString());
        }
    }

    private static String rawText(final JsonValueView view)
    {
        final byte[] raw = new byte[view.length()];
        view.buffer().getBytes(view.offset(), raw);
        return new String(raw, StandardCharsets.UTF_8);
    }

    private static void assertAgrees(final JsonScanner scanner, final JsonNode root, final String context)
        throws JsonProcessingException
    {
        final JsonPathSet paths = scanner.paths();
        final JsonValueView view = new JsonValueView();
        final UnsafeBuffer decoded = new UnsafeBuffer(new byte[1 << 20]);
        for (int p = 0; p < paths.size(); p++)
        {
            final JsonNode expected = lookup(root, paths.path(p));
            scanner.value(p, view);
            final String where = context + " path " + paths.expression(p);
            assertEquals(JsonKind.name(kindOf(expected)), JsonKind.name(view.kind()), where);
            switch (view.kind())
            {
                case JsonKind.STRING :
                    final int n = JsonStrings.unescape(view.buffer(), view.offset(), view.length(), decoded, 0);
                    assertTrue(n >= 0, where);
                    assertEquals(expected.textValue(), decoded.getStringWithoutLengthUtf8(0, n), where);
                    break;
                case JsonKind.NUMBER :
                    assertEquals(0, new BigDecimal(rawText(view)).compareTo(expected.decimalValue()), where);
                    break;
                case JsonKind.OBJECT :
                case JsonKind.ARRAY :
                    assertEquals(expected, MAPPER.readTree(rawText(view)), where);
                    break;
                default :
                    break;
            }
        }
    }

    @Test
    void shouldAgreeWithJacksonOnEveryGithubEvent() throws Exception
    {
        final JsonScanner scan = new JsonScanner(JsonPathSet.compile(GITHUB_PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
        final JsonScanner validate = new JsonScanner(JsonPathSet.compile(GITHUB_PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
        int records = 0;
        for (final byte[] record : TestData.githubEvents())
        {
            final UnsafeBuffer buffer = Buffers.offHeap(record);
            final JsonNode root = MAPPER.readTree(record);
            assertEquals(JsonError.NONE, scan.scan(buffer, Buffers.PAD, record.length));
            assertEquals(JsonError.NONE, validate.validate(buffer, Buffers.PAD, record.length));
            assertAgrees(scan, root, "record " + records);
            assertAgrees(validate, root, "record " + records);
            records++;
        }
        assertTrue(records >= 8000, "all events read: " + records);
    }

    @Test
    void shouldAgreeWithJacksonOnRandomDocuments() throws Exception
    {
        final SplittableRandom random = new SplittableRandom(20250107);
        for (int round = 0; round < 3000; round++)
        {
            final JsonNode root = randomValue(random, 0, true);
            final String json = write(root, random);
            final List<String> expressions = new ArrayList<>();
            collectPaths(root, "", expressions, random);
            for (int k = 0; k < 3; k++)
            {
                expressions
                    .add(expressions.isEmpty() ? "nope" : expressions.get(random.nextInt(expressions.size())) + ".9");
            }
            final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(expressions), 64);
            final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            final UnsafeBuffer buffer = Buffers.offHeap(bytes);
            final String context = printable(json) + " paths " + printable(expressions.toString());
            final int code = scanner.scan(buffer, Buffers.PAD, bytes.length);
            assertEquals(JsonError.NONE, code, context + " -> " + JsonError.describe(code) + " at " +
                scanner.errorOffset());
            assertAgrees(scanner, MAPPER.readTree(bytes), context);
            assertEquals(JsonError.NONE, scanner.validate(buffer, Buffers.PAD, bytes.length), context);
            assertAgrees(scanner, MAPPER.readTree(bytes), context);
        }
    }

    @Test
    void shouldValidateAsJacksonAndNeverYieldPastAnError() throws Exception
    {
        final SplittableRandom random = new SplittableRandom(42);
        final List<byte[]> events = TestData.githubEvents();
        final JsonPathSet paths = JsonPathSet.compile(GITHUB_PATHS);
        final JsonScanner scan = new JsonScanner(paths, 32);
        final JsonScanner validate = new JsonScanner(paths, 32);
        final JsonScanner scanAll = new JsonScanner(paths, 32, DuplicateKeys.LAST);
        int rejected = 0;
        int acceptedByScanOnly = 0;
        for (int round = 0; round < 8000; round++)
        {
            final byte[] original = round % 2 == 0
                ? events.get(random.nextInt(events.size()))
                : write(randomValue(random, 0, true), random).getBytes(StandardCharsets.UTF_8);
            final byte[] mutated = mutate(original, random);
            final UnsafeBuffer buffer = Buffers.offHeap(mutated);
            final int scanCode = scan.scan(buffer, Buffers.PAD, mutated.length);
            final int validateCode = validate.validate(buffer, Buffers.PAD, mutated.length);
            final String context = "round " + round + ": " +
                printable(new String(mutated, StandardCharsets.UTF_8));

            final JsonNode root = parseOrNull(LENIENT, mutated);
            if (validateCode == JsonError.NONE)
            {
                if (root == null)
                {
                    fail("accepted a document Jackson rejects, " + context);
                }
                assertEquals(JsonError.NONE, scanCode, context);
                final JsonNode exact = parseOrNull(MAPPER, mutated);
                if (exact != null)
                {
                    // without duplicate keys (Jackson's tree keeps the last one, the scanner the first)
                    assertAgrees(validate, exact, context);
                    assertAgrees(scan, exact, context);
                }
            }
            else
            {
                rejected++;
                final int errorAt = validate.errorOffset();
                assertValuesEndBefore(validate, errorAt, context);
                // scan checks skipped objects and arrays for structure only: it may accept a document whose first
                // error lies inside one, or meet a later error first; but it never fails before validate's first
                // error (the bytes before it are valid JSON, read the same way), everything it yields is valid JSON
                // ending before its own error, and what it accepts is structurally sound as a whole
                if (scanCode != JsonError.NONE)
                {
                    assertTrue(scan.errorOffset() >= errorAt, "scan fails no earlier than validate: " + context);
                    assertValuesEndBefore(scan, scan.errorOffset(), context);
                }
                else
                {
                    acceptedByScanOnly++;
                }
                if (scanAll.scan(buffer, Buffers.PAD, mutated.length) == JsonError.NONE)
                {
                    // a scan that reads to the end (no early stop) accepts only structurally sound documents
                    assertEquals(JsonError.NONE, StructureReference.check(mutated, 32), context);
                }
                assertValuesAreValid(scan, context);
            }
        }
        assertTrue(rejected > 2000, "mutations mostly break documents: " + rejected);
        assertTrue(acceptedByScanOnly > 100, "some errors lie in skipped subtrees: " + acceptedByScanOnly);
    }

    private static void assertValuesEndBefore(final JsonScanner scanner, final int errorAt, final String context)
    {
        for (int p = 0; p < scanner.paths().size(); p++)
        {
            if (scanner.kind(p) != JsonKind.MISSING)
            {
                final int endOfValue = scanner.valueOffset(p) - Buffers.PAD + scanner.valueLength(p) +
                    (scanner.kind(p) == JsonKind.STRING ? 1 : 0);
                assertTrue(endOfValue <= errorAt, "value ends before the error: " + context);
            }
        }
    }

    /** Every value a scan yields validates on its own in full (strings with their quotes). */
    private static void assertValuesAreValid(final JsonScanner scanner, final String context)
    {
        final JsonScanner check = new JsonScanner(JsonPathSet.compile(List.of()), 32);
        final JsonValueView view = new JsonValueView();
        for (int p = 0; p < scanner.paths().size(); p++)
        {
            scanner.value(p, view);
            if (view.kind() == JsonKind.MISSING)
            {
                continue;
            }
            final boolean string = view.kind() == JsonKind.STRING;
            final byte[] value = new byte[view.length() + (string ? 2 : 0)];
            view.buffer().getBytes(view.offset() - (string ? 1 : 0), value);
            final UnsafeBuffer copy = Buffers.offHeap(value);
            assertEquals(JsonError.NONE, check.validate(copy, Buffers.PAD, value.length),
                "the value of " + scanner.paths().expression(p) + " is valid JSON: " + context);
        }
    }

    private static String printable(final String text)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < 0x20 || c > 0x7e)
            {
                out.append(String.format("<%04x>", (int)c));
            }
            else
            {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static JsonNode parseOrNull(final ObjectMapper mapper, final byte[] bytes)
    {
        try
        {
            final JsonNode root = mapper.readTree(bytes);
            return root == null || root.isMissingNode() ? null : root;
        }
        catch (final Exception ex)
        {
            return null;
        }
    }

    private static byte[] mutate(final byte[] original, final SplittableRandom random)
    {
        final int at = random.nextInt(original.length);
        final byte[] interesting = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', '.', 0x01, (byte)0xC3,
            (byte)0xA9, (byte)0xED, (byte)0xFF, 'u', ' ', 'n'};
        switch (random.nextInt(4))
        {
            case 0 :
                return Arrays.copyOf(original, at);
            case 1 :
            {
                final byte[] out = original.clone();
                out[at] = interesting[random.nextInt(interesting.length)];
                return out;
            }
            case 2 :
            {
                final byte[] out = new byte[original.length + 1];
                System.arraycopy(original, 0, out, 0, at);
                out[at] = interesting[random.nextInt(interesting.length)];
                System.arraycopy(original, at, out, at + 1, original.length - at);
                return out;
            }
            default :
            {
                final byte[] out = new byte[original.length - 1];
                System.arraycopy(original, 0, out, 0, at);
                System.arraycopy(original, at + 1, out, at, original.length - at - 1);
                return out;
            }
        }
    }

    private static final String[] KEYS = {"a", "b", "id", "0", "1", "2", "a.b", "k\"q", "caf\u00e9", "\ud83d\ude00",
        "x\\y", "", "tab\t", "long_key_with_more_than_eight_bytes"};

    private static JsonNode randomValue(final SplittableRandom random, final int depth, final boolean container)
    {
        final JsonNodeFactory f = JsonNodeFactory.instance;
        final int choice = container ? 6 + random.nextInt(2) : random.nextInt(depth > 5 ? 6 : 8);
        switch (choice)
        {
            case 0 :
                return f.textNode(randomText(random));
            case 1 :
                return f.numberNode(random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L));
            case 2 :
                return f.numberNode(new BigDecimal(random.nextInt(-100000, 100000)).movePointLeft(random.nextInt(6)));
            case 3 :
                return f.booleanNode(random.nextBoolean());
            case 4 :
                return f.nullNode();
            case 5 :
                return f.textNode("");
            case 6 :
            {
                final ObjectNode object = f.objectNode();
                final int n = random.nextInt(6);
                for (int i = 0; i < n; i++)
                {
                    object.set(KEYS[random.nextInt(KEYS.length)], randomValue(random, depth + 1, false));
                }
                return object;
            }
            default :
            {
                final ArrayNode array = f.arrayNode();
                final int n = random.nextInt(5);
                for (int i = 0; i < n; i++)
                {
                    array.add(randomValue(random, depth + 1, false));
                }
                return array;
            }
        }
    }

    private static String randomText(final SplittableRandom random)
    {
        final String[] pieces = {"a", "Z", " ", "\"", "\\", "/", "\n", "\u0000", "\u001f", "\u00e9", "\u2028",
            "\ud83d\ude00", "plain ascii words ", "0123456789abcdef"};
        final StringBuilder text = new StringBuilder();
        final int n = random.nextInt(8);
        for (int i = 0; i < n; i++)
        {
            text.append(pieces[random.nextInt(pieces.length)]);
        }
        return text.toString();
    }

    private static void collectPaths(final JsonNode node, final String prefix, final List<String> out,
        final SplittableRandom random)
    {
        if (node.isObject())
        {
            final Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
            while (fields.hasNext())
            {
                final Map.Entry<String, JsonNode> field = fields.next();
                if (field.getKey().isEmpty())
                {
                    continue;
                }
                final String name = prefix + field.getKey().replace("\\", "\\\\").replace(".", "\\.");
                if (random.nextInt(3) > 0)
                {
                    out.add(name);
                }
                collectPaths(field.getValue(), name + ".", out, random);
            }
        }
        else if (node.isArray())
        {
            for (int i = 0; i < node.size(); i++)
            {
                final String name = prefix + i;
                if (random.nextInt(3) > 0)
                {
                    out.add(name);
                }
                collectPaths(node.get(i), name + ".", out, random);
            }
        }
    }

    /** Writes JSON with random whitespace and random (but valid) escaping, to exercise the scanner's paths. */
    private static String write(final JsonNode node, final SplittableRandom random)
    {
        final StringBuilder out = new StringBuilder();
        write(node, random, out);
        return out.toString();
    }

    private static void space(final SplittableRandom random, final StringBuilder out)
    {
        final int n = random.nextInt(8) == 0 ? random.nextInt(3) : 0;
        for (int i = 0; i < n; i++)
        {
            out.append(" \t\r\n".charAt(random.nextInt(4)));
        }
    }

    private static void write(final JsonNode node, final SplittableRandom random, final StringBuilder out)
    {
        space(random, out);
        if (node.isObject())
        {
            out.append('{');
            final Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
            boolean first = true;
            while (fields.hasNext())
            {
                final Map.Entry<String, JsonNode> field = fields.next();
                if (!first)
                {
                    out.append(',');
                }
                first = false;
                space(random, out);
                writeString(field.getKey(), random, out);
                space(random, out);
                out.append(':');
                write(field.getValue(), random, out);
            }
            space(random, out);
            out.append('}');
        }
        else if (node.isArray())
        {
            out.append('[');
            for (int i = 0; i < node.size(); i++)
            {
                if (i > 0)
                {
                    out.append(',');
                }
                write(node.get(i), random, out);
            }
            space(random, out);
            out.append(']');
        }
        else if (node.isTextual())
        {
            writeString(node.textValue(), random, out);
        }
        else
        {
            out.append(node.toString());
        }
        space(random, out);
    }

    private static void writeString(final String text, final SplittableRandom random, final StringBuilder out)
    {
        out.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                out.append('\\').append(c);
            }
            else if (Character.isHighSurrogate(c))
            {
                final char low = text.charAt(++i);
                if (random.nextBoolean())
                {
                    out.append(String.format("\\u%04x\\u%04X", (int)c, (int)low));
                }
                else
                {
                    out.append(c).append(low);
                }
            }
            else if (c < 0x20 || random.nextInt(10) == 0)
            {
                out.append(String.format(random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int)c));
            }
            else
            {
                out.append(c);
            }
        }
        out.append('"');
    }
}
