package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.PathRegistry;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.BranchHandle;
import io.sluice.core.gather.split.ChunkConfig;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.gather.split.ShardRouter;
import io.sluice.core.gather.split.Split;
import io.sluice.sinks.clickhouse.ClickHouseDriver;

/**
 * Issue 12, item 8: no record is left in limbo. A split built through the embedded API (docs/embedding.md) with two
 * shards, whose user code misbehaves on purpose by offset: 0 and 5 are fine, 1 gets shard 7 of 2 from its
 * {@link ShardRouter}, 2 makes the router throw, 3 makes the encoder throw, 4 makes the classifier throw before it
 * emits. Each failure fails that record with its cause and {@code on_error} applies: under skip the four are dropped
 * as invalid and the partition commits to 6 with rows 0 and 5 written; under fail the pipeline stops at offset 1
 * naming the shard router and the shard, commits nothing past it, and none of the four is written. Before the fix, 1, 2 and 3 were neither
 * acknowledged nor failed: the partition stalled without a reason until the stall limit.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RecordLimboIT
{
    /** A row: the record's offset. */
    static final class Row
    {
        long offset;
    }

    private static final class Encoder implements RowEncoder<Row>, RowEncoder.Bound<Row>
    {
        @Override
        public Bound<Row> bind(final TableSchema schema, final DestinationCatalog catalog)
        {
            return this;
        }

        @Override
        public List<String> columns()
        {
            return List.of("offset");
        }

        @Override
        public String encode(final Row row, final Bytes<?> out)
        {
            if (row.offset == 3)
            {
                throw new IllegalStateException("encoder bug at offset 3");
            }
            RowBinary.writeInt64(out, row.offset);
            return null;
        }
    }

    private static GatherSpec<JsonRecord> spec(final String topic, final String group, final String db,
        final ErrorPolicy onError)
    {
        final JsonRecord record = new JsonRecord(new PathRegistry(16));
        final Row row = new Row();
        final Split<JsonRecord> split = Split.create(new ChunkConfig(1000, 1 << 20, 100), ErrorPolicy.FAIL);
        final ShardRouter<Row> router = (r, shards) ->
        {
            if (r.offset == 2)
            {
                throw new IllegalArgumentException("router bug at offset 2");
            }
            return r.offset == 1 ? 7 : 0;
        };
        final BranchHandle<Row> rows = split.add("rows", new Encoder(), router, "rows");
        split.route((r, out) ->
        {
            if (r.event().offset() == 4)
            {
                throw new UnsupportedOperationException("classifier bug at offset 4");
            }
            row.offset = r.event().offset();
            out.emit(rows, row);
        });
        final ClickHouseConfig connection = (ClickHouseConfig)config().sinks().get(0).plugin();
        // two shards (the same server twice), so the router is asked
        final List<List<String>> shards = List.of(List.of(TestServices.clickhouse()),
            List.of(TestServices.clickhouse()));
        return new GatherSpec<JsonRecord>().name("limbo").groupId(group).topics(List.of(topic))
            .autoOffsetReset("earliest").topicRefreshMs(2000).decoder(record).split(split)
            .sinks(Map.of("rows", new SinkSpec("rows", connection, shards, db, "rows"))).onError(onError).conclude();
    }

    private static SluiceConfig config()
    {
        return ConfigLoader.parse("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\nstalled_fail_after_ms = 120000\n[engine]\nstatus_interval_ms = 0\n"
            + "[[sinks]]\nname = \"unused\"\nkind = \"clickhouse\"\ntopics = [\"unused\"]\ngroup_id = \"unused\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ntarget_table = \"unused\"\n");
    }

    private static String[] setUp(final String name) throws Exception
    {
        final String suffix = Long.toString(System.nanoTime(), 36);
        final String topic = "limbo-" + name + "-" + suffix;
        final String db = "limbo_" + name + "_" + suffix;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".rows (offset Int64) ENGINE = MergeTree() ORDER BY offset");
        TestServices.createTopic(topic, 1);
        final List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 6; i++)
        {
            values.add(("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, values);
        return new String[]{topic, db, "limbo-" + suffix};
    }

    private static GatherPipeline<JsonRecord> run(final GatherSpec<JsonRecord> spec, final long[] millis)
        throws Exception
    {
        final GatherPipeline<JsonRecord> p = new GatherPipeline<>(config(), spec, new ClickHouseDriver(),
            new GatherPipeline.RunOptions(true));
        final long start = System.nanoTime();
        p.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!p.sourceFinished() && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        millis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        p.requestStop();
        assertTrue(p.awaitTermination(60_000));
        return p;
    }

    @Test
    void skipDropsEachMisbehavingRecordWithItsCauseAndCommitsPastIt() throws Exception
    {
        final String[] t = setUp("skip");
        final long[] ms = new long[1];
        final GatherPipeline<JsonRecord> p = run(spec(t[0], t[2], t[1], ErrorPolicy.SKIP), ms);
        assertFalse(p.control().failed(), String.valueOf(p.control().failureReason()));
        assertTrue(p.caughtUp(), "caught up (--until-caught-up) after " + ms[0] + " ms");
        assertEquals(4, p.stats().droppedInvalid.get(), "offsets 1-4 dropped as invalid");
        assertEquals("0\n5\n", TestServices.sql("SELECT offset FROM " + t[1] + ".rows ORDER BY offset"));
        assertEquals(6L, TestServices.committed(t[2]).get(new TopicPartition(t[0], 0)));
        TestServices.sql("DROP DATABASE " + t[1]);
    }

    @Test
    void failStopsAtTheFirstMisbehavingRecordNamingTheCause() throws Exception
    {
        final String[] t = setUp("fail");
        final long[] ms = new long[1];
        final GatherPipeline<JsonRecord> p = run(spec(t[0], t[2], t[1], ErrorPolicy.FAIL), ms);
        assertTrue(p.control().failed());
        final String reason = p.control().failureReason();
        assertTrue(reason.contains("record " + t[0] + "-0@1"), reason);
        assertTrue(reason.contains("the shard router returned shard 7, not in [0, 2)"), reason);
        assertTrue(ms[0] < 30_000, "stopped at once, not at the stall limit: " + ms[0] + " ms");
        final Long committed = TestServices.committed(t[2]).get(new TopicPartition(t[0], 0));
        assertTrue(committed == null || committed <= 1, "committed " + committed);
        assertEquals(0, TestServices.sqlLong("SELECT count() FROM " + t[1] + ".rows WHERE offset IN (1, 2, 3, 4)"),
            "no misbehaving record is written");
        TestServices.sql("DROP DATABASE " + t[1]);
    }
}
