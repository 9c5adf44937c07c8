package io.sluice.bench.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.GZIPInputStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.sluice.core.config.ConfigLoader;
import io.sluice.tuning.JvmProfile;

/**
 * The end-to-end benchmark run behind {@code scripts/bench.sh}: on the local Kafka and ClickHouse, the real GitHub
 * events of {@code examples/data} replicated (distinct ids) into one topic of 4 partitions, it measures side by side,
 * in the same run:
 * <ol>
 *   <li>the limits of this machine for this data: {@link ConsumerLimit} (Kafka's consumer alone) and
 *       {@link ClickHouseLimit} (ClickHouse ingesting Sluice's RowBinary rows over HTTP, nothing in between);</li>
 *   <li>the plain baseline, {@link PlainConsumer};</li>
 *   <li>Sluice, {@code java -jar engine.jar bench} (the engine's {@code --until-caught-up} run, measured);</li>
 *   <li>{@code kafka-engine}: ClickHouse's own Kafka table engine with one MATERIALIZED VIEW per table
 *       ({@link KafkaEngine}), the peer the seed's split is measured against;</li>
 * </ol>
 * each as its own JVM (the Kafka engine inside the ClickHouse server), rounds of limits, baseline, Sluice and the
 * Kafka engine (A B A B …), fresh tables and a fresh consumer group per run, every row verified against the input
 * after every run ({@link RowVerifier}). Throughput, CPU, memory, GC and allocation come from draining the pre-loaded
 * topic, the CPU of the ClickHouse server and of the broker (found by their listening ports) and per thread from a
 * {@link Sampler} over each contender's window, the parts each run created from {@code system.parts}; latency comes
 * from a second, paced run per JVM contender in which records are produced live at a fixed rate (a pre-loaded
 * record's Kafka timestamp says when it was loaded, not when it became available). Prints a table of medians and the
 * ratios, and writes everything as JSON under {@code --out}.
 *
 * <p>With {@code --sink postgres} the same events go into the eight tables of examples/github-events-postgres.sql in
 * PostgreSQL (schema {@code --database} of the database of {@code --postgres}; password from PGPASSWORD), the
 * contenders being {@link BenchReport#POSTGRES_CONTENDERS}: {@code copy-limit} ({@link ClickHouseLimit} over the
 * PostgreSQL sink: its binary COPY rows, nothing in between), the baseline ({@link PlainConsumer} with pgJDBC batched
 * INSERTs), {@code kafka-connect} ({@link KafkaConnect}), Sluice and Sluice with {@code delivery = "exactly_once"}
 * ({@code sluice-exactly-once}: rows and source positions in one transaction per batch); the server's CPU is the postmaster's and its
 * backends' ({@link ProcFs#treeCpuSeconds}), the WAL each run wrote comes from {@code pg_current_wal_lsn()}, and
 * the figures go to {@code latest-postgres.json} and {@code e2e-postgres-<time>/}.
 */
public final class BenchRun
{
    private static final long ID_STEP = 10_000_000_000L;
    private static final List<String> TABLES = BenchReport.TABLES;
    static final String CONTENDER_JVM = "-Xms512m -Xmx2g -XX:+UseG1GC";
    private static final List<String> CONTENDERS = BenchReport.CONTENDERS;
    /** kafka_max_block_size of the kafka-engine contender: 18.16's default (max_block_size). */
    private static final int KAFKA_ENGINE_BLOCK_SIZE = 65536;
    /** How long the Kafka engine may take to write its last rows once its group is committed to the end. */
    private static final long KAFKA_ENGINE_GRACE_MS = 10_000;
    /**
     * Rows per insert at most in the drain runs: Sluice's default max_rows, about the Kafka engine's block
     * (kafka_max_block_size 65536) and within ClickHouse's advice of 10,000 to 100,000 rows per insert.
     */
    static final int DRAIN_MAX_ROWS = 100_000;
    /** Bytes per insert at most in the drain runs (32 MiB: 100,000 of the widest rows fit). */
    static final long DRAIN_MAX_BYTES = 32L << 20;
    /**
     * How long a drain run's batch may wait for rows (ms): the rare tables fill their batches only this way. The
     * Kafka engine flushes every stream_flush_interval_ms (7,500 by default); ClickHouse advises about one insert per
     * second per table at most.
     */
    static final long DRAIN_LINGER_MS = 5_000;
    /**
     * The drain runs' linger_ms with --sink postgres. copy-limit cuts its COPYs on max_rows and max_bytes only and
     * kafka-connect writes what each poll returned, so a 5 s time cut for Sluice and the baseline alone gave them
     * smaller batches than copy-limit's for the same data (4,167 rows per COPY against 12,500 in a --quick run under
     * load, where a drain lasts a few linger periods). 60 s cuts no batch of a --quick drain and stays under half the
     * example's stalled_fail_after_ms (120 s): a batch held open longer holds its partitions' checkpoint that long.
     */
    static final long POSTGRES_DRAIN_LINGER_MS = 60_000;

    private final ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    // options
    private long records = 1_000_000;
    private int rounds = 3;
    private int partitions = 4;
    private String bootstrap = "127.0.0.1:19092";
    private String clickhouse = "http://127.0.0.1:18123";
    private Path root = Path.of(".").toAbsolutePath().normalize();
    private Path out;
    private String topic;
    private String database = "sluice_bench";
    private String contenderJvm = CONTENDER_JVM;
    private double liveRate = 2000;
    private double liveSeconds = 10;
    private double liveWarmupSeconds = 5;
    private boolean reload;
    private boolean quick;
    private String command = "scripts/bench.sh";
    private List<String> contenders = CONTENDERS;
    private int kafkaEngineBlockSize = KAFKA_ENGINE_BLOCK_SIZE;
    private int kafkaEngineConsumers = 1;
    private List<Integer> batchSweep = List.of();
    private long sampleMillis = 200;
    private boolean jfr;
    private int drainMaxRows = DRAIN_MAX_ROWS;
    private long drainMaxBytes = DRAIN_MAX_BYTES;
    private long drainLingerMs = -1;

    private Path engineJar;
    private Path benchJar;
    private Path runDir;
    private String runId;
    private List<byte[]> sample;
    private long topicBytes;
    private final List<Map<String, Object>> runs = new ArrayList<>();
    private final List<Map<String, Object>> sweep = new ArrayList<>();
    private RowVerifier verifier;
    private long clickhousePid = -1;
    private long brokerPid = -1;
    /** "clickhouse" or "postgres". */
    private String sink = "clickhouse";
    private String postgres = "jdbc:postgresql://127.0.0.1:15432/sluice";
    private java.sql.Connection pg;
    private boolean contendersSet;
    /** The sampler of a drain run's second launch, if it had one. */
    private Sampler putContenderWindowLater;

