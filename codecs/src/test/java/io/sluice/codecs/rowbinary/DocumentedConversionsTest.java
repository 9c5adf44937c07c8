package io.sluice.codecs.rowbinary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.testing.Buffers;

/**
 * Reads the two conversion tables of docs/codecs.md (the JSON kind × column type table and the range table) and
 * checks every cell against the encoders, and its lists of the types written and refused against the parser, so the
 * documentation and the code cannot disagree. A cell is one or more
 * examples separated by {@code ;}: either a result alone (for the value in the column's header) or
 * {@code `json` → result}; a result is the hex of the bytes written or a {@link ConversionError} name.
 */
class DocumentedConversionsTest
{
    private static final Path DOC = Path.of("..", "docs", "codecs.md");
    private static final Pattern EXAMPLE = Pattern.compile("\\s*(?:`([^`]*)`\\s*→\\s*)?([^`;]+?)\\s*");
    private static final Pattern HEADER_VALUE = Pattern.compile(".*`([^`]*)`.*");

    private static List<String> cells(final String row)
    {
        final String inner = row.trim().substring(1, row.trim().length() - 1);
        final List<String> out = new ArrayList<>();
        for (final String c : inner.split("\\|", -1))
        {
            out.add(c.trim());
        }
        return out;
    }

    /** The table rows (header first, separator dropped) after the marker comment. */
    private static List<List<String>> table(final List<String> lines, final String marker)
    {
        final int at = lines.indexOf(marker);
        assertTrue(at >= 0, "docs/codecs.md has the marker " + marker);
        final List<List<String>> rows = new ArrayList<>();
        for (int i = at + 1; i < lines.size(); i++)
        {
            final String line = lines.get(i).trim();
            if (!line.startsWith("|"))
            {
                if (rows.isEmpty())
                {
                    continue;
                }
                break;
            }
            if (line.startsWith("|---"))
            {
                continue;
            }
            rows.add(cells(line));
        }
        assertTrue(rows.size() > 2, "the table after " + marker + " has rows");
        return rows;
    }

    private static final Map<String, Integer> CODES = new HashMap<>();
    private static final Map<Integer, String> NAMES = new HashMap<>();

