package io.sluice.bench.e2e;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.ProcessMeter;
import io.sluice.core.gather.DestinationResolver;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.split.BranchHandle;
import io.sluice.core.gather.split.Emitter;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.gather.split.Split;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.ringbuffers.RecordRing;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.SinkProviders;
import io.sluice.sinks.postgres.PostgresConfig;

/**
 * The ClickHouse limit of the end-to-end benchmark: ClickHouse's ingest of exactly the rows Sluice writes, with no
 * engine in between. First, untimed: every record of the topic is classified and encoded to RowBinary by the
 * engine's own classes ({@link Classifier}, {@link DestinationResolver} binding the live table schemas, the
 * columns' encoders), into per-table batches cut at the branch's {@code max_rows}/{@code max_bytes} as the sealer
 * does. Then, timed: the batches are POSTed one after another over one keep-alive HTTP/1.1 connection (as Sluice's
 * single insert worker does) with the same statement, {@code INSERT INTO `db`.`t` (`c`, …) FORMAT RowBinary}.
 *
 * <p>For a sink of {@code kind = "postgres"} it is the {@code copy-limit} contender: the same untimed encoding, by the
 * PostgreSQL sink's own encoders (binary COPY tuples), then, timed, one transaction per batch over one connection, as
 * the sink's insert worker writes: {@code COPY "s"."t" ("c", …) FROM STDIN (FORMAT binary)} with the header, the
 * tuples and the trailer, then COMMIT (PostgreSQL's COPY: https://www.postgresql.org/docs/current/sql-copy.html,
 * "Binary Format").
 *
 * <pre>
 * java -cp benchmarks.jar io.sluice.bench.e2e.ClickHouseLimit --config F.toml [--json OUT]
 * (PGPASSWORD in the environment for a postgres sink whose password is "${PGPASSWORD}")
 * </pre>
 */
public final class ClickHouseLimit
{
    private ClickHouseLimit()
    {
    }

    /** One encoded batch. */
    private record Batch(Destination destination, byte[] rows, int rowCount)
    {
    }

