package io.sluice.bench.e2e;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import io.sluice.sinks.postgres.PostgresConfig;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.ProcessMeter;

/**
 * The plain baseline of the end-to-end benchmark: what a competent user writes without Sluice. One thread:
 * {@link KafkaConsumer} (manual commit, the same fetch settings as Sluice) → Jackson {@code readTree} per record →
 * the branch whose condition matches (same branches, tables and column mapping as the Sluice configuration it is
 * given) → one JSONEachRow row with only the table's columns, written with a {@link JsonGenerator} into that table's
 * batch → client-v2 {@code insert(table, InputStream, JSONEachRow)} when the batch reaches {@code max_rows} or
 * {@code max_bytes}, or when it is {@code linger_ms} old. A partition's offset is committed only below the first
 * offset that any open batch still holds (commit after insert), every {@code checkpoint.commit_interval_ms}.
 *
 * <p>For a sink of {@code kind = "postgres"} the same loop writes with pgJDBC instead: one connection with
 * {@code reWriteBatchedInserts=true} (pgJDBC folds a batch into multi-row INSERTs) and autocommit off, per table one
 * {@code INSERT INTO "s"."t" ("c", …) VALUES (?, …)} ({@code ?::jsonb} for a jsonb column), each record's values bound
 * from the Jackson tree by the column's type and added with {@code addBatch}; a full batch is
 * {@code executeBatch} then COMMIT, then the offsets below it may be committed.
 *
 * <p>Conversions a user needs on ClickHouse's JSONEachRow: ISO-8601 {@code created_at} to epoch seconds for
 * {@code DateTime} columns, booleans to 1/0, objects and arrays as their JSON text for {@code String} columns.
 *
 * <pre>
 * java -cp benchmarks.jar io.sluice.bench.e2e.PlainConsumer --config F.toml --json out.json [--stop-after-rows N]
 *     [--latency-after-rows W]
 * </pre>
 * Without {@code --stop-after-rows} it stops once every partition is committed to its end (like Sluice's
 * {@code --until-caught-up}); the JSON holds the same measurements as {@code engine.jar bench}.
 */
public final class PlainConsumer
{

    /** A growable byte buffer whose bytes can be streamed without a copy. */
    static final class Buffer extends ByteArrayOutputStream
    {
        Buffer(final int size)
        {
            super(size);
        }

        InputStream stream()
        {
            return new ByteArrayInputStream(buf, 0, count);
        }
    }

    /** One mapped column. */
    record Column(String name, String[] path, boolean dateTime, boolean string, String pgType)
    {
    }

    /** One branch: its condition, table and columns, and its open batch. */
    static final class Branch
    {
        final SluiceConfig.Branch config;
        final String[] whenPath;
        final Pattern matches;
        final String table;
        final List<Column> columns = new ArrayList<>();
        final Buffer buffer = new Buffer(1 << 20);
        JsonGenerator out;
        int rows;
        long openedNanos;
        long[] timestamps = new long[1024];
        final Map<TopicPartition, Long> firstOffsets = new HashMap<>();
        /** PostgreSQL: the table's INSERT and the bytes of the records added to it since the last execute. */
        java.sql.PreparedStatement insert;
        long pgBytes;

        Branch(final SluiceConfig.Branch config, final String table)
        {
            this.config = config;
            this.table = table;
            this.whenPath = config.when() == null ? null : config.when().path().split("\\.");
            this.matches = config.when() != null && config.when().op() == SluiceConfig.Condition.Op.MATCHES
                ? Pattern.compile(config.when().values().get(0))
                : null;
        }
    }

    private final SluiceConfig config;
    private final SluiceConfig.Sink sink;
    private final ObjectMapper mapper = new ObjectMapper();
    private final List<Branch> branches = new ArrayList<>();
    private final Client client;
    private final java.sql.Connection pg;
    private final InsertSettings insertSettings = new InsertSettings();
    private final Histogram latencyMicros = new Histogram(3);
    private final Map<TopicPartition, Long> nextOffsets = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final ProcessMeter meter;
    private long records;
    private long rowsWritten;
    private long inserts;
    private long bytesIn;
    private long latencyAfterRows;