    /**
     * @param args see {@link #usage()}
     */
    public static void main(final String[] args) throws Exception
    {
        final BenchRun b = new BenchRun();
        try
        {
            b.parse(args);
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println("error: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
        }
        System.exit(b.run());
    }

    static String usage()
    {
        return String.join("\n",
            "usage: BenchRun [--quick] [--records N] [--rounds R] [--partitions P] [--bootstrap-servers H:P]",
            "                [--clickhouse URL] [--root DIR] [--out DIR] [--topic T] [--database D] [--reload]",
            "                [--live-rate R] [--live-seconds S] [--live-warmup-seconds W] [--jvm-opts \"...\"]",
            "                [--contenders A,B,...] [--kafka-engine-block-size N] [--kafka-engine-consumers N]",
            "                [--batch-sweep N,N,...] [--sample-ms MS] [--jfr] [--max-rows N] [--max-bytes N]",
            "                [--linger-ms MS] [--sink clickhouse|postgres] [--postgres JDBC_URL]",
            "  --sink S         clickhouse (default) or postgres: contenders " + String.join(",",
                BenchReport.POSTGRES_CONTENDERS) + " into PostgreSQL",
            "  --postgres URL   the PostgreSQL database (default jdbc:postgresql://127.0.0.1:15432/sluice; user sluice,",
            "                   password from PGPASSWORD); the tables go in schema --database",
            "  --quick          100,000 records, 1 round, a live phase of 3 s warm-up + 5 s at 2,000 records/s",
            "  --records N      records in the topic (default 1,000,000; the 8,502-event sample repeated with distinct ids)",
            "  --rounds R       rounds of limits, baseline, Sluice, kafka-engine (default 3)",
            "  --contenders L   which to run, in this order (default " + String.join(",", CONTENDERS) + ")",
            "  --kafka-engine-block-size N  kafka_max_block_size of the kafka-engine contender (default "
                + KAFKA_ENGINE_BLOCK_SIZE + ")",
            "  --kafka-engine-consumers N   kafka_num_consumers of the kafka-engine contender (default 1)",
            "  --batch-sweep L  after the rounds, clickhouse-limit (copy-limit with --sink postgres) once per rows-per-insert",
            "                   of L (e.g. 1000,20000,100000): the server's CPU per row against batch size",
            "  --sample-ms MS   how often the services' CPU, the rows and the offsets are sampled (default 200)",
            "  --jfr            record Sluice's drain runs with Flight Recorder: allocation per record by Sluice class",
            "                   (first io.sluice frame), CPU samples per thread and per part of the source thread, JIT,",
            "                   between 20% and 80% of the rows (JfrProfile; the .jfr stays in the run's directory)",
            "  --live-rate R    records/s of the paced latency phase (default 2000; 0 skips the phase)",
            "  --live-seconds S length of the latency phase (default 10)",
            "  --live-warmup-seconds W  records produced first at the same rate and left out of the percentiles (default 5)",
            "  --reload         reload the topic even if it already holds exactly N records",
            "  --jvm-opts \"..\"  JVM options of both contenders (default \"" + CONTENDER_JVM + "\")",
            "  --max-rows N     max_rows of the drain runs (baseline, Sluice, clickhouse-limit; default "
                + DRAIN_MAX_ROWS
                + ")",
            "  --max-bytes N    max_bytes of the drain runs (default " + DRAIN_MAX_BYTES + ")",
            "  --linger-ms MS   linger_ms of the drain runs (default " + DRAIN_LINGER_MS + ", --sink postgres "
                + POSTGRES_DRAIN_LINGER_MS + ": cut on max_rows/max_bytes only, as copy-limit; the live phase keeps "
                + "the example's 1000)");
    }

    private void parse(final String[] args)
    {
        boolean recordsSet = false;
        boolean roundsSet = false;
        boolean liveSet = false;
        for (int i = 0; i < args.length; i++)
        {
            final String a = args[i];
            final int at = i;
            final java.util.function.Supplier<String> value = () ->
            {
                if (at + 1 >= args.length)
                {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                return args[at + 1];
            };
            switch (a)
            {
                case "--quick" -> quick = true;
                case "--reload" -> reload = true;
                case "--records" -> {
                    records = Long.parseLong(value.get().replace("_", "").replace(",", ""));
                    recordsSet = true;
                    i++;
                }
                case "--rounds" -> {
                    rounds = Integer.parseInt(value.get());
                    roundsSet = true;
                    i++;
                }
                case "--partitions" -> {
                    partitions = Integer.parseInt(value.get());
                    i++;
                }
                case "--bootstrap-servers" -> {
                    bootstrap = value.get();
                    i++;
                }
                case "--clickhouse" -> {
                    clickhouse = value.get();
                    i++;
                }
                case "--root" -> {
                    root = Path.of(value.get()).toAbsolutePath().normalize();
                    i++;
                }
                case "--out" -> {
                    out = Path.of(value.get()).toAbsolutePath();
                    i++;
                }
                case "--topic" -> {
                    topic = value.get();
                    i++;
                }
                case "--database" -> {
                    database = value.get();
                    i++;
                }
                case "--live-rate" -> {
                    liveRate = Double.parseDouble(value.get());
                    liveSet = true;
                    i++;
                }
                case "--live-seconds" -> {
                    liveSeconds = Double.parseDouble(value.get());
                    liveSet = true;
                    i++;
                }
                case "--live-warmup-seconds" -> {
                    liveWarmupSeconds = Double.parseDouble(value.get());
                    i++;
                }
                case "--jvm-opts" -> {
                    contenderJvm = value.get();
                    i++;
                }
                case "--command" -> {
                    command = value.get();
                    i++;
                }
                case "--contenders" -> {
                    contenders = List.of(value.get().split(","));
                    contendersSet = true;
                    i++;
                }
                case "--sink" -> {
                    sink = value.get();
                    if (!sink.equals("clickhouse") && !sink.equals("postgres"))
                    {
                        throw new IllegalArgumentException("--sink is clickhouse or postgres, not " + sink);
                    }
                    i++;
                }
                case "--postgres" -> {
                    postgres = value.get();
                    i++;
                }
                case "--kafka-engine-block-size" -> {
                    kafkaEngineBlockSize = Integer.parseInt(value.get());
                    i++;
                }
                case "--kafka-engine-consumers" -> {
                    kafkaEngineConsumers = Integer.parseInt(value.get());
                    i++;
                }
                case "--batch-sweep" -> {
                    final List<Integer> sizes = new ArrayList<>();
                    for (final String n : value.get().split(","))
                    {
                        sizes.add(Integer.parseInt(n.strip().replace("_", "")));
                    }
                    batchSweep = List.copyOf(sizes);
                    i++;
                }
                case "--jfr" -> jfr = true;
                case "--max-rows" -> {
                    drainMaxRows = Integer.parseInt(value.get().replace("_", ""));
                    i++;
                }
                case "--max-bytes" -> {
                    drainMaxBytes = Long.parseLong(value.get().replace("_", ""));
                    i++;
                }
                case "--linger-ms" -> {
                    drainLingerMs = Long.parseLong(value.get().replace("_", ""));
                    i++;
                }
                case "--sample-ms" -> {
                    sampleMillis = Long.parseLong(value.get());
                    i++;
                }
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        final List<String> known = postgres() ? BenchReport.POSTGRES_CONTENDERS : CONTENDERS;
        if (drainLingerMs < 0)
        {
            drainLingerMs = postgres() ? POSTGRES_DRAIN_LINGER_MS : DRAIN_LINGER_MS;
        }
        if (!contendersSet)
        {
            contenders = known;
        }
        for (final String c : contenders)
        {
            if (!known.contains(c))
            {
                throw new IllegalArgumentException("unknown contender " + c + " (known: " + known + ")");
            }
        }
        if (quick)
        {
            if (!recordsSet)
            {
                records = 100_000;
            }
            if (!roundsSet)
            {
                rounds = 1;
            }
            if (!liveSet)
            {
                liveRate = 2000;
                liveSeconds = 5;
                liveWarmupSeconds = 3;
            }
        }
        if (topic == null)
        {
            topic = "sluice-bench.events-" + records; // --quick and the full run keep their own topics
        }
        if (records < 1 || rounds < 1 || partitions < 1 || kafkaEngineBlockSize < 1 || kafkaEngineConsumers < 1
            || sampleMillis < 10)
        {
            throw new IllegalArgumentException("--records, --rounds, --partitions, --kafka-engine-block-size and "
                + "--kafka-engine-consumers must be positive, --sample-ms at least 10");
        }
        for (final int n : batchSweep)
        {
            if (n < 1)
            {
                throw new IllegalArgumentException("--batch-sweep sizes must be positive");
            }
        }
    }

    private boolean postgres()
    {
        return sink.equals("postgres");
    }

    private int run() throws Exception
    {
        engineJar = root.resolve("engine/target/engine.jar");
        benchJar = root.resolve("bench/target/benchmarks.jar");
        for (final Path p : List.of(engineJar, benchJar))
        {
            if (!Files.isRegularFile(p))
            {
                throw new IllegalStateException(
                    p + " is missing: build first (mvn -DskipTests package -pl engine,bench -am)");
            }
        }
        if (out == null)
        {
            out = root.resolve("bench/results");
        }
        runId = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(ZonedDateTime.now(ZoneOffset.UTC));
        runDir = out.resolve((postgres() ? "e2e-postgres-" : "e2e-") + runId);
        Files.createDirectories(runDir);
        sample = readSample(root.resolve("examples/data/github-events.jsonl.gz"));
        final Map<String, Object> machine = machine();
        System.out.printf(Locale.ROOT,
            "== Sluice end-to-end benchmark %s%n   machine: %s%n   command: %s%n   %,d records x %d round(s), topic %s (%d partitions), database %s; logs and JSON in %s%n",
            runId, machine.get("summary"), command, records, rounds, topic, partitions, database, runDir);
        System.out.printf(Locale.ROOT,
            "   drain batching: max_rows %,d, max_bytes %,d, linger_ms %,d (the live phase: the"
                + " example's)%n",
            drainMaxRows, drainMaxBytes, drainLingerMs);

        if (postgres())
        {
            pg = java.sql.DriverManager.getConnection(postgres, "sluice", System.getenv("PGPASSWORD"));
            pg.setAutoCommit(true);
        }
        findServices();
        prepareTopic();
        freshTables();
        verifier = new RowVerifier(postgres() ? RowVerifier.Dialect.POSTGRES : RowVerifier.Dialect.CLICKHOUSE,
            ConfigLoader.load(config("verify", topic, "unused")).sinks().get(0), database, schemas(), sample, ID_STEP);
        if (contenders.contains("kafka-connect"))
        {
            prepareConnectTopics();
        }
        if (contenders.contains("kafka-engine"))
        {
            try
            {
                probeKafkaEngine();
            }
            catch (final IllegalStateException e)
            {
                System.out.println("FAILED: " + e.getMessage());
                return 1;
            }
        }
        final long t0 = System.nanoTime();
        for (int r = 1; r <= rounds; r++)
        {
            System.out.printf("%n== round %d of %d%n", r, rounds);
            for (final String c : contenders)
            {
                runs.add(c.equals("kafka-engine")
                    ? drainKafkaEngine(r)
                    : c.equals("kafka-connect") ? drainKafkaConnect(r) : drain(c, r));
            }
            if (liveRate > 0 && liveSeconds > 0)
            {
                for (final String c : contenders)
                {
                    if (c.equals("baseline") || c.equals("sluice"))
                    {
                        runs.add(live(c, r));
                    }
                }
            }
        }
        if (!batchSweep.isEmpty())
        {
            System.out.printf("%n== batch sweep: %s at %s rows per insert%n",
                postgres() ? "copy-limit" : "clickhouse-limit", batchSweep);
            for (final int rowsPerInsert : batchSweep)
            {
                sweep.add(sweepRun(rowsPerInsert));
            }
        }
        System.out.printf(Locale.ROOT, "%nall runs took %.0f s%n", (System.nanoTime() - t0) / 1e9);
        final Map<String, Object> summary = report(machine);
        final String json = postgres()
            ? mapper.writeValueAsString(renameKeys(mapper.valueToTree(summary)))
            : mapper.writeValueAsString(summary);
        Files.writeString(runDir.resolve("result.json"), json);
        Files.writeString(out.resolve(postgres() ? "latest-postgres.json" : "latest.json"), json);
        try
        {
            BenchChart.write(runDir, summary, postgres() ? "PostgreSQL" : "ClickHouse");
        }
        catch (final IOException | RuntimeException e)
        {
            System.err.println("cannot write the charts: " + e);
        }
        boolean ok = true;
        long kafkaEngineLost = 0;
        long kafkaEngineDuplicates = 0;
        for (final Map<String, Object> run : runs)
        {
            ok &= Boolean.TRUE.equals(run.get("ok"));
            if ("kafka-engine".equals(run.get("contender")) && run.get("verified_lost") instanceof Number n)
            {
                kafkaEngineLost += n.longValue();
                kafkaEngineDuplicates += ((Number)run.get("verified_duplicates")).longValue();
            }
        }
        for (final Map<String, Object> run : sweep)
        {
            ok &= Boolean.TRUE.equals(run.get("ok"));
        }
        System.out.println(ok
            ? "OK: every run finished and every row it wrote was verified against the input in "
                + (postgres() ? "PostgreSQL." : "ClickHouse.")
            : "FAILED: some runs did not finish or did not verify; see above and the logs in " + runDir);
        if (kafkaEngineLost > 0 || kafkaEngineDuplicates > 0)
        {
            System.out.printf(Locale.ROOT,
                "NOTE: the kafka-engine contender lost %,d and duplicated %,d records in all "
                    + "(the Kafka engine's own behaviour, reported, not a failure of the benchmark; see docs/benchmarks.md)%n",
                kafkaEngineLost, kafkaEngineDuplicates);
        }
        return ok ? 0 : 1;
    }

    /**
     * @return the tree with every field name that says clickhouse saying postgres instead: the Sampler and the report
     *     keep the database server's figures under clickhouse_* keys, which a PostgreSQL run's JSON names for what
     *     they are
     */
    private static JsonNode renameKeys(final JsonNode n)
    {
        if (n.isObject())
        {
            final com.fasterxml.jackson.databind.node.ObjectNode o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode();
            for (final Map.Entry<String, JsonNode> e : n.properties())
            {
                o.set(e.getKey().replace("clickhouse", "postgres"), renameKeys(e.getValue()));
            }
            return o;
        }
        if (n.isArray())
        {
            final com.fasterxml.jackson.databind.node.ArrayNode a = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .arrayNode();
            n.forEach(x -> a.add(renameKeys(x)));
            return a;
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------------ data

    private static List<byte[]> readSample(final Path file) throws IOException
    {
        final List<byte[]> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(
            new InputStreamReader(new GZIPInputStream(Files.newInputStream(file), 1 << 16),
                StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                if (!line.isBlank())
                {
                    lines.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        return lines;
    }

    /** The sample line with {@code copy * ID_STEP} added to its leading {@code "id":"digits"}, as produce --id-step does. */
    static byte[] withId(final byte[] line, final long copy)
    {
        final byte[] prefix = "{\"id\":\"".getBytes(StandardCharsets.US_ASCII);
        if (copy == 0 || line.length < prefix.length
            || !Arrays.equals(line, 0, prefix.length, prefix, 0, prefix.length))
        {
            return line;
        }
        int end = prefix.length;
        while (end < line.length && line[end] >= '0' && line[end] <= '9')
        {
            end++;
        }
        if (end == prefix.length || end - prefix.length > 18)
        {
            return line;
        }
        final long id = Long.parseLong(new String(line, prefix.length, end - prefix.length, StandardCharsets.US_ASCII))
            + copy * ID_STEP;
        final byte[] digits = Long.toString(id).getBytes(StandardCharsets.US_ASCII);
        final byte[] outLine = new byte[line.length - (end - prefix.length) + digits.length];
        System.arraycopy(line, 0, outLine, 0, prefix.length);
        System.arraycopy(digits, 0, outLine, prefix.length, digits.length);
        System.arraycopy(line, end, outLine, prefix.length + digits.length, line.length - end);
        return outLine;
    }

    private Admin admin()
    {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private void prepareTopic() throws Exception
    {
        long have = -1;
        try (Admin admin = admin())
        {
            if (admin.listTopics().names().get().contains(topic))
            {
                final TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                if (d.partitions().size() == partitions)
                {
                    have = count(admin, topic);
                }
            }
        }
        if (have == records && !reload)
        {
            System.out.printf(Locale.ROOT,
                "topic %s already holds exactly %,d records in %d partitions: reusing it (--reload to load again)%n",
                topic, records, partitions);
            return;
        }
        final long repeat = (records + sample.size() - 1) / sample.size();
        System.out.printf(Locale.ROOT,
            "loading %,d records into %s: the %,d-event sample x %d with distinct ids (engine.jar produce --id-step %d)%n",
            records, topic, sample.size(), repeat, ID_STEP);
        final List<String> cmd = new ArrayList<>(List.of("java", "-Xmx2g", "-jar", engineJar.toString(), "produce",
            "--bootstrap-servers", bootstrap, "--topic", topic, "--partitions", String.valueOf(partitions),
            "--file", root.resolve("examples/data/github-events.jsonl.gz").toString(), "--repeat",
            String.valueOf(repeat),
            "--id-step", String.valueOf(ID_STEP), "--limit", String.valueOf(records), "--recreate"));
        final Process p = new ProcessBuilder(cmd).inheritIO().start();
        if (p.waitFor() != 0)
        {
            throw new IllegalStateException("loading the topic failed: " + String.join(" ", cmd));
        }
        try (Admin admin = admin())
        {
            final long n = count(admin, topic);
            if (n != records)
            {
                throw new IllegalStateException(
                    "topic " + topic + " holds " + n + " records after loading, not " + records);
            }
        }
    }

    private static long count(final Admin admin, final String topic) throws Exception
    {
        final TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        final Map<TopicPartition, OffsetSpec> earliest = new LinkedHashMap<>();
        final Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (final var p : d.partitions())
        {
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        long n = 0;
        for (final var e : admin.listOffsets(latest).all().get().entrySet())
        {
            n += e.getValue().offset();
        }
        for (final var e : admin.listOffsets(earliest).all().get().entrySet())
        {
            n -= e.getValue().offset();
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------------ ClickHouse

    private String ch(final String sql) throws IOException, InterruptedException
    {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(clickhouse + "/"))
            .POST(HttpRequest.BodyPublishers.ofString(sql)).timeout(Duration.ofMinutes(5)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200)
        {
            throw new IllegalStateException("ClickHouse: " + sql + ": HTTP " + r.statusCode() + ": " + r.body());
        }
        return r.body().strip();
    }

    /** Drops and creates the benchmark database with the example's tables. */
    private void freshTables() throws IOException, InterruptedException
    {
        if (postgres())
        {
            final String sql = Files.readString(root.resolve("examples/github-events-postgres.sql"))
                .replaceAll("--[^\n]*", "").replace("\"public\".", "\"" + database + "\".");
            try (java.sql.Statement st = pg.createStatement())
            {
                st.execute("DROP SCHEMA IF EXISTS \"" + database + "\" CASCADE");
                st.execute("CREATE SCHEMA \"" + database + "\"");
                for (final String stmt : sql.split(";"))
                {
                    if (!stmt.isBlank())
                    {
                        st.execute(stmt.strip());
                    }
                }
            }
            catch (final java.sql.SQLException e)
            {
                throw new IOException("PostgreSQL: cannot make the tables in schema " + database + ": " + e, e);
            }
            return;
        }
        KafkaEngine.dropKafkaTables(this::ch, database); // left by an interrupted run: never drop them while reading
        ch("DROP DATABASE IF EXISTS " + database);
        final String sql = Files.readString(root.resolve("examples/github-events.sql"))
            .replaceAll("--[^\n]*", "")
            .replace("DATABASE IF NOT EXISTS github", "DATABASE IF NOT EXISTS " + database)
            .replace("github.", database + ".");
        for (final String stmt : sql.split(";"))
        {
            if (!stmt.isBlank())
            {
                ch(stmt.strip());
            }
        }
    }

    /** @return per target table, its columns as {name, type} (DESCRIBE TABLE) */
    private Map<String, List<String[]>> schemas() throws IOException, InterruptedException
    {
        final Map<String, List<String[]>> m = new LinkedHashMap<>();
        if (postgres())
        {
            for (final Map.Entry<String, List<String[]>> e : postgresColumns().entrySet())
            {
                final List<String[]> cols = new ArrayList<>();
                for (final String[] c : e.getValue())
                {
                    cols.add(new String[]{c[0], c[2].equals("YES") ? "Nullable(" + c[1] + ")" : c[1]});
                }
                m.put(e.getKey(), cols);
            }
            return m;
        }
        for (final String t : TABLES)
        {
            final List<String[]> cols = new ArrayList<>();
            for (final String line : ch("DESCRIBE TABLE " + database + "." + t + " FORMAT TabSeparated").split("\n"))
            {
                final String[] f = line.split("\t");
                if (f.length >= 2 && (f.length < 3 || f[2].isEmpty() || f[2].equals("DEFAULT")))
                {
                    cols.add(new String[]{f[0], f[1]});
                }
            }
            m.put(t, cols);
        }
        return m;
    }

    /** @return per table, its columns {name, data_type, is_nullable} (information_schema.columns) */
    private Map<String, List<String[]>> postgresColumns() throws IOException
    {
        final Map<String, List<String[]>> m = new LinkedHashMap<>();
        for (final String t : TABLES)
        {
            final List<String[]> cols = new ArrayList<>();
            try (java.sql.PreparedStatement q = pg.prepareStatement("SELECT column_name, data_type, is_nullable FROM "
                + "information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position"))
            {
                q.setString(1, database);
                q.setString(2, t);
                try (java.sql.ResultSet rs = q.executeQuery())
                {
                    while (rs.next())
                    {
                        cols.add(new String[]{rs.getString(1), rs.getString(2), rs.getString(3)});
                    }
                }
            }
            catch (final java.sql.SQLException e)
            {
                throw new IOException("PostgreSQL: columns of " + database + "." + t + ": " + e, e);
            }
            m.put(t, cols);
        }
        return m;
    }

    /** @return one number a query returns (PostgreSQL) */
    private double pgNumber(final String sql) throws IOException
    {
        try (java.sql.Statement st = pg.createStatement(); java.sql.ResultSet rs = st.executeQuery(sql))
        {
            return rs.next() && rs.getObject(1) != null ? rs.getDouble(1) : 0;
        }
        catch (final java.sql.SQLException e)
        {
            throw new IOException("PostgreSQL: " + sql + ": " + e, e);
        }
    }

    /** @return the server's WAL insert position now, in bytes from its start (pg_current_wal_lsn()) */
    private double walNow() throws IOException
    {
        return pgNumber("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')");
    }

    /** @return the exact rows in the benchmark schema's tables now (count(*), a full scan of each) */
    private double pgCount() throws IOException
    {
        final StringBuilder q = new StringBuilder("SELECT 0");
        for (final String t : TABLES)
        {
            q.append(" + (SELECT count(*) FROM \"").append(database).append("\".\"").append(t).append("\")");
        }
        return pgNumber(q.toString());
    }

    private InputStream select(final String sql) throws IOException, InterruptedException
    {
        if (postgres())
        {
            try
            {
                return new org.postgresql.copy.PGCopyInputStream(pg.unwrap(org.postgresql.PGConnection.class), sql);
            }
            catch (final java.sql.SQLException e)
            {
                throw new IOException("PostgreSQL: " + sql + ": " + e, e);
            }
        }
        final HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(clickhouse + "/"))
            .POST(HttpRequest.BodyPublishers.ofString(sql)).timeout(Duration.ofMinutes(10)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200)
        {
            try (InputStream in = r.body())
            {
                throw new IllegalStateException("ClickHouse: " + sql + ": HTTP " + r.statusCode() + ": "
                    + new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return r.body();
    }

    /**
     * Verifies the run's rows against its input and records the outcome in {@code run}: {@code ok} is whether every
     * record is in its table once with the right values (for kafka-engine: whether every row written is right; what
     * it lost or duplicated is reported, as the engine's own behaviour).
     */
    private void verifyRows(final Map<String, Object> run, final RowVerifier.Expected expected)
        throws IOException, InterruptedException
    {
        final RowVerifier.Result v = verifier.verify(expected, this::select);
        run.put("verified_rows", v.rows());
        run.put("verified_distinct_ids", v.distinct());
        run.put("verified_lost", v.lost());
        run.put("verified_duplicates", v.duplicates());
        run.put("verified_wrong", v.wrong());
        run.put("verified_misplaced", v.misplaced());
        run.put("verified_unknown", v.unknown());
        run.put("verified_rows_per_table", v.rowsPerTable());
        run.put("verified_problems", v.examples());
        final boolean kafkaEngine = "kafka-engine".equals(run.get("contender"));
        run.put("ok", kafkaEngine ? v.rowsRight() : v.exact(expected.records()));
        if (!v.examples().isEmpty())
        {
            System.out.println("   " + run.get("name") + ": " + v);
            for (final String e : v.examples())
            {
                System.out.println("     | " + e);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ services

    /** Finds the ClickHouse server and the Kafka broker by the ports they listen on. */
    private void findServices()
    {
        if (postgres())
        {
            final URI u = URI.create(postgres.substring("jdbc:".length()));
            final int pgPort = u.getPort() > 0 ? u.getPort() : 5432;
            final String first = bootstrap.split(",")[0].strip();
            final int kafkaPort = Integer.parseInt(first.substring(first.lastIndexOf(':') + 1));
            clickhousePid = ProcFs.pidListeningOn(pgPort);
            brokerPid = ProcFs.pidListeningOn(kafkaPort);
            System.out.printf(Locale.ROOT,
                "   services: PostgreSQL %s, Kafka broker %s (found by their listening ports; "
                    + "PostgreSQL's CPU is the postmaster's and its backends')%n",
                clickhousePid > 0 ? "pid " + clickhousePid + " on port " + pgPort : "not found on port " + pgPort,
                brokerPid > 0 ? "pid " + brokerPid + " on port " + kafkaPort : "not found on port " + kafkaPort);
            return;
        }
        final URI ch = URI.create(clickhouse);
        final int chPort = ch.getPort() > 0 ? ch.getPort() : "https".equals(ch.getScheme()) ? 8443 : 8123;
        final String first = bootstrap.split(",")[0].strip();
        final int kafkaPort = Integer.parseInt(first.substring(first.lastIndexOf(':') + 1));
        clickhousePid = ProcFs.pidListeningOn(chPort);
        brokerPid = ProcFs.pidListeningOn(kafkaPort);
        System.out.printf(Locale.ROOT, "   services: ClickHouse %s, Kafka broker %s (found by their listening ports)%n",
            clickhousePid > 0
                ? "pid " + clickhousePid + " on port " + chPort
                : "not found on a local port " + chPort + " (its CPU is not measured)",
            brokerPid > 0
                ? "pid " + brokerPid + " on port " + kafkaPort
                : "not found on a local port " + kafkaPort + " (its CPU is not measured)");
    }

    /** @return the rows in the benchmark database's tables now (active parts) */
    private double rowsNow() throws IOException, InterruptedException
    {
        if (postgres())
        {
            // the statistics collector's count (a backend reports at most once a second): no scan of the tables
            return pgNumber("SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE schemaname = '"
                + database + "' AND relname <> '" + OFFSETS_TABLE + "'");
        }
        final String r = ch("SELECT sum(rows) FROM system.parts WHERE database = '" + database + "' AND active");
        return r.isEmpty() ? 0 : Double.parseDouble(r);
    }

    /** @return the records {@code group} has committed on the topic (offsets from 0, all partitions) */
    private static double committed(final Admin admin, final String group, final String topicName) throws Exception
    {
        long n = 0;
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).entrySet())
        {
            if (e.getValue() != null && e.getKey().topic().equals(topicName))
            {
                n += e.getValue().offset();
            }
        }
        return n;
    }

    /**
     * @param port the port of an engine's Prometheus endpoint
     * @return probes of its checkpoint lag: the offsets in flight over all partitions, and the longest time a
     *     partition's watermark has not moved (sluice_checkpoint_lag_offsets, sluice_checkpoint_lag_ms)
     */
    private Map<String, Sampler.Probe> engineLagProbes(final int port)
    {
        final URI uri = URI.create("http://127.0.0.1:" + port + "/metrics");
        final double[] last = new double[2];
        final Sampler.Probe offsets = () ->
        {
            final String body = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(1)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
            final double[] lag = checkpointLag(body);
            last[0] = lag[0];
            last[1] = lag[1];
            return lag[0];
        };
        final Map<String, Sampler.Probe> m = new LinkedHashMap<>();
        m.put("engine_lag_offsets", offsets);
        m.put("engine_lag_ms", () -> last[1]); // read in the same sample, right after the scrape above
        return m;
    }

    /**
     * The engine's own checkpoint lag in one scrape of its {@code /metrics} (docs/metrics.md):
     * {@code sluice_checkpoint_lag_records} summed over the partitions, and the largest
     * {@code sluice_checkpoint_lag_seconds} in milliseconds.
     *
     * @param body the scrape, Prometheus' text format
     * @return {records, ms}; zeros when the scrape has no such series
     */
    static double[] checkpointLag(final String body)
    {
        double sum = 0;
        double maxSeconds = 0;
        for (final String line : body.split("\n"))
        {
            if (line.startsWith("sluice_checkpoint_lag_records{"))
            {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
            else if (line.startsWith("sluice_checkpoint_lag_seconds{"))
            {
                maxSeconds = Math.max(maxSeconds, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
            }
        }
        return new double[]{sum, maxSeconds * 1000};
    }

    private Sampler sampler(final Sampler.Probe rows, final Sampler.Probe committed,
        final Map<String, Sampler.Probe> extra)
    {
        return new Sampler(clickhousePid, postgres(), brokerPid, rows, committed, extra, sampleMillis);
    }

    /**
     * Records in {@code run} what the sampler saw over the window {@code [from, to]}: the CPU of the ClickHouse server,
     * of the broker and of the contender's process, in total and per thread name; how far the committed offsets
     * trailed the rows written (rows − committed records: positive means rows a restart would write again, negative
     * records committed before their rows were written); for Sluice its own checkpoint lag.
     */
    private static void putWindow(final Map<String, Object> run, final Sampler s, final long from, final long to,
        final long launched)
    {
        run.put("samples", s.columns(launched));
        run.put("window_start_after_launch_s", (from - launched) / 1e9);
        run.put("window_end_after_launch_s", (to - launched) / 1e9);
        run.put("sample_interval_s", s.intervalNanos() / 1e9);
        run.put("clickhouse_cpu_window_s", s.at(Sampler.Sample::clickhouseCpu, to)
            - s.at(Sampler.Sample::clickhouseCpu, from));
        run.put("broker_cpu_window_s", s.at(Sampler.Sample::brokerCpu, to) - s.at(Sampler.Sample::brokerCpu, from));
        run.put("contender_proc_cpu_window_s", s.at(Sampler.Sample::contenderCpu, to)
            - s.at(Sampler.Sample::contenderCpu, from));
        run.put("contender_threads_cpu_window_s", s.threadsBetween(Sampler.Sample::contenderThreads, from, to));
        run.put("clickhouse_threads_cpu_window_s", s.threadsBetween(Sampler.Sample::clickhouseThreads, from, to));
        double sum = 0;
        double max = Double.NEGATIVE_INFINITY;
        double min = Double.POSITIVE_INFINITY;
        int n = 0;
        double lagSum = 0;
        double lagMax = Double.NaN;
        double lagMsMax = Double.NaN;
        int lagN = 0;
        for (final Sampler.Sample x : s.samples())
        {
            if (x.nanos() - from < 0 || x.nanos() - to > 0)
            {
                continue;
            }
            final double d = x.rows() - x.committed();
            if (!Double.isNaN(d))
            {
                sum += d;
                max = Math.max(max, d);
                min = Math.min(min, d);
                n++;
            }
            final double lag = x.extra().getOrDefault("engine_lag_offsets", Double.NaN);
            if (!Double.isNaN(lag))
            {
                lagSum += lag;
                lagMax = Double.isNaN(lagMax) ? lag : Math.max(lagMax, lag);
                lagMsMax = Double.isNaN(lagMsMax)
                    ? x.extra().get("engine_lag_ms")
                    : Math.max(lagMsMax, x.extra().get("engine_lag_ms"));
                lagN++;
            }
        }
        run.put("uncommitted_rows_mean", n > 0 ? sum / n : Double.NaN);
        run.put("uncommitted_rows_max", n > 0 ? max : Double.NaN);
        run.put("uncommitted_rows_min", n > 0 ? min : Double.NaN);
        run.put("engine_checkpoint_lag_offsets_mean", lagN > 0 ? lagSum / lagN : Double.NaN);
        run.put("engine_checkpoint_lag_offsets_max", lagMax);
        run.put("engine_checkpoint_lag_ms_max", lagMsMax);
        putSteadyState(run, s.samples(), from, to);
    }

    /**
     * Records the CPU per row of the steady state: between the first sample in the window that saw 20 % of the run's
     * rows written and the first that saw 80 %, the contender's process, the ClickHouse server and the broker, per
     * row written in between. Start-up, JIT warm-up and the last batches are outside it, so it is what a record costs
     * once running; rows are written a batch at a time, so the span is known to about a batch.
     */
    static void putSteadyState(final Map<String, Object> run, final List<Sampler.Sample> samples, final long from,
        final long to)
    {
        double finalRows = Double.NaN;
        for (final Sampler.Sample x : samples)
        {
            if (!Double.isNaN(x.rows()) && x.nanos() - to <= 0)
            {
                finalRows = Double.isNaN(finalRows) ? x.rows() : Math.max(finalRows, x.rows());
            }
        }
        Sampler.Sample a = null;
        Sampler.Sample b = null;
        for (final Sampler.Sample x : samples)
        {
            if (Double.isNaN(finalRows) || x.nanos() - from < 0 || x.nanos() - to > 0 || Double.isNaN(x.rows()))
            {
                continue;
            }
            if (a == null && x.rows() >= 0.2 * finalRows)
            {
                a = x;
            }
            if (b == null && x.rows() >= 0.8 * finalRows)
            {
                b = x;
            }
        }
        if (a == null || b == null || b.rows() <= a.rows())
        {
            return;
        }
        final double rows = b.rows() - a.rows();
        run.put("steady_rows", rows);
        run.put("steady_s", (b.nanos() - a.nanos()) / 1e9);
        run.put("steady_contender_cpu_us_per_row", (b.contenderCpu() - a.contenderCpu()) / rows * 1e6);
        run.put("steady_clickhouse_cpu_us_per_row", (b.clickhouseCpu() - a.clickhouseCpu()) / rows * 1e6);
        run.put("steady_broker_cpu_us_per_row", (b.brokerCpu() - a.brokerCpu()) / rows * 1e6);
    }

    /**
     * Records in {@code run} the parts the run created per table: system.parts' level-0 parts (each made by one
     * INSERT into one partition; the merged-away ones stay listed, inactive, for old_parts_lifetime, 8 minutes by
     * default), their rows, and the active parts left.
     */
    private void putParts(final Map<String, Object> run) throws IOException, InterruptedException
    {
        final Map<String, Object> parts = new LinkedHashMap<>();
        long created = 0;
        long rows = 0;
        for (final String line : ch("SELECT table, countIf(level = 0), sumIf(rows, level = 0), minIf(rows, level = 0), "
            + "maxIf(rows, level = 0), countIf(active) FROM system.parts WHERE database = '" + database
            + "' GROUP BY table ORDER BY table FORMAT TabSeparated").split("\n"))
        {
            final String[] f = line.split("\t");
            if (f.length < 6 || !TABLES.contains(f[0]))
            {
                continue;
            }
            final Map<String, Object> t = new LinkedHashMap<>();
            t.put("parts_created", Long.parseLong(f[1]));
            t.put("rows", Long.parseLong(f[2]));
            t.put("rows_per_part_min", Long.parseLong(f[3]));
            t.put("rows_per_part_max", Long.parseLong(f[4]));
            t.put("rows_per_part_mean", Long.parseLong(f[1]) == 0
                ? Double.NaN
                : Double.parseDouble(f[2]) / Long.parseLong(f[1]));
            t.put("active_parts", Long.parseLong(f[5]));
            parts.put(f[0], t);
            created += Long.parseLong(f[1]);
            rows += Long.parseLong(f[2]);
        }
        run.put("parts", parts);
        run.put("parts_created", created);
        run.put("rows_per_part_mean", created == 0 ? Double.NaN : (double)rows / created);
    }

    /** @return CPU seconds (user + system) of the services, from /proc/PID/stat; NaN where unknown */
    private double[] servicesCpu()
    {
        return new double[]{ProcFs.cpuSeconds(clickhousePid), ProcFs.cpuSeconds(brokerPid)};
    }

    private static void putServicesCpu(final Map<String, Object> run, final double[] before, final double[] after)
    {
        run.put("clickhouse_server_cpu_s", after[0] - before[0]);
        run.put("kafka_broker_cpu_s", after[1] - before[1]);
    }

    // ------------------------------------------------------------------------------------------------ runs

    private Path config(final String name, final String topicName, final String group) throws IOException
    {
        return config(name, topicName, group, Map.of(), "");
    }

    /**
     * @param replace further replacements in the example's text (each must occur)
     * @param append text added at the end (a TOML table)
     * @return a copy of examples/github-events.toml pointed at the bench's services, topic, group and database
     */
    private Path config(final String name, final String topicName, final String group,
        final Map<String, String> replace, final String append) throws IOException
    {
        if (postgres())
        {
            return postgresConfig(name, topicName, group, replace, append);
        }
        String toml = Files.readString(root.resolve("examples/github-events.toml"))
            .replace("127.0.0.1:${SLUICE_KAFKA_PORT:-19092}", bootstrap)
            .replace("http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}", clickhouse)
            .replace("database = \"github\"", "database = \"" + database + "\"")
            .replace("pattern = 'github\\.events'", "topics = [\"" + topicName + "\"]")
            .replace("group_id = \"sluice-github\"", "group_id = \"" + group + "\"");
        if (!toml.contains("topics = [\"" + topicName + "\"]") || !toml.contains(group))
        {
            throw new IllegalStateException(
                "examples/github-events.toml changed shape: cannot point it at " + topicName);
        }
        for (final Map.Entry<String, String> e : replace.entrySet())
        {
            if (!toml.contains(e.getKey()))
            {
                throw new IllegalStateException("examples/github-events.toml changed shape: no " + e.getKey());
            }
            toml = toml.replace(e.getKey(), e.getValue());
        }
        final Path f = runDir.resolve(name + ".toml");
        Files.writeString(f, toml + append + STARTUP_CHECK);
        return f;
    }

    /**
     * @return a copy of examples/github-events-postgres.toml pointed at the bench's services, topic, group and schema,
     *     in insert_mode append (the tables are fresh: every contender appends)
     */
    private Path postgresConfig(final String name, final String topicName, final String group,
        final Map<String, String> replace, final String append) throws IOException
    {
        final String example = "examples/github-events-postgres.toml";
        final Map<String, String> all = new LinkedHashMap<>();
        all.put("127.0.0.1:${SLUICE_KAFKA_PORT:-19092}", bootstrap);
        all.put("url = \"postgresql://127.0.0.1:${SLUICE_POSTGRES_PORT:-15432}/analytics\"", "url = \"" + postgres
            + "\"");
        all.put("schema = \"public\"", "schema = \"" + database + "\"");
        all.put("pattern = 'github\\.events'", "topics = [\"" + topicName + "\"]");
        all.put("group_id = \"sluice-github-pg\"", "group_id = \"" + group + "\"");
        all.put("insert_mode = \"upsert\"", "insert_mode = \"append\"");
        all.putAll(replace);
        String toml = Files.readString(root.resolve(example));
        for (final Map.Entry<String, String> e : all.entrySet())
        {
            if (!toml.contains(e.getKey()))
            {
                throw new IllegalStateException(example + " changed shape: no " + e.getKey());
            }
            toml = toml.replace(e.getKey(), e.getValue());
        }
        final Path f = runDir.resolve(name + ".toml");
        Files.writeString(f, toml + append + STARTUP_CHECK);
        return f;
    }

    /**
     * The drain runs' batching, in place of the example's (max_rows 20,000, max_bytes 8 MiB, linger_ms 1,000: sized for
     * a prompt quickstart), the same for every contender that batches: rows per insert are what ClickHouse's CPU per
     * row depends on most (--batch-sweep), and the Kafka engine contender batches up to 65,536 rows for 7.5 s.
     */
    private Map<String, String> drainBatching(final int maxRows, final long maxBytes)
    {
        return Map.of("max_rows = 20000", "max_rows = " + maxRows, "max_bytes = 8388608", "max_bytes = " + maxBytes,
            "linger_ms = 1000", "linger_ms = " + drainLingerMs);
    }

    /**
     * The positions table of the sluice-exactly-once contender, in the bench schema: left out of the rows counted
     * while a run goes (its rows are source positions, not records).
     */
    private static final String OFFSETS_TABLE = "sluice_offsets";

    /**
     * Appended to every contender's config: the start-up Kafka check waits up to a minute, as a starved bench machine
     * (a broker busy loading the input, the other contenders' JITs) may answer late; the default 10 s failed drain runs.
     */
    private static final String STARTUP_CHECK = "\n[engine]\nkafka_check_timeout_ms = 60000\n";

    private static int freePort() throws IOException
    {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    private List<String> command(final String contender, final Path config, final Path json, final long stopAfterRows,
        final long latencyAfterRows)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add("java");
        final String jvm = contender.endsWith("limit") ? "-Xms512m -Xmx4g -XX:+UseG1GC" : contenderJvm;
        cmd.addAll(Arrays.asList(jvm.trim().split("\\s+")));
        cmd.addAll(JvmProfile.requiredFlags());
        switch (contender)
        {
            case "sluice", "sluice-exactly-once" -> cmd.addAll(List.of("-jar", engineJar.toString(), "bench",
                "--config", config.toString(), "--json", json.toString()));
            case "baseline" -> cmd.addAll(List.of("-cp", benchJar.toString(), PlainConsumer.class.getName(), "--config",
                config.toString(), "--json", json.toString()));
            case "kafka-limit" -> cmd.addAll(List.of("-cp", benchJar.toString(), ConsumerLimit.class.getName(),
                "--bootstrap-servers", bootstrap, "--topic", topic, "--json", json.toString()));
            case "clickhouse-limit", "copy-limit" -> cmd.addAll(List.of("-cp", benchJar.toString(),
                ClickHouseLimit.class.getName(), "--config", config.toString(), "--json", json.toString()));
            default -> throw new IllegalArgumentException(contender);
        }
        if (stopAfterRows > 0)
        {
            cmd.addAll(List.of("--stop-after-rows", String.valueOf(stopAfterRows)));
        }
        if (latencyAfterRows > 0)
        {
            cmd.addAll(List.of("--latency-after-rows", String.valueOf(latencyAfterRows)));
        }
        return cmd;
    }

    private Map<String, Object> drain(final String contender, final int round) throws Exception
    {
        final String name = contender + "-r" + round;
        final String group = "sluice-bench-" + runId + "-" + name;
        // Sluice's own checkpoint lag comes from its Prometheus endpoint, scraped with every sample
        final boolean engine = contender.equals("sluice") || contender.equals("sluice-exactly-once");
        final int metricsPort = engine ? freePort() : -1;
        final Map<String, String> batching = new LinkedHashMap<>(drainBatching(drainMaxRows, drainMaxBytes));
        if (contender.equals("sluice-exactly-once"))
        {
            // the same configuration with each batch's rows and source positions in one transaction (issue 23)
            batching.put("create_table = false", "create_table = false\ndelivery = \"exactly_once\"\noffsets_table = \""
                + OFFSETS_TABLE + "\"");
        }
        final Path config = config(name, topic, group, batching,
            metricsPort > 0 ? "\n[metrics]\nlisten = \"127.0.0.1:" + metricsPort + "\"\n" : "");
        final Path json = runDir.resolve(name + ".json");
        final boolean writes = !contender.equals("kafka-limit");
        if (writes)
        {
            freshTables();
        }
        final Map<String, Object> run;
        try (Admin admin = admin())
        {
            final Sampler s = sampler(writes ? this::rowsNow : null,
                contender.equals("baseline") || engine
                    ? () -> committed(admin, group, topic)
                    : null,
                metricsPort > 0 ? engineLagProbes(metricsPort) : Map.of());
            final List<String> cmd = command(contender, config, json, 0, 0);
            final Path recording = runDir.resolve(name + ".jfr");
            if (jfr && contender.equals("sluice"))
            {
                cmd.addAll(1, JfrProfile.jvmOptions(recording, JfrProfile.settings(runDir)));
            }
            final Instant wallAtLaunch = Instant.now();
            final long nanosAtLaunch = System.nanoTime();
            final double walBefore = postgres() ? walNow() : Double.NaN;
            Map<String, Object> first = launch(name, contender, round, "drain", cmd, json, 600 + records / 200, s);
            if (!Boolean.TRUE.equals(first.get("exited_ok")) && startedUnreachable(runDir.resolve(name + ".log")))
            {
                // the engine gives the broker 10 s to answer at start; a loaded shared machine can miss that once
                System.out.println("   " + name + ": the broker did not answer the engine's start-up check in time; "
                    + "running it once more");
                Files.move(runDir.resolve(name + ".log"), runDir.resolve(name + "-unreachable.log"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                final Sampler again = sampler(writes ? this::rowsNow : null,
                    () -> committed(admin, group, topic),
                    metricsPort > 0 ? engineLagProbes(metricsPort) : Map.of());
                first = launch(name, contender, round, "drain", cmd, json, 600 + records / 200, again);
                first.put("retried_after_unreachable", true);
                putContenderWindowLater = again;
            }
            run = first;
            if (postgres())
            {
                run.put("wal_bytes", walNow() - walBefore);
            }
            if (jfr && contender.equals("sluice") && Files.isRegularFile(recording))
            {
                putJfrProfile(run, s, recording, wallAtLaunch, nanosAtLaunch);
            }
            if (writes && Boolean.TRUE.equals(run.get("exited_ok")))
            {
                if (!postgres())
                {
                    putParts(run);
                }
                verifyRows(run, new RowVerifier.Expected(0, records));
            }
            else
            {
                run.put("ok", run.get("exited_ok"));
            }
            // PostgreSQL's row count lags (statistics): its window ends when the contender's process ended
            putContenderWindow(run, putContenderWindowLater != null ? putContenderWindowLater : s,
                writes && !postgres());
            putContenderWindowLater = null;
        }
        if (contender.equals("kafka-limit") && run.get("bytes_in") instanceof Number n)
        {
            topicBytes = n.longValue();
        }
        printRun(run);
        return run;
    }

    /**
     * Analyzes a run's Flight Recorder file over its steady state: from the first sample that saw 20 % of the rows to
     * the first that saw 80 % ({@link JfrProfile}); prints the allocation attributed to Sluice's code.
     */
    private void putJfrProfile(final Map<String, Object> run, final Sampler s, final Path recording,
        final Instant wallAtLaunch, final long nanosAtLaunch) throws IOException
    {
        long from = Long.MIN_VALUE;
        long to = Long.MIN_VALUE;
        double rowsFrom = Double.NaN;
        double rowsTo = Double.NaN;
        for (final Sampler.Sample x : s.samples())
        {
            if (from == Long.MIN_VALUE && x.rows() >= 0.2 * records)
            {
                from = x.rowsNanos();
                rowsFrom = x.rows();
            }
            if (to == Long.MIN_VALUE && x.rows() >= 0.8 * records)
            {
                to = x.rowsNanos();
                rowsTo = x.rows();
            }
        }
        if (from == Long.MIN_VALUE || to == Long.MIN_VALUE || rowsTo <= rowsFrom)
        {
            run.put("jfr_error", "no samples between 20% and 80% of the rows");
            return;
        }
        final Map<String, Object> profile = JfrProfile.analyze(recording, wallAtLaunch.plusNanos(from - nanosAtLaunch),
            wallAtLaunch.plusNanos(to - nanosAtLaunch), rowsTo - rowsFrom);
        run.put("jfr_file", recording.getFileName().toString());
        run.putAll(profile);
        System.out.printf(Locale.ROOT,
            "     JFR, 20-80%% of the rows (%,.0f records, %.1f s): allocation %.0f B/record; "
                + "allocated by Sluice's code %.2f B/record, without the bench's own meter %.2f: %s%n"
                + "     by libraries: %s%n     source thread by part: %s%n",
            rowsTo - rowsFrom,
            (Double)profile.get("jfr_window_s"), (Double)profile.get("jfr_alloc_all_B_per_record"),
            (Double)profile.get("jfr_alloc_sluice_B_per_record"),
            (Double)profile.get("jfr_alloc_sluice_engine_B_per_record"),
            profile.get("jfr_alloc_sluice_by_class_B_per_record"), profile.get("jfr_alloc_libraries_B_per_record"),
            profile.get("jfr_source_parts_share"));
    }

    /**
     * The window of a contender JVM, in the sampler's time: it ends when the sampler first saw every row the run wrote
     * (kafka-limit, which writes none: when its process was last seen), and lasted the window_s the contender measured.
     */
    private static void putContenderWindow(final Map<String, Object> run, final Sampler s, final boolean writes)
    {
        final double window = BenchReport.num(run, "window_s");
        final Object launchedAt = run.get("launched_nanos");
        if (Double.isNaN(window) || !(launchedAt instanceof Long launched))
        {
            return;
        }
        long end = Long.MIN_VALUE;
        if (writes)
        {
            final double rows = BenchReport.num(run, "verified_rows");
            if (!Double.isNaN(rows))
            {
                end = s.lastRowNanos(rows);
            }
        }
        else
        {
            for (final Sampler.Sample x : s.samples())
            {
                if (!Double.isNaN(x.contenderCpu()))
                {
                    end = x.nanos();
                }
            }
        }
        if (end != Long.MIN_VALUE)
        {
            putWindow(run, s, end - (long)(window * 1e9), end, launched);
        }
        run.remove("launched_nanos");
    }

    /**
     * One run of the kafka-engine contender: fresh tables, the Kafka table and views created and the group committed
     * to the start ({@link KafkaEngine#create()}), then ATTACH; the window runs from the moment the engine's consumer
     * holds every partition to the moment the last row was seen. Done once the group has committed the whole topic
     * and every record is in a table, or, committed but short of rows, when no row came for
     * {@link #KAFKA_ENGINE_GRACE_MS}: then the records missing are lost (the verification counts them).
     */
    private Map<String, Object> drainKafkaEngine(final int round) throws Exception
    {
        final String name = "kafka-engine-r" + round;
        final String group = "sluice-bench-" + runId + "-" + name;
        final Map<String, Object> run = new LinkedHashMap<>();
        run.put("name", name);
        run.put("contender", "kafka-engine");
        run.put("round", round);
        run.put("phase", "drain");
        run.put("kafka_max_block_size", kafkaEngineBlockSize);
        run.put("kafka_num_consumers", kafkaEngineConsumers);
        freshTables();
        try (Admin admin = admin())
        {
            final KafkaEngine engine = new KafkaEngine(this::ch, admin, bootstrap, database, topic, group,
                kafkaEngineBlockSize, kafkaEngineConsumers);
            final double[] servicesBefore = servicesCpu();
            final long launched = System.nanoTime();
            final Sampler s = sampler(this::rowsNow, engine::committed, Map.of());
            String error = null;
            long start = Long.MIN_VALUE;
            try
            {
                try
                {
                    engine.create();
                }
                catch (final RuntimeException | ExecutionException e)
                {
                    throw new IllegalStateException("cannot set up the Kafka table and views: " + e, e);
                }
                start = engine.awaitAssignment(partitions, 120);
                error = awaitKafkaEngine(s, 600 + records / 200);
            }
            catch (final RuntimeException | ExecutionException e)
            {
                error = e.toString();
            }
            finally
            {
                engine.stop();
                s.close();
            }
            putServicesCpu(run, servicesBefore, servicesCpu());
            final double rows = s.last().rows();
            final long end = s.lastRowNanos(rows);
            run.put("records", records);
            run.put("rows", (long)rows);
            run.put("committed", (long)s.last().committed());
            if (start != Long.MIN_VALUE && end != Long.MIN_VALUE && end - start > 0)
            {
                run.put("window_s", (end - start) / 1e9);
                putWindow(run, s, start, end, launched);
                run.put("window_cpu_s", run.get("clickhouse_cpu_window_s")); // the contender is the server
            }
            run.put("exited_ok", error == null && run.containsKey("window_s"));
            if (error != null)
            {
                run.put("error", error);
                System.out.println("   " + name + " failed: " + error);
            }
        }
        if (Boolean.TRUE.equals(run.get("exited_ok")))
        {
            putParts(run);
            verifyRows(run, new RowVerifier.Expected(0, records));
        }
        else
        {
            run.put("ok", false);
        }
        printRun(run);
        return run;
    }

    /**
     * Writes the kafka-connect contender's per-table topics in the JSON converter's schema envelope (untimed, once per
     * benchmark run): {@link KafkaConnect#produce}.
     */
    private void prepareConnectTopics() throws Exception
    {
        final io.sluice.core.config.SluiceConfig.Sink s = ConfigLoader.load(config("connect", topic, "unused")).sinks()
            .get(0);
        final Map<String, List<String[]>> pgCols = postgresColumns();
        final List<String> tables = new ArrayList<>();
        final Map<String, List<String[]>> cols = new LinkedHashMap<>();
        for (final io.sluice.core.config.SluiceConfig.Branch b : s.branches())
        {
            tables.add(b.targetTable());
            final List<String[]> c = new ArrayList<>();
            for (final String[] col : pgCols.get(b.targetTable()))
            {
                c.add(new String[]{col[0], col[1], col[2], b.columns().getOrDefault(col[0], col[0])});
            }
            cols.put(b.targetTable(), c);
        }
        final int[] branchOf = new int[sample.size()];
        for (int i = 0; i < branchOf.length; i++)
        {
            branchOf[i] = verifier.branchOf(i);
        }
        final long t0 = System.nanoTime();
        try (Admin admin = admin())
        {
            final Set<String> existing = admin.listTopics().names().get();
            long have = 0;
            boolean all = true;
            for (final String t : tables)
            {
                final String name = KafkaConnect.topicOf(topic, t);
                all &= existing.contains(name);
                have += all ? count(admin, name) : 0;
            }
            if (all && have == records && !reload)
            {
                System.out.printf(Locale.ROOT,
                    "   kafka-connect's input: the %d topics %s.connect.<table> already hold "
                        + "the %,d records: reusing them (--reload to write them again)%n",
                    tables.size(), topic, records);
                return;
            }
            final Map<String, Long> counts = KafkaConnect.produce(bootstrap, admin, topic, partitions, sample, records,
                BenchRun::withId, branchOf, tables, cols);
            System.out.printf(Locale.ROOT, "   kafka-connect's input: %,d records in the JSON converter's schema "
                + "envelope, one topic per table (%s.connect.<table>), written in %.1f s: %s%n", records, topic,
                (System.nanoTime() - t0) / 1e9, counts);
        }
    }

    /** @return the records Kafka Connect's group has committed on the per-table topics */
    private double connectCommitted(final Admin admin, final String group) throws Exception
    {
        long n = 0;
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).entrySet())
        {
            if (e.getValue() != null && e.getKey().topic().startsWith(topic + ".connect."))
            {
                n += e.getValue().offset();
            }
        }
        return n;
    }

    /**
     * One run of the kafka-connect contender: fresh tables, a Connect worker in standalone mode with the Debezium JDBC
     * sink connector over the per-table topics ({@link KafkaConnect#configure}), a new group. The window runs from the
     * moment its consumers hold every partition to the first moment every row is in the tables (count(*), polled once
     * the group has committed every record or the statistics count them all); then the worker is stopped.
     */
    private Map<String, Object> drainKafkaConnect(final int round) throws Exception
    {
        final String name = "kafka-connect-r" + round;
        final String connector = "sluice-bench-" + runId + "-" + name;
        final String group = "connect-" + connector; // a sink connector's group is connect-<its name>
        final Map<String, Object> run = new LinkedHashMap<>();
        run.put("name", name);
        run.put("contender", "kafka-connect");
        run.put("round", round);
        run.put("phase", "drain");
        final Path cpFile = root.resolve("bench/kafka-connect/target/classpath.txt");
        if (!Files.isRegularFile(cpFile))
        {
            run.put("error",
                cpFile + " is missing: scripts/bench.sh --sink postgres resolves bench/kafka-connect/pom.xml");
            run.put("exited_ok", false);
            run.put("ok", false);
            printRun(run);
            return run;
        }
        freshTables();
        // one task: one consumer and one connection, as the baseline (Sluice reads with one consumer too); more tasks
        // would each build their own Hibernate session factory on this 2-core machine
        final int tasks = 1;
        final List<Path> files = KafkaConnect.configure(runDir, connector, bootstrap, postgres, "sluice", database,
            topic, TABLES, freePort(), drainMaxRows, tasks);
        run.put("connect_tasks", tasks);
        run.put("connect_batch_size", drainMaxRows);
        final List<String> cmd = new ArrayList<>();
        cmd.add("java");
        cmd.addAll(Arrays.asList(contenderJvm.trim().split("\\s+")));
        cmd.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp",
            Files.readString(cpFile).strip(), KafkaConnect.MAIN, files.get(0).toString(), files.get(1).toString()));
        Files.writeString(runDir.resolve(name + ".cmd"), String.join(" ", cmd) + "\n");
        final Path log = runDir.resolve(name + ".log");
        final double walBefore = walNow();
        String error = null;
        try (Admin admin = admin())
        {
            final double[] servicesBefore = servicesCpu();
            final long launched = System.nanoTime();
            final Sampler s = sampler(this::rowsNow, () -> connectCommitted(admin, group), Map.of());
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            s.contender(p.pid());
            long start = Long.MIN_VALUE;
            long end = Long.MIN_VALUE;
            try
            {
                start = awaitGroup(admin, group, p, TABLES.size() * partitions, 600);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600 + records / 200);
                double last = -1;
                long changed = System.nanoTime();
                while (end == Long.MIN_VALUE)
                {
                    Thread.sleep(sampleMillis);
                    if (!p.isAlive())
                    {
                        throw new IllegalStateException("the Connect worker exited with " + p.exitValue());
                    }
                    final Sampler.Sample x = s.last();
                    if (x.committed() + x.rows() != last)
                    {
                        last = x.committed() + x.rows();
                        changed = System.nanoTime();
                    }
                    if ((x.committed() >= records || x.rows() >= records) && pgCount() >= records)
                    {
                        end = System.nanoTime();
                    }
                    else if (System.nanoTime() - changed > TimeUnit.SECONDS.toNanos(300)
                        || System.nanoTime() - deadline > 0)
                    {
                        // its first put() can take minutes here: Hibernate builds its metadata on the first batch
                        throw new IllegalStateException(String.format(Locale.ROOT,
                            "no progress for 300 s or timed out: %,.0f rows, %,.0f records committed of %,d",
                            x.rows(), x.committed(), records));
                    }
                }
            }
            catch (final RuntimeException | ExecutionException e)
            {
                error = e.getMessage();
            }
            finally
            {
                p.destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS))
                {
                    p.destroyForcibly();
                }
                s.close();
            }
            putServicesCpu(run, servicesBefore, servicesCpu());
            run.put("records", records);
            run.put("committed", (long)s.last().committed());
            if (start != Long.MIN_VALUE && end != Long.MIN_VALUE)
            {
                run.put("window_s", (end - start) / 1e9);
                putWindow(run, s, start, end, launched);
                run.put("window_cpu_s", run.get("contender_proc_cpu_window_s"));
            }
        }
        run.put("wal_bytes", walNow() - walBefore);
        run.put("exited_ok", error == null && run.containsKey("window_s"));
        if (error != null)
        {
            run.put("error", error);
            System.out.println("   " + name + " failed: " + error + "; last lines of " + log + ":");
            tail(log);
        }
        if (Boolean.TRUE.equals(run.get("exited_ok")))
        {
            verifyRows(run, new RowVerifier.Expected(0, records));
            run.put("rows", run.get("verified_rows"));
        }
        else
        {
            run.put("ok", false);
        }
        printRun(run);
        return run;
    }

    /** @return when the group's members first held {@code want} partitions (System.nanoTime) */
    private long awaitGroup(final Admin admin, final String group, final Process p, final int want,
        final long timeoutSeconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() - deadline < 0)
        {
            if (!p.isAlive())
            {
                throw new IllegalStateException("the contender exited before joining group " + group);
            }
            try
            {
                final ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                int assigned = 0;
                for (final MemberDescription m : d.members())
                {
                    assigned += m.assignment().topicPartitions().size();
                }
                if (assigned == want)
                {
                    return System.nanoTime();
                }
            }
            catch (final ExecutionException e)
            {
                // the group does not exist yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(
            "group " + group + " got no assignment of " + want + " partitions in " + timeoutSeconds + " s");
    }

    /** @return whether a contender's log says it stopped at the engine's start-up check of the broker */
    private static boolean startedUnreachable(final Path log) throws IOException
    {
        if (!Files.isRegularFile(log))
        {
            return false;
        }
        final String text = Files.readString(log);
        return text.contains(" is unreachable: ") && text.contains(" 0 records in");
    }

    /** @return null once the Kafka engine is done (see {@link #drainKafkaEngine}), else why it is not */
    private String awaitKafkaEngine(final Sampler s, final long timeoutSeconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        double rows = -1;
        double committed = -1;
        long changed = System.nanoTime();
        long allCommitted = Long.MIN_VALUE;
        while (true)
        {
            Thread.sleep(sampleMillis);
            final Sampler.Sample x = s.last();
            final long now = System.nanoTime();
            if (x.rows() != rows || x.committed() != committed)
            {
                rows = x.rows();
                committed = x.committed();
                changed = now;
            }
            if (rows >= records && committed >= records)
            {
                return null;
            }
            if (committed >= records)
            {
                if (allCommitted == Long.MIN_VALUE)
                {
                    allCommitted = now;
                }
                final long grace = TimeUnit.MILLISECONDS.toNanos(KAFKA_ENGINE_GRACE_MS);
                if (now - changed > grace && now - allCommitted > grace)
                {
                    return null; // short of rows for good: lost
                }
            }
            if (now - changed > TimeUnit.SECONDS.toNanos(60))
            {
                return String.format(Locale.ROOT, "no progress for 60 s: %,.0f rows, %,.0f records committed of %,d%s",
                    rows, committed, records, s.lastError() == null
                        ? ""
                        : " (last sampling error: " + s.lastError()
                            + ")");
            }
            if (now - deadline > 0)
            {
                return String.format(Locale.ROOT, "timed out after %d s: %,.0f rows, %,.0f records committed of %,d",
                    timeoutSeconds, rows, committed, records);
            }
        }
    }

    /**
     * Checks, before any run, that the ClickHouse server's Kafka engine reads a message whole into one String (what
     * the kafka-engine contender needs of the server: see scripts/services/clickhouse-users.d/kafka-engine.xml).
     *
     * @throws IllegalStateException with what to do, if it does not
     */
    private void probeKafkaEngine() throws Exception
    {
        final String db = database + "_probe";
        final String probeTopic = "sluice-bench.kafka-engine-probe-" + runId;
        final String group = "sluice-bench-" + runId + "-probe";
        final List<byte[]> lines = sample.subList(0, Math.min(2, sample.size()));
        System.out.printf("   probing ClickHouse's Kafka engine (topic %s, database %s)%n", probeTopic, db);
        try (Admin admin = admin())
        {
            admin.createTopics(Set.of(new NewTopic(probeTopic, 1, (short)1))).all().get();
            try
            {
                final Map<String, Object> p = new LinkedHashMap<>();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
                p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
                {
                    for (final byte[] line : lines)
                    {
                        producer.send(new ProducerRecord<>(probeTopic, line)).get();
                    }
                }
                admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(probeTopic, 0),
                    new OffsetAndMetadata(0))).all().get();
                KafkaEngine.dropKafkaTables(this::ch, db);
                ch("DROP DATABASE IF EXISTS " + db);
                ch("CREATE DATABASE " + db);
                ch("CREATE TABLE " + db + ".raw (raw String) ENGINE = Memory");
                ch("CREATE TABLE " + db + ".kafka_events (raw String) ENGINE = Kafka SETTINGS kafka_broker_list = '"
                    + bootstrap + "', kafka_topic_list = '" + probeTopic + "', kafka_group_name = '" + group
                    + "', kafka_format = 'CSV', kafka_row_delimiter = '\\n'");
                ch("CREATE MATERIALIZED VIEW " + db + ".to_raw TO " + db + ".raw AS SELECT raw FROM " + db
                    + ".kafka_events");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (Long.parseLong(ch("SELECT count() FROM " + db + ".raw")) < lines.size()
                    && System.nanoTime() - deadline < 0)
                {
                    Thread.sleep(200);
                }
                final List<String> got = new ArrayList<>();
                for (final String row : ch("SELECT raw FROM " + db + ".raw FORMAT TabSeparated").split("\n"))
                {
                    if (!row.isEmpty())
                    {
                        got.add(RowVerifier.unescape(row, 0, row.length()));
                    }
                }
                final List<String> want = new ArrayList<>();
                for (final byte[] line : lines)
                {
                    want.add(new String(line, StandardCharsets.UTF_8));
                }
                got.sort(null);
                want.sort(null);
                if (!got.equals(want))
                {
                    throw new IllegalStateException("ClickHouse's Kafka engine did not read the probe's " + lines.size()
                        + " JSON messages whole within 30 s (it read " + got.size() + " rows). The kafka-engine "
                        + "contender needs the server's own profile to set format_csv_delimiter to a tab: "
                        + "scripts/services/clickhouse-users.d/kafka-engine.xml and clickhouse-config.d/, which "
                        + "scripts/services.sh start installs; restart a server started before with `scripts/services.sh "
                        + "restart clickhouse`, or leave the contender out with --contenders");
                }
            }
            finally
            {
                KafkaEngine.dropKafkaTables(this::ch, db);
                ch("DROP DATABASE IF EXISTS " + db);
                admin.deleteTopics(List.of(probeTopic)).all().get();
            }
        }
    }

    /** One clickhouse-limit run at {@code rowsPerInsert} rows per insert (max_rows; max_bytes out of the way). */
    private Map<String, Object> sweepRun(final int rowsPerInsert) throws Exception
    {
        final String limit = postgres() ? "copy-limit" : "clickhouse-limit";
        final String name = limit + "-batch-" + rowsPerInsert;
        final Path config = config(name, topic, "unused", drainBatching(rowsPerInsert, 1L << 30), "");
        final Path json = runDir.resolve(name + ".json");
        freshTables();
        final Map<String, Object> run;
        final Sampler s = sampler(this::rowsNow, null, Map.of());
        run = launch(name, limit, 0, "sweep", command(limit, config, json, 0, 0), json, 600 + records / 200, s);
        run.put("rows_per_insert", rowsPerInsert);
        if (Boolean.TRUE.equals(run.get("exited_ok")))
        {
            if (!postgres())
            {
                putParts(run);
            }
            verifyRows(run, new RowVerifier.Expected(0, records));
        }
        else
        {
            run.put("ok", false);
        }
        // PostgreSQL's row count lags (statistics): the window ends when the limit's process ended
        putContenderWindow(run, s, !postgres());
        System.out.printf(Locale.ROOT,
            "   %-30s %,9.0f rows/s  %s %6.2f us/row  %,6d parts, %,8.0f rows/part%s%n",
            name, BenchReport.num(run, "rows") / BenchReport.num(run, "window_s"),
            postgres() ? "PostgreSQL" : "ClickHouse",
            BenchReport.num(run, "clickhouse_cpu_window_s") / BenchReport.num(run, "rows") * 1e6,
            run.get("parts_created") instanceof Number n ? n.longValue() : 0,
            BenchReport.num(run, "rows_per_part_mean"),
            Boolean.TRUE.equals(run.get("ok")) ? "" : "  FAILED");
        return run;
    }

    private long liveFirstCopy(final int round)
    {
        return (records + sample.size() - 1) / sample.size() + round * 100L;
    }

    private Map<String, Object> live(final String contender, final int round) throws Exception
    {
        final String name = contender + "-live-r" + round;
        final String liveTopic = topic + ".live-" + runId + "-" + name;
        final String group = "sluice-bench-" + runId + "-" + name;
        final long warm = Math.round(liveRate * liveWarmupSeconds);
        final long n = warm + Math.max(1, Math.round(liveRate * liveSeconds));
        try (Admin admin = admin())
        {
            admin.createTopics(Set.of(new NewTopic(liveTopic, partitions, (short)1))).all().get();
        }
        freshTables();
        final Path config = config(name, liveTopic, group);
        final Path json = runDir.resolve(name + ".json");
        final Path log = runDir.resolve(name + ".log");
        final List<String> cmd = command(contender, config, json, n, warm);
        Files.writeString(runDir.resolve(name + ".cmd"), String.join(" ", cmd) + "\n");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        final Map<String, Object> run = new LinkedHashMap<>();
        run.put("name", name);
        run.put("contender", contender);
        run.put("round", round);
        run.put("phase", "live");
        run.put("live_rate", liveRate);
        run.put("live_records", n);
        run.put("live_warmup_records", warm);
        try
        {
            awaitAssignment(group, p);
            produceLive(liveTopic, n, round);
            final long produced = System.nanoTime();
            final boolean done = p.waitFor(300 + (long)(liveSeconds + liveWarmupSeconds) * 3, TimeUnit.SECONDS);
            // a contender that kept up exits about linger_ms after the last record; one that fell behind, later
            run.put("exit_after_last_produced_s", (System.nanoTime() - produced) / 1e9);
            if (!done)
            {
                p.destroy();
                p.waitFor(30, TimeUnit.SECONDS);
                p.destroyForcibly();
            }
            run.put("exit_code", done ? p.exitValue() : -1);
            run.put("exited_ok", done && p.exitValue() == 0 && Files.isRegularFile(json));
        }
        catch (final RuntimeException | ExecutionException e)
        {
            p.destroyForcibly();
            run.put("error", e.toString());
            run.put("exited_ok", false);
        }
        if (Boolean.TRUE.equals(run.get("exited_ok")))
        {
            readResult(run, json);
            verifyRows(run, new RowVerifier.Expected(liveFirstCopy(round), n));
        }
        else
        {
            run.put("ok", false);
            tail(log);
        }
        try (Admin admin = admin())
        {
            admin.deleteTopics(List.of(liveTopic)).all().get();
        }
        printRun(run);
        return run;
    }

    private void awaitAssignment(final String group, final Process p) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Admin admin = admin())
        {
            while (System.nanoTime() - deadline < 0)
            {
                if (!p.isAlive())
                {
                    throw new IllegalStateException("the contender exited before joining group " + group);
                }
                try
                {
                    final ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get()
                        .get(group);
                    int assigned = 0;
                    for (final MemberDescription m : d.members())
                    {
                        assigned += m.assignment().topicPartitions().size();
                    }
                    if (assigned == partitions)
                    {
                        return;
                    }
                }
                catch (final ExecutionException e)
                {
                    // the group does not exist yet
                }
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException(
            "group " + group + " got no assignment of " + partitions + " partitions within 120 s");
    }

    /** Produces {@code n} sample records at {@link #liveRate}, open loop: each is sent at its scheduled time. */
    private void produceLive(final String liveTopic, final long n, final int round) throws Exception
    {
        final Map<String, Object> p = new LinkedHashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        final long intervalNanos = (long)(1e9 / liveRate);
        final long firstCopy = liveFirstCopy(round);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            final long start = System.nanoTime();
            for (long i = 0; i < n; i++)
            {
                final long due = start + i * intervalNanos;
                long wait;
                while ((wait = due - System.nanoTime()) > 0)
                {
                    LockSupport.parkNanos(Math.min(wait, 1_000_000));
                }
                final int line = (int)(i % sample.size());
                producer.send(new ProducerRecord<>(liveTopic, withId(sample.get(line), firstCopy + i / sample.size())));
            }
            producer.flush();
        }
    }

    /** Runs a contender JVM; {@code sampler} (closed here once it exits) samples the services meanwhile. */
    private Map<String, Object> launch(final String name, final String contender, final int round, final String phase,
        final List<String> cmd, final Path json, final long timeoutSeconds, final Sampler sampler) throws Exception
    {
        final Path log = runDir.resolve(name + ".log");
        Files.writeString(runDir.resolve(name + ".cmd"), String.join(" ", cmd) + "\n");
        final Map<String, Object> run = new LinkedHashMap<>();
        run.put("name", name);
        run.put("contender", contender);
        run.put("round", round);
        run.put("phase", phase);
        final double[] servicesBefore = servicesCpu();
        run.put("launched_nanos", System.nanoTime());
        final Process p;
        try
        {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        catch (final IOException e)
        {
            sampler.close();
            throw e;
        }
        sampler.contender(p.pid());
        final boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        putServicesCpu(run, servicesBefore, servicesCpu());
        sampler.close();
        if (!done)
        {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
            }
        }
        run.put("exit_code", done ? p.exitValue() : -1);
        run.put("exited_ok", done && p.exitValue() == 0 && Files.isRegularFile(json));
        if (Boolean.TRUE.equals(run.get("exited_ok")))
        {
            readResult(run, json);
        }
        else
        {
            System.out.println(
                "   " + name + (done ? " exited with " + p.exitValue() : " timed out after " + timeoutSeconds + " s")
                    + "; last lines of " + log + ":");
            tail(log);
        }
        return run;
    }

    private void readResult(final Map<String, Object> run, final Path json) throws IOException
    {
        final JsonNode r = mapper.readTree(json.toFile());
        for (final Map.Entry<String, JsonNode> e : r.properties())
        {
            if (!e.getKey().equals("contender"))
            {
                run.put(e.getKey(), e.getValue().isNumber() ? e.getValue().numberValue() : e.getValue().asText());
            }
        }
    }

    private static void tail(final Path log) throws IOException
    {
        if (Files.isRegularFile(log))
        {
            final List<String> lines = Files.readAllLines(log);
            for (final String l : lines.subList(Math.max(0, lines.size() - 25), lines.size()))
            {
                System.out.println("     | " + l);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ report

    private void printRun(final Map<String, Object> run)
    {
        if (!Boolean.TRUE.equals(run.get("exited_ok")))
        {
            System.out.printf("   %-22s FAILED%n", run.get("name"));
            return;
        }
        if ("live".equals(run.get("phase")))
        {
            System.out.printf(Locale.ROOT,
                "   %-22s %,d records at %,.0f/s (first %,d left out): latency p50 %.0f ms, p99 %.0f ms, p99.9 %.0f ms; "
                    + "done %.1f s after the last record%s%n",
                run.get("name"), ((Number)run.get("live_records")).longValue(), liveRate,
                ((Number)run.get("live_warmup_records")).longValue(),
                BenchReport.num(run, "latency_p50_us") / 1e3, BenchReport.num(run, "latency_p99_us") / 1e3,
                BenchReport.num(run, "latency_p999_us") / 1e3,
                BenchReport.num(run, "exit_after_last_produced_s"), verifiedText(run));
            return;
        }
        final double n = BenchReport.num(run, "records");
        final boolean server = "kafka-engine".equals(run.get("contender"));
        System.out.printf(Locale.ROOT, "   %-22s %,10.0f records/s  window %6.2f s  CPU per record (us): %s %5.1f, "
            + (postgres() ? "PostgreSQL" : "ClickHouse") + " %5.1f, broker %4.1f%s%s%n",
            run.get("name"), BenchReport.recordsPerSecond(run), BenchReport.num(run, "window_s"),
            server ? "server" : "contender",
            BenchReport.num(run, "window_cpu_s") / n * 1e6, BenchReport.num(run, "clickhouse_cpu_window_s") / n * 1e6,
            BenchReport.num(run, "broker_cpu_window_s") / n * 1e6,
            run.get("parts_created") instanceof Number p
                ? String.format(Locale.ROOT, "  parts %,d (%,.0f rows each)", p.longValue(),
                    BenchReport.num(run, "rows_per_part_mean"))
                : "",
            verifiedText(run));
    }

    private static String verifiedText(final Map<String, Object> run)
    {
        if (!run.containsKey("verified_rows"))
        {
            return "";
        }
        final long lost = ((Number)run.get("verified_lost")).longValue();
        final long dup = ((Number)run.get("verified_duplicates")).longValue();
        final long bad = ((Number)run.get("verified_wrong")).longValue()
            + ((Number)run.get("verified_misplaced")).longValue() + ((Number)run.get("verified_unknown")).longValue();
        return String.format(Locale.ROOT, "  rows %,d verified: %s%s",
            ((Number)run.get("verified_rows")).longValue(),
            lost == 0 && dup == 0 && bad == 0
                ? "all right"
                : String.format(Locale.ROOT, "LOST %,d, DUPLICATED %,d, WRONG %,d", lost, dup, bad),
            Boolean.TRUE.equals(run.get("ok")) ? "" : " MISMATCH");
    }

    private Map<String, Object> report(final Map<String, Object> machine)
    {
        final BenchReport r = new BenchReport(new BenchReport.Settings(records, rounds,
            topicBytes > 0 ? (double)topicBytes / records : Double.NaN, liveRate, liveSeconds, liveWarmupSeconds,
            sampleMillis), runs, sweep);
        r.server(postgres() ? "PostgreSQL" : "ClickHouse");
        r.build((String)machine.get("summary"), command);
        final StringBuilder t = new StringBuilder(r.text());
        final List<Map<String, Object>> rows = r.rows();
        final Map<String, Object> ratios = r.ratios();
        System.out.print(t);
        final Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("run_id", runId);
        summary.put("command", command);
        summary.put("machine", machine);
        summary.put("records", records);
        summary.put("rounds", rounds);
        summary.put("partitions", partitions);
        summary.put("topic", topic);
        summary.put("topic_value_bytes", topicBytes);
        summary.put("contenders", contenders);
        summary.put("live_rate", liveRate);
        summary.put("live_seconds", liveSeconds);
        summary.put("live_warmup_seconds", liveWarmupSeconds);
        summary.put("contender_jvm_options", contenderJvm);
        summary.put("drain_max_rows", drainMaxRows);
        summary.put("drain_max_bytes", drainMaxBytes);
        summary.put("drain_linger_ms", drainLingerMs);
        summary.put("kafka_engine_block_size", kafkaEngineBlockSize);
        summary.put("kafka_engine_consumers", kafkaEngineConsumers);
        summary.put("sample_ms", sampleMillis);
        summary.put("clickhouse_pid", clickhousePid);
        summary.put("broker_pid", brokerPid);
        summary.put("table", rows);
        summary.put("ratios", ratios);
        summary.put("table_text", t.toString());
        summary.put("runs", runs);
        summary.put("batch_sweep", sweep);
        try
        {
            Files.writeString(runDir.resolve("table.txt"), t.toString());
            Files.writeString(out.resolve(postgres() ? "latest-postgres.txt" : "latest.txt"), t.toString());
        }
        catch (final IOException e)
        {
            System.err.println("cannot write the table: " + e);
        }
        return summary;
    }

    private Map<String, Object> machine()
    {
        String clickhouseVersion = "?";
        try
        {
            if (postgres())
            {
                try (java.sql.Connection c = java.sql.DriverManager.getConnection(postgres, "sluice",
                    System.getenv("PGPASSWORD"));
                    java.sql.Statement st = c.createStatement();
                    java.sql.ResultSet rs = st.executeQuery("SHOW server_version"))
                {
                    final Map<String, Object> m = machine(rs.next() ? rs.getString(1) : "?");
                    m.put("summary", ((String)m.get("summary")).replaceFirst("ClickHouse [^,]*", "PostgreSQL "
                        + m.get("clickhouse")));
                    m.put("postgres", m.remove("clickhouse"));
                    return m;
                }
                catch (final java.sql.SQLException e)
                {
                    return machine("?");
                }
            }
            clickhouseVersion = ch("SELECT version()");
        }
        catch (final IOException | InterruptedException | RuntimeException e)
        {
            // reported as "?"
        }
        return machine(clickhouseVersion);
    }

    /**
     * @param clickhouseVersion the ClickHouse server's version, or "?"
     * @return this machine: cores, CPU model, memory, OS, Java, the services' versions, and a one-line summary
     */
    static Map<String, Object> machine(final String clickhouseVersion)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        String cpu = "unknown cpu";
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/cpuinfo")))
            {
                if (line.startsWith("model name"))
                {
                    cpu = line.substring(line.indexOf(':') + 1).strip();
                    break;
                }
            }
        }
        catch (final IOException e)
        {
            // not Linux
        }
        final long memBytes = ((com.sun.management.OperatingSystemMXBean)java.lang.management.ManagementFactory
            .getOperatingSystemMXBean()).getTotalMemorySize();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpu);
        m.put("memory_gib", Math.round(memBytes / 1073741824.0));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("clickhouse", clickhouseVersion);
        m.put("kafka",
            org.apache.kafka.common.utils.AppInfoParser.getVersion() + " (client; broker from scripts/services.sh)");
        m.put("summary", String.format(Locale.ROOT, "%d cores (%s), %d GiB, %s, %s, ClickHouse %s, Kafka %s",
            m.get("cores"), cpu, m.get("memory_gib"), m.get("os"), m.get("java"), clickhouseVersion,
            org.apache.kafka.common.utils.AppInfoParser.getVersion()));
        return m;
    }
}