    static
    {
        for (final Field f : ConversionError.class.getFields())
        {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class)
            {
                try
                {
                    CODES.put(f.getName(), f.getInt(null));
                    NAMES.put(f.getInt(null), f.getName());
                }
                catch (final IllegalAccessException e)
                {
                    throw new AssertionError(e);
                }
            }
        }
    }

    /** The result of encoding: hex bytes, or the error's name. {@code json} null is a missing value. */
    static String encode(final String type, final String json, final EncoderOptions options)
    {
        final ColumnEncoder encoder = ColumnEncoder.forType(type, options);
        final JsonValueView value = new JsonValueView();
        final String document = json == null ? "{}" : "{\"v\":" + json + "}";
        final byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = Buffers.offHeap(bytes);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), JsonScanner.DEFAULT_MAX_DEPTH);
        assertEquals(JsonError.NONE, scanner.validate(buffer, Buffers.PAD, bytes.length), "valid JSON: " + json);
        scanner.value(0, value);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        try
        {
            final int code = encoder.encode(value, out, new EncodeScratch(256));
            if (code != ConversionError.NONE)
            {
                return NAMES.getOrDefault(code, Integer.toString(code));
            }
            final byte[] result = new byte[(int)out.writePosition()];
            out.read(result);
            return Buffers.hex(result);
        }
        finally
        {
            out.releaseLast();
        }
    }

    private static EncoderOptions options(final String text)
    {
        EncoderOptions options = EncoderOptions.DEFAULTS;
        if (text.isEmpty() || text.equals("-"))
        {
            return options;
        }
        for (final String setting : text.replace("`", "").split(",\\s*"))
        {
            final String[] kv = setting.split("=", 2);
            switch (kv[0].trim())
            {
                case "dateRange" -> options = options.withDateRange(EncoderOptions.DateRange.valueOf(kv[1].trim()));
                case "epochUnit" -> options = options.withEpochUnit(EncoderOptions.EpochUnit.valueOf(kv[1].trim()));
                case "nullAsDefault" -> options = options.withNullAsDefault(Boolean.parseBoolean(kv[1].trim()));
                case "missingAsDefault" -> options = options.withMissingAsDefault(Boolean.parseBoolean(kv[1].trim()));
                default -> throw new AssertionError("unknown option in docs/codecs.md: " + setting);
            }
        }
        return options;
    }

    private static void expectResult(final String expected, final String where)
    {
        assertTrue(expected.matches("([0-9a-f]{2}( [0-9a-f]{2})*)") || CODES.containsKey(expected),
            where + ": a result is hex bytes or a ConversionError name, not '" + expected + "'");
    }

    @Test
    void shouldWriteWhatTheKindTableSays() throws IOException
    {
        final List<List<String>> rows = table(Files.readAllLines(DOC), "<!-- conversion-kinds -->");
        final List<String> header = rows.get(0);
        final List<String> failures = new ArrayList<>();
        int checked = 0;
        for (final List<String> row : rows.subList(1, rows.size()))
        {
            final String type = row.get(0).replace("`", "");
            assertEquals(header.size(), row.size(), "cells in the row of " + type);
            for (int c = 1; c < row.size(); c++)
            {
                final Matcher h = HEADER_VALUE.matcher(header.get(c));
                final String headerJson = h.matches() ? h.group(1) : null; // "missing" has no value
                for (final String example : row.get(c).split(";"))
                {
                    final Matcher m = EXAMPLE.matcher(example);
                    assertTrue(m.matches(), type + " / " + header.get(c) + ": cannot read '" + example + "'");
                    final String json = m.group(1) != null ? m.group(1) : headerJson;
                    final String expected = m.group(2);
                    expectResult(expected, type + " / " + header.get(c));
                    final String actual = encode(type, json, EncoderOptions.DEFAULTS);
                    checked++;
                    if (!expected.equals(actual))
                    {
                        failures.add(type + " <- " + (json == null ? "missing" : json) + ": docs say " + expected +
                            ", the encoder gives " + actual);
                    }
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(checked > 150, "checked " + checked + " cells");
    }

    @Test
    void shouldWriteWhatTheRangeTableSays() throws IOException
    {
        final List<List<String>> rows = table(Files.readAllLines(DOC), "<!-- conversion-ranges -->");
        assertEquals(List.of("column type", "options", "JSON", "result"), rows.get(0));
        final List<String> failures = new ArrayList<>();
        for (final List<String> row : rows.subList(1, rows.size()))
        {
            final String type = row.get(0).replace("`", "");
            final String json = row.get(2).replace("`", "");
            final String expected = row.get(3);
            expectResult(expected, type + " <- " + json);
            final String actual = encode(type, json, options(row.get(1)));
            if (!expected.equals(actual))
            {
                failures.add(type + " (" + row.get(1) + ") <- " + json + ": docs say " + expected +
                    ", the encoder gives " + actual);
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(rows.size() > 80, "range rows: " + rows.size());
    }

    private static final Pattern SPELLING = Pattern.compile("`([^`]+)`");

    private static List<String> spellings(final String cell)
    {
        final List<String> out = new ArrayList<>();
        final Matcher m = SPELLING.matcher(cell);
        while (m.find())
        {
            out.add(m.group(1));
        }
        return out;
    }

    /**
     * The list of types written: every spelling parses, gets an encoder and a Native column, and writes the zero
     * value the table gives; every type constructor of {@link ClickHouseType.Kind} is in the list, so a type added to
     * the parser without a line in docs/codecs.md fails here.
     */
    @Test
    void shouldWriteEveryTypeTheListNamesAndListEveryTypeItWrites() throws IOException
    {
        final List<List<String>> rows = table(Files.readAllLines(DOC), "<!-- written-types -->");
        final java.util.EnumSet<ClickHouseType.Kind> listed = java.util.EnumSet.noneOf(ClickHouseType.Kind.class);
        final List<String> failures = new ArrayList<>();
        for (final List<String> row : rows.subList(1, rows.size()))
        {
            final List<String> names = spellings(row.get(1));
            assertTrue(!names.isEmpty(), "spellings in the row of " + row.get(0));
            for (final String name : names)
            {
                final ClickHouseType type = ClickHouseType.parse(name);
                listed.add(type.kind());
                new NativeBlockWriter(List.of("c"), List.of(name)).close();
                final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
                try
                {
                    ColumnEncoder.forType(type).encodeDefault(out);
                    final byte[] zero = new byte[(int)out.writePosition()];
                    out.read(zero);
                    if (name.equals(names.get(0)) && !Buffers.hex(zero).equals(row.get(2)))
                    {
                        failures.add(name + ": docs say zero value " + row.get(2) + ", the encoder writes "
                            + Buffers.hex(zero));
                    }
                }
                finally
                {
                    out.releaseLast();
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        final java.util.EnumSet<ClickHouseType.Kind> missing = java.util.EnumSet.allOf(ClickHouseType.Kind.class);
        missing.removeAll(listed);
        assertTrue(missing.isEmpty(), "types the parser reads but docs/codecs.md does not list: " + missing);
    }

    /** The list of types refused: every spelling is refused by the parser, as a bind refuses it. */
    @Test
    void shouldRefuseEveryTypeTheListRefuses() throws IOException
    {
        final List<List<String>> rows = table(Files.readAllLines(DOC), "<!-- refused-types -->");
        int checked = 0;
        for (final List<String> row : rows.subList(1, rows.size()))
        {
            for (final String name : spellings(row.get(0)))
            {
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ClickHouseType.parse(name), name + " is listed as refused");
                assertTrue(e.getMessage().contains("'" + name + "'"), e.getMessage());
                checked++;
            }
        }
        assertTrue(checked > 20, "refused spellings checked: " + checked);
    }
}
