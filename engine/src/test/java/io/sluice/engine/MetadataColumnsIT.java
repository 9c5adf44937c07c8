package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Issue 13: Kafka metadata as columns on the real broker and ClickHouse 18.16. A table fed by a topic of 4 partitions
 * whose columns are named like the Kafka engine's virtual columns ({@code _topic}, {@code _partition}, {@code _offset},
 * {@code _timestamp}, {@code _key}, {@code _headers.name}/{@code _headers.value}) and mapped ({@code $timestamp} into
 * UInt64 ms, {@code $timestamp_type}, {@code $header.trace}, {@code $header.seq} into UInt32 (a header's bytes as a JSON number, a missing header the
 * column's default), and an Array(Tuple(String, String)) column, which
 * 18.16 stores flattened as {@code hs.1} and {@code hs.2}, from {@code $header_names} and {@code $header_values}):
 * every row equals its record as a plain KafkaConsumer reads it back, coordinates, timestamp, key and headers. (Map and
 * DateTime64, which 18.16 lacks, are pinned byte for byte in {@code MetadataColumnTest}.)
 */
class MetadataColumnsIT
{
    /** An hour ago (not a fixed date, which the broker's retention check deletes after 7 days). */
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000 - 3_600_000;

    private static final int PARTITIONS = 4;
    private static final int RECORDS = 400;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldWriteEveryRecordsOwnCoordinatesKeyAndHeaders() throws Exception
    {
        final String s = unique("");
        final String topic = "meta-" + s;
        final String db = "meta_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt64, _topic String, _partition UInt64, _offset UInt64, "
            + "_timestamp DateTime, _key String, ts_ms UInt64, ts_type String, trace Nullable(String), seq UInt32, "
            + "hs Array(Tuple(String, String)), _headers Nested(name String, value String)) "
            + "ENGINE = MergeTree ORDER BY (_topic, _partition, _offset)");
        TestServices.createTopic(topic, PARTITIONS);
        final List<ProducerRecord<byte[], byte[]>> input = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++)
        {
            final RecordHeaders h = new RecordHeaders();
            h.add("trace", utf8("t-" + i));
            h.add("seq", utf8(" " + i + " "));
            if (i % 3 == 0)
            {
                h.add("tenant", utf8("acme corp " + i));
            }
            input.add(new ProducerRecord<>(topic, i % PARTITIONS, T0 + i * 1001L,
                i % 5 == 0 ? null : utf8("key-" + i), utf8("{\"id\":" + i + ",\"_offset\":999999}"),
                i % 7 == 0 ? new RecordHeaders() : h));
        }
        KafkaRecords.produce(input);
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse("[kafka]\nbootstrap_servers = \""
            + TestServices.bootstrap() + "\"\n[[sinks]]\nname = \"meta\"\nkind = \"clickhouse\"\ntopics = [\"" + topic
            + "\"]\ngroup_id = \"g-" + s + "\"\n[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse()
            + "\"\ndatabase = \"" + db + "\"\nlinger_ms = 100\n[[sinks.branches]]\nname = \"all\"\ntarget_table = "
            + "\"t\"\ncolumns = { ts_ms = \"$timestamp\", ts_type = \"$timestamp_type\", trace = \"$header.trace\", seq = \"$header.seq\", "
            + "\"hs.1\" = \"$header_names\", \"hs.2\" = \"$header_values\", _key = \"$key\" }\n"),
            c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());

        final Map<Long, String> expected = new TreeMap<>();
        for (final ConsumerRecord<byte[], byte[]> r : KafkaRecords.readAll(topic))
        {
            final String value = new String(r.value(), StandardCharsets.UTF_8);
            final long id = Long.parseLong(value.substring(6, value.indexOf(',')));
            final List<String> pairs = new ArrayList<>();
            final List<String> names = new ArrayList<>();
            final List<String> values = new ArrayList<>();
            r.headers().forEach(h ->
            {
                final String v = new String(h.value(), StandardCharsets.UTF_8);
                pairs.add("('" + h.key() + "','" + v + "')");
                names.add("'" + h.key() + "'");
                values.add("'" + v + "'");
            });
            final String trace = r.headers().lastHeader("trace") == null
                ? "\\N"
                : new String(r.headers().lastHeader("trace").value(), StandardCharsets.UTF_8);
            expected.put(id, String.join("\t", Long.toString(id), r.topic(), Integer.toString(r.partition()),
                Long.toString(r.offset()), Long.toString(r.timestamp() / 1000), r.key() == null
                    ? ""
                    : new String(r
                        .key(), StandardCharsets.UTF_8),
                Long.toString(r.timestamp()), r.timestampType().toString(), trace,
                r.headers().lastHeader("seq") == null ? "0" : Long.toString(id),
                "[" + String.join(",", pairs) + "]", "[" + String.join(",", names) + "]", "[" + String.join(",",
                    values) + "]"));
        }
        assertEquals(RECORDS, expected.size());
        final Map<Long, String> actual = new TreeMap<>();
        for (final String line : TestServices.sql("SELECT id, _topic, _partition, _offset, toUnixTimestamp(_timestamp),"
            + " _key, ts_ms, ts_type, trace, seq, arrayMap((n, v) -> (n, v), `hs.1`, `hs.2`), _headers.name, _headers.value FROM "
            + db + ".t FORMAT TabSeparated")
            .split("\n"))
        {
            actual.put(Long.parseLong(line.substring(0, line.indexOf('\t'))), line);
        }
        assertEquals(expected, actual, "every row's coordinates, timestamp, key and headers are its record's");
        assertEquals(PARTITIONS, TestServices.sqlLong("SELECT uniqExact(_partition) FROM " + db + ".t"));
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
        dropDatabase(db);
    }
}
