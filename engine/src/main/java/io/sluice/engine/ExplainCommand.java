package io.sluice.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import net.openhft.chronicle.bytes.Bytes;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.core.gather.RowText;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.SinkProvider;
import io.sluice.core.gather.SinkProviders;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.DestinationResolver;
import io.sluice.core.gather.batch.OmissionMask;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.json.ExplainableEncoder;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.BranchHandle;
import io.sluice.core.gather.split.Emitter;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.gather.split.Split;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * {@code engine.jar explain --config F --sink NAME [--topic T] [--envelope] (--schema FILE | --connect)}: a dry run
 * of a gather sink, record by record. Reads JSON lines on stdin (or, with {@code --envelope}, objects
 * {@code {"key": ..., "headers": {...}, "timestamp": ms, "partition": n, "offset": n, "value": <record>}}, read and
 * checked by {@link DryRunInput} as {@code route} reads them) and prints one JSON object per line:
 * <ul>
 *   <li>{@code branch}, {@code database}, {@code table}, {@code shard}, and {@code columns}: per column its
 *       {@code name}, {@code type}, {@code source} ({@code path}: read from the record at {@code path};
 *       {@code default}: the column's DEFAULT, the value missing or a null where NULL cannot be stored;
 *       {@code null}: NULL, the value missing or null; {@code filled}: a Nested member without a value, filled with
 *       its element's default to its siblings' length; {@code metadata}: filled from the record's Kafka
 *       coordinates, {@code path} naming the source such as {@code $offset}) and {@code value} as the sink's
 *       database prints it (ClickHouse: in TabSeparated; PostgreSQL: its types' output functions in a UTC session,
 *       as psql shows them; NULL is {@code \N});</li>
 *   <li>or {@code error} with the {@code column} and {@code path} that could not be converted, and the
 *       {@code outcome} under {@code on_error};</li>
 *   <li>or {@code "branch": null} with {@code unmatched} (the policy) and its {@code outcome}.</li>
 * </ul>
 * It runs the engine's own decoder, classifier, destination resolver, shard router and bound encoders (the same
 * objects {@code GatherPipeline} builds), and the values shown are the bytes the kind's encoder wrote, read back
 * by the kind's own reader ({@link SinkProvider#rowText}; ClickHouse: its RowBinary reader, printing as TabSeparated
 * does; PostgreSQL: its binary COPY reader); the source of each column comes from the kind's bound encoder
 * ({@link ExplainableEncoder}): explain cannot disagree with a run. Table schemas come from {@code --schema FILE}
 * (CREATE TABLE statements in the dialect of the kind the branch writes to, read by the kind's
 * {@link SinkProvider#schemaFile}, ClickHouse's by {@link SchemaFile}; no connection; ClickHouse's DateTime in
 * {@code --time-zone}, default UTC) or from the sink's database with {@code --connect} (ClickHouse: DESCRIBE;
 * PostgreSQL: its catalog; defaults and time zone as a run reads them). Nothing is written.
 * A line that holds no record gets {@code skipped} (a blank line) or an {@code error} whose {@code outcome} says it is
 * not an envelope. Exit 0 after the last line whatever the lines held; 2 on a bad configuration, an unknown sink, an
 * unreadable schema file or an unknown {@code --time-zone}.
 */
@Command(name = "explain", mixinStandardHelpOptions = true, description = {
    "Dry run of a gather sink: reads JSON lines on stdin, prints per record its branch, table, shard and columns.",
    "Uses the engine's own classifier and encoders; writes nothing. A line that is no row is answered on its own",
    "output line. Exit 0 after the last line, 2 on a bad configuration, schema file or arguments."})
public final class ExplainCommand implements Callable<Integer>
{
    private static final Pattern CONVERSION = Pattern.compile("^column (.+?) \\((.+?)\\) from path (.+?): .*$",
        Pattern.DOTALL);
    private static final JsonFactory JSON = new JsonFactory();

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Option(names = "--sink", required = true, paramLabel = "NAME", description = "The [[sinks]] to explain.")
    String sink;

    @Option(names = "--topic", paramLabel = "T", description = "Topic the records come from (destination templates use it). Default: the sink's first topic; required when the sink follows a pattern.")
    String topic;

