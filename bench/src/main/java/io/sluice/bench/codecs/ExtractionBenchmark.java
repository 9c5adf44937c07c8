package io.sluice.bench.codecs;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;

/**
 * Extracts 7 paths per GitHub event ({@code id}, {@code type}, {@code actor.login}, {@code repo.name},
 * {@code created_at}, {@code payload.size}, {@code payload.action}): Sluice's scanner over off-heap bytes against
 * Jackson streaming ({@link JsonParser} with {@code skipChildren} for unneeded subtrees, stopping once all paths are
 * found) and Jackson's tree model ({@code readTree}), in the same run. Scores are per record.
 *
 * <p>simdjson-java is not included: it needs the Java 24+ Vector API incubator module, and this project runs on
 * Java 17.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExtractionBenchmark
{
    static final List<String> PATHS = List.of("id", "type", "actor.login", "repo.name", "created_at", "payload.size",
        "payload.action");

    private final BenchData data = new BenchData();
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
    /** A path on no event: every member of the top-level object is skipped, the whole record read (no early stop). */
    private final JsonScanner nothing = new JsonScanner(JsonPathSet.compile(List.of("zzz")),
        JsonScanner.DEFAULT_MAX_DEPTH, DuplicateKeys.FAIL);
    private final JsonFactory factory = new JsonFactory();
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * Sluice: one validating pass per record, stopping once every path is found.
     *
     * @param bh sink for the results.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void sluiceScan(final Blackhole bh)
    {
        final JsonScanner scanner = this.scanner;
        final BenchData data = this.data;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            int sum = scanner.scan(data.slab, data.offsets[r], data.lengths[r]);
            for (int p = 0; p < 7; p++)
            {
                sum += scanner.kind(p) + scanner.valueOffset(p) + scanner.valueLength(p);
            }
            bh.consume(sum);
        }
    }

    /**
     * The whole record with every member skipped: objects and arrays by their structure only (bracket counting),
     * scalars and the top level validated; against {@link #validateWhole}, the same bytes validated in full.
     *
     * @param bh sink for the results.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void skipWhole(final Blackhole bh)
    {
        final JsonScanner scanner = this.nothing;
        final BenchData data = this.data;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            bh.consume(scanner.scan(data.slab, data.offsets[r], data.lengths[r]));
        }
    }

    /**
     * The whole record validated in full (RFC 8259, UTF-8, escapes, numbers), the walk a skipped subtree took before
     * structure skips.
     *
     * @param bh sink for the results.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void validateWhole(final Blackhole bh)
    {
        final JsonScanner scanner = this.nothing;
        final BenchData data = this.data;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            bh.consume(scanner.validate(data.slab, data.offsets[r], data.lengths[r]));
        }
    }

    /**
     * Jackson streaming: walks tokens, descends into {@code actor}, {@code repo} and {@code payload}, skips every
     * other container with {@code skipChildren}, reads each wanted value's text (no String is built), and stops once
     * the objects holding the seven paths have been read.
     *
     * @param bh sink for the results.
     * @throws IOException never for this data.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void jacksonStreaming(final Blackhole bh) throws IOException
    {
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            try (JsonParser parser = factory.createParser(data.records[r]))
            {
                parser.nextToken();
                int found = 0;
                int sum = 0;
                while (found < 7 && parser.nextToken() == JsonToken.FIELD_NAME)
                {
                    final String name = parser.currentName();
                    parser.nextToken();
                    switch (name)
                    {
                        case "id" :
                        case "type" :
                        case "created_at" :
                            sum += parser.getTextLength();
                            found++;
                            break;
                        case "actor" :
                            sum += children(parser, "login", null);
                            found++;
                            break;
                        case "repo" :
                            sum += children(parser, "name", null);
                            found++;
                            break;
                        case "payload" :
                            sum += children(parser, "size", "action");
                            found += 2;
                            break;
                        default :
                            parser.skipChildren();
                            break;
                    }
                }
                bh.consume(sum);
            }
        }
    }

    /** Reads the wanted members of an object (skipping the rest) and returns the sum of their text lengths. */
    private static int children(final JsonParser parser, final String first, final String second)
        throws IOException
    {
        if (parser.currentToken() != JsonToken.START_OBJECT)
        {
            parser.skipChildren();
            return 0;
        }
        int sum = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            parser.nextToken();
            if (name.equals(first) || name.equals(second))
            {
                sum += parser.getTextLength();
            }
            else
            {
                parser.skipChildren();
            }
        }
        return sum;
    }

    /**
     * Jackson tree model: {@code readTree} then seven lookups.
     *
     * @param bh sink for the results.
     * @throws IOException never for this data.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void jacksonTree(final Blackhole bh) throws IOException
    {
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            final JsonNode root = mapper.readTree(data.records[r]);
            bh.consume(root.path("id"));
            bh.consume(root.path("type"));
            bh.consume(root.path("actor").path("login"));
            bh.consume(root.path("repo").path("name"));
            bh.consume(root.path("created_at"));
            bh.consume(root.path("payload").path("size"));
            bh.consume(root.path("payload").path("action"));
        }
    }
}