    PlainConsumer(final SluiceConfig config, final ProcessMeter meter) throws Exception
    {
        this.config = config;
        this.sink = config.sinks().get(0);
        this.meter = meter;
        if (sink.plugin() instanceof PostgresConfig pgc)
        {
            this.client = null;
            this.pg = java.sql.DriverManager.getConnection(
                pgc.jdbcUrl() + (pgc.jdbcUrl().contains("?") ? "&" : "?") + "reWriteBatchedInserts=true",
                pgc.connectionProperties());
            pg.setAutoCommit(false);
            for (final SluiceConfig.Branch b : sink.branches())
            {
                final String schema = b.database() != null ? b.database() : pgc.database();
                final Branch br = new Branch(b, quote(schema) + "." + quote(b.targetTable()));
                final List<String> names = new ArrayList<>();
                final List<String> values = new ArrayList<>();
                try (java.sql.PreparedStatement q = pg.prepareStatement("SELECT column_name, data_type FROM "
                    + "information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position"))
                {
                    q.setString(1, schema);
                    q.setString(2, b.targetTable());
                    try (java.sql.ResultSet rs = q.executeQuery())
                    {
                        while (rs.next())
                        {
                            final String path = b.columns().getOrDefault(rs.getString(1), rs.getString(1));
                            br.columns.add(new Column(rs.getString(1), path.split("\\."), false, false,
                                rs.getString(2)));
                            names.add(quote(rs.getString(1)));
                            values.add(rs.getString(2).equals("jsonb") ? "?::jsonb" : "?");
                        }
                    }
                }
                pg.commit();
                if (names.isEmpty())
                {
                    throw new IllegalStateException("table " + br.table + " has no columns (does it exist?)");
                }
                br.insert = pg.prepareStatement("INSERT INTO " + br.table + " (" + String.join(", ", names)
                    + ") VALUES (" + String.join(", ", values) + ")");
                branches.add(br);
            }
            return;
        }
        this.pg = null;
        final ClickHouseConfig ch = (ClickHouseConfig)sink.plugin();
        this.client = new Client.Builder()
            .addEndpoint(ch.endpoints().get(0))
            .setUsername(ch.username())
            .setPassword(ch.password())
            .setConnectTimeout(5, ChronoUnit.SECONDS)
            .setSocketTimeout(ch.insertTimeoutMs(), ChronoUnit.MILLIS)
            .compressServerResponse(false) // 18.16 answers LZ4-framed responses with an empty body
            .build();
        for (final SluiceConfig.Branch b : sink.branches())
        {
            final String db = b.database() != null ? b.database() : ch.database();
            final Branch br = new Branch(b, db + "." + b.targetTable());
            for (final String[] col : describe(br.table))
            {
                final String path = b.columns().getOrDefault(col[0], col[0]);
                br.columns
                    .add(new Column(col[0], path.split("\\."), col[1].contains("DateTime"), col[1].contains("String"),
                        null));
            }
            branches.add(br);
        }
    }