    @Option(names = "--envelope", description = {
        "Each line is {\"key\": ..., \"headers\": {...}, \"timestamp\": ms, \"partition\": n, \"offset\": n, \"value\": <record>}, every member optional but one at least, no other member allowed.",
        "Without it each line is only a record's value: its Kafka coordinates are not known, so a metadata column shows stand-ins, not a real record's: $partition 0, $offset 0, $timestamp the time explain read the line, no key, no headers. Give --envelope to see them as a run would write them."})
    boolean envelope;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Schemas schemas;

    @Option(names = "--time-zone", paramLabel = "ZONE", description = "With --schema: the server time zone ClickHouse DateTime columns are printed in (default UTC; PostgreSQL sessions are always UTC).")
    String timeZone = "UTC";

    /** Where table schemas come from. */
    static final class Schemas
    {
        @Option(names = "--schema", paramLabel = "[SINK=]FILE", description = {
            "CREATE TABLE statements to read the destination tables from, in the dialect of the sink's kind (no connection).",
            "Repeatable: SINK=FILE is read for the branches that write to that sink (a split across kinds), FILE for the others.",
            "Rule: every sink a branch writes to needs a file: its own SINK=FILE, else the one FILE without SINK=. When every --schema names a sink, a sink named by none is refused, naming it; one file may declare the tables of several sinks of one kind (give it as FILE, or as SINK=FILE for each)."})
        List<String> schema;

