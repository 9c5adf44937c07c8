package io.sluice.bench.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.sluice.tuning.JvmProfile;

/**
 * The cost curve behind {@code scripts/bench.sh --scale} (issue 24, item 2): the seed's three-line design (a scatter
 * source routing by {@code user_id} into {@code <prefix>.users.{value}} with topic creation on, a gather sink
 * following {@code <prefix>\.users\..*} into a table per topic created on first use) run by one engine process at
 * 10, 100, 1,000 and 10,000 users, with the same number of records at each step.
 *
 * <p>A step: a fresh input topic is loaded with {@code records} records {@code {"id":i,"user_id":"<i % topics>",
 * "event":"e<i>"}}, a fresh database is made ({@link ScaleSink#prepare}), then {@code engine.jar --config} runs the
 * step's pipeline ({@link ScaleSink#config}) until every record is a row and both consumer groups have committed
 * every record, or until a bound: the step's timeout, or no progress of rows, topics or commits for the stall limit;
 * the engine is stopped with SIGTERM (it drains and commits). A {@link Sampler} reads meanwhile, every
 * {@code --sample-ms}: the CPU of the engine's process, of the database server and of the broker (found by their
 * listening ports, {@link ProcFs}), the engine's RSS ({@code /proc/PID/status}), the rows per table (which also stamps
 * each table's first row), the topics the broker lists (which stamps each topic's first listing; until every topic
 * is listed) and the source group's committed offsets; every {@code --probe-ms} (and at every sample once every row
 * is written) the probes whose cost grows with the partitions: the engine's heap, lag and records read (its
 * Prometheus endpoint) and the sink group's committed offsets. Each probe's calls and time are reported. After the
 * step's full GC the live objects by class ({@link HeapHistogram}) are written next to its log. Every row is then
 * verified against the input ({@link ScaleSink#verify}), and the step's topics, groups and database are deleted.
 *
 * <p>Writes {@code result.json}, {@code result.txt} and {@code cost-curve.svg} ({@link ScaleChart}) into
 * {@code bench/results/scale-<time>/}, with each step's configuration and engine log. Exit code 0 when every step
 * finished and verified, 1 otherwise, 2 on bad arguments.
 */
public final class ScaleRun
{
    private static final List<Integer> FULL_STEPS = List.of(10, 100, 1_000, 10_000);
    private static final List<Integer> QUICK_STEPS = List.of(10, 100);
    private static final long FULL_RECORDS = 200_000;
    private static final long QUICK_RECORDS = 20_000;
    /** The sink's topic_refresh_ms (the example keeps the default): the seed's window for a new topic. */
    private static final long TOPIC_REFRESH_MS = 2_000;
    private static final int TOPIC_DELETE_CHUNK = 500;
    /** The engine's {@code engine.kafka_check_timeout_ms} in a step's configuration, ms. */
    static final long KAFKA_CHECK_TIMEOUT_MS = 60_000;

    /** The sink's name in examples/users-three-lines.toml (its series carry it as the pipeline label). */
    private static final String SINK = "users";
    /** Tables the step's database creates first, timed ({@link ScaleSink#timeTableCreation}). */
    private static final int DDL_PROBE_TABLES = 5;

    private final ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private String bootstrap = "127.0.0.1:19092";
    private String clickhouse = "http://127.0.0.1:18123";
    private String postgres = "jdbc:postgresql://127.0.0.1:15432/sluice";
    private String sinkKind = "clickhouse";
    private Path root = Path.of(".").toAbsolutePath().normalize();
    private Path out;
    private boolean quick;
    private List<Integer> steps;
    private long records = -1;
    private int inputPartitions = 4;
    private long stepTimeoutSeconds = -1;
    private long stallSeconds = 120;
    private long sampleMillis = 250;
    private long probeMillis = 2_000;
    private long maxNewTopicsPerMinute = 100_000;
    private String jvm = BenchRun.CONTENDER_JVM;
    private boolean keep;
    /** After the step: the same records again into the topics and tables that now exist ({@code --no-warm}: not). */
    private boolean warmPass = true;
    private String command = "scripts/bench.sh --scale";

    private Path runDir;
    private String runId;
    private long serverPid = -1;
    private long brokerPid = -1;
    private double createTableSeconds = Double.NaN;
    /** Each step's live objects by class after its full collection, by topics. */
    private final Map<Integer, HeapHistogram> histograms = new TreeMap<>();

    private ScaleRun()
    {
    }

