package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;
import io.sluice.codecs.testing.TestData;

/**
 * Runs the whole of nst/JSONTestSuite {@code test_parsing/} (bundled unchanged under
 * {@code src/test/resources/jsontestsuite}): every {@code y_} file validates, every {@code n_} file is rejected, and every {@code i_} file behaves as the table in
 * docs/codecs.md says.
 */
class JsonTestSuiteTest
{
    private static final int SUITE_MAX_DEPTH = 1024;

    /** Expected result of each implementation-defined file; kept in step with docs/codecs.md. */
    private static final Map<String, Integer> IMPLEMENTATION_DEFINED = new TreeMap<>();

    static
    {
        // numbers: the grammar is all that is checked; range is a conversion matter (ConversionError.OUT_OF_RANGE)
        for (final String name : new String[]{
            "i_number_double_huge_neg_exp", "i_number_huge_exp", "i_number_neg_int_huge_exp",
            "i_number_pos_double_huge_exp", "i_number_real_neg_overflow", "i_number_real_pos_overflow",
            "i_number_real_underflow", "i_number_too_big_neg_int", "i_number_too_big_pos_int",
            "i_number_very_big_negative_int", "i_structure_500_nested_arrays"})
        {
            IMPLEMENTATION_DEFINED.put(name, JsonError.NONE);
        }
        // lone or inverted surrogate escapes are rejected, so nothing undecodable is ever yielded
        for (final String name : new String[]{
            "i_object_key_lone_2nd_surrogate", "i_string_1st_surrogate_but_2nd_missing",
            "i_string_1st_valid_surrogate_2nd_invalid", "i_string_incomplete_surrogate_and_escape_valid",
            "i_string_incomplete_surrogate_pair", "i_string_incomplete_surrogates_escape_valid",
            "i_string_invalid_lonely_surrogate", "i_string_invalid_surrogate", "i_string_inverted_surrogates_U+1D11E",
            "i_string_lone_second_surrogate"})
        {
            IMPLEMENTATION_DEFINED.put(name, JsonError.LONE_SURROGATE);
        }
        // bytes that are not well-formed UTF-8 inside strings
        for (final String name : new String[]{
            "i_string_UTF-8_invalid_sequence", "i_string_UTF8_surrogate_U+D800", "i_string_invalid_utf-8",
            "i_string_iso_latin_1", "i_string_lone_utf8_continuation_byte", "i_string_not_in_unicode_range",
            "i_string_overlong_sequence_2_bytes", "i_string_overlong_sequence_6_bytes",
            "i_string_overlong_sequence_6_bytes_null", "i_string_truncated-utf-8"})
        {
            IMPLEMENTATION_DEFINED.put(name, JsonError.INVALID_UTF8);
        }
        // UTF-16 documents and a UTF-8 byte-order mark are not UTF-8 JSON text
        for (final String name : new String[]{
            "i_string_UTF-16LE_with_BOM", "i_string_utf16BE_no_BOM", "i_string_utf16LE_no_BOM",
            "i_structure_UTF-8_BOM_empty_object"})
        {
            IMPLEMENTATION_DEFINED.put(name, JsonError.UNEXPECTED_BYTE);
        }
    }

    private static List<Path> files(final String prefix) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> stream = Files.list(TestData.jsonTestSuite()))
        {
            stream.filter(p -> p.getFileName().toString().startsWith(prefix)).sorted().forEach(files::add);
        }
        return files;
    }

    private static String name(final Path file)
    {
        final String name = file.getFileName().toString();
        return name.substring(0, name.length() - ".json".length());
    }

    /** Validates with an empty path set, with a one-path set, and with early-stop scanning; returns validate's code. */
    private static int run(final Path file) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        final UnsafeBuffer buffer = Buffers.offHeap(bytes);

        final JsonScanner none = new JsonScanner(JsonPathSet.compile(List.of()), SUITE_MAX_DEPTH);
        final int emptySetScan = none.scan(buffer, Buffers.PAD, bytes.length);
        final int emptySetValidate = none.validate(buffer, Buffers.PAD, bytes.length);
        assertEquals(emptySetValidate, emptySetScan, "an empty path set scans the whole document: " + file);

        final JsonScanner some = new JsonScanner(JsonPathSet.compile(List.of("a", "0", "x.y")), SUITE_MAX_DEPTH);
        final int validate = some.validate(buffer, Buffers.PAD, bytes.length);
        assertEquals(emptySetValidate, validate, "validate does not depend on the paths: " + file);
        if (validate != JsonError.NONE)
        {
            assertTrue(some.errorOffset() >= 0 && some.errorOffset() <= bytes.length, "error offset in range");
        }
        return validate;
    }

    @Test
    void shouldAcceptEveryYFile() throws IOException
    {
        final List<Path> files = files("y_");
        assertEquals(95, files.size(), "y_ files present");
        final List<String> wrong = new ArrayList<>();
        for (final Path file : files)
        {
            final int code = run(file);
            if (code != JsonError.NONE)
            {
                wrong.add(name(file) + " -> " + JsonError.describe(code));
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void shouldRejectEveryNFile() throws IOException
    {
        final List<Path> files = files("n_");
        assertEquals(188, files.size(), "n_ files present");
        final List<String> wrong = new ArrayList<>();
        for (final Path file : files)
        {
            if (run(file) == JsonError.NONE)
            {
                wrong.add(name(file));
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void shouldBehaveAsDocumentedOnEveryIFile() throws IOException
    {
        final List<Path> files = files("i_");
        assertEquals(IMPLEMENTATION_DEFINED.size(), files.size(), "every i_ file has a documented outcome");
        final Map<String, String> actual = new TreeMap<>();
        final Map<String, String> expected = new TreeMap<>();
        for (final Path file : files)
        {
            final Integer code = IMPLEMENTATION_DEFINED.get(name(file));
            expected.put(name(file), code == null ? "undocumented" : JsonError.describe(code));
            actual.put(name(file), JsonError.describe(run(file)));
        }
        assertEquals(expected, actual);
    }

    @Test
    void shouldRejectDeepNestingWithTheDefaultLimit() throws IOException
    {
        final byte[] bytes = Files
            .readAllBytes(TestData.jsonTestSuite().resolve("i_structure_500_nested_arrays.json"));
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of()), JsonScanner.DEFAULT_MAX_DEPTH);
        final UnsafeBuffer buffer = Buffers.offHeap(bytes);
        assertEquals(JsonError.TOO_DEEP, scanner.validate(buffer, Buffers.PAD, bytes.length));
        assertEquals(JsonScanner.DEFAULT_MAX_DEPTH, scanner.errorOffset(), "the first bracket past the limit");
    }
}
