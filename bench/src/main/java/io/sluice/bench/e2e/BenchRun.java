package io.sluice.bench.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The end-to-end benchmark run behind {@code scripts/bench.sh}: on the local Kafka and ClickHouse, the real GitHub
 * events of {@code examples/data} replicated (distinct ids) into one topic of 4 partitions, it measures side by side,
 * in the same run:
 * <ol>
 *   <li>the limits of this machine for this data: {@link ConsumerLimit} (Kafka's consumer alone) and
 *       {@link ClickHouseLimit} (ClickHouse ingesting Sluice's RowBinary rows over HTTP, nothing in between);</li>
 *   <li>the plain baseline, {@link PlainConsumer};</li>
 *   <li>Sluice, {@code java -jar engine.jar bench} (the engine's {@code --until-caught-up} run, measured);</li>
 * </ol>
 * each as its own JVM, rounds of limits then baseline then Sluice (A B A B …), fresh tables and a fresh consumer
 * group per run, row counts and distinct ids verified in ClickHouse after every run. Throughput, CPU, memory, GC
 * and allocation come from draining the pre-loaded topic; latency comes from a second, paced run per contender in
 * which records are produced live at a fixed rate (a pre-loaded record's Kafka timestamp says when it was loaded,
 * not when it became available). Prints a table of medians and the ratios, and writes everything as JSON under
 * {@code --out}.
 */
public final class BenchRun
{
    private static final long ID_STEP = 10_000_000_000L;
    private static final List<String> TABLES = List.of("push_events", "watch_events", "create_events", "issues_events",
        "pull_request_events", "issue_comment_events", "fork_events", "other_events");
    private static final String CONTENDER_JVM = "-Xms512m -Xmx2g -XX:+UseG1GC";
    private static final String JVM_FLAGS = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED "
        + "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED "
        + "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED "
        + "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED "
        + "--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED "
        + "--add-opens=java.base/java.util=ALL-UNNAMED -Dchronicle.analytics.disable=true";

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

    private Path engineJar;
    private Path benchJar;
    private Path runDir;
    private String runId;
    private List<byte[]> sample;
    private long topicBytes;
    private final List<Map<String, Object>> runs = new ArrayList<>();

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
            "  --quick          100,000 records, 1 round, a live phase of 3 s warm-up + 5 s at 2,000 records/s",
            "  --records N      records in the topic (default 1,000,000; the 8,502-event sample repeated with distinct ids)",
            "  --rounds R       rounds of limits, baseline, Sluice (default 3)",
            "  --live-rate R    records/s of the paced latency phase (default 2000; 0 skips the phase)",
            "  --live-seconds S length of the latency phase (default 10)",
            "  --live-warmup-seconds W  records produced first at the same rate and left out of the percentiles (default 5)",
            "  --reload         reload the topic even if it already holds exactly N records",
            "  --jvm-opts \"..\"  JVM options of both contenders (default \"" + CONTENDER_JVM + "\")");
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
                default -> throw new IllegalArgumentException("unknown argument " + a);
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
        if (records < 1 || rounds < 1 || partitions < 1)
        {
            throw new IllegalArgumentException("--records, --rounds and --partitions must be positive");
        }
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
        runDir = out.resolve("e2e-" + runId);
        Files.createDirectories(runDir);
        sample = readSample(root.resolve("examples/data/github-events.jsonl.gz"));
        final Map<String, Object> machine = machine();
        System.out.printf(Locale.ROOT,
            "== Sluice end-to-end benchmark %s%n   machine: %s%n   command: %s%n   %,d records x %d round(s), topic %s (%d partitions), database %s; logs and JSON in %s%n",
            runId, machine.get("summary"), command, records, rounds, topic, partitions, database, runDir);

        prepareTopic();
        final long t0 = System.nanoTime();
        for (int r = 1; r <= rounds; r++)
        {
            System.out.printf("%n== round %d of %d%n", r, rounds);
            runs.add(drain("kafka-limit", r));
            runs.add(drain("clickhouse-limit", r));
            runs.add(drain("baseline", r));
            runs.add(drain("sluice", r));
            if (liveRate > 0 && liveSeconds > 0)
            {
                runs.add(live("baseline", r));
                runs.add(live("sluice", r));
            }
        }
        System.out.printf(Locale.ROOT, "%nall runs took %.0f s%n", (System.nanoTime() - t0) / 1e9);
        final Map<String, Object> summary = report(machine);
        Files.writeString(runDir.resolve("result.json"), mapper.writeValueAsString(summary));
        Files.writeString(out.resolve("latest.json"), mapper.writeValueAsString(summary));
        boolean ok = true;
        for (final Map<String, Object> run : runs)
        {
            ok &= Boolean.TRUE.equals(run.get("ok"));
        }
        System.out.println(ok
            ? "OK: every run finished and its rows were verified in ClickHouse."
            : "FAILED: some runs did not finish or did not verify; see above and the logs in " + runDir);
        return ok ? 0 : 1;
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
    private static byte[] withId(final byte[] line, final long copy)
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

    private long[] verify() throws IOException, InterruptedException
    {
        final StringBuilder union = new StringBuilder();
        long rows = 0;
        for (final String t : TABLES)
        {
            rows += Long.parseLong(ch("SELECT count() FROM " + database + "." + t));
            if (union.length() > 0)
            {
                union.append(" UNION ALL ");
            }
            union.append("SELECT id FROM ").append(database).append('.').append(t);
        }
        final long distinct = Long.parseLong(ch("SELECT uniqExact(id) FROM (" + union + ")"));
        return new long[]{rows, distinct};
    }

    // ------------------------------------------------------------------------------------------------ services' CPU

    /** The pids of the local ClickHouse server and Kafka broker (by command line), found once. */
    private long[] servicePids;

    private long[] servicePids()
    {
        if (servicePids == null)
        {
            long clickhousePid = -1;
            long kafkaPid = -1;
            try (var dirs = Files.list(Path.of("/proc")))
            {
                for (final Path d : (Iterable<Path>)dirs::iterator)
                {
                    final String name = d.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit))
                    {
                        continue;
                    }
                    try
                    {
                        final String cmdline = new String(Files.readAllBytes(d.resolve("cmdline")),
                            StandardCharsets.UTF_8);
                        if (cmdline.contains("clickhouse-server") || cmdline.startsWith("clickhouse\u0000server"))
                        {
                            clickhousePid = Long.parseLong(name);
                        }
                        else if (cmdline.contains("kafka.Kafka"))
                        {
                            kafkaPid = Long.parseLong(name);
                        }
                    }
                    catch (final IOException | RuntimeException e)
                    {
                        // the process ended or is not ours to read
                    }
                }
            }
            catch (final IOException e)
            {
                // not Linux: no services' CPU
            }
            servicePids = new long[]{clickhousePid, kafkaPid};
        }
        return servicePids;
    }

    /** @return CPU seconds (user + system) a process has used so far, from /proc/PID/stat; NaN when unknown */
    private static double cpuSeconds(final long pid)
    {
        if (pid < 0)
        {
            return Double.NaN;
        }
        try
        {
            final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime in USER_HZ (100 on Linux)
        }
        catch (final IOException | RuntimeException e)
        {
            return Double.NaN;
        }
    }

    private double[] servicesCpu()
    {
        final long[] pids = servicePids();
        return new double[]{cpuSeconds(pids[0]), cpuSeconds(pids[1])};
    }

    private static void putServicesCpu(final Map<String, Object> run, final double[] before, final double[] after)
    {
        run.put("clickhouse_server_cpu_s", after[0] - before[0]);
        run.put("kafka_broker_cpu_s", after[1] - before[1]);
    }

    // ------------------------------------------------------------------------------------------------ runs

    private Path config(final String name, final String topicName, final String group) throws IOException
    {
        final String toml = Files.readString(root.resolve("examples/github-events.toml"))
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
        final Path f = runDir.resolve(name + ".toml");
        Files.writeString(f, toml);
        return f;
    }

    private List<String> command(final String contender, final Path config, final Path json, final long stopAfterRows,
        final long latencyAfterRows)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add("java");
        final String jvm = contender.endsWith("limit") ? "-Xms512m -Xmx4g -XX:+UseG1GC" : contenderJvm;
        cmd.addAll(Arrays.asList(jvm.trim().split("\\s+")));
        cmd.addAll(Arrays.asList(JVM_FLAGS.split(" ")));
        switch (contender)
        {
            case "sluice" -> cmd.addAll(List.of("-jar", engineJar.toString(), "bench", "--config", config.toString(),
                "--json", json.toString()));
            case "baseline" -> cmd.addAll(List.of("-cp", benchJar.toString(), PlainConsumer.class.getName(), "--config",
                config.toString(), "--json", json.toString()));
            case "kafka-limit" -> cmd.addAll(List.of("-cp", benchJar.toString(), ConsumerLimit.class.getName(),
                "--bootstrap-servers", bootstrap, "--topic", topic, "--json", json.toString()));
            case "clickhouse-limit" -> cmd.addAll(List.of("-cp", benchJar.toString(), ClickHouseLimit.class.getName(),
                "--config", config.toString(), "--json", json.toString()));
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
        final Path config = config(name, topic, group);
        final Path json = runDir.resolve(name + ".json");
        final boolean writes = !contender.equals("kafka-limit");
        if (writes)
        {
            freshTables();
        }
        final Map<String, Object> run = launch(name, contender, round, "drain", command(contender, config, json, 0, 0),
            json,
            600 + records / 200);
        if (writes && Boolean.TRUE.equals(run.get("exited_ok")))
        {
            final long[] v = verify();
            run.put("verified_rows", v[0]);
            run.put("verified_distinct_ids", v[1]);
            run.put("ok", v[0] == records && v[1] == records);
        }
        else
        {
            run.put("ok", run.get("exited_ok"));
        }
        if (contender.equals("kafka-limit") && run.get("bytes_in") instanceof Number n)
        {
            topicBytes = n.longValue();
        }
        printRun(run);
        return run;
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
            final long[] v = verify();
            run.put("verified_rows", v[0]);
            run.put("verified_distinct_ids", v[1]);
            run.put("ok", v[0] == n && v[1] == n);
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
        final long firstCopy = (records + sample.size() - 1) / sample.size() + round * 100L;
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

    private Map<String, Object> launch(final String name, final String contender, final int round, final String phase,
        final List<String> cmd, final Path json, final long timeoutSeconds) throws Exception
    {
        final Path log = runDir.resolve(name + ".log");
        Files.writeString(runDir.resolve(name + ".cmd"), String.join(" ", cmd) + "\n");
        final Map<String, Object> run = new LinkedHashMap<>();
        run.put("name", name);
        run.put("contender", contender);
        run.put("round", round);
        run.put("phase", phase);
        final double[] servicesBefore = servicesCpu();
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        final boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        putServicesCpu(run, servicesBefore, servicesCpu());
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

    private static double num(final Map<String, Object> run, final String key)
    {
        return run.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private double recordsPerSecond(final Map<String, Object> run)
    {
        if (run.get("contender").equals("clickhouse-limit"))
        {
            return num(run, "rows") / num(run, "window_s");
        }
        return num(run, "records") / num(run, "window_s");
    }

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
                num(run, "latency_p50_us") / 1e3, num(run, "latency_p99_us") / 1e3, num(run, "latency_p999_us") / 1e3,
                num(run, "exit_after_last_produced_s"), verifiedText(run));
            return;
        }
        System.out.printf(Locale.ROOT, "   %-22s %,10.0f records/s  window %6.2f s  cpu %5.2f s  rss %5.0f MiB  "
            + "services cpu: clickhouse %5.1f s kafka %5.1f s%s%n",
            run.get("name"), recordsPerSecond(run), num(run, "window_s"), num(run, "window_cpu_s"),
            num(run, "peak_rss_bytes") / 1048576, num(run, "clickhouse_server_cpu_s"), num(run, "kafka_broker_cpu_s"),
            verifiedText(run));
    }

    private static String verifiedText(final Map<String, Object> run)
    {
        if (!run.containsKey("verified_rows"))
        {
            return "";
        }
        return String.format(Locale.ROOT, "  rows %,d distinct ids %,d %s",
            ((Number)run.get("verified_rows")).longValue(),
            ((Number)run.get("verified_distinct_ids")).longValue(),
            Boolean.TRUE.equals(run.get("ok")) ? "ok" : "MISMATCH");
    }

    private static double median(final List<Double> xs)
    {
        final double[] a = xs.stream().filter(d -> !Double.isNaN(d)).mapToDouble(Double::doubleValue).sorted()
            .toArray();
        if (a.length == 0)
        {
            return Double.NaN;
        }
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private List<Map<String, Object>> runsOf(final String contender, final String phase)
    {
        final List<Map<String, Object>> l = new ArrayList<>();
        for (final Map<String, Object> r : runs)
        {
            if (r.get("contender").equals(contender) && r.get("phase").equals(phase)
                && Boolean.TRUE.equals(r.get("exited_ok")))
            {
                l.add(r);
            }
        }
        return l;
    }

    private double med(final String contender, final String phase,
        final java.util.function.ToDoubleFunction<Map<String, Object>> f)
    {
        final List<Double> xs = new ArrayList<>();
        for (final Map<String, Object> r : runsOf(contender, phase))
        {
            xs.add(f.applyAsDouble(r));
        }
        return median(xs);
    }

    /** Per-round ratio a/b of a metric, then the median over rounds. */
    private double ratio(final String a, final String b, final String phase,
        final java.util.function.ToDoubleFunction<Map<String, Object>> f)
    {
        final List<Double> xs = new ArrayList<>();
        for (int r = 1; r <= rounds; r++)
        {
            final int round = r;
            final var ra = runsOf(a, phase).stream().filter(x -> ((Number)x.get("round")).intValue() == round)
                .findFirst();
            final var rb = runsOf(b, phase).stream().filter(x -> ((Number)x.get("round")).intValue() == round)
                .findFirst();
            if (ra.isPresent() && rb.isPresent())
            {
                xs.add(f.applyAsDouble(ra.get()) / f.applyAsDouble(rb.get()));
            }
        }
        return median(xs);
    }

    private double ratioToLimits(final java.util.function.ToDoubleFunction<Map<String, Object>> f)
    {
        final List<Double> xs = new ArrayList<>();
        for (int r = 1; r <= rounds; r++)
        {
            final int round = r;
            final var s = runsOf("sluice", "drain").stream().filter(x -> ((Number)x.get("round")).intValue() == round)
                .findFirst();
            final var k = runsOf("kafka-limit", "drain").stream()
                .filter(x -> ((Number)x.get("round")).intValue() == round).findFirst();
            final var c = runsOf("clickhouse-limit", "drain").stream()
                .filter(x -> ((Number)x.get("round")).intValue() == round).findFirst();
            if (s.isPresent() && k.isPresent() && c.isPresent())
            {
                xs.add(f.applyAsDouble(s.get()) / Math.min(f.applyAsDouble(k.get()), f.applyAsDouble(c.get())));
            }
        }
        return median(xs);
    }

    private Map<String, Object> report(final Map<String, Object> machine)
    {
        final double bytesPerRecord = topicBytes > 0 ? (double)topicBytes / records : Double.NaN;
        final List<Map<String, Object>> rows = new ArrayList<>();
        final StringBuilder t = new StringBuilder();
        t.append(String.format(Locale.ROOT,
            "%n== results: median of %d round(s); %,d records of %.0f bytes on average (JSON values)%n%n",
            rounds, records, bytesPerRecord));
        final String head = String.format(Locale.ROOT,
            "| %-16s | %10s | %6s | %9s | %8s | %8s | %4s | %8s | %9s | %7s | %7s | %7s |%n",
            "contender", "records/s", "MB/s", "CPU s/M", "RSS MiB", "heap MiB", "GCs", "GC ms", "alloc B/r", "p50 ms",
            "p99 ms", "p999 ms");
        t.append(head);
        t.append(head.replaceAll("[^|\n]", "-"));
        for (final String c : List.of("kafka-limit", "clickhouse-limit", "baseline", "sluice"))
        {
            if (runsOf(c, "drain").isEmpty())
            {
                continue;
            }
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("contender", c);
            row.put("records_per_s", med(c, "drain", this::recordsPerSecond));
            row.put("mb_per_s", med(c, "drain", r -> recordsPerSecond(r) * bytesPerRecord / 1e6));
            row.put("cpu_s_per_m_records", med(c, "drain", r -> num(r, "window_cpu_s") / num(r, "records") * 1e6));
            row.put("process_cpu_s_per_m_records",
                med(c, "drain", r -> num(r, "process_cpu_s") / num(r, "records") * 1e6));
            row.put("clickhouse_server_cpu_s_per_m_records",
                med(c, "drain", r -> num(r, "clickhouse_server_cpu_s") / num(r, "records") * 1e6));
            row.put("kafka_broker_cpu_s_per_m_records",
                med(c, "drain", r -> num(r, "kafka_broker_cpu_s") / num(r, "records") * 1e6));
            row.put("peak_rss_mib", med(c, "drain", r -> num(r, "peak_rss_bytes") / 1048576));
            row.put("peak_heap_mib", med(c, "drain", r -> num(r, "peak_heap_bytes") / 1048576));
            row.put("gc_count", med(c, "drain", r -> num(r, "gc_count")));
            row.put("gc_pause_ms", med(c, "drain", r -> num(r, "gc_pause_ms")));
            row.put("alloc_bytes_per_record", med(c, "drain", r -> num(r, "alloc_window_bytes") / num(r, "records")));
            row.put("process_wall_s", med(c, "drain", r -> num(r, "process_wall_s")));
            row.put("latency_p50_ms", med(c, "live", r -> num(r, "latency_p50_us") / 1e3));
            row.put("latency_p99_ms", med(c, "live", r -> num(r, "latency_p99_us") / 1e3));
            row.put("latency_p999_ms", med(c, "live", r -> num(r, "latency_p999_us") / 1e3));
            rows.add(row);
            final boolean limit = c.endsWith("limit");
            t.append(String.format(Locale.ROOT,
                "| %-16s | %10s | %6s | %9s | %8s | %8s | %4s | %8s | %9s | %7s | %7s | %7s |%n",
                c, f0(row.get("records_per_s")), f1(row.get("mb_per_s")),
                c.equals("clickhouse-limit") ? "-" : f2(row.get("cpu_s_per_m_records")),
                limit ? "-" : f0(row.get("peak_rss_mib")), limit ? "-" : f0(row.get("peak_heap_mib")),
                limit ? "-" : f0(row.get("gc_count")), limit ? "-" : f0(row.get("gc_pause_ms")),
                c.equals("clickhouse-limit") ? "-" : f0(row.get("alloc_bytes_per_record")),
                f0(row.get("latency_p50_ms")), f0(row.get("latency_p99_ms")), f0(row.get("latency_p999_ms"))));
        }
        t.append(String.format(Locale.ROOT, "%nCPU s per M records (medians): %-16s %12s %12s %12s%n", "", "contender",
            "ClickHouse", "Kafka broker"));
        for (final Map<String, Object> row : rows)
        {
            t.append(String.format(Locale.ROOT, "  %-16s %42s %12s %12s%n", row.get("contender"),
                f2(row.get("cpu_s_per_m_records")), f2(row.get("clickhouse_server_cpu_s_per_m_records")),
                f2(row.get("kafka_broker_cpu_s_per_m_records"))));
        }
        t.append("  (contender: its window; ClickHouse and Kafka: the server processes over the contender's whole\n"
            + "   process lifetime, including JVM start and anything else using the servers meanwhile)\n");
        final Map<String, Object> ratios = new LinkedHashMap<>();
        ratios.put("sluice_over_baseline_records_per_s", ratio("sluice", "baseline", "drain", this::recordsPerSecond));
        ratios.put("sluice_over_baseline_cpu_per_record", ratio("sluice", "baseline", "drain",
            r -> num(r, "window_cpu_s") / num(r, "records")));
        ratios.put("sluice_over_baseline_cpu_per_record_with_services", ratio("sluice", "baseline", "drain",
            r -> (num(r, "window_cpu_s") + num(r, "clickhouse_server_cpu_s") + num(r, "kafka_broker_cpu_s"))
                / num(r, "records")));
        ratios.put("sluice_over_baseline_alloc_per_record", ratio("sluice", "baseline", "drain",
            r -> num(r, "alloc_window_bytes") / num(r, "records")));
        ratios.put("sluice_over_baseline_p99", ratio("sluice", "baseline", "live", r -> num(r, "latency_p99_us")));
        ratios.put("sluice_over_min_limits_records_per_s", ratioToLimits(this::recordsPerSecond));
        t.append(String.format(Locale.ROOT, "%nratios (per round, then the median):%n"));
        t.append(String.format(Locale.ROOT, "  Sluice / baseline records/s        %6.2fx   (goal >= 3x)%n",
            ratios.get("sluice_over_baseline_records_per_s")));
        t.append(String.format(Locale.ROOT, "  Sluice / min(limits) records/s     %6.2f    (goal >= 0.80)%n",
            ratios.get("sluice_over_min_limits_records_per_s")));
        t.append(String.format(Locale.ROOT, "  Sluice / baseline CPU per record   %6.2f    (goal: a fraction)%n",
            ratios.get("sluice_over_baseline_cpu_per_record")));
        t.append(String.format(Locale.ROOT, "  ... with ClickHouse + Kafka CPU     %6.2f%n",
            ratios.get("sluice_over_baseline_cpu_per_record_with_services")));
        t.append(String.format(Locale.ROOT, "  Sluice / baseline alloc per record %6.3f%n",
            ratios.get("sluice_over_baseline_alloc_per_record")));
        t.append(String.format(Locale.ROOT,
            "  Sluice / baseline p99 latency      %6.2f    (goal < 1; live phase at %,.0f records/s, %.0f s after %.0f s warm-up)%n",
            ratios.get("sluice_over_baseline_p99"), liveRate, liveSeconds, liveWarmupSeconds));
        t.append(String.format(Locale.ROOT, "%nmachine: %s%ndate: %s%ncommand: %s%n", machine.get("summary"),
            ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), command));
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
        summary.put("live_rate", liveRate);
        summary.put("live_seconds", liveSeconds);
        summary.put("live_warmup_seconds", liveWarmupSeconds);
        summary.put("contender_jvm_options", contenderJvm);
        summary.put("table", rows);
        summary.put("ratios", ratios);
        summary.put("table_text", t.toString());
        summary.put("runs", runs);
        try
        {
            Files.writeString(runDir.resolve("table.txt"), t.toString());
            Files.writeString(out.resolve("latest.txt"), t.toString());
        }
        catch (final IOException e)
        {
            System.err.println("cannot write the table: " + e);
        }
        return summary;
    }

    private static String f0(final Object v)
    {
        final double d = ((Number)v).doubleValue();
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%,.0f", d);
    }

    private static String f1(final Object v)
    {
        final double d = ((Number)v).doubleValue();
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%.1f", d);
    }

    private static String f2(final Object v)
    {
        final double d = ((Number)v).doubleValue();
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%.2f", d);
    }

    private Map<String, Object> machine()
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
        String clickhouseVersion = "?";
        try
        {
            clickhouseVersion = ch("SELECT version()");
        }
        catch (final IOException | InterruptedException | RuntimeException e)
        {
            // reported as "?"
        }
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
