package io.sluice.bench.route;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.sluice.codecs.json.JsonScanner;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.UserRegex;
import io.sluice.core.gather.json.Classifier;
import io.sluice.core.gather.json.PathRegistry;

/**
 * {@code when} conditions with {@code matches} (issue 12, item 6): the hostile expression {@code (.*a){8}b} against a
 * run of {@code a}s, and an ordinary one against an ordinary value, on RE2/J (what Sluice runs) and on
 * java.util.regex (what it ran before). java.util.regex backtracks through about C(n, 8) ways to place the eight
 * {@code a}s, so it is measured only up to 24 characters (at 200 it does not finish); RE2/J is linear and is measured
 * up to 10 KB. {@code classify*} is the route stage's real path: scan the record, derive the value, run the
 * condition ({@link Classifier}). Scores are per record (or per match), microseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RegexBenchmark
{
    private static final String HOSTILE = "(.*a){8}b";
    private static final String ORDINARY = "refs/heads/(main|master|release-[0-9]+)";

    /** Lengths java.util.regex still finishes. */
    @State(Scope.Thread)
    public static class Short
    {
        /** Characters of {@code a}. */
        @Param({"16", "20", "24"})
        public int length;

        String value;
        java.util.regex.Matcher jdk;
        com.google.re2j.Matcher re2j;

        /** Builds the value and the matchers. */
        @Setup
        public void setUp()
        {
            value = "a".repeat(length);
            jdk = java.util.regex.Pattern.compile(HOSTILE).matcher("");
            re2j = UserRegex.compile(HOSTILE).matcher("");
        }
    }

    /** Lengths for RE2/J, up to the 10 KB of the issue. */
    @State(Scope.Thread)
    public static class Large
    {
        /** Characters of {@code a}. */
        @Param({"24", "1024", "10240"})
        public int length;

        com.google.re2j.Matcher re2j;
        String value;
        Classifier classifier;
        JsonScanner scanner;
        UnsafeBuffer record;
        int recordLength;

        /** Builds the value, the matcher, and a classifier over the record {@code {"v":"aaa…"}}. */
        @Setup
        public void setUp()
        {
            value = "a".repeat(length);
            re2j = UserRegex.compile(HOSTILE).matcher("");
            final PathRegistry paths = new PathRegistry(8);
            classifier = new Classifier(List.of(new SluiceConfig.Branch("b",
                new SluiceConfig.Condition("v", SluiceConfig.Condition.Op.MATCHES, List.of(HOSTILE), true), "db",
                "t", Map.of(), null, 1, 1, 1)), paths);
            scanner = paths.scanner();
            final byte[] json = ("{\"v\":\"" + value + "\"}").getBytes(StandardCharsets.UTF_8);
            record = new UnsafeBuffer(json);
            recordLength = json.length;
        }
    }

    /** An ordinary condition on an ordinary value. */
    @State(Scope.Thread)
    public static class Ordinary
    {
        /** The value the condition reads. */
        @Param({"refs/heads/main", "refs/tags/v1.2.3"})
        public String value;

        java.util.regex.Matcher jdk;
        com.google.re2j.Matcher re2j;

        /** Builds the matchers. */
        @Setup
        public void setUp()
        {
            jdk = java.util.regex.Pattern.compile(ORDINARY).matcher("");
            re2j = UserRegex.compile(ORDINARY).matcher("");
        }
    }

    /**
     * @param s the value
     * @return whether it matched (false)
     */
    @Benchmark
    public boolean hostileJavaUtilRegex(final Short s)
    {
        return s.jdk.reset(s.value).matches();
    }

    /**
     * @param s the value
     * @return whether it matched (false)
     */
    @Benchmark
    public boolean hostileRe2jShort(final Short s)
    {
        return s.re2j.reset(s.value).matches();
    }

    /**
     * @param s the value
     * @return whether it matched (false)
     */
    @Benchmark
    public boolean hostileRe2j(final Large s)
    {
        return s.re2j.reset(s.value).matches();
    }

    /**
     * @param s the record
     * @return the branch (Classifier.UNMATCHED)
     */
    @Benchmark
    public int hostileClassify(final Large s)
    {
        s.scanner.scan(s.record, 0, s.recordLength);
        return s.classifier.classify(s.scanner);
    }

    /**
     * @param s the value
     * @return whether it matched
     */
    @Benchmark
    public boolean ordinaryJavaUtilRegex(final Ordinary s)
    {
        return s.jdk.reset(s.value).matches();
    }

    /**
     * @param s the value
     * @return whether it matched
     */
    @Benchmark
    public boolean ordinaryRe2j(final Ordinary s)
    {
        return s.re2j.reset(s.value).matches();
    }
}