        @Option(names = "--connect", description = "Read the destination tables from the sink's database (ClickHouse: DESCRIBE; PostgreSQL: its catalog).")
        boolean connect;
    }

    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        final PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        final int code = run(config, sink, topic, envelope, schemas.schema == null ? List.of() : schemas.schema,
            schemas.connect, timeZone, System.in, out, err);
        out.flush();
        return code;
    }

    /**
     * Runs the dry run.
     *
     * @param file     the configuration
     * @param sinkName the sink
     * @param topic    the records' topic, or null for the sink's first
     * @param envelope whether lines are envelopes
     * @param schema   CREATE TABLE statements, or null with {@code connect}
     * @param connect  read schemas from the sink's database
     * @param zone     the time zone assumed with {@code schema}
     * @param in       the lines
     * @param out      one JSON object per line
     * @param err      problems with the configuration or the schema
     * @return 0, or 2 on a bad configuration, sink or schema
     * @throws IOException when reading fails
     */
    static int run(final Path file, final String sinkName, final String topic, final boolean envelope,
        final Path schema, final boolean connect, final String zone, final InputStream in, final PrintWriter out,
        final PrintWriter err) throws IOException
    {
        return run(file, sinkName, topic, envelope, schema == null ? List.of() : List.of(schema.toString()), connect,
            zone, in, out, err);
    }

    /**
     * Runs the dry run with schema files per sink.
     *
     * @param file     the configuration
     * @param sinkName the sink
     * @param topic    the records' topic, or null for the sink's first
     * @param envelope whether lines are envelopes
     * @param schemas  the {@code --schema} values: {@code FILE} for every sink, {@code SINK=FILE} for the branches
     *                 that write to that sink (empty with {@code connect})
     * @param connect  read schemas from the sink's database
     * @param zone     the time zone assumed with {@code schema}
     * @param in       the lines
     * @param out      one JSON object per line
     * @param err      problems with the configuration or the schema
     * @return 0, or 2 on a bad configuration, sink or schema
     * @throws IOException when reading fails
     */
    static int run(final Path file, final String sinkName, final String topic, final boolean envelope,
        final List<String> schemas, final boolean connect, final String zone, final InputStream in,
        final PrintWriter out, final PrintWriter err) throws IOException
    {
        try
        {
            ZoneId.of(zone);
        }
        catch (final DateTimeException e)
        {
            err.println("error: --time-zone " + zone + ": " + e.getMessage()
                + " (an IANA zone name such as Europe/Berlin, or UTC; names are case-sensitive)");
            return SluiceEngine.EXIT_CONFIG;
        }
        final SluiceConfig c;
        try
        {
            c = ConfigChecks.load(file);
        }
        catch (final ConfigException e)
        {
            return ConfigChecks.report(file, e, err);
        }
        final SluiceConfig.Sink sink = c.sinks().stream().filter(s -> s.name().equals(sinkName)).findFirst()
            .orElse(null);
        if (sink == null)
        {
            err.println("error: " + file + " has no [[sinks]] named " + sinkName + " (its sinks: "
                + c.sinks().stream().map(SluiceConfig.Sink::name).toList() + ")");
            return SluiceEngine.EXIT_CONFIG;
        }
        if (!sink.consumes())
        {
            err.println("error: sink " + sinkName + " has no pattern or topics: it is only a target of branches of "
                + "other sinks; give --sink with the sink that consumes");
            return SluiceEngine.EXIT_CONFIG;
        }
        final String recordTopic = topic != null ? topic : sink.topics().isEmpty() ? "" : sink.topics().get(0);
        if (recordTopic.isEmpty())
        {
            err.println(
                "error: sink " + sinkName + " follows a pattern: give --topic T (destination templates use it)");
            return SluiceEngine.EXIT_CONFIG;
        }
        // each branch is bound with the encoder and catalog of the sink it writes to (its sink key, else this one)
        final Map<String, SinkDriver> drivers = new HashMap<>();
        final Function<String, SinkDriver> driverOf = name -> drivers.computeIfAbsent(name,
            n -> SinkProviders.installed().provider(c.sink(n).kind()).driver());
        final Map<SinkConnection, String> sinkOfConnection = new IdentityHashMap<>();
        c.sinks().forEach(s -> sinkOfConnection.putIfAbsent(s.plugin(), s.name()));
        final Set<String> sinksInPlay = new java.util.LinkedHashSet<>();
        for (final SluiceConfig.Branch b : sink.branches())
        {
            sinksInPlay.add(b.sink() == null ? sink.name() : b.sink());
            final String kind = c.sink(b.sink() == null ? sink.name() : b.sink()).kind();
            try
            {
                SinkProviders.installed().provider(kind).rowText(new byte[0], ZoneOffset.UTC);
            }
            catch (final UnsupportedOperationException e)
            {
                err.println(
                    "error: branch " + b.name() + " writes to a sink of kind \"" + kind + "\": " + e.getMessage()
                        + ", so explain cannot show its rows yet (route and destination work for every kind)");
                return SluiceEngine.EXIT_CONFIG;
            }
        }
        if (sinksInPlay.isEmpty())
        {
            sinksInPlay.add(sink.name());
        }
        try
        {
            final DestinationCatalogs catalogs;
            try
            {
                catalogs = connect
                    ? spec -> driverOf.apply(sinkOfConnection.get(spec.connection())).catalog(spec)
                    : fileCatalogs(c, schemas, zone, sinksInPlay, sinkOfConnection);
            }
            catch (final IllegalArgumentException | IOException e)
            {
                err.println("error: --schema " + e.getMessage());
                return SluiceEngine.EXIT_CONFIG;
            }
            final Explainer x = new Explainer(
                TomlGather.build(c, sink, name -> driverOf.apply(name).jsonEncoding()), sink,
                recordTopic, catalogs, envelope, c.engine().maxRecordBytes());
            final RouteCommand.LineReader lines = new RouteCommand.LineReader(in, x.lineLimit());
            long line = 0;
            while (lines.next())
            {
                line++;
                out.println(lines.truncated()
                    ? x.tooLong(line, lines.lineBytes())
                    : x.explain(line, lines.bytes(), lines.length()));
                out.flush();
            }
            return SluiceEngine.EXIT_OK;
        }
        finally
        {
            drivers.values().forEach(SinkDriver::close);
        }
    }

    /**
     * The message for sinks the branches write to that no {@code --schema SINK=FILE} names, when every
     * {@code --schema} named a sink (no plain {@code FILE} for the others): which sinks lack a file, their kinds, and
     * the fixes (a {@code SINK=FILE} each; or one plain {@code FILE} for every sink not named, e.g. the file already
     * given for a sink of the same kind).
     */
    static String missingSchemaFiles(final SluiceConfig c, final List<String> lacking, final Map<String, Path> ofSink)
    {
        final StringBuilder sb = new StringBuilder("no --schema file for sink");
        sb.append(lacking.size() == 1 ? " " : "s ");
        final List<String> named = new ArrayList<>();
        for (final String name : lacking)
        {
            named.add(name + " (kind " + c.sink(name).kind() + ")");
        }
        sb.append(String.join(", ", named)).append(", which ")
            .append(lacking.size() == 1 ? "a branch writes" : "branches write")
            .append(" to: every --schema given names a sink (");
        final List<String> given = new ArrayList<>();
        ofSink.forEach((k, v) -> given.add(k + "=" + v));
        given.sort(null);
        sb.append(String.join(", ", given)).append("), and a sink named by none has no file. Give");
        final List<String> fixes = new ArrayList<>();
        for (final String name : lacking)
        {
            fixes.add("--schema " + name + "=FILE");
        }
        sb.append(' ').append(String.join(" ", fixes))
            .append(", or one --schema FILE without SINK= for every sink not named");
        // a file already given for a sink of the same kind can serve the others (CREATE TABLE of each table)
        final String kind = c.sink(lacking.get(0)).kind();
        final boolean oneKind = lacking.stream().allMatch(n -> c.sink(n).kind().equals(kind));
        for (final Map.Entry<String, Path> e : new java.util.TreeMap<>(ofSink).entrySet())
        {
            if (oneKind && c.sink(e.getKey()).kind().equals(kind))
            {
                sb.append(" (e.g. --schema ").append(e.getValue()).append(" if it also declares the tables of ")
                    .append(String.join(", ", lacking)).append(')');
                break;
            }
        }
        return sb.toString();
    }

    /**
     * The catalogs of {@code --schema}: per sink the branches write to, its file ({@code SINK=FILE}, else the one
     * {@code FILE}) read by the reader of the sink's kind ({@link SinkProvider#schemaFile}), or by the engine's reader
     * of ClickHouse DDL ({@link SchemaFile}) for a kind without one; a file read once per kind.
     *
     * @throws IllegalArgumentException starting with the file, naming what is wrong (a line of it, a missing file for
     *                                  a sink, two files for one)
     */
    private static DestinationCatalogs fileCatalogs(final SluiceConfig c, final List<String> schemas,
        final String zone, final Set<String> sinksInPlay, final Map<SinkConnection, String> sinkOfConnection)
        throws IOException
    {
        Path common = null;
        final Map<String, Path> ofSink = new HashMap<>();
        for (final String s : schemas)
        {
            final int eq = s.indexOf('=');
            final String named = eq > 0 ? s.substring(0, eq) : null;
            if (named != null && c.sinks().stream().anyMatch(k -> k.name().equals(named)))
            {
                if (ofSink.put(named, Path.of(s.substring(eq + 1))) != null)
                {
                    throw new IllegalArgumentException(s + ": sink " + named + " is given two files");
                }
            }
            else if (common != null)
            {
                throw new IllegalArgumentException(s + ": a second FILE for every sink (" + common + " is the first); "
                    + "give SINK=FILE for the branches that write to another sink");
            }
            else
            {
                common = Path.of(s);
            }
        }
        if (common == null)
        {
            // every --schema named a sink: each sink in play needs its own, say which lack one and how to give it
            final List<String> lacking = new ArrayList<>();
            for (final String name : sinksInPlay)
            {
                if (!ofSink.containsKey(name))
                {
                    lacking.add(name);
                }
            }
            if (!lacking.isEmpty())
            {
                throw new IllegalArgumentException(missingSchemaFiles(c, lacking, ofSink));
            }
        }
        final Map<String, DestinationCatalog> read = new HashMap<>();
        final Map<String, DestinationCatalog> bySink = new HashMap<>();
        for (final String name : sinksInPlay)
        {
            final Path file = ofSink.getOrDefault(name, common);
            final String kind = c.sink(name).kind();
            final String key = kind + '\0' + file;
            if (!read.containsKey(key))
            {
                try
                {
                    final String text = java.nio.file.Files.readString(file);
                    DestinationCatalog catalog;
                    try
                    {
                        catalog = SinkProviders.installed().provider(kind).schemaFile(text, ZoneId.of(zone));
                    }
                    catch (final UnsupportedOperationException noReaderOfItsOwn)
                    {
                        catalog = SchemaFile.load(file, zone);
                    }
                    read.put(key, catalog);
                }
                catch (final IllegalArgumentException | IOException e)
                {
                    throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
                }
            }
            bySink.put(name, read.get(key));
        }
        return spec -> bySink.get(sinkOfConnection.get(spec.connection()));
    }

    /** The catalog of a sink. */
    @FunctionalInterface
    interface DestinationCatalogs
    {
        DestinationCatalog catalog(SinkSpec spec);
    }

    /** Explains one record at a time. Not thread-safe. */
    static final class Explainer implements Emitter
    {
        private final GatherSpec<JsonRecord> spec;
        private final SluiceConfig.Sink sink;
        private final String topic;
        private final Map<String, DestinationResolver.SinkTarget> targets = new HashMap<>();
        private final Map<String, SinkSpec> sinkSpecs = new HashMap<>();
        private final Map<String, DestinationCatalog> catalogsByName = new HashMap<>();
        private final Map<String, SinkProvider> providers = new HashMap<>();
        private final DestinationResolver resolver = new DestinationResolver();
        private final Map<String, ZoneId> zones = new HashMap<>();
        /** The tables described so far, by sink, database and table: each is described once per input. */
        private final Map<String, TableSchema> schemas = new HashMap<>();
        private final DryRunInput input;
        private BranchHandle<?> handle;
        private Object row;
        private int emitted;
        private String invalid;

        Explainer(final GatherSpec<JsonRecord> spec, final SluiceConfig.Sink sink, final String topic,
            final DestinationCatalogs catalogs, final boolean envelope, final int maxRecordBytes)
        {
            this.spec = spec;
            this.sink = sink;
            this.topic = topic;
            this.input = new DryRunInput(envelope, maxRecordBytes);
            final TopicRegistry topics = new TopicRegistry();
            topics.idOf(topic);
            if (spec.decoder() instanceof JsonRecord json)
            {
                // the record's topic is id 0: the one --topic names
                json.topics(topics);
            }
            for (final SinkSpec s : spec.sinks().values())
            {
                final DestinationCatalog catalog = catalogs.catalog(s);
                targets.put(s.name(), new DestinationResolver.SinkTarget(s, catalog, true));
                sinkSpecs.put(s.name(), s);
                catalogsByName.put(s.name(), catalog);
                providers.put(s.name(), SinkProviders.installed().provider(s.connection().kind()));
            }
        }

        @Override
        public void invalid(final String why)
        {
            if (emitted == 0 && invalid == null)
            {
                invalid = why;
            }
        }

        @Override
        public <R> void emit(final BranchHandle<R> h, final R r)
        {
            emitted++;
            if (emitted == 1)
            {
                handle = h;
                row = r;
            }
        }

        /** @return the longest line worth reading whole ({@link DryRunInput#lineLimit()}) */
        int lineLimit()
        {
            return input.lineLimit();
        }

        /** @return the output object of a line longer than {@link #lineLimit()}: an error, as the engine fails it */
        String tooLong(final long line, final long lineBytes)
        {
            final Out o = new Out();
            o.field("line", line);
            return o.error(input.tooLong(lineBytes), null, null, spec.onError()).end();
        }

        String explain(final long line, final byte[] bytes, final int length)
        {
            final Out o = new Out();
            o.field("line", line);
            final String problem = input.fill(bytes, length);
            if (problem == DryRunInput.BLANK)
            {
                return o.skipped(problem).end();
            }
            if (problem != null)
            {
                return problem.startsWith(DryRunInput.NOT_AN_ENVELOPE)
                    ? o.notARecord(problem).end()
                    : o.error(problem, null, null, spec.onError()).end();
            }
            final RecordEvent event = input.record();
            if (event.valueLength() < 0)
            {
                return o.tombstone(spec.tombstones()).end();
            }
            final JsonRecord view = spec.decoder().decode(event);
            if (view == null)
            {
                return o.error(spec.decoder().error(), null, null, spec.onError()).end();
            }
            handle = null;
            row = null;
            emitted = 0;
            invalid = null;
            spec.split().classifier().route(view, this);
            if (invalid != null)
            {
                return o.error(invalid, null, null, spec.onError()).end();
            }
            if (handle == null)
            {
                final ErrorPolicy p = spec.split().unmatched();
                o.nullField("branch");
                o.field("unmatched", p.configName());
                o.field("outcome", p == ErrorPolicy.SKIP
                    ? "dropped: counted in sluice_records_dropped_total{reason=\"unrouted\"}; its offset is committed"
                    : p == ErrorPolicy.DEAD_LETTER
                        ? "dead letter: written to " + spec.deadLetter().topic() + " with the reason in its headers, "
                            + "counted in sluice_dead_letters_total{reason=\"unrouted\"}; its offset is committed "
                            + "once the broker has it"
                        : "the pipeline stops (exit 1): nothing from this record on is committed in its partition");
                return o.end();
            }
            return explainRow(o, spec.split().branches().get(handle.index()));
        }

        /** Why the classifier chose a branch: its condition, or that it is the catch-all after the others. */
        private static String matched(final SluiceConfig.Condition c, final int index)
        {
            final String earlier = index == 0 ? "" : "; no earlier branch's condition matched";
            if (c == null)
            {
                return "catch-all (no when)" + earlier;
            }
            final String what = switch (c.op())
            {
                case EQUALS -> "equals \"" + c.values().get(0) + "\"";
                case IN -> "is one of " + c.values();
                case PREFIX -> "starts with \"" + c.values().get(0) + "\"";
                case MATCHES -> "matches /" + c.values().get(0) + "/";
                case EXISTS -> c.exists() ? "exists (not null)" : "is absent or null";
            };
            return "when " + c.path() + " " + what + earlier;
        }

        @SuppressWarnings("unchecked")
        private <R> String explainRow(final Out o, final Split.Branch<R> branch)
        {
            o.field("branch", branch.name());
            final SluiceConfig.Branch configured = sink.branches().get(branch.index());
            if (configured.sink() != null && !configured.sink().equals(sink.name()))
            {
                o.field("sink", configured.sink());
            }
            o.field("matched", matched(configured.when(), branch.index()));
            final DestinationResolver.SinkTarget target = targets.get(branch.sink());
            final DestinationResolver.Result r = resolver.resolve(branch.index(), branch.name(), branch.encoder(),
                target, topic);
            if (r.destination() == null)
            {
                return o.error(r.error(), null, null, spec.onError()).end();
            }
            final Destination d = r.destination();
            o.field("database", d.database());
            final String namespace = providers.get(branch.sink()).namespaceName();
            if (!"database".equals(namespace))
            {
                // the kind's own word next to the stable field name: PostgreSQL's schema
                o.field(namespace, d.database());
            }
            o.field("table", d.table());
            final int shards = sinkSpecs.get(branch.sink()).shards().size();
            final DestinationCatalog catalog = catalogsByName.get(branch.sink());
            final boolean nullAsDefault = sinkSpecs.get(branch.sink()).connection().nullAsDefault();
            o.field("shard", shards == 1 ? 0 : branch.router().shard((R)row, shards));
            final RowEncoder.Bound<R> encoder = (RowEncoder.Bound<R>)d.encoder();
            final Bytes<?> rowBytes = Bytes.allocateElasticOnHeap(256);
            final String error = encoder.encode((R)row, rowBytes);
            if (error != null)
            {
                final Matcher m = CONVERSION.matcher(error);
                return o.error(error + " (table " + d + ")", m.matches() ? m.group(1) : null,
                    m.matches() ? m.group(3) : null, spec.onError()).end();
            }
            final byte[] all = rowBytes.toByteArray();
            // a row of a table with server-evaluated defaults starts with its omission mask (Binding)
            final int[] omittable = encoder.omittableColumns();
            final long mask = omittable.length == 0 ? 0 : OmissionMask.read(rowBytes, 0);
            final byte[] written = omittable.length == 0 ? all : Arrays.copyOfRange(all, 8, all.length);
            final Set<Integer> omitted = new HashSet<>();
            for (int bit = 0; bit < omittable.length; bit++)
            {
                if ((mask & (1L << bit)) != 0)
                {
                    omitted.add(omittable[bit]);
                }
            }
            // one DESCRIBE (or catalog query) per table for the whole input, not one per record: with --connect
            // that was a round trip to the server for every line
            final String key = branch.sink() + '\0' + d.database() + '\0' + d.table();
            TableSchema schema = schemas.get(key);
            if (schema == null)
            {
                try
                {
                    schema = catalog.describe(d.database(), d.table());
                }
                catch (final SinkException e)
                {
                    return o.error("cannot read the schema of " + d + ": " + e.getMessage(), null, null,
                        spec.onError()).end();
                }
                schemas.put(key, schema);
            }
            final Map<String, ColumnSpec> byName = new HashMap<>();
            for (final ColumnSpec c : schema.columns())
            {
                byName.put(c.name(), c);
            }
            // what the kind's bound encoder says of each column (null: a kind whose encoder does not say)
            final ExplainableEncoder x = encoder instanceof ExplainableEncoder e ? e : null;
            final List<String> names = encoder.columns();
            final List<String> paths = new ArrayList<>();
            final int[] pathOf = new int[names.size()];
            for (int i = 0; x != null && i < names.size(); i++)
            {
                if (x.metadataSpec(i) != null)
                {
                    continue;
                }
                // a dotted column may have been read from the members of an object (docs/codecs.md)
                final String read = x.pathRead(i);
                final int at = paths.indexOf(read);
                pathOf[i] = at >= 0 ? at : paths.size();
                if (at < 0)
                {
                    paths.add(read);
                }
            }
            final JsonValueView value = new JsonValueView();
            final JsonScanner scanner = paths.isEmpty() ? null : new JsonScanner(JsonPathSet.compile(paths), 512);
            if (scanner != null)
            {
                scanner.validate(input.record().value(), 0, input.record().valueLength());
            }
            // the values as the kind's database prints them, read back from the bytes its encoder wrote
            final RowText text = providerOf(branch.sink()).rowText(written, zone(branch.sink(), catalog));
            o.startColumns();
            for (int i = 0; i < names.size(); i++)
            {
                final ColumnSpec c = byName.get(names.get(i));
                if (omitted.contains(i))
                {
                    o.column(names.get(i), c.type(), "server default", x == null ? null : x.path(i),
                        c.defaultExpression().isEmpty()
                            ? "(left out of the row: an upsert keeps a stored row's value, a new row gets NULL)"
                            : "DEFAULT " + c.defaultExpression() + " (left out of the row: the server evaluates it)");
                    continue;
                }
                final String readAs = x == null ? null : x.writtenType(i);
                final String v = text.next(readAs != null ? readAs : c.type());
                String source = "path";
                if (x != null && x.metadataSpec(i) != null)
                {
                    source = "metadata";
                }
                else if (x != null && scanner != null)
                {
                    scanner.value(pathOf[i], value);
                    final int kind = value.kind();
                    if (x.writesDefault(i) && (kind == JsonKind.MISSING
                        || kind == JsonKind.NULL && nullAsDefault && !x.storesNull(i)))
                    {
                        source = "default";
                    }
                    else if (x.filled(i))
                    {
                        source = "filled";
                    }
                    else if (kind == JsonKind.MISSING || kind == JsonKind.NULL)
                    {
                        source = "null";
                    }
                }
                o.column(names.get(i), c.type(), source, x == null ? null : x.pathRead(i), v);
            }
            o.endColumns();
            if (text.remaining() != 0)
            {
                o.field("warning", text.remaining() + " bytes of the row were not read back: explain's reader and "
                    + "the encoder disagree on a type's layout");
            }
            return o.end();
        }

        /** @return the provider of the sink's kind: what explain shows for a value of each of its types */
        private SinkProvider providerOf(final String sinkName)
        {
            return providers.get(sinkName);
        }

        private ZoneId zone(final String sinkName, final DestinationCatalog catalog)
        {
            return zones.computeIfAbsent(sinkName, n ->
            {
                try
                {
                    return ZoneId.of(catalog.serverTimeZone());
                }
                catch (final SinkException | RuntimeException e)
                {
                    return ZoneId.of("UTC");
                }
            });
        }
    }

    /** One output object, written with Jackson's generator. */
    private static final class Out
    {
        private final java.io.StringWriter text = new java.io.StringWriter();
        private final JsonGenerator g;

        Out()
        {
            try
            {
                g = JSON.createGenerator(text);
                g.writeStartObject();
            }
            catch (final IOException e)
            {
                throw new IllegalStateException(e);
            }
        }

        void field(final String name, final String value)
        {
            io(() -> g.writeStringField(name, value));
        }

        void field(final String name, final long value)
        {
            io(() -> g.writeNumberField(name, value));
        }

        void nullField(final String name)
        {
            io(() -> g.writeNullField(name));
        }

        Out error(final String message, final String column, final String path, final ErrorPolicy onError)
        {
            io(() ->
            {
                g.writeStringField("error", message);
                if (column != null)
                {
                    g.writeStringField("column", column);
                    g.writeStringField("path", path);
                }
                g.writeStringField("outcome", onError == ErrorPolicy.SKIP
                    ? "dropped (on_error = \"skip\"): counted in sluice_records_dropped_total{reason=\"invalid\"}"
                    : onError == ErrorPolicy.DEAD_LETTER
                        ? "dead letter (on_error = \"dead_letter\"): written to the dead-letter topic with the reason "
                            + "in its headers, counted in sluice_dead_letters_total{reason=\"invalid\"}"
                        : "the record is failed (on_error = \"fail\"): the pipeline stops (exit 1), nothing from "
                            + "this record on is committed in its partition");
            });
            return this;
        }

        /** A null Kafka value: no row, and what {@code tombstones} does with it. */
        Out notARecord(final String why)
        {
            io(() ->
            {
                g.writeStringField("error", why);
                g.writeStringField("outcome", "not read: the line is not a valid envelope, so it stands for no "
                    + "record (bytes an envelope cannot hold, such as invalid UTF-8 in the value, can be tried "
                    + "without --envelope, the line being the value)");
            });
            return this;
        }

        Out skipped(final String why)
        {
            io(() -> g.writeStringField("skipped", why));
            return this;
        }

        Out tombstone(final ErrorPolicy tombstones)
        {
            io(() ->
            {
                g.writeStringField("error", "record value is null (a tombstone): it is no row (tombstones = "
                    + tombstones.configName() + ")");
                g.writeStringField("outcome", tombstones == ErrorPolicy.SKIP
                    ? "dropped (tombstones = \"skip\"): counted in sluice_records_dropped_total{reason=\"tombstone\"}; "
                        + "its offset is committed"
                    : tombstones == ErrorPolicy.DEAD_LETTER
                        ? "dead letter (tombstones = \"dead_letter\"): written to the dead-letter topic with reason "
                            + "tombstone, counted in sluice_dead_letters_total{reason=\"tombstone\"}"
                        : "the record is failed (tombstones = \"fail\"): the pipeline stops (exit 1), nothing from this "
                            + "record on is committed in its partition");
            });
            return this;
        }

        void startColumns()
        {
            io(() -> g.writeArrayFieldStart("columns"));
        }

        void column(final String name, final String type, final String source, final String path, final String v)
        {
            io(() ->
            {
                g.writeStartObject();
                g.writeStringField("name", name);
                g.writeStringField("type", type);
                g.writeStringField("source", source);
                if (path != null)
                {
                    g.writeStringField("path", path);
                }
                g.writeStringField("value", v);
                g.writeEndObject();
            });
        }

        void endColumns()
        {
            io(g::writeEndArray);
        }

        String end()
        {
            io(() ->
            {
                g.writeEndObject();
                g.close();
            });
            return text.toString();
        }

        private interface IoAction
        {
            void run() throws IOException;
        }

        private static void io(final IoAction a)
        {
            try
            {
                a.run();
            }
            catch (final IOException e)
            {
                throw new IllegalStateException(e);
            }
        }
    }
}
