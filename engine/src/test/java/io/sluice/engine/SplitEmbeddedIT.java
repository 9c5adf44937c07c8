package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.SinkDrivers;
import io.sluice.core.gather.SinkProviders;
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
 * The split as an embedding application builds it (seed 001's shape in Java): two typed branches with their own row
 * types and encoders, one classifier, sinks installed by name; run on the real services with case S1 (click, view,
 * purchase, click on partition 0) under both unmatched policies.
 */
class SplitEmbeddedIT
{
    /** A click row, reused for every record (the encoder writes it before emit returns). */
    static final class Click
    {
        final UnsafeBuffer user = new UnsafeBuffer(new byte[256]);
        int userLength;
        long offset;
    }

    /** A view row. */
    static final class View
    {
        final UnsafeBuffer page = new UnsafeBuffer(new byte[256]);
        int pageLength;
        long offset;
    }

    private static final class ClickEncoder implements RowEncoder<Click>, RowEncoder.Bound<Click>
    {
        @Override
        public Bound<Click> bind(final TableSchema schema,
            final DestinationCatalog catalog)
        {
            return this;
        }

        @Override
        public List<String> columns()
        {
            return List.of("offset", "user");
        }

        @Override
        public String encode(final Click row, final Bytes<?> out)
        {
            RowBinary.writeInt64(out, row.offset);
            RowBinary.writeString(out, row.user, 0, row.userLength);
            return null;
        }
    }

    private static final class ViewEncoder implements RowEncoder<View>, RowEncoder.Bound<View>
    {
        @Override
        public Bound<View> bind(final TableSchema schema,
            final DestinationCatalog catalog)
        {
            return this;
        }

        @Override
        public List<String> columns()
        {
            return List.of("offset", "page");
        }

        @Override
        public String encode(final View row, final Bytes<?> out)
        {
            if (row.pageLength < 0)
            {
                return "column page from path page: missing";
            }
            RowBinary.writeInt64(out, row.offset);
            RowBinary.writeString(out, row.page, 0, row.pageLength);
            return null;
        }
    }

    private static GatherSpec<JsonRecord> spec(final String topic, final String group, final String db,
        final ErrorPolicy unmatched)
    {
        final ClickHouseConfig connection = (ClickHouseConfig)config().sinks().get(0).plugin();
        final List<List<String>> shards = List.of(List.of(TestServices.clickhouse()));
        return spec(topic, group, unmatched, Map.of("clicks", new SinkSpec("clicks", connection, shards, db, "clicks"),
            "views", new SinkSpec("views", connection, shards, db, "views")));
    }

    private static GatherSpec<JsonRecord> spec(final String topic, final String group, final ErrorPolicy unmatched,
        final Map<String, SinkSpec> sinks)
    {
        final PathRegistry paths = new PathRegistry(64);
        final JsonRecord record = new JsonRecord(paths);
        final int type = record.field("type");
        final int user = record.field("user");
        final int page = record.field("page");
        final UnsafeBuffer typeText = new UnsafeBuffer(new byte[64]);
        final JsonValueView scratch = new JsonValueView();
        final Click click = new Click();
        final View view = new View();

        final Split<JsonRecord> split = Split.create(new ChunkConfig(1000, 1 << 20, 100), unmatched);
        final BranchHandle<Click> clicks = split.add("clicks", new ClickEncoder(), ShardRouter.roundRobin(), "clicks");
        final BranchHandle<View> views = split.add("views", new ViewEncoder(), ShardRouter.roundRobin(), "views");
        split.route((r, out) ->
        {
            final int n = r.text(type, scratch, typeText);
            if (n == 5 && typeText.getStringWithoutLengthAscii(0, 5).equals("click"))
            {
                click.offset = r.event().offset();
                click.userLength = Math.max(0, r.text(user, scratch, click.user));
                out.emit(clicks, click);
            }
            else if (n == 4 && typeText.getStringWithoutLengthAscii(0, 4).equals("view"))
            {
                view.offset = r.event().offset();
                view.pageLength = r.text(page, scratch, view.page);
                out.emit(views, view);
            }
            // anything else reaches no branch: the unmatched policy decides
        });
        return new GatherSpec<JsonRecord>().name("s1").groupId(group).topics(List.of(topic))
            .autoOffsetReset("earliest").topicRefreshMs(2000).decoder(record).split(split)
            .sinks(sinks)
            .onError(ErrorPolicy.FAIL).conclude();
    }

    private static SluiceConfig config()
    {
        return ConfigLoader.parse("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\n[engine]\nstatus_interval_ms = 0\n"
            + "[[sinks]]\nname = \"unused\"\nkind = \"clickhouse\"\ntopics = [\"unused\"]\ngroup_id = \"unused\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ntarget_table = \"unused\"\n");
    }

    private static long run(final GatherSpec<JsonRecord> spec) throws Exception
    {
        return run(new GatherPipeline<>(config(), spec, new ClickHouseDriver(), new GatherPipeline.RunOptions(true)));
    }

    private static long run(final GatherPipeline<JsonRecord> p) throws Exception
    {
        p.start();
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (!p.sourceFinished() && System.nanoTime() < deadline)
        {
            if (p.control().failed())
            {
                p.requestStop();
            }
            Thread.sleep(20);
        }
        p.requestStop();
        assertTrue(p.awaitTermination(60_000));
        return p.control().failed() ? -1 : p.stats().droppedUnrouted.get();
    }

    private static String[] setUp(final String name) throws Exception
    {
        final String suffix = Long.toString(System.nanoTime(), 36);
        final String topic = "s1-" + name + "-" + suffix;
        final String db = "s1_" + name + "_" + suffix;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices
            .sql("CREATE TABLE " + db + ".clicks (offset Int64, user String) ENGINE = MergeTree() ORDER BY offset");
        TestServices
            .sql("CREATE TABLE " + db + ".views (offset Int64, page String) ENGINE = MergeTree() ORDER BY offset");
        TestServices.createTopic(topic, 1);
        TestServices.produce(topic, List.of(
            b("{\"type\":\"click\",\"user\":\"u1\"}"),
            b("{\"type\":\"view\",\"page\":\"/home\"}"),
            b("{\"type\":\"purchase\",\"user\":\"u1\"}"),
            b("{\"type\":\"click\",\"user\":\"u2\"}")));
        return new String[]{topic, db, "g-" + suffix};
    }

    @Test
    void shouldSkipTheUnmatchedRecordCountItAndCommitPastIt() throws Exception
    {
        final String[] t = setUp("skip");
        assertEquals(1, run(spec(t[0], t[2], t[1], ErrorPolicy.SKIP)), "records_dropped_total{reason=unrouted}");
        assertEquals("0\tu1\n3\tu2\n",
            TestServices.sql("SELECT offset, user FROM " + t[1] + ".clicks ORDER BY offset"));
        assertEquals("1\t/home\n", TestServices.sql("SELECT offset, page FROM " + t[1] + ".views ORDER BY offset"));
        assertEquals(Map.of(new TopicPartition(t[0], 0), 4L), TestServices.committed(t[2]));
    }

    @Test
    void shouldStopOnTheUnmatchedRecordAndNeverWriteOrCommitPastIt() throws Exception
    {
        final String[] t = setUp("fail");
        assertEquals(-1, run(spec(t[0], t[2], t[1], ErrorPolicy.FAIL)), "the pipeline stops with the reason");
        final Long committed = TestServices.committed(t[2]).get(new TopicPartition(t[0], 0));
        assertTrue(committed == null || committed <= 2, "committed " + committed);
        assertEquals(0,
            TestServices.sqlLong("SELECT count() FROM (SELECT offset FROM " + t[1] + ".clicks WHERE offset = 2 "
                + "UNION ALL SELECT offset FROM " + t[1] + ".views WHERE offset = 2)"),
            "offset 2 is never written");
    }

    /**
     * Each branch writes to a sink installed by name with its own connection (seed 001's add_sink): clicks into one
     * database, views into another with other settings; the pipeline asks a driver per installed sink
     * ({@link SinkDrivers}, one per kind) and both rows land, with one shared commit.
     */
    @Test
    void shouldWriteEachBranchWithTheConnectionOfTheSinkItNames() throws Exception
    {
        final String[] t = setUp("bysink");
        final String other = t[1] + "_views";
        TestServices.sql("CREATE DATABASE " + other);
        TestServices
            .sql("CREATE TABLE " + other + ".views (offset Int64, page String) ENGINE = MergeTree() ORDER BY offset");
        final SluiceConfig c = ConfigLoader.parse("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap()
            + "\"\n[[sinks]]\nname = \"clicks\"\nkind = \"clickhouse\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + t[1]
            + "\"\ntarget_table = \"clicks\"\n"
            + "[[sinks]]\nname = \"views\"\nkind = \"clickhouse\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + other
            + "\"\ntarget_table = \"views\"\ninsert_workers = 1\n"
            // both are targets only here: the embedding application's split writes to them
            + "[[sinks]]\nname = \"router\"\nkind = \"clickhouse\"\ntopics = [\"unused\"]\ngroup_id = \"unused\"\n"
            + "[sinks.plugin_config]\nendpoint = \"http://127.0.0.1:1\"\n"
            + "[[sinks.branches]]\nname = \"c\"\nwhen = { path = \"type\", equals = \"click\" }\nsink = \"clicks\"\n"
            + "[[sinks.branches]]\nname = \"v\"\nsink = \"views\"\n");
        final Map<String, SinkSpec> sinks = new java.util.LinkedHashMap<>();
        for (final String name : List.of("clicks", "views"))
        {
            final SluiceConfig.Sink s = c.sink(name);
            sinks.put(name, new SinkSpec(name, s.plugin(), s.plugin().shards(), s.plugin().database(),
                s.plugin().targetTable()));
        }
        final long dropped;
        try (SinkDrivers drivers = SinkDrivers.of(SinkProviders.installed()))
        {
            dropped = run(new GatherPipeline<>(config(), spec(t[0], t[2], ErrorPolicy.SKIP, sinks), drivers::driver,
                new GatherPipeline.RunOptions(true)));
        }
        assertEquals(1, dropped, "the purchase reaches no branch");
        assertEquals("0\tu1\n3\tu2\n",
            TestServices.sql("SELECT offset, user FROM " + t[1] + ".clicks ORDER BY offset"));
        assertEquals("1\t/home\n", TestServices.sql("SELECT offset, page FROM " + other + ".views ORDER BY offset"),
            "views in the database of the sink named views");
        assertEquals(0, TestServices.sqlLong("SELECT count() FROM " + t[1] + ".views"), "nothing in the other one");
        assertEquals(Map.of(new TopicPartition(t[0], 0), 4L), TestServices.committed(t[2]));
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
