package io.sluice.core.gather.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.SluiceConfig.Condition;
import io.sluice.core.config.SluiceConfig.Condition.Op;

class ClassifierTest
{
    private static int classify(final Condition when, final String json)
    {
        final PathRegistry paths = new PathRegistry(64);
        final List<SluiceConfig.Branch> branches = List.of(
            new SluiceConfig.Branch("b", when, "db", "t", Map.of(), null, 1, 1, 1));
        final Classifier c = new Classifier(branches, paths);
        final JsonScanner s = paths.scanner();
        final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        assertEquals(JsonError.NONE, s.scan(new UnsafeBuffer(bytes), 0, bytes.length), json);
        return c.classify(s);
    }

    private static Condition cond(final String path, final Op op, final String... values)
    {
        return new Condition(path, op, List.of(values), true);
    }

    @ParameterizedTest(name = "{0} equals {1} on {2} -> {3}")
    @CsvSource(delimiter = '|', value = {
        "type | PushEvent | {\"type\":\"PushEvent\"}           | true",
        "type | PushEvent | {\"type\":\"Push\\u0045vent\"}     | true",
        "type | PushEvent | {\"type\":\"PushEvents\"}          | false",
        "n    | 42        | {\"n\":42}                         | true",
        "n    | 42        | {\"n\":42.0}                       | false",
        "n    | -1.5e3    | {\"n\":-1.5e3}                     | true",
        "f    | true      | {\"f\":true}                       | true",
        "f    | null      | {\"f\":null}                       | false",
        "o    | {}        | {\"o\":{}}                         | false",
        "a.0  | x         | {\"a\":[\"x\"]}                    | true",
        "a.b  | x         | {\"a\":{\"b\":\"x\"}}              | true",
        "a.b  | x         | {}                                 | false",
    })
    void shouldCompareTheDerivedValueExactly(final String path, final String literal, final String json,
        final boolean matches)
    {
        assertEquals(matches ? 0 : Classifier.UNMATCHED, classify(cond(path, Op.EQUALS, literal), json));
    }

    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "in      | {\"t\":\"b\"}      | true",
        "in      | {\"t\":\"d\"}      | false",
        "prefix  | {\"t\":\"abc\"}    | true",
        "prefix  | {\"t\":\"ba\"}     | false",
        "matches | {\"t\":\"é-9\"}    | true",
        "matches | {\"t\":\"é-9x\"}   | false",
    })
    void shouldApplyInPrefixAndMatches(final String op, final String json, final boolean matches)
    {
        final Condition c = switch (op)
        {
            case "in" -> cond("t", Op.IN, "a", "b", "c");
            case "prefix" -> cond("t", Op.PREFIX, "ab");
            default -> cond("t", Op.MATCHES, "\\p{L}-[0-9]");
        };
        assertEquals(matches ? 0 : Classifier.UNMATCHED, classify(c, json));
    }

    @ParameterizedTest(name = "exists={0} on {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "true  | {\"p\":1}      | true",
        "true  | {\"p\":{}}     | true",
        "true  | {\"p\":null}   | false",
        "true  | {}             | false",
        "false | {\"p\":null}   | true",
        "false | {\"p\":\"\"}   | false",
    })
    void shouldTreatNullAsAbsentForExists(final boolean exists, final String json, final boolean matches)
    {
        assertEquals(matches ? 0 : Classifier.UNMATCHED,
            classify(new Condition("p", Op.EXISTS, List.of(), exists), json));
    }

    @org.junit.jupiter.api.Test
    void shouldPickTheFirstMatchingBranchInOrder()
    {
        final PathRegistry paths = new PathRegistry(64);
        final List<SluiceConfig.Branch> branches = List.of(
            new SluiceConfig.Branch("x", cond("k", Op.EQUALS, "1"), "db", "t", Map.of(), null, 1, 1, 1),
            new SluiceConfig.Branch("y", cond("k", Op.PREFIX, ""), "db", "t", Map.of(), null, 1, 1, 1),
            new SluiceConfig.Branch("z", null, "db", "t", Map.of(), null, 1, 1, 1));
        final Classifier c = new Classifier(branches, paths);
        final JsonScanner s = paths.scanner();
        final String[] docs = {"{\"k\":1}", "{\"k\":\"2\"}", "{\"j\":1}"};
        final int[] expected = {0, 1, 2};
        for (int i = 0; i < docs.length; i++)
        {
            final byte[] b = docs[i].getBytes(StandardCharsets.UTF_8);
            s.scan(new UnsafeBuffer(b), 0, b.length);
            assertEquals(expected[i], c.classify(s), docs[i]);
        }
    }

    @org.junit.jupiter.api.Test
    void shouldDecideAHostileMatchesOnTenKilobytes()
    {
        // issue 12: java.util.regex never finished this on 200 characters; RE2/J is linear (bench/ RegexBenchmark)
        final Condition hostile = cond("v", Op.MATCHES, "(.*a){8}b");
        assertEquals(Classifier.UNMATCHED, classify(hostile, "{\"v\":\"" + "a".repeat(10_240) + "\"}"));
        assertEquals(0, classify(hostile, "{\"v\":\"" + "a".repeat(10_239) + "b\"}"));
    }
}
