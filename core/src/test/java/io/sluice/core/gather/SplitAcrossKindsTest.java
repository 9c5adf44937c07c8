package io.sluice.core.gather;

import static io.sluice.core.config.ConfigKey.Type.STRING_OR_LIST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import net.openhft.chronicle.bytes.Bytes;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfigReader;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SinkKeys;
import io.sluice.core.config.SinkSettings;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.gather.split.Split;

/**
 * A split across kinds without a database: two fake kinds ({@code alpha}, {@code beta}) passed as providers. The
 * branch that names a sink of the other kind is encoded by that kind's encoder, installed with that sink's connection,
 * and written by that kind's driver (its writer, catalog and reachability check); the others stay with their own.
 */
class SplitAcrossKindsTest
{
    private static final String TOML = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"

        [[sinks]]
        name = "a"
        kind = "alpha"
        topics = ["events"]
        group_id = "g"

        [sinks.plugin_config]
        endpoint = "alpha-host:1"
        database = "db_a"
        null_as_default = false

        [[sinks.branches]]
        name = "x"
        when = { path = "t", equals = "x" }
        sink = "b"

        [[sinks.branches]]
        name = "z"
        target_table = "z_table"

        [[sinks]]
        name = "b"
        kind = "beta"

        [sinks.plugin_config]
        endpoint = ["beta-host:1", "beta-host:2"]
        database = "db_b"
        target_table = "b_table"
        null_as_default = true
        """;

    private final FakeProvider alpha = new FakeProvider("alpha");
    private final FakeProvider beta = new FakeProvider("beta");
    private final SinkProviders providers = SinkProviders.of(List.of(alpha, beta));

    private SluiceConfig config()
    {
        return ConfigLoader.parse(TOML, name -> null, providers.kinds());
    }

    @Test
    void aBranchIsEncodedAndInstalledWithTheKindAndConnectionOfTheSinkItNames()
    {
        final SluiceConfig c = config();
        final FakeDriver alphaDriver = alpha.driver();
        final FakeDriver betaDriver = beta.driver();
        final List<String> asked = new ArrayList<>();
        final GatherSpec<JsonRecord> spec = TomlGather.build(c, c.sink("a"), name ->
        {
            asked.add(name);
            return name.equals("b") ? betaDriver.jsonEncoding() : alphaDriver.jsonEncoding();
        });
        assertEquals(List.of("b", "a"), asked, "one encoding per sink written to, in branch order");

        final SinkSpec x = spec.sinks().get("a/x");
        assertSame(c.sink("b").plugin(), x.connection(), "branch x carries b's connection");
        assertEquals("beta", x.connection().kind());
        assertEquals(List.of(List.of("beta-host:1", "beta-host:2")), x.shards());
        assertEquals("db_b", x.database());
        assertEquals("b_table", x.targetTable());
        final SinkSpec z = spec.sinks().get("a/z");
        assertSame(c.sink("a").plugin(), z.connection());
        assertEquals("db_a", z.database());

        final List<Split.Branch<?>> branches = spec.split().branches();
        assertEquals("beta:x", ((Tagged)branches.get(0).encoder()).tag);
        assertEquals("alpha:z", ((Tagged)branches.get(1).encoder()).tag);
        assertEquals(List.of(new Seen("x", true)), betaDriver.seen, "b's null_as_default reaches the encoder");
        assertEquals(List.of(new Seen("z", false)), alphaDriver.seen);
    }

    @Test
    void thePipelineWritesEachInstalledSinkWithItsOwnDriver()
    {
        final SluiceConfig c = config();
        try (SinkDrivers drivers = SinkDrivers.of(providers))
        {
            final GatherSpec<JsonRecord> spec = TomlGather.build(c, c.sink("a"),
                name -> drivers.driver(new SinkSpec(name, c.sink(name).plugin(), c.sink(name).plugin().shards(),
                    null, "t")).jsonEncoding());
            final GatherPipeline<JsonRecord> p = new GatherPipeline<>(c, spec, drivers::driver,
                new GatherPipeline.RunOptions(true));
            // the fake catalogs know no table: start stops at the first literal destination, after every installed
            // sink got its driver's reachability check, catalog and writers
            final SinkException e = assertThrows(SinkException.class, p::start);
            assertTrue(e.getMessage().contains("table"), e.getMessage());
            final FakeDriver alphaDriver = alpha.opened.get(0);
            final FakeDriver betaDriver = beta.opened.get(0);
            assertEquals(1, alpha.opened.size(), "one driver per kind");
            assertEquals(1, beta.opened.size());
            assertEquals(List.of("reachable a/x", "catalog a/x", "writer a/x 0", "writer a/x 0"), betaDriver.calls,
                "insert_workers = 2 writers of the one shard");
            assertEquals(List.of("reachable a/z", "catalog a/z", "writer a/z 0", "writer a/z 0"), alphaDriver.calls);
        }
        assertTrue(alpha.opened.get(0).closed && beta.opened.get(0).closed, "SinkDrivers closes what it opened");
    }

    @Test
    void theOneKindFormRefusesABranchThatWritesElsewhere()
    {
        final SluiceConfig c = config();
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TomlGather.build(c.sink("a"), alpha.driver().jsonEncoding()));
        assertTrue(e.getMessage().contains("branch x of sink a writes to sink b"), e.getMessage());
    }

    private record Seen(String branch, boolean nullAsDefault)
    {
    }

    /** An encoder that only says whose it is. */
    private static final class Tagged implements RowEncoder<JsonRecord>
    {
        final String tag;

        Tagged(final String tag)
        {
            this.tag = tag;
        }

        @Override
        public Bound<JsonRecord> bind(final TableSchema schema, final DestinationCatalog catalog)
        {
            return new Bound<>()
            {
                @Override
                public List<String> columns()
                {
                    return List.of();
                }

                @Override
                public String encode(final JsonRecord row, final Bytes<?> out)
                {
                    return null;
                }
            };
        }
    }

    /** A kind with an endpoint and the shared keys; connects to nothing. */
    private static final class FakeProvider implements SinkProvider
    {
        private final String kind;
        private final ConfigKey endpoint;
        private final ConfigKey identifier = SinkKeys.identifier("rewrite");
        final List<FakeDriver> opened = Collections.synchronizedList(new ArrayList<>());

        FakeProvider(final String kind)
        {
            this.kind = kind;
            this.endpoint = ConfigKey.in(SinkKeys.SECTION, "endpoint", STRING_OR_LIST).required().doc("addresses");
        }

        @Override
        public String kind()
        {
            return kind;
        }

        @Override
        public List<ConfigKey> pluginConfigKeys()
        {
            final List<ConfigKey> keys = new ArrayList<>();
            keys.add(endpoint);
            keys.addAll(SinkSettings.keys(identifier));
            return keys;
        }

        @Override
        public SinkConnection readPluginConfig(final PluginConfigReader pc)
        {
            final List<String> endpoints = pc.strings(endpoint);
            return SinkSettings.read(pc, kind, identifier, endpoints.isEmpty() ? List.of() : List.of(endpoints));
        }

        @Override
        public FakeDriver driver()
        {
            final FakeDriver d = new FakeDriver(kind);
            opened.add(d);
            return d;
        }

        @Override
        public String qualifiedName(final String database, final String table)
        {
            return database + "." + table;
        }
    }

    /** Records what the pipeline asks of it; its catalog knows no table. */
    private static final class FakeDriver implements SinkDriver
    {
        private final String kind;
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final List<Seen> seen = new ArrayList<>();
        volatile boolean closed;

        FakeDriver(final String kind)
        {
            this.kind = kind;
        }

        private void own(final SinkSpec sink)
        {
            if (!sink.connection().kind().equals(kind))
            {
                throw new AssertionError(kind + " driver asked for sink " + sink.name() + " of kind "
                    + sink.connection().kind());
            }
        }

        @Override
        public DestinationCatalog catalog(final SinkSpec sink)
        {
            own(sink);
            calls.add("catalog " + sink.name());
            return new DestinationCatalog()
            {
                @Override
                public TableSchema describe(final String database, final String table)
                {
                    return null;
                }

                @Override
                public void create(final String database, final String table) throws SinkException
                {
                    throw new SinkException("no create", false, 0, null);
                }

                @Override
                public String evaluateDefault(final ColumnSpec column)
                {
                    return null;
                }

                @Override
                public String qualifiedName(final String database, final String table)
                {
                    return database + "." + table;
                }

                @Override
                public String quoteColumn(final String column)
                {
                    return column;
                }
            };
        }

        @Override
        public BatchWriter writer(final SinkSpec sink, final int shard)
        {
            own(sink);
            calls.add("writer " + sink.name() + " " + shard);
            return new BatchWriter()
            {
                @Override
                public void write(final BatchBuffer batch)
                {
                    throw new AssertionError("nothing is written");
                }

                @Override
                public String describe()
                {
                    return kind + " writer";
                }

                @Override
                public void close()
                {
                }
            };
        }

        @Override
        public JsonEncoding jsonEncoding()
        {
            return branch ->
            {
                seen.add(new Seen(branch.name(), branch.nullAsDefault()));
                return new Tagged(kind + ":" + branch.name());
            };
        }

        @Override
        public void checkReachable(final SinkSpec sink)
        {
            own(sink);
            calls.add("reachable " + sink.name());
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }
}