    /**
     * @param args see {@link #usage()}
     * @throws Exception if the run cannot start (no engine.jar, services unreachable)
     */
    public static void main(final String[] args) throws Exception
    {
        final ScaleRun r = new ScaleRun();
        try
        {
            r.parse(args);
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println("error: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
        }
        System.exit(r.run());
    }

    static String usage()
    {
        return String.join("\n",
            "usage: ScaleRun [options]   (scripts/bench.sh --scale [options])",
            "  --quick                 steps 10 and 100 topics, 20,000 records each, 240 s per step at most",
            "  --steps L               topic counts, e.g. 10,100,1000,10000 (the default)",
            "  --records N             records per step (default 200,000; the same at every step)",
            "  --sink KIND             the database side: clickhouse (the default) or postgres (PostgresScaleSink:",
            "                          rows per COPY instead of parts per table; password from PGPASSWORD)",
            "  --postgres URL          the PostgreSQL database (default jdbc:postgresql://127.0.0.1:15432/sluice)",
            "  --step-timeout-s S      the longest a step may take once the engine runs (default 240 quick, 1800)",
            "  --stall-s S             a step ends when rows, topics and commits do not move for S s (default 120)",
            "  --sample-ms MS          how often CPU, RSS, rows, topics and the source's commits are sampled",
            "                          (default 250)",
            "  --probe-ms MS           how often the expensive probes run: the engine's /metrics (heap, lag, reads)",
            "                          and the sink group's commits (default 2000; every sample once all rows are in)",
            "  --input-partitions P    partitions of the input topic (default 4)",
            "  --max-new-topics-per-minute N   the source's topic creation guard (default 100,000, its largest)",
            "  --jvm-opts \"...\"        the engine's JVM options (default " + BenchRun.CONTENDER_JVM + ")",
            "  --keep                  keep the steps' topics, groups and databases",
            "  --no-warm               no warm pass (by default each step then sends its records again, into the",
            "                          topics and tables that exist by then, and measures that pass on its own)",
            "  --bootstrap-servers H:P, --clickhouse URL, --root DIR, --out DIR, --command TEXT");
    }

    private void parse(final String[] args)
    {
        for (int i = 0; i < args.length; i++)
        {
            final String a = args[i];
            switch (a)
            {
                case "--quick" -> quick = true;
                case "--keep" -> keep = true;
                case "--no-warm" -> warmPass = false;
                case "-h", "--help" -> {
                    System.out.println(usage());
                    System.exit(0);
                }
                case "--scale" -> {
                    // the script's own switch, passed on
                }
                default -> {
                    if (i + 1 >= args.length)
                    {
                        throw new IllegalArgumentException(a + " needs a value (or is unknown)");
                    }
                    final String v = args[++i];
                    switch (a)
                    {
                        case "--steps" -> steps = Arrays.stream(v.split(",")).map(String::strip)
                            .map(Integer::parseInt).toList();
                        case "--records" -> records = Long.parseLong(v.replace("_", "").replace(",", ""));
                        case "--sink" -> sinkKind = v;
                        case "--step-timeout-s" -> stepTimeoutSeconds = Long.parseLong(v);
                        case "--stall-s" -> stallSeconds = Long.parseLong(v);
                        case "--sample-ms" -> sampleMillis = Long.parseLong(v);
                        case "--probe-ms" -> probeMillis = Long.parseLong(v);
                        case "--input-partitions" -> inputPartitions = Integer.parseInt(v);
                        case "--max-new-topics-per-minute" -> maxNewTopicsPerMinute = Long.parseLong(v);
                        case "--jvm-opts" -> jvm = v;
                        case "--bootstrap-servers" -> bootstrap = v;
                        case "--clickhouse" -> clickhouse = v;
                        case "--postgres" -> postgres = v;
                        case "--root" -> root = Path.of(v).toAbsolutePath().normalize();
                        case "--out" -> out = Path.of(v).toAbsolutePath().normalize();
                        case "--command" -> command = v;
                        default -> throw new IllegalArgumentException("unknown option " + a);
                    }
                }
            }
        }
        if (steps == null)
        {
            steps = quick ? QUICK_STEPS : FULL_STEPS;
        }
        if (records < 0)
        {
            records = quick ? QUICK_RECORDS : FULL_RECORDS;
        }
        if (stepTimeoutSeconds < 0)
        {
            stepTimeoutSeconds = quick ? 240 : 1800;
        }
        for (final int k : steps)
        {
            if (k < 1 || k > records)
            {
                throw new IllegalArgumentException("--steps: " + k + " topics for " + records
                    + " records (each topic needs a record)");
            }
        }
        if (!sinkKind.equals("clickhouse") && !sinkKind.equals("postgres"))
        {
            throw new IllegalArgumentException("--sink " + sinkKind + ": clickhouse or postgres");
        }
    }

    private ScaleSink sink()
    {
        return sinkKind.equals("postgres")
            ? new PostgresScaleSink(postgres, root, maxNewTopicsPerMinute)
            : new ClickHouseScaleSink(clickhouse, root, maxNewTopicsPerMinute);
    }

    private int run() throws Exception
    {
        final Path engineJar = root.resolve("engine/target/engine.jar");
        if (!Files.isRegularFile(engineJar))
        {
            throw new IllegalStateException(engineJar + " is missing: build first (mvn -DskipTests package -pl "
                + "engine,bench -am)");
        }
        if (out == null)
        {
            out = root.resolve("bench/results");
        }
        runId = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(ZonedDateTime.now(ZoneOffset.UTC));
        runDir = out.resolve("scale-" + runId);
        Files.createDirectories(runDir);
        final ScaleSink sink = sink();
        final Map<String, Object> machine = BenchRun.machine(sink.version());
        if (sink.kind().equals("postgres"))
        {
            // BenchRun.machine names the server ClickHouse
            machine.put("summary", ((String)machine.get("summary")).replaceFirst("ClickHouse ", "PostgreSQL "));
            machine.put("postgres", machine.remove("clickhouse"));
        }
        final String first = bootstrap.split(",")[0].strip();
        final int kafkaPort = Integer.parseInt(first.substring(first.lastIndexOf(':') + 1));
        serverPid = ProcFs.pidListeningOn(sink.serverPort());
        brokerPid = ProcFs.pidListeningOn(kafkaPort);
        final String load = loadAverage();
        System.out.printf(Locale.ROOT,
            "== Sluice cost curve %s: the three-line design into %s%n   machine: %s%n   load average at start: %s%n"
                + "   command: %s%n   steps %s topics, %,d records each; results in %s%n"
                + "   services: %s pid %d (port %d), Kafka broker pid %d (port %d), found by their listening ports%n",
            runId, sink.kind(), machine.get("summary"), load, command, steps, records, runDir, sink.kind(), serverPid,
            sink.serverPort(), brokerPid, kafkaPort);
        final List<Map<String, Object>> results = new ArrayList<>();
        final long t0 = System.nanoTime();
        for (final int k : steps)
        {
            System.out.printf(Locale.ROOT, "%n== step: %,d topics, %,d records%n", k, records);
            final Map<String, Object> r = step(sink, engineJar, k);
            results.add(r);
            System.out.println("   " + ScaleReport.line(r));
        }
        final Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("kind", "scale");
        summary.put("run", runId);
        summary.put("command", command);
        summary.put("sink", sink.kind());
        summary.put("machine", machine);
        summary.put("load_average_at_start", load);
        summary.put("load_average_at_end", loadAverage());
        summary.put("records_per_step", records);
        summary.put("topic_refresh_ms", TOPIC_REFRESH_MS);
        summary.put("took_s", (System.nanoTime() - t0) / 1e9);
        summary.put("comparison", ScaleReport.comparison(results));
        summary.put("heap_growth_by_class", heapGrowth());
        summary.put("steps", results);
        final String text = ScaleReport.text(summary);
        Files.writeString(runDir.resolve("result.json"), mapper.writeValueAsString(summary));
        Files.writeString(runDir.resolve("result.txt"), text);
        Files.writeString(runDir.resolve("cost-curve.svg"), ScaleChart.svg(summary));
        System.out.println();
        System.out.print(text);
        final boolean ok = results.stream().allMatch(r -> Boolean.TRUE.equals(r.get("ok")));
        System.out.println(ok
            ? "OK: every step finished and every row was verified against the input."
            : "FAILED: some steps did not finish or did not verify; see above and the logs in " + runDir);
        return ok ? 0 : 1;
    }

    // ------------------------------------------------------------------------------------------------ one step

    /** What the probes saw last, and when each topic was first listed and each table first had rows. */
    private static final class Watch
    {
        final Map<String, Long> topicListed = new ConcurrentHashMap<>();
        final Map<String, Long> tableFirstRow = new ConcurrentHashMap<>();
        final AtomicLong pid = new AtomicLong(-1);
        volatile double rows;
        volatile double sinkCommitted;
        volatile double sourceCommitted;
        /** Records the step is done at: the step's records, twice that in the warm pass. */
        volatile long target;
        volatile double lagRecords = Double.NaN;
        /** The sink's {@code sluice_records_in_total}: records it read, re-reads included. */
        volatile double sinkRecordsIn = Double.NaN;
        /** The sink's {@code sluice_source_rereads_total} by cause, as last scraped. */
        volatile Map<String, Double> sinkRereads = Map.of();
        volatile String brokerError;
        volatile String databaseError;
        volatile String metricsError;
    }

    private Map<String, Object> step(final ScaleSink sink, final Path engineJar, final int k) throws Exception
    {
        final String base = "sluice-scale-" + runId + "-" + k;
        final ScaleSink.Step st = new ScaleSink.Step(k, records, base + ".users", base + ".signups",
            base + "-signups", base + "-users", "sluice_scale_" + runId.replace('-', '_') + "_" + k);
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("topics", k);
        r.put("records", records);
        r.put("input_topic", st.inputTopic());
        r.put("topic_prefix", st.topicPrefix());
        r.put("database", st.database());
        r.put("ok", false);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap)))
        {
            try
            {
                runStep(sink, engineJar, st, admin, r);
            }
            catch (final Exception e)
            {
                r.put("failure", r.getOrDefault("failure", "bench: " + e));
                System.out.println("   step failed: " + r.get("failure"));
            }
            finally
            {
                if (!keep)
                {
                    cleanup(sink, st, admin, r);
                }
            }
        }
        return r;
    }

    private void runStep(final ScaleSink sink, final Path engineJar, final ScaleSink.Step st, final Admin admin,
        final Map<String, Object> r) throws Exception
    {
        final int k = st.topics();
        try
        {
            sink.prepare(st);
        }
        catch (final Exception e)
        {
            r.put("failure", "database: preparing " + st.database() + ": " + e.getMessage());
            throw e;
        }
        final double[] ddl = sink.timeTableCreation(st, bootstrap, DDL_PROBE_TABLES);
        Arrays.sort(ddl);
        createTableSeconds = ddl[ddl.length / 2];
        r.put("create_table_s_median", createTableSeconds);
        r.put("create_table_s_max", ddl[ddl.length - 1]);
        System.out.printf(Locale.ROOT, "   %s creates a table of the step's DDL in %.3f s (median of %d)%n",
            sink.kind(),
            createTableSeconds, DDL_PROBE_TABLES);
        final long loadStart = System.nanoTime();
        load(admin, st);
        r.put("load_s", (System.nanoTime() - loadStart) / 1e9);
        final int metricsPort = freePort();
        final Path config = runDir.resolve("step-" + k + ".toml");
        // a minute for the start-up check of the broker (10 s by default): on a starved machine the broker answered
        // late and the step ended before it began ("Kafka ... did not answer within 10000 ms")
        Files.writeString(config, withMetricsListen(withEngineKey(sink.config(st, bootstrap),
            "kafka_check_timeout_ms = " + KAFKA_CHECK_TIMEOUT_MS), "127.0.0.1:" + metricsPort));
        final List<String> cmd = new ArrayList<>();
        cmd.add("java");
        cmd.addAll(Arrays.asList(jvm.trim().split("\\s+")));
        cmd.addAll(JvmProfile.requiredFlags());
        cmd.addAll(List.of("-jar", engineJar.toString(), "--config", config.toString()));
        Files.writeString(runDir.resolve("step-" + k + ".cmd"), String.join(" ", cmd) + "\n");
        final Path log = runDir.resolve("step-" + k + ".log");

        final Watch w = new Watch();
        w.target = records;
        final String topicStart = st.topicPrefix() + ".";
        final Map<String, Sampler.Probe> extra = new LinkedHashMap<>();
        final Map<String, Timed> costs = new LinkedHashMap<>();
        // the listing stamps each topic's first listing (pick-up's start): every sample until every topic is listed,
        // then no more (nothing left to stamp; the count stays the step's topics)
        final Sampler.Probe listing = timed(costs, "topics", 0, w, () ->
        {
            try
            {
                final Set<String> names = admin.listTopics().names().get(10, TimeUnit.SECONDS);
                final long now = System.nanoTime();
                int n = 0;
                for (final String t : names)
                {
                    if (t.startsWith(topicStart))
                    {
                        w.topicListed.putIfAbsent(t, now);
                        n++;
                    }
                }
                w.brokerError = null;
                return n;
            }
            catch (final Exception e)
            {
                w.brokerError = "listing topics: " + e;
                throw e;
            }
        });
        extra.put("topics", () -> w.topicListed.size() >= k ? k : listing.read());
        // the source group commits the input topic's few partitions: cheap, every sample
        extra.put("source_committed", timed(costs, "source_committed", 0, w, () ->
        {
            w.sourceCommitted = committed(admin, st.sourceGroup(), w);
            return w.sourceCommitted;
        }));
        // the engine's /metrics grows with the partitions (28 ms a scrape at 1,000): every --probe-ms, and every
        // sample once every row is written; the last scrape comes after the full GC at the end
        extra.put("heap_bytes", timed(costs, "engine_metrics", probeMillis, w, () -> scrapeHeap(metricsPort, w)));
        extra.put("engine_lag_records", () -> w.lagRecords);
        extra.put("bench_cpu_s", () -> ProcFs.cpuSeconds(ProcessHandle.current().pid()));
        extra.put("rss_bytes", () -> ProcFs.statusBytes(w.pid.get(), "VmRSS"));
        extra.put("server_rss_bytes", () -> ProcFs.treeStatusBytes(serverPid, "VmRSS"));
        // the rows per table stamp each table's first row (pick-up's end) and the last row (the window's end):
        // every sample
        final Sampler.Probe rows = timed(costs, "rows", 0, w, () ->
        {
            final long asked = System.nanoTime();
            try
            {
                final Map<String, Long> perTable = sink.rowsPerTable(st);
                final long now = asked + (System.nanoTime() - asked) / 2;
                long sum = 0;
                for (final Map.Entry<String, Long> e : perTable.entrySet())
                {
                    if (e.getValue() > 0)
                    {
                        w.tableFirstRow.putIfAbsent(e.getKey(), now);
                    }
                    sum += e.getValue();
                }
                w.databaseError = null;
                w.rows = sum;
                return sum;
            }
            catch (final Exception e)
            {
                w.databaseError = "counting rows: " + e.getMessage();
                throw e;
            }
        });
        // the sink group commits every topic's partition: an offset fetch of K partitions, every --probe-ms and every
        // sample once every row is written (the step ends when it has committed every record)
        final Sampler.Probe committed = timed(costs, "sink_committed", probeMillis, w, () ->
        {
            w.sinkCommitted = committed(admin, st.sinkGroup(), w);
            return w.sinkCommitted;
        });
        final double serverRssBefore = ProcFs.treeStatusBytes(serverPid, "VmRSS");
        final double brokerRssBefore = ProcFs.statusBytes(brokerPid, "VmRSS");
        // PostgreSQL is a postmaster and a process per connection: its CPU is the tree's
        final Sampler s = new Sampler(serverPid, sinkKind.equals("postgres"), brokerPid, rows, committed, extra,
            sampleMillis);
        final long launched = System.nanoTime();
        final Process p;
        try
        {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        catch (final IOException e)
        {
            s.close();
            throw e;
        }
        w.pid.set(p.pid());
        s.contender(p.pid());
        String failure = awaitStep(st, p, w, log, launched);
        long warmStart = Long.MIN_VALUE;
        if (failure == null && warmPass)
        {
            // the running cost of K topics: the same records again (ids records..2*records-1, the same users), into
            // topics and tables that exist, with the engine warmed up by the first pass; the bench's own producer
            // sends them inside the window (well under a second for 200,000)
            warmStart = System.nanoTime();
            w.target = 2 * records;
            produce(st, records, 2 * records);
            failure = awaitStep(st, p, w, log, warmStart);
            if (failure != null)
            {
                failure = "the warm pass: " + failure;
            }
        }
        final long finished = System.nanoTime();
        final double hwm = ProcFs.statusBytes(p.pid(), "VmHWM");
        final double cpuAtEnd = ProcFs.cpuSeconds(p.pid());
        final Map<String, Object> endLag = failure == null ? Map.of() : groupLag(admin, st);
        if (p.isAlive())
        {
            // what the engine keeps for this many topics: the heap in use right after a full collection
            r.put("heap_live_after_gc_bytes", liveHeap(p.pid(), metricsPort, w));
            r.put("rss_after_gc_bytes", ProcFs.statusBytes(p.pid(), "VmRSS"));
            // where it goes: the live objects by class (another full collection, then HotSpot's heap inspection)
            final HeapHistogram h = histogram(p.pid(), runDir.resolve("step-" + k + "-heap-histogram.txt"));
            if (h != null)
            {
                histograms.put(k, h);
                r.put("heap_histogram_total_bytes", h.totalBytes());
                r.put("heap_histogram_top", h.top(10));
            }
        }
        p.destroy(); // SIGTERM: the engine drains and commits
        final boolean exited = p.waitFor(90, TimeUnit.SECONDS);
        if (!exited)
        {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        s.close();
        r.put("exit_code", exited ? p.exitValue() : -1);
        r.put("engine_stopped_within_90_s", exited);
        r.put("ran_s", (finished - launched) / 1e9);
        r.put("engine_cpu_s", cpuAtEnd);
        r.put("engine_rss_peak_bytes", hwm);
        r.put("server_rss_before_bytes", serverRssBefore);
        r.put("server_rss_after_bytes", ProcFs.treeStatusBytes(serverPid, "VmRSS"));
        r.put("broker_rss_before_bytes", brokerRssBefore);
        r.put("broker_rss_after_bytes", ProcFs.statusBytes(brokerPid, "VmRSS"));
        if (failure != null)
        {
            r.put("failure", failure);
            r.put("lag_at_end", endLag);
            System.out.println("   step did not finish: " + failure);
            ScaleReport.tail(log, 15);
        }
        measure(r, s, w, st, launched);
        if (warmStart != Long.MIN_VALUE)
        {
            measureWarm(r, s, warmStart);
        }
        r.put("probes", probeCosts(costs, r, s, launched));
        r.put("lag_at_end", failure != null ? endLag : groupLag(admin, st));
        r.put("insert_stats", sink.insertStats(st));
        final Map<String, Object> v;
        try
        {
            v = sink.verify(st.withRecords(w.target));
        }
        catch (final Exception e)
        {
            // the step's figures stand; only its rows are unchecked (a 10,000-table read can outlast the query's
            // 5 minutes on a loaded machine)
            r.put("verified", Map.of("ok", false, "error", "database: the verification query failed: " + e));
            System.out.println("   not verified: the verification query failed: " + e);
            return;
        }
        r.put("verified", v);
        r.put("ok", failure == null && Boolean.TRUE.equals(v.get("ok")));
        if (!Boolean.TRUE.equals(v.get("ok")))
        {
            System.out.printf(Locale.ROOT, "   verification: %s rows, %s lost, %s duplicated, %s wrong%n",
                v.get("rows"),
                v.get("lost"), v.get("duplicates"), v.get("wrong"));
            for (final Object problem : (List<?>)v.get("problems"))
            {
                System.out.println("     | " + problem);
            }
        }
    }

    /**
     * Waits until the step is done: every record a row and committed by both groups. Bounded by the step timeout
     * and the stall limit.
     *
     * @return null when done, else why not, naming the side that stopped it: the broker, the database or Sluice
     */
    private String awaitStep(final ScaleSink.Step st, final Process p, final Watch w, final Path log,
        final long launched) throws InterruptedException, IOException
    {
        final long deadline = launched + TimeUnit.SECONDS.toNanos(stepTimeoutSeconds);
        String progress = "";
        long movedAt = System.nanoTime();
        while (true)
        {
            if (w.rows == w.target && w.sinkCommitted == w.target && w.sourceCommitted == w.target)
            {
                return null;
            }
            if (!p.isAlive())
            {
                final String logged = ScaleReport.lastProblem(log);
                final String side = ScaleReport.sideOf(logged);
                return (side != null ? side + " (as the engine logged it)" : "sluice")
                    + ": the engine exited with code "
                    + p.exitValue() + " before the step was done" + logged + state(st, w);
            }
            final String now = w.rows + "/" + w.sinkCommitted + "/" + w.sourceCommitted + "/" + w.topicListed.size();
            if (!now.equals(progress))
            {
                progress = now;
                movedAt = System.nanoTime();
            }
            if (System.nanoTime() - movedAt > TimeUnit.SECONDS.toNanos(stallSeconds))
            {
                return diagnose("no progress for " + stallSeconds + " s", st, w, log);
            }
            if (System.nanoTime() - deadline > 0)
            {
                return diagnose("not done within the step's " + stepTimeoutSeconds + " s", st, w, log);
            }
            Thread.sleep(Math.min(250, sampleMillis));
        }
    }

    /**
     * @return which side held the step up, from what the probes and the engine's log say: the broker (topic listing
     *     or offsets failing), the database (row counts failing, or the engine logging the server's refusals), or
     *     Sluice (routing or gathering behind with both services answering)
     */
    private String diagnose(final String what, final ScaleSink.Step st, final Watch w, final Path log)
        throws IOException
    {
        final String logged = ScaleReport.lastProblem(log);
        if (w.brokerError != null)
        {
            return "broker: " + what + "; the broker did not answer: " + w.brokerError + logged + state(st, w);
        }
        if (w.databaseError != null)
        {
            return "database: " + what + "; the database did not answer: " + w.databaseError + logged + state(st, w);
        }
        final String side = ScaleReport.sideOf(logged);
        if (side != null)
        {
            return side + ": " + what + "; the engine logged the " + side + "'s refusal or silence" + logged
                + state(st, w);
        }
        final long tablesLeft = st.topics() - w.tableFirstRow.size();
        if (w.sourceCommitted >= w.target && tablesLeft > 0 && !Double.isNaN(createTableSeconds)
            && tablesLeft * createTableSeconds > 10)
        {
            return String.format(Locale.ROOT,
                "database: %s; every record is routed but %,d tables have no rows yet, and the database takes %.2f s "
                    + "per CREATE TABLE (measured before the step), about %,.0f s for those tables as the sink creates "
                    + "them one at a time%s%s",
                what, tablesLeft, createTableSeconds, tablesLeft * createTableSeconds, logged, state(st, w));
        }
        final String behind = w.sourceCommitted < w.target
            ? "sluice (scatter: routing behind)"
            : "sluice (gather: every record routed, rows behind)";
        return behind + ": " + what + logged + state(st, w);
    }

    private String state(final ScaleSink.Step st, final Watch w)
    {
        return String.format(Locale.ROOT,
            "; state: %,d of %,d topics listed, %,.0f of %,d records routed (source committed), %,.0f committed "
                + "by the sink, %,.0f rows, %,d tables with rows",
            w.topicListed.size(), st.topics(), w.sourceCommitted, w.target, w.sinkCommitted, w.rows,
            w.tableFirstRow.size());
    }

    /** Records per step what the sampler and the watch saw. */
    private void measure(final Map<String, Object> r, final Sampler s, final Watch w, final ScaleSink.Step st,
        final long launched)
    {
        final List<Sampler.Sample> samples = s.samples();
        long firstTopic = Long.MAX_VALUE;
        long lastTopic = Long.MIN_VALUE;
        for (final long t : w.topicListed.values())
        {
            firstTopic = Math.min(firstTopic, t);
            lastTopic = Math.max(lastTopic, t);
        }
        final long lastRow = s.lastRowNanos(records);
        r.put("topics_listed", w.topicListed.size());
        r.put("tables_with_rows", w.tableFirstRow.size());
        if (firstTopic != Long.MAX_VALUE)
        {
            r.put("first_topic_after_launch_s", (firstTopic - launched) / 1e9);
            r.put("topics_listed_over_s", (lastTopic - firstTopic) / 1e9);
        }
        if (firstTopic != Long.MAX_VALUE && lastRow != Long.MIN_VALUE && lastRow > firstTopic)
        {
            final double window = (lastRow - firstTopic) / 1e9;
            r.put("window_s", window);
            r.put("records_per_s", records / window);
            r.put("topics_per_s", st.topics() / window);
            r.put("launch_to_last_row_s", (lastRow - launched) / 1e9);
            r.put("engine_cpu_window_s", s.at(Sampler.Sample::contenderCpu, lastRow)
                - s.at(Sampler.Sample::contenderCpu, firstTopic));
            r.put("engine_cpu_us_per_record", (double)r.get("engine_cpu_window_s") / records * 1e6);
            r.put("engine_cpu_us_per_record_with_start", s.at(Sampler.Sample::contenderCpu, lastRow) / records * 1e6);
            r.put("server_cpu_us_per_record", (s.at(Sampler.Sample::clickhouseCpu, lastRow)
                - s.at(Sampler.Sample::clickhouseCpu, firstTopic)) / records * 1e6);
            r.put("broker_cpu_us_per_record", (s.at(Sampler.Sample::brokerCpu, lastRow)
                - s.at(Sampler.Sample::brokerCpu, firstTopic)) / records * 1e6);
            r.put("engine_threads_cpu_us_per_record", topThreads(s, firstTopic, lastRow));
        }
        double heapMax = Double.NaN;
        double rssMax = Double.NaN;
        double lagMax = Double.NaN;
        double lagSum = 0;
        int lagN = 0;
        double engineLagMax = Double.NaN;
        double serverRssMax = Double.NaN;
        for (final Sampler.Sample x : samples)
        {
            serverRssMax = max(serverRssMax, x.extra().getOrDefault("server_rss_bytes", Double.NaN));
            heapMax = max(heapMax, x.extra().getOrDefault("heap_bytes", Double.NaN));
            rssMax = max(rssMax, x.extra().getOrDefault("rss_bytes", Double.NaN));
            engineLagMax = max(engineLagMax, x.extra().getOrDefault("engine_lag_records", Double.NaN));
            final double lag = x.extra().getOrDefault("source_committed", Double.NaN) - x.committed();
            if (!Double.isNaN(lag))
            {
                lagMax = max(lagMax, lag);
                lagSum += lag;
                lagN++;
            }
        }
        r.put("heap_max_bytes", heapMax);
        r.put("rss_max_bytes", rssMax);
        // the server's processes (PostgreSQL: the postmaster and every backend) at their most during the step: the
        // engine's backends, which hold the tables' catalog caches, end with it, so the RSS after the step misses them
        r.put("server_rss_max_bytes", serverRssMax);
        r.put("sink_lag_records_max", lagMax);
        r.put("sink_lag_records_mean", lagN == 0 ? Double.NaN : lagSum / lagN);
        r.put("engine_checkpoint_lag_records_max", engineLagMax);
        // records the sink read per record: a partition read again (a record waiting for its new table, a failed
        // insert) reads its records again (sluice_records_in_total counts them each time)
        r.put("sink_records_read", w.sinkRecordsIn);
        r.put("sink_reads_per_record", w.sinkRecordsIn / w.target);
        r.put("sink_rereads_by_cause", new TreeMap<>(w.sinkRereads));
        final Map<String, Long> pickUp = new TreeMap<>();
        for (final Map.Entry<String, Long> e : w.topicListed.entrySet())
        {
            final String user = e.getKey().substring(e.getKey().lastIndexOf('.') + 1);
            final Long row = w.tableFirstRow.get("user_" + user);
            if (row != null)
            {
                pickUp.put(e.getKey(), TimeUnit.NANOSECONDS.toMillis(row - e.getValue()));
            }
        }
        r.put("pick_up_ms", ScaleReport.distribution(pickUp.values()));
        r.put("pick_up_measured_topics", pickUp.size());
        r.put("pick_up_within_topic_refresh_ms",
            pickUp.values().stream().filter(ms -> ms <= TOPIC_REFRESH_MS).count());
        final Map<String, List<Double>> series = new LinkedHashMap<>(s.columns(launched));
        for (final String key : List.of("topics", "source_committed", "heap_bytes", "rss_bytes",
            "engine_lag_records", "server_rss_bytes"))
        {
            final List<Double> col = new ArrayList<>();
            for (final Sampler.Sample x : samples)
            {
                col.add(x.extra().getOrDefault(key, Double.NaN));
            }
            series.put(key, col);
        }
        r.put("samples", series);
        r.put("sample_interval_s", sampleMillis / 1e3);
        if (w.metricsError != null)
        {
            r.put("metrics_error", w.metricsError);
        }
    }

    /**
     * The warm pass on its own: from the moment the bench began sending the second {@code records} to the moment
     * every row of both passes was visible; the CPU of Sluice, the database server and the broker over it.
     */
    private void measureWarm(final Map<String, Object> r, final Sampler s, final long warmStart)
    {
        final long end = s.lastRowNanos(2.0 * records);
        if (end == Long.MIN_VALUE || end <= warmStart)
        {
            return;
        }
        final double window = (end - warmStart) / 1e9;
        r.put("warm_window_s", window);
        r.put("warm_records_per_s", records / window);
        r.put("warm_engine_cpu_us_per_record", (s.at(Sampler.Sample::contenderCpu, end)
            - s.at(Sampler.Sample::contenderCpu, warmStart)) / records * 1e6);
        r.put("warm_server_cpu_us_per_record", (s.at(Sampler.Sample::clickhouseCpu, end)
            - s.at(Sampler.Sample::clickhouseCpu, warmStart)) / records * 1e6);
        r.put("warm_broker_cpu_us_per_record", (s.at(Sampler.Sample::brokerCpu, end)
            - s.at(Sampler.Sample::brokerCpu, warmStart)) / records * 1e6);
        r.put("warm_engine_threads_cpu_us_per_record", topThreads(s, warmStart, end));
    }

    /** @return the engine's ten busiest threads between two moments, in us of CPU per record of a pass */
    private Map<String, Double> topThreads(final Sampler s, final long from, final long to)
    {
        final Map<String, Double> top = new LinkedHashMap<>();
        s.threadsBetween(Sampler.Sample::contenderThreads, from, to).entrySet().stream()
            .sorted((a, b) -> Double.compare(b.getValue(), a.getValue())).limit(10)
            .forEach(e -> top.put(e.getKey(), e.getValue() / records * 1e6));
        return top;
    }

    private static double max(final double a, final double b)
    {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    // ------------------------------------------------------------------------------------------------ Kafka

    /** Creates the step's input topic and loads it: record i is {@code {"id":i,"user_id":"<i % k>","event":"e<i>"}}. */
    private void load(final Admin admin, final ScaleSink.Step st) throws Exception
    {
        admin.createTopics(List.of(new NewTopic(st.inputTopic(), inputPartitions, (short)-1))).all()
            .get(60, TimeUnit.SECONDS);
        produce(st, 0, records);
        final Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < inputPartitions; p++)
        {
            latest.put(new TopicPartition(st.inputTopic(), p), OffsetSpec.latest());
        }
        long n = 0;
        for (final var e : admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).values())
        {
            n += e.offset();
        }
        if (n != records)
        {
            throw new IllegalStateException("broker: input topic " + st.inputTopic() + " holds " + n
                + " records after loading, not " + records);
        }
    }

    /** Sends records {@code from} to {@code to - 1} into the step's input topic (record i to partition i mod P). */
    private void produce(final ScaleSink.Step st, final long from, final long to)
    {
        final Map<String, Object> props = new LinkedHashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer()))
        {
            for (long i = from; i < to; i++)
            {
                producer.send(new ProducerRecord<>(st.inputTopic(), (int)(i % inputPartitions), null,
                    ("{\"id\":" + i + ",\"user_id\":\"" + (i % st.topics()) + "\",\"event\":\"e" + i + "\"}")
                        .getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /**
     * @param w where a failure is noted as the broker's
     * @return the records {@code group} has committed, over every partition (offsets from 0)
     */
    private static double committed(final Admin admin, final String group, final Watch w) throws Exception
    {
        try
        {
            final double n = committed(admin, group);
            w.brokerError = null;
            return n;
        }
        catch (final Exception e)
        {
            w.brokerError = "committed offsets of " + group + ": " + e;
            throw e;
        }
    }

    /** @return the records {@code group} has committed, over every partition (offsets from 0) */
    private static double committed(final Admin admin, final String group) throws Exception
    {
        long n = 0;
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).entrySet())
        {
            if (e.getValue() != null)
            {
                n += e.getValue().offset();
            }
        }
        return n;
    }

    /** @return both groups' lag now: end offsets minus committed offsets, summed over their topics' partitions */
    private Map<String, Object> groupLag(final Admin admin, final ScaleSink.Step st)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        try
        {
            final Set<String> topics = new java.util.TreeSet<>();
            for (final String t : admin.listTopics().names().get(30, TimeUnit.SECONDS))
            {
                if (t.startsWith(st.topicPrefix() + "."))
                {
                    topics.add(t);
                }
            }
            final Map<TopicPartition, OffsetSpec> ends = new LinkedHashMap<>();
            for (final var d : admin.describeTopics(topics).allTopicNames().get(60, TimeUnit.SECONDS).values())
            {
                d.partitions().forEach(p -> ends.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            long end = 0;
            for (final var e : admin.listOffsets(ends).all().get(60, TimeUnit.SECONDS).values())
            {
                end += e.offset();
            }
            final double sinkCommitted = committed(admin, st.sinkGroup());
            m.put("sink_topics", topics.size());
            m.put("sink_end_offsets", end);
            m.put("sink_lag_records", end - sinkCommitted);
            m.put("source_lag_records", records - committed(admin, st.sourceGroup()));
        }
        catch (final Exception e)
        {
            m.put("error", "broker: " + e);
        }
        return m;
    }

    private void cleanup(final ScaleSink sink, final ScaleSink.Step st, final Admin admin,
        final Map<String, Object> r)
    {
        final Map<String, Object> c = new LinkedHashMap<>();
        try
        {
            c.put("drop_database_s", sink.cleanup(st));
        }
        catch (final Exception e)
        {
            c.put("drop_database_error", e.toString());
        }
        final long t = System.nanoTime();
        try
        {
            final List<String> topics = new ArrayList<>();
            for (final String name : admin.listTopics().names().get(30, TimeUnit.SECONDS))
            {
                if (name.startsWith(st.topicPrefix() + ".") || name.equals(st.inputTopic()))
                {
                    topics.add(name);
                }
            }
            for (int i = 0; i < topics.size(); i += TOPIC_DELETE_CHUNK)
            {
                admin.deleteTopics(topics.subList(i, Math.min(topics.size(), i + TOPIC_DELETE_CHUNK))).all()
                    .get(120, TimeUnit.SECONDS);
            }
            c.put("topics_deleted", topics.size());
            c.put("delete_topics_s", (System.nanoTime() - t) / 1e9);
            admin.deleteConsumerGroups(List.of(st.sourceGroup(), st.sinkGroup())).all().get(30, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            c.put("delete_error", e.toString());
        }
        r.put("cleanup", c);
    }

    // ------------------------------------------------------------------------------------------------ engine

    /**
     * Scrapes the engine's endpoint: heap in use (returned) and the sink's checkpoint lag (kept in the watch):
     * {@code sluice_checkpoint_lag_records} summed over its partitions.
     */
    private double scrapeHeap(final int port, final Watch w) throws IOException, InterruptedException
    {
        final HttpResponse<String> resp;
        try
        {
            resp = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (final IOException e)
        {
            w.metricsError = e.toString(); // not listening yet, or gone
            return Double.NaN;
        }
        double heap = Double.NaN;
        double lag = Double.NaN;
        double in = Double.NaN;
        final Map<String, Double> rereads = new TreeMap<>();
        final String ofSink = "pipeline=\"" + SINK + "\"";
        for (final String line : resp.body().split("\n"))
        {
            if (line.startsWith("sluice_records_in_total{") && line.contains(ofSink))
            {
                in = (Double.isNaN(in) ? 0 : in) + value(line);
            }
            else if (line.startsWith("sluice_source_rereads_total{") && line.contains(ofSink)
                && line.contains("cause=\""))
            {
                final int from = line.indexOf("cause=\"") + 7;
                rereads.merge(line.substring(from, line.indexOf('"', from)), value(line), Double::sum);
            }
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\""))
            {
                heap = (Double.isNaN(heap) ? 0 : heap) + value(line);
            }
            else if (line.startsWith("sluice_checkpoint_lag_records{") && line.contains("pipeline=\"" + SINK + "\""))
            {
                lag = (Double.isNaN(lag) ? 0 : lag) + value(line);
            }
        }
        w.lagRecords = lag;
        if (!Double.isNaN(in))
        {
            w.sinkRecordsIn = in;
            w.sinkRereads = rereads;
        }
        return heap;
    }

    /**
     * @return the engine's heap in use right after a full collection ({@code jcmd PID GC.run}, then its endpoint
     *     scraped), NaN if the JDK's jcmd is missing or the engine does not answer within 60 s
     */
    private double liveHeap(final long pid, final int port, final Watch w)
    {
        try
        {
            final Process gc = new ProcessBuilder("jcmd", String.valueOf(pid), "GC.run").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!gc.waitFor(60, TimeUnit.SECONDS))
            {
                gc.destroyForcibly();
                return Double.NaN;
            }
            return gc.exitValue() == 0 ? scrapeHeap(port, w) : Double.NaN;
        }
        catch (final IOException e)
        {
            return Double.NaN;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    /**
     * Runs {@code jcmd PID GC.class_histogram} and writes its output to {@code file}.
     *
     * @return the histogram, null if jcmd is missing, fails or does not answer within 120 s
     */
    private static HeapHistogram histogram(final long pid, final Path file)
    {
        try
        {
            final Process jcmd = new ProcessBuilder("jcmd", String.valueOf(pid), "GC.class_histogram")
                .redirectErrorStream(true).redirectOutput(file.toFile()).start();
            if (!jcmd.waitFor(120, TimeUnit.SECONDS))
            {
                jcmd.destroyForcibly();
                return null;
            }
            final HeapHistogram h = HeapHistogram.parse(Files.readString(file));
            return jcmd.exitValue() == 0 && !h.classes().isEmpty() ? h : null;
        }
        catch (final IOException e)
        {
            return null;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * @return per step with a histogram after the smallest such step: the classes that grew the most, in bytes and
     *     instances per extra topic against that step (empty when fewer than two steps have a histogram)
     */
    private Map<String, Object> heapGrowth()
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        if (histograms.size() < 2)
        {
            return m;
        }
        final int base = histograms.keySet().iterator().next();
        m.put("base_topics", base);
        for (final Map.Entry<Integer, HeapHistogram> e : histograms.entrySet())
        {
            if (e.getKey() == base)
            {
                continue;
            }
            final List<Map<String, Object>> rows = new ArrayList<>();
            for (final HeapHistogram.Growth g : HeapHistogram.growth(histograms.get(base), base, e.getValue(),
                e.getKey(), 20))
            {
                final Map<String, Object> row = new LinkedHashMap<>();
                row.put("class", g.name());
                row.put("bytes_per_extra_topic", g.bytesPerTopic());
                row.put("instances_per_extra_topic", g.instancesPerTopic());
                row.put("bytes_base", g.bytesSmall());
                row.put("bytes", g.bytesLarge());
                rows.add(row);
            }
            final Map<String, Object> step = new LinkedHashMap<>();
            step.put("total_bytes_per_extra_topic", (double)(e.getValue().totalBytes() - histograms.get(base)
                .totalBytes()) / (e.getKey() - base));
            step.put("top_classes", rows);
            m.put(String.valueOf(e.getKey()), step);
        }
        return m;
    }

    /**
     * A probe's cost: the calls made and the time they took (the sampling thread's wall time); a probe with a period
     * runs at most once per period until the step's last row is written, then at every sample. Used by the sampling
     * thread only, read after it has stopped.
     */
    private static final class Timed implements Sampler.Probe
    {
        private final long periodNanos;
        private final Watch watch;
        private final Sampler.Probe probe;
        private long last = Long.MIN_VALUE;
        long calls;
        long nanos;
        long maxNanos;

        Timed(final long periodMillis, final Watch watch, final Sampler.Probe probe)
        {
            this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
            this.watch = watch;
            this.probe = probe;
        }

        @Override
        public double read() throws Exception
        {
            final long start = System.nanoTime();
            if (last != Long.MIN_VALUE && start - last < periodNanos && watch.rows < watch.target)
            {
                return Double.NaN; // not due: the sample has no value of it
            }
            last = start;
            try
            {
                return probe.read();
            }
            finally
            {
                final long took = System.nanoTime() - start;
                calls++;
                nanos += took;
                maxNanos = Math.max(maxNanos, took);
            }
        }
    }

    private Timed timed(final Map<String, Timed> costs, final String name, final long periodMillis, final Watch w,
        final Sampler.Probe p)
    {
        final Timed t = new Timed(periodMillis, w, p);
        costs.put(name, t);
        return t;
    }

    /**
     * @return per probe: its period, calls, time per call (mean and most) and its share of the step's time; the
     *     sampling thread's time in all the probes per second; the bench's own process CPU per second and per
     *     record over the window; the engine's CPU per {@code /metrics} scrape (its {@code prometheus-http}
     *     threads over the step ÷ the scrapes)
     */
    private Map<String, Object> probeCosts(final Map<String, Timed> costs, final Map<String, Object> r,
        final Sampler s, final long launched)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        final List<Sampler.Sample> samples = s.samples();
        final double ranSeconds = (samples.get(samples.size() - 1).nanos() - launched) / 1e9;
        long all = 0;
        for (final Map.Entry<String, Timed> e : costs.entrySet())
        {
            final Timed t = e.getValue();
            final Map<String, Object> c = new LinkedHashMap<>();
            c.put("period_ms", t.periodNanos == 0 ? sampleMillis : TimeUnit.NANOSECONDS.toMillis(t.periodNanos));
            c.put("calls", t.calls);
            c.put("ms_per_call", t.calls == 0 ? Double.NaN : t.nanos / 1e6 / t.calls);
            c.put("ms_max", t.maxNanos / 1e6);
            c.put("ms_per_s", t.nanos / 1e6 / ranSeconds);
            m.put(e.getKey(), c);
            all += t.nanos;
        }
        m.put("probes_ms_per_s", all / 1e6 / ranSeconds);
        m.put("samples", samples.size());
        final double benchCpu = samples.get(samples.size() - 1).extra().getOrDefault("bench_cpu_s", Double.NaN)
            - samples.get(0).extra().getOrDefault("bench_cpu_s", Double.NaN);
        m.put("bench_cpu_ms_per_s", benchCpu * 1e3 / ranSeconds);
        final Map<String, Double> threads = s.threadsBetween(Sampler.Sample::contenderThreads, launched,
            samples.get(samples.size() - 1).nanos());
        final double http = threads.getOrDefault("prometheus-http", Double.NaN);
        final Timed scrapes = costs.get("engine_metrics");
        m.put("engine_cpu_ms_per_metrics_scrape", scrapes == null || scrapes.calls == 0
            ? Double.NaN
            : http * 1e3 / (scrapes.calls + 1)); // + the scrape after the full GC
        return m;
    }

    private static double value(final String line)
    {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    /**
     * The configuration with {@code metrics.listen} set: in the example's {@code [metrics]} table when it has one
     * (TOML allows a table once), else in a new one at the end.
     *
     * @param toml   a configuration
     * @param listen {@code host:port}
     * @return the configuration serving /metrics there
     */
    static String withMetricsListen(final String toml, final String listen)
    {
        final String line = "listen = \"" + listen + "\"\n";
        final int at = toml.indexOf("\n[metrics]\n");
        return at >= 0
            ? toml.substring(0, at + "\n[metrics]\n".length()) + line + toml.substring(at + "\n[metrics]\n".length())
            : toml + "\n[metrics]\n" + line;
    }

    /**
     * Adds a key to the {@code [engine]} table of a configuration: into the table the example has (a TOML table may
     * appear once), or as a new table at the end.
     *
     * @param toml the configuration
     * @param line the key and its value, {@code key = value}
     * @return the configuration with the key
     */
    static String withEngineKey(final String toml, final String line)
    {
        return toml.contains("\n[engine]\n")
            ? toml.replace("\n[engine]\n", "\n[engine]\n" + line + "\n")
            : toml + "\n[engine]\n" + line + "\n";
    }

    private static int freePort() throws IOException
    {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    private static String loadAverage()
    {
        try
        {
            final String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        }
        catch (final IOException | RuntimeException e)
        {
            return "?";
        }
    }
}
