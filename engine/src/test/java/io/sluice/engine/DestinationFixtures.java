package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.sinks.clickhouse.ClickHouseDriver;

/**
 * What the destination ITs share: names read back from ClickHouse's system tables as hex (so no quoting of ours is
 * involved in checking a name), rows per table from {@code system.parts}, and a ClickHouse driver whose catalog
 * counts the engine's calls, so "the second batch pays nothing" is checked on the real engine path.
 */
final class DestinationFixtures
{
    private DestinationFixtures()
    {
    }

    static String unique(final String prefix)
    {
        return prefix + Long.toString(System.nanoTime(), 36);
    }

    /** A string literal for ClickHouse SQL holding {@code s} as UTF-8, built with unhex: no escaping to get wrong. */
    static String literal(final String s)
    {
        return "unhex('" + HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8)) + "')";
    }

    private static String unhex(final String hex)
    {
        return new String(HexFormat.of().parseHex(hex.toLowerCase()), StandardCharsets.UTF_8);
    }

    /** Every table of a database, by name exactly as the server stores it. */
    static TreeSet<String> tables(final String database)
    {
        final TreeSet<String> names = new TreeSet<>();
        for (final String line : TestServices
            .sql("SELECT hex(name) FROM system.tables WHERE database = " + literal(database)
                + " FORMAT TabSeparated")
            .split("\n"))
        {
            if (!line.isEmpty())
            {
                names.add(unhex(line));
            }
        }
        return names;
    }

    /** Every database, by name. */
    static TreeSet<String> databases()
    {
        final TreeSet<String> names = new TreeSet<>();
        for (final String line : TestServices.sql("SELECT hex(name) FROM system.databases FORMAT TabSeparated")
            .split("\n"))
        {
            if (!line.isEmpty())
            {
                names.add(unhex(line));
            }
        }
        return names;
    }

    /** Rows of every table of a database that has any, from its active parts (no table name in any statement). */
    static Map<String, Long> rowsPerTable(final String database)
    {
        final Map<String, Long> rows = new TreeMap<>();
        for (final String line : TestServices.sql("SELECT hex(table), sum(rows) FROM system.parts WHERE database = "
            + literal(database) + " AND active GROUP BY table FORMAT TabSeparated").split("\n"))
        {
            if (!line.isEmpty())
            {
                final String[] f = line.split("\t");
                rows.put(unhex(f[0]), Long.parseLong(f[1]));
            }
        }
        return rows;
    }

    /** Drops what a test created once it passed, so the shared server does not collect databases. */
    static void dropDatabase(final String database)
    {
        try
        {
            TestServices.sql("DROP DATABASE IF EXISTS `" + database.replace("\\", "\\\\").replace("`", "\\`") + "`");
        }
        catch (final RuntimeException e)
        {
            System.out.println("could not drop " + database + ": " + e.getMessage());
        }
    }

    /** The engine's ClickHouse driver with a catalog that counts describe and create calls per table. */
    static final class CountingDriver implements SinkDriver
    {
        final ClickHouseDriver real = new ClickHouseDriver();
        final Map<String, AtomicInteger> describes = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> creates = new ConcurrentHashMap<>();
        private final Consumer<String> beforeCreate;

        CountingDriver(final Consumer<String> beforeCreate)
        {
            this.beforeCreate = beforeCreate;
        }

        int describes(final String table)
        {
            return describes.getOrDefault(table, new AtomicInteger()).get();
        }

        int creates(final String table)
        {
            return creates.getOrDefault(table, new AtomicInteger()).get();
        }

        @Override
        public JsonEncoding jsonEncoding()
        {
            return real.jsonEncoding();
        }

        @Override
        public DestinationCatalog catalog(final SinkSpec sink)
        {
            final DestinationCatalog c = real.catalog(sink);
            return new DestinationCatalog()
            {
                @Override
                public TableSchema describe(final String database, final String table) throws SinkException
                {
                    describes.computeIfAbsent(table, t -> new AtomicInteger()).incrementAndGet();
                    return c.describe(database, table);
                }

                @Override
                public void create(final String database, final String table) throws SinkException
                {
                    creates.computeIfAbsent(table, t -> new AtomicInteger()).incrementAndGet();
                    beforeCreate.accept(table);
                    c.create(database, table);
                }

                @Override
                public String evaluateDefault(final ColumnSpec column) throws SinkException
                {
                    return c.evaluateDefault(column);
                }

                @Override
                public String serverTimeZone() throws SinkException
                {
                    return c.serverTimeZone();
                }

                @Override
                public String qualifiedName(final String database, final String table)
                {
                    return c.qualifiedName(database, table);
                }

                @Override
                public String quoteColumn(final String column)
                {
                    return c.quoteColumn(column);
                }
            };
        }

        @Override
        public BatchWriter writer(final SinkSpec sink, final int shard)
        {
            return real.writer(sink, shard);
        }

        @Override
        public void checkReachable(final SinkSpec sink) throws SinkException
        {
            real.checkReachable(sink);
        }

        @Override
        public void close()
        {
            real.close();
        }
    }

    /** The first sink of a configuration as the engine installs it, for catalog-level tests. */
    static SinkSpec spec(final SluiceConfig config, final String database, final String table)
    {
        final SluiceConfig.Sink s = config.sinks().get(0);
        return new SinkSpec(s.name(), s.plugin(), s.plugin().shards(), database, table);
    }

    /** A running engine in its own thread, stopped by {@link #stop()}. */
    static final class Running
    {
        final SluiceEngine engine;
        final Thread thread;
        volatile int code = -1;

        Running(final SluiceEngine engine)
        {
            this.engine = engine;
            this.thread = new Thread(() -> code = engine.run(), "it-engine");
            thread.start();
        }

        int stop() throws InterruptedException
        {
            engine.shutdown();
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(thread.isAlive());
            return code;
        }
    }
}
