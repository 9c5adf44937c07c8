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
import io.sluice.sinks.postgres.PgFields;
import io.sluice.codecs.pgcopy.PgCopyError;

/**
 * The split as an embedding application builds it (seed 001's shape in Java): two typed branches with their own row
 * types and encoders, one classifier, sinks installed by name; run on the real services with case S1 (click, view,
 * purchase, click on partition 0) under both unmatched policies.
 */
class SplitEmbeddedIT
{
    /**
     * A consuming sink whose branches name the sinks clicks and views: both are targets only, written by the
     * embedding application's split.
     */
    private static final String ROUTER = "[[sinks]]\nname = \"router\"\nkind = \"clickhouse\"\ntopics = [\"unused\"]\n"
        + "group_id = \"unused\"\n[sinks.plugin_config]\nendpoint = \"http://127.0.0.1:1\"\n"
        + "[[sinks.branches]]\nname = \"c\"\nwhen = { path = \"type\", equals = \"click\" }\nsink = \"clicks\"\n"
        + "[[sinks.branches]]\nname = \"v\"\nsink = \"views\"\n";

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
        long timestamp;
    }

    /**
     * Views as typed rows into PostgreSQL: a binary COPY tuple written with {@link PgFields}, one field per column,
     * no allocation per row (the jsonb text is built in a reused builder).
     */
    private static final class PgViewEncoder implements RowEncoder<View>, RowEncoder.Bound<View>
    {
        private final StringBuilder doc = new StringBuilder();

        @Override
        public Bound<View> bind(final TableSchema schema, final DestinationCatalog catalog)
        {
            return this;
        }

        @Override
        public List<String> columns()
        {
            return List.of("offset", "page", "seen", "id", "ok", "doc", "n", "day", "score", "small", "note");
        }

        @Override
        public String encode(final View row, final Bytes<?> out)
        {
            if (row.pageLength < 0)
            {
                return "column page from path page: missing";
            }
            PgFields.beginRow(out, 11);
            PgFields.writeInt8(out, row.offset);
            int code = PgFields.writeUtf8(out, row.page, 0, row.pageLength);
            if (code != 0)
            {
                return "column page from path page: " + PgCopyError.describe(code);
            }
            code = PgFields.writeTimestamp(out, row.timestamp * 1000 + 123);
            if (code != 0)
            {
                return "column seen: " + PgCopyError.describe(code);
            }
            PgFields.writeUuid(out, 0x0123456789abcdefL, row.offset);
            PgFields.writeBool(out, row.offset % 2 == 1);
            doc.setLength(0);
            doc.append("{\"offset\": ").append(row.offset).append(", \"é\": \"x\"}");
            code = PgFields.writeJsonb(out, doc);
            if (code != 0)
            {
                return "column doc: " + PgCopyError.describe(code);
            }
            PgFields.writeInt4(out, -7);
            code = PgFields.writeDate(out, 19_000);
            if (code != 0)
            {
                return "column day: " + PgCopyError.describe(code);
            }
            PgFields.writeFloat8(out, 0.1);
            PgFields.writeInt2(out, (short)-2);
            PgFields.writeNull(out);
            return null;
        }
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
            "views", new SinkSpec("views", connection, shards, db, "views")), new ViewEncoder());
    }

    private static GatherSpec<JsonRecord> spec(final String topic, final String group, final ErrorPolicy unmatched,
        final Map<String, SinkSpec> sinks, final RowEncoder<View> viewEncoder)
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
        final BranchHandle<View> views = split.add("views", viewEncoder, ShardRouter.roundRobin(), "views");
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
                view.timestamp = r.event().timestampMs();
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
        final String views = "[[sinks]]\nname = \"views\"\nkind = \"clickhouse\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + other
            + "\"\ntarget_table = \"views\"\ninsert_workers = 1\n";
        assertEquals(1, runByName(t, views, new ViewEncoder()), "the purchase reaches no branch");
        assertEquals("0\tu1\n3\tu2\n",
            TestServices.sql("SELECT offset, user FROM " + t[1] + ".clicks ORDER BY offset"));
        assertEquals("1\t/home\n", TestServices.sql("SELECT offset, page FROM " + other + ".views ORDER BY offset"),
            "views in the database of the sink named views");
        assertEquals(0, TestServices.sqlLong("SELECT count() FROM " + t[1] + ".views"), "nothing in the other one");
        assertEquals(Map.of(new TopicPartition(t[0], 0), 4L), TestServices.committed(t[2]));
    }

    /**
     * An embedded split across kinds, typed rows in both: clicks in ClickHouse RowBinary, views in PostgreSQL binary
     * COPY written with {@link PgFields}; both land with their values as each database prints them, one shared commit.
     */
    @Test
    void shouldWriteTypedRowsIntoPostgresqlNextToClickHouse() throws Exception
    {
        final String[] t = setUp("pgtyped");
        final String schema = "s1_pg_" + Long.toString(System.nanoTime(), 36);
        PostgresSinkIT.sql("CREATE SCHEMA \"" + schema + "\"", "CREATE TABLE \"" + schema + "\".\"views\" ("
            + "\"offset\" bigint PRIMARY KEY, page text, seen timestamptz, id uuid, ok boolean, doc jsonb, n integer, "
            + "day date, score double precision, small smallint, note text)");
        try
        {
            final String viewsSink = "[[sinks]]\nname = \"views\"\nkind = \"postgres\"\n[sinks.plugin_config]\n"
                + PostgresSinkIT.login() + "schema = \"" + schema + "\"\ntarget_table = \"views\"\nlinger_ms = 50\n";
            assertEquals(1, runByName(t, viewsSink, new PgViewEncoder()), "the purchase reaches no branch");
            assertEquals("0\tu1\n3\tu2\n",
                TestServices.sql("SELECT offset, user FROM " + t[1] + ".clicks ORDER BY offset"));
            final List<String> landed = PostgresSinkIT.rows("SELECT \"offset\", page, "
                + "(extract(epoch FROM seen) * 1000000)::bigint % 1000, id::text, ok::text, doc::text, n, "
                + "day::text, score::text, small, (note IS NULL)::text FROM \"" + schema + "\".\"views\" ORDER BY 1");
            assertEquals(List.of("1|/home|123|01234567-89ab-cdef-0000-000000000001|true|{\"é\": \"x\", \"offset\": 1}|"
                + "-7|2022-01-08|0.1|-2|true"), landed);
            assertEquals(Map.of(new TopicPartition(t[0], 0), 4L), TestServices.committed(t[2]));
        }
        finally
        {
            PostgresSinkIT.sql("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
    }

    /**
     * Runs the split of case S1 with its branches writing to the sinks named clicks (ClickHouse, database t[1]) and
     * views ({@code viewsSink}, a [[sinks]] table), a driver per installed sink.
     *
     * @return the records dropped as unrouted, or -1 when the pipeline failed
     */
    private static long runByName(final String[] t, final String viewsSink, final RowEncoder<View> views)
        throws Exception
    {
        final SluiceConfig c = ConfigLoader.parse("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap()
            + "\"\n[[sinks]]\nname = \"clicks\"\nkind = \"clickhouse\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + t[1]
            + "\"\ntarget_table = \"clicks\"\n" + viewsSink + ROUTER);
        final Map<String, SinkSpec> sinks = new java.util.LinkedHashMap<>();
        for (final String name : List.of("clicks", "views"))
        {
            final SluiceConfig.Sink s = c.sink(name);
            sinks.put(name, new SinkSpec(name, s.plugin(), s.plugin().shards(), s.plugin().database(),
                s.plugin().targetTable()));
        }
        try (SinkDrivers drivers = SinkDrivers.of(SinkProviders.installed()))
        {
            return run(new GatherPipeline<>(config(), spec(t[0], t[2], ErrorPolicy.SKIP, sinks, views),
                drivers::driver, new GatherPipeline.RunOptions(true)));
        }
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