    /**
     * @param args {@code --config F [--json OUT]}
     */
    public static void main(final String[] args) throws Exception
    {
        final ProcessMeter meter = new ProcessMeter();
        Path configFile = null;
        Path json = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--config" -> configFile = Path.of(args[++i]);
                case "--json" -> json = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (configFile == null)
        {
            throw new IllegalArgumentException("usage: ClickHouseLimit --config F [--json OUT]");
        }
        final SluiceConfig config = ConfigLoader.load(configFile);
        final SluiceConfig.Sink sink = config.sinks().get(0);
        final String topic = sink.topics().get(0);

        // ---- untimed: encode every record exactly as the route stage does (the same split, decoder and encoders)
        final boolean postgres = sink.plugin() instanceof PostgresConfig;
        final List<Batch> batches = new ArrayList<>();
        long records = 0;
        long bytesIn = 0;
        long encodeNanos;
        try (SinkDriver driver = SinkProviders.installed().provider(sink.kind()).driver())
        {
            final GatherSpec<JsonRecord> spec = TomlGather.build(sink, driver.jsonEncoding());
            final DestinationResolver resolver = new DestinationResolver();
            final List<Split.Branch<?>> branches = spec.split().branches();
            final Destination[] destinations = new Destination[branches.size()];
            for (final Split.Branch<?> br : branches)
            {
                final SinkSpec target = spec.sinks().get(br.sink());
                final DestinationResolver.Result r = resolver.resolve(br.index(), br.name(), br.encoder(),
                    new DestinationResolver.SinkTarget(target, driver.catalog(target)), topic);
                if (r.destination() == null)
                {
                    throw new IllegalStateException(r.error());
                }
                destinations[br.index()] = r.destination();
            }
            final int[] emitted = {-1};
            final Object[] emittedRow = {null};
            final Emitter emitter = new Emitter()
            {
                @Override
                public <R> void emit(final BranchHandle<R> handle, final R row)
                {
                    emitted[0] = handle.index();
                    emittedRow[0] = row;
                }

                @Override
                public void invalid(final String why)
                {
                    throw new IllegalStateException("a record of the bench topic is no row: " + why);
                }
            };
            final Map<Integer, Bytes<Void>> open = new HashMap<>();
            final Map<Integer, Integer> openRows = new HashMap<>();
            final RecordRing ring = new RecordRing(2, 64 << 10, new com.lmax.disruptor.BlockingWaitStrategy());
            final RecordEvent event = ring.ringBuffer().get(0);
            final org.agrona.ExpandableDirectByteBuffer big = new org.agrona.ExpandableDirectByteBuffer(1 << 16);
            final long t0 = System.nanoTime();
            final Properties p = ConsumerLimit.consumerProperties(config.kafka().bootstrapServers());
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p))
            {
                final long total = ConsumerLimit.assignFromBeginning(consumer, topic);
                while (records < total)
                {
                    for (final ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(100)))
                    {
                        records++;
                        final byte[] value = rec.value();
                        bytesIn += value.length;
                        final int need = RecordEvent.requiredBytes(-1, value.length, 0);
                        event.beginRecord(need > event.slotCapacity() ? big : null, need, 0, rec.partition(),
                            rec.offset(),
                            rec.timestamp(), 0, 1);
                        event.putValue(value);
                        final JsonRecord view = spec.decoder().decode(event);
                        if (view == null)
                        {
                            throw new IllegalStateException(
                                spec.decoder().error() + " at " + rec.partition() + "@" + rec.offset());
                        }
                        emitted[0] = -1;
                        spec.split().classifier().route(view, emitter);
                        final int b = emitted[0];
                        if (b < 0)
                        {
                            throw new IllegalStateException(
                                "unmatched record at " + rec.partition() + "@" + rec.offset());
                        }
                        final Destination d = destinations[b];
                        if (d.binding() != null && d.binding().rowsCarryMask())
                        {
                            // rows of such a table start with an omission mask, which only a Native insert (or a
                            // COPY per mask) takes
                            throw new IllegalStateException("table " + d + " has DEFAULTs only the server evaluates: "
                                + "this contender writes whole rows and cannot leave those columns out per row");
                        }
                        final Bytes<Void> rows = open.computeIfAbsent(b, k -> Bytes.allocateElasticDirect(1 << 20));
                        final long start = rows.writePosition();
                        @SuppressWarnings("unchecked")
                        final RowEncoder.Bound<Object> encoder = (RowEncoder.Bound<Object>)d.encoder();
                        final String error = encoder.encode(emittedRow[0], rows);
                        if (error != null)
                        {
                            rows.writePosition(start);
                            throw new IllegalStateException(
                                error + " (" + d + ") at " + rec.partition() + "@" + rec.offset());
                        }
                        final int n = openRows.merge(b, 1, Integer::sum);
                        final Split.Branch<?> br = branches.get(b);
                        if (n >= br.chunk().maxRows() || rows.writePosition() >= br.chunk().maxBytes())
                        {
                            batches.add(seal(d, rows, n));
                            openRows.put(b, 0);
                        }
                    }
                }
            }
            for (final Map.Entry<Integer, Bytes<Void>> e : open.entrySet())
            {
                final int n = openRows.getOrDefault(e.getKey(), 0);
                if (n > 0)
                {
                    batches.add(seal(destinations[e.getKey()], e.getValue(), n));
                }
                e.getValue().releaseLast();
            }
            encodeNanos = System.nanoTime() - t0;
        }

        if (postgres)
        {
            finish(meter, json, "copy-limit", records, bytesIn, encodeNanos, batches,
                copyAll((PostgresConfig)sink.plugin(), batches, meter));
            return;
        }
        // ---- timed: the inserts alone
        final String endpoint = ((ClickHouseConfig)sink.plugin()).endpoints().get(0);
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        final String auth = "Basic " + Base64.getEncoder().encodeToString(
            (((ClickHouseConfig)sink.plugin()).username() + ":" + ((ClickHouseConfig)sink.plugin()).password())
                .getBytes(StandardCharsets.UTF_8));
        long rowsOut = 0;
        long bytesOut = 0;
        System.gc();
        meter.windowStart();
        for (final Batch b : batches)
        {
            final String sql = "INSERT INTO " + b.destination().sqlTable() + " ("
                + String.join(", ", b.destination().sqlColumns())
                + ") FORMAT RowBinary";
            final HttpRequest req = HttpRequest
                .newBuilder(URI.create(endpoint + "/?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .header("Authorization", auth)
                .timeout(Duration.ofMillis(((ClickHouseConfig)sink.plugin()).insertTimeoutMs()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(b.rows())).build();
            final HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200)
            {
                throw new IllegalStateException(
                    "insert into " + b.destination() + " failed: HTTP " + resp.statusCode() + ": " + resp.body());
            }
            rowsOut += b.rowCount();
            bytesOut += b.rows().length;
        }
        meter.windowEnd();
        finish(meter, json, "clickhouse-limit", records, bytesIn, encodeNanos, batches, new long[]{rowsOut, bytesOut});
    }

    /** Prints and writes the result and exits. */
    private static void finish(final ProcessMeter meter, final Path json, final String contender, final long records,
        final long bytesIn, final long encodeNanos, final List<Batch> batches, final long[] rowsAndBytesOut)
        throws java.io.IOException
    {
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("contender", contender);
        r.put("records", records);
        r.put("rows", rowsAndBytesOut[0]);
        r.put("bytes_in", bytesIn);
        r.put("inserts", batches.size());
        r.put("rowbinary_bytes", rowsAndBytesOut[1]);
        r.put("encode_offline_s", encodeNanos / 1e9);
        r.putAll(meter.results());
        final String text = ProcessMeter.toJson(r);
        System.out.println(text);
        if (json != null)
        {
            Files.writeString(json, text + "\n");
        }
        System.exit(0);
    }

    /** PGCOPY's signature, flags field (no OIDs) and header extension length (none). */
    private static final byte[] COPY_HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte)0xff, '\r', '\n', 0, 0, 0, 0,
        0, 0, 0, 0, 0};
    /** The file trailer: a tuple field count of -1. */
    private static final byte[] COPY_TRAILER = {(byte)0xff, (byte)0xff};

    /**
     * Timed: every batch as one binary COPY and COMMIT over one connection.
     *
     * @return rows and bytes written
     */
    private static long[] copyAll(final PostgresConfig pg, final List<Batch> batches, final ProcessMeter meter)
        throws java.sql.SQLException
    {
        long rowsOut = 0;
        long bytesOut = 0;
        try (java.sql.Connection c = io.sluice.sinks.postgres.PostgresConnections.connect(pg))
        {
            c.setAutoCommit(false);
            final org.postgresql.copy.CopyManager copy = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
            System.gc();
            meter.windowStart();
            for (final Batch b : batches)
            {
                final org.postgresql.copy.CopyIn in = copy.copyIn("COPY " + b.destination().sqlTable() + " ("
                    + String.join(", ", b.destination().sqlColumns()) + ") FROM STDIN (FORMAT binary)");
                in.writeToCopy(COPY_HEADER, 0, COPY_HEADER.length);
                in.writeToCopy(b.rows(), 0, b.rows().length);
                in.writeToCopy(COPY_TRAILER, 0, COPY_TRAILER.length);
                in.endCopy();
                c.commit();
                rowsOut += b.rowCount();
                bytesOut += b.rows().length;
            }
            meter.windowEnd();
        }
        return new long[]{rowsOut, bytesOut};
    }

    private static Batch seal(final Destination d, final Bytes<Void> rows, final int n)
    {
        final byte[] bytes = new byte[(int)rows.writePosition()];
        rows.read(bytes);
        rows.clear();
        return new Batch(d, bytes, n);
    }
}