    private static String quote(final String identifier)
    {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    private List<String[]> describe(final String table) throws Exception
    {
        final QuerySettings qs = new QuerySettings().setFormat(ClickHouseFormat.TabSeparated);
        final List<String[]> cols = new ArrayList<>();
        try (QueryResponse r = client.query("DESCRIBE TABLE " + table, qs).get(30, TimeUnit.SECONDS))
        {
            final String body = new String(r.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            for (final String line : body.split("\n"))
            {
                final String[] f = line.split("\t");
                if (f.length >= 2 && (f.length < 3 || f[2].isEmpty() || f[2].equals("DEFAULT")))
                {
                    cols.add(new String[]{f[0], f[1]});
                }
            }
        }
        if (cols.isEmpty())
        {
            throw new IllegalStateException("table " + table + " has no columns (does it exist?)");
        }
        return cols;
    }

    /**
     * @param args {@code --config F --json OUT [--stop-after-rows N]}
     */
    public static void main(final String[] args) throws Exception
    {
        final ProcessMeter meter = new ProcessMeter();
        Path configFile = null;
        Path json = null;
        long stopAfterRows = 0;
        long latencyAfterRows = 0;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--config" -> configFile = Path.of(args[++i]);
                case "--json" -> json = Path.of(args[++i]);
                case "--stop-after-rows" -> stopAfterRows = Long.parseLong(args[++i]);
                case "--latency-after-rows" -> latencyAfterRows = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (configFile == null)
        {
            throw new IllegalArgumentException("usage: PlainConsumer --config F [--json OUT] [--stop-after-rows N]");
        }
        final PlainConsumer p = new PlainConsumer(ConfigLoader.load(configFile), meter);
        p.latencyAfterRows = latencyAfterRows;
        p.run(stopAfterRows);
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("contender", "baseline");
        r.put("records", p.records);
        r.put("rows", p.rowsWritten);
        r.put("bytes_in", p.bytesIn);
        r.put("inserts", p.inserts);
        r.putAll(meter.results());
        r.put("latency_count", p.latencyMicros.getTotalCount());
        r.put("latency_p50_us", p.latencyMicros.getValueAtPercentile(50));
        r.put("latency_p99_us", p.latencyMicros.getValueAtPercentile(99));
        r.put("latency_p999_us", p.latencyMicros.getValueAtPercentile(99.9));
        r.put("latency_max_us", p.latencyMicros.getMaxValue());
        final String text = ProcessMeter.toJson(r);
        System.out.println(text);
        if (json != null)
        {
            Files.writeString(json, text + "\n");
        }
        System.exit(0);
    }

    void run(final long stopAfterRows) throws Exception
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(32 << 20));
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(8 << 20));
        p.putAll(config.kafka().consumer());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, sink.groupId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, sink.autoOffsetReset());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        final long commitNanos = TimeUnit.MILLISECONDS.toNanos(config.checkpoint().commitIntervalMs());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p))
        {
            if (sink.topics() != null && !sink.topics().isEmpty())
            {
                consumer.subscribe(sink.topics());
            }
            else
            {
                consumer.subscribe(Pattern.compile(sink.pattern()));
            }
            long nextCommit = System.nanoTime() + commitNanos;
            long nextCaughtUpCheck = 0;
            while (true)
            {
                final ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                if (!batch.isEmpty() && !meter.windowStarted())
                {
                    meter.windowStart();
                }
                for (final ConsumerRecord<byte[], byte[]> r : batch)
                {
                    route(r);
                }
                final long now = System.nanoTime();
                for (final Branch b : branches)
                {
                    if (b.rows > 0 && now - b.openedNanos >= TimeUnit.MILLISECONDS.toNanos(b.config.lingerMs()))
                    {
                        insert(b);
                    }
                }
                if (now - nextCommit >= 0)
                {
                    commit(consumer);
                    nextCommit = now + commitNanos;
                }
                if (stopAfterRows > 0 && rowsWritten >= stopAfterRows)
                {
                    commit(consumer);
                    break;
                }
                if (stopAfterRows == 0 && now - nextCaughtUpCheck >= 0 && !consumer.assignment().isEmpty())
                {
                    nextCaughtUpCheck = now + TimeUnit.MILLISECONDS.toNanos(500);
                    if (caughtUp(consumer))
                    {
                        break;
                    }
                }
            }
        }
        finally
        {
            if (client != null)
            {
                client.close();
            }
            if (pg != null)
            {
                pg.close();
            }
        }
    }

    /**
     * @return whether every partition is committed to its end; when every partition is read to its end but not yet
     *     committed, inserts the open batches at once (as Sluice's --until-caught-up seals them) instead of after
     *     linger_ms
     */
    private boolean caughtUp(final KafkaConsumer<byte[], byte[]> consumer) throws IOException
    {
        final Set<TopicPartition> assigned = consumer.assignment();
        final Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, Duration.ofSeconds(60));
        boolean committedAll = true;
        boolean readAll = true;
        for (final TopicPartition tp : assigned)
        {
            committedAll &= committed.getOrDefault(tp, -1L) >= ends.get(tp);
            readAll &= consumer.position(tp, Duration.ofSeconds(60)) >= ends.get(tp);
        }
        if (!committedAll && readAll)
        {
            for (final Branch b : branches)
            {
                if (b.rows > 0)
                {
                    insert(b);
                }
            }
        }
        return committedAll;
    }

    private void route(final ConsumerRecord<byte[], byte[]> r) throws IOException
    {
        records++;
        bytesIn += r.serializedValueSize();
        final TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        nextOffsets.put(tp, r.offset() + 1);
        final JsonNode root = mapper.readTree(r.value());
        Branch target = null;
        for (final Branch b : branches)
        {
            if (matches(b, root))
            {
                target = b;
                break;
            }
        }
        if (target == null)
        {
            throw new IllegalStateException("no branch matches " + tp + "@" + r.offset());
        }
        final Branch b = target;
        if (pg != null)
        {
            if (b.rows == 0)
            {
                b.openedNanos = System.nanoTime();
                b.pgBytes = 0;
            }
            b.firstOffsets.putIfAbsent(tp, r.offset());
            bind(b, root, tp, r.offset());
            b.pgBytes += r.serializedValueSize();
            if (b.rows == b.timestamps.length)
            {
                b.timestamps = Arrays.copyOf(b.timestamps, b.rows * 2);
            }
            b.timestamps[b.rows++] = r.timestamp();
            if (b.rows >= b.config.maxRows() || b.pgBytes >= b.config.maxBytes())
            {
                insert(b);
            }
            return;
        }
        if (b.rows == 0)
        {
            b.buffer.reset();
            b.out = mapper.getFactory().createGenerator(b.buffer, JsonEncoding.UTF8);
            b.openedNanos = System.nanoTime();
        }
        b.firstOffsets.putIfAbsent(tp, r.offset());
        final JsonGenerator g = b.out;
        g.writeStartObject();
        for (final Column c : b.columns)
        {
            final JsonNode v = at(root, c.path());
            if (v == null || v.isMissingNode())
            {
                continue; // JSONEachRow writes the column's default
            }
            g.writeFieldName(c.name());
            if (v.isNull())
            {
                g.writeNull();
            }
            else if (c.dateTime() && v.isTextual())
            {
                g.writeNumber(epochSeconds(v.textValue()));
            }
            else if (v.isBoolean())
            {
                g.writeNumber(v.booleanValue() ? 1 : 0);
            }
            else if (v.isContainerNode())
            {
                g.writeString(v.toString());
            }
            else if (v.isTextual())
            {
                g.writeString(v.textValue());
            }
            else if (c.string())
            {
                g.writeString(v.asText());
            }
            else
            {
                g.writeTree(v);
            }
        }
        g.writeEndObject();
        g.writeRaw('\n');
        if (b.rows == b.timestamps.length)
        {
            b.timestamps = Arrays.copyOf(b.timestamps, b.rows * 2);
        }
        b.timestamps[b.rows++] = r.timestamp();
        if (b.rows >= b.config.maxRows())
        {
            insert(b);
        }
        else
        {
            g.flush();
            if (b.buffer.size() >= b.config.maxBytes())
            {
                insert(b);
            }
        }
    }

    /** Binds one record's values to the branch's INSERT by each column's PostgreSQL type, and adds it to the batch. */
    private static void bind(final Branch b, final JsonNode root, final TopicPartition tp, final long offset)
        throws IOException
    {
        try
        {
            final java.sql.PreparedStatement ps = b.insert;
            for (int i = 0; i < b.columns.size(); i++)
            {
                final Column c = b.columns.get(i);
                final JsonNode v = at(root, c.path());
                final int at = i + 1;
                final String type = c.pgType();
                if (v == null || v.isNull() || v.isMissingNode())
                {
                    ps.setNull(at, switch (type)
                    {
                        case "bigint" -> java.sql.Types.BIGINT;
                        case "integer" -> java.sql.Types.INTEGER;
                        case "boolean" -> java.sql.Types.BOOLEAN;
                        default -> type.startsWith("timestamp")
                            ? java.sql.Types.TIMESTAMP_WITH_TIMEZONE
                            : java.sql.Types.VARCHAR;
                    });
                    continue;
                }
                switch (type)
                {
                    case "bigint", "integer", "smallint" -> {
                        final long n = v.isBoolean()
                            ? (v.booleanValue() ? 1 : 0)
                            : v.isNumber() ? v.longValue() : Long.parseLong(v.asText().strip());
                        if (type.equals("bigint"))
                        {
                            ps.setLong(at, n);
                        }
                        else
                        {
                            ps.setInt(at, Math.toIntExact(n));
                        }
                    }
                    case "boolean" -> ps.setBoolean(at,
                        v.isBoolean()
                            ? v.booleanValue()
                            : v.isNumber()
                                ? v.longValue() != 0
                                : Boolean.parseBoolean(
                                    v.asText().strip()));
                    default -> {
                        if (type.startsWith("timestamp"))
                        {
                            ps.setObject(at, java.time.OffsetDateTime.ofInstant(v.isNumber()
                                ? Instant.ofEpochSecond(v.longValue())
                                : Instant.ofEpochSecond(epochSeconds(v.textValue())), java.time.ZoneOffset.UTC));
                        }
                        else
                        {
                            ps.setString(at, v.isTextual() ? v.textValue() : v.toString());
                        }
                    }
                }
            }
            ps.addBatch();
        }
        catch (final java.sql.SQLException | RuntimeException e)
        {
            throw new IOException("record " + tp + "@" + offset + " for " + b.table + ": " + e, e);
        }
    }

    private static long epochSeconds(final String iso)
    {
        try
        {
            return Instant.parse(iso).getEpochSecond();
        }
        catch (final DateTimeParseException e)
        {
            return Instant.parse(iso.replace(' ', 'T') + (iso.endsWith("Z") ? "" : "Z")).getEpochSecond();
        }
    }

    private static JsonNode at(final JsonNode root, final String[] path)
    {
        JsonNode n = root;
        for (final String p : path)
        {
            n = n.get(p);
            if (n == null)
            {
                return null;
            }
        }
        return n;
    }

    private static boolean matches(final Branch b, final JsonNode root)
    {
        final SluiceConfig.Condition c = b.config.when();
        if (c == null)
        {
            return true;
        }
        final JsonNode v = at(root, b.whenPath);
        if (c.op() == SluiceConfig.Condition.Op.EXISTS)
        {
            return (v != null && !v.isNull()) == c.exists();
        }
        if (v == null || v.isNull() || v.isContainerNode())
        {
            return false;
        }
        final String text = v.asText().strip();
        return switch (c.op())
        {
            case EQUALS -> text.equals(c.values().get(0));
            case IN -> c.values().contains(text);
            case PREFIX -> text.startsWith(c.values().get(0));
            case MATCHES -> b.matches.matcher(text).matches();
            default -> false;
        };
    }

    private void insert(final Branch b) throws IOException
    {
        if (pg != null)
        {
            try
            {
                b.insert.executeBatch();
                pg.commit();
            }
            catch (final java.sql.SQLException e)
            {
                try
                {
                    pg.rollback();
                }
                catch (final java.sql.SQLException r)
                {
                    e.addSuppressed(r);
                }
                throw new IOException("insert of " + b.rows + " rows into " + b.table + " failed: " + e, e);
            }
            written(b);
            return;
        }
        b.out.close();
        try (InsertResponse ignored = client
            .insert(b.table, b.buffer.stream(), ClickHouseFormat.JSONEachRow, insertSettings)
            .get(((ClickHouseConfig)sink.plugin()).insertTimeoutMs(), TimeUnit.MILLISECONDS))
        {
            // returns once ClickHouse has written the rows
        }
        catch (final Exception e)
        {
            throw new IOException("insert of " + b.rows + " rows into " + b.table + " failed: " + e, e);
        }
        written(b);
    }

    /** After a batch is in the table: latency of its rows, counters, the batch emptied. */
    private void written(final Branch b)
    {
        final long nowMs = System.currentTimeMillis();
        for (int i = 0; i < b.rows; i++)
        {
            final long e2e = nowMs - b.timestamps[i];
            if (e2e >= 0)
            {
                latencyMicros.recordValue(e2e * 1000);
            }
        }
        inserts++;
        final boolean warmedUp = latencyAfterRows > 0 && rowsWritten < latencyAfterRows
            && rowsWritten + b.rows >= latencyAfterRows;
        rowsWritten += b.rows;
        if (warmedUp)
        {
            latencyMicros.reset(); // the first latencyAfterRows rows (the JVM's warm-up) are left out
        }
        b.rows = 0;
        b.firstOffsets.clear();
        meter.windowEnd();
    }

    private void commit(final KafkaConsumer<byte[], byte[]> consumer)
    {
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (final Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet())
        {
            long safe = e.getValue();
            for (final Branch b : branches)
            {
                final Long first = b.firstOffsets.get(e.getKey());
                if (first != null && first < safe)
                {
                    safe = first;
                }
            }
            if (safe > committed.getOrDefault(e.getKey(), -1L))
            {
                offsets.put(e.getKey(), new OffsetAndMetadata(safe));
            }
        }
        if (!offsets.isEmpty())
        {
            consumer.commitSync(offsets, Duration.ofSeconds(30));
            for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet())
            {
                committed.put(e.getKey(), e.getValue().offset());
            }
        }
    }
}
