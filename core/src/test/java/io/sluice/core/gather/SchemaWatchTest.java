package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * The schema watch reads a destination's table version once per schema_refresh_ms and asks for a refresh only when
 * it moved away from the version the binding was made from; a failing read asks nothing (the inserts say what is
 * wrong).
 */
class SchemaWatchTest
{
    /** Answers the scripted version, or fails when it is "down". */
    private static final class Catalog implements DestinationCatalog
    {
        volatile String version = "100:1";
        int reads;
        int batches;
        final java.util.List<Integer> batchSizes = new java.util.ArrayList<>();

        @Override
        public java.util.Map<String, String> tableVersions(final String database,
            final java.util.Collection<String> tables) throws SinkException
        {
            batches++;
            batchSizes.add(tables.size());
            final java.util.Map<String, String> out = new java.util.HashMap<>();
            for (final String t : tables)
            {
                if (!t.equals("gone"))
                {
                    out.put(t, t.equals("altered") ? "200:9" : version);
                }
            }
            return out;
        }

        @Override
        public TableSchema describe(final String database, final String table)
        {
            return null;
        }

        @Override
        public String tableVersion(final String database, final String table) throws SinkException
        {
            reads++;
            if ("down".equals(version))
            {
                throw new SinkException("connection refused", true, 0, null);
            }
            return version;
        }

        @Override
        public void create(final String database, final String table)
        {
        }

        @Override
        public String evaluateDefault(final ColumnSpec column)
        {
            return null;
        }

        @Override
        public String serverTimeZone()
        {
            return "UTC";
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
    }

    private static final RowEncoder.Bound<Object> ENCODER = new RowEncoder.Bound<>()
    {
        @Override
        public List<String> columns()
        {
            return List.of("id");
        }

        @Override
        public String encode(final Object row, final Bytes<?> out)
        {
            return null;
        }
    };

    @Test
    void shouldAskForARefreshOncePerPeriodOnlyWhenTheVersionMoved()
    {
        final Catalog catalog = new Catalog();
        final Binding binding = new Binding(ENCODER, new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8",
            "", "")), "MergeTree", "100:1"), List.of("`id`"), 1);
        final Destination d = new Destination(0, 0, "b", "db", "t", "`db`.`t`", "s", catalog, 1000, binding);
        final SchemaWatch watch = new SchemaWatch("w", new DestinationResolver());
        final long t0 = d.lastVersionCheckNanos();
        final long period = TimeUnit.MILLISECONDS.toNanos(1000);

        assertEquals(0, watch.check(d, t0 + period - 1), "not before schema_refresh_ms");
        assertEquals(0, catalog.reads);
        assertEquals(1, watch.check(d, t0 + period));
        assertEquals(1, catalog.reads);
        assertNull(d.refreshRequested(), "same version: nothing to do");

        catalog.version = "down";
        assertEquals(1, watch.check(d, t0 + 2 * period));
        assertNull(d.refreshRequested(), "a failed read asks for nothing");

        catalog.version = "101:2";
        assertEquals(0, watch.check(d, t0 + 2 * period + period / 2), "the period counts from the last read");
        assertEquals(1, watch.check(d, t0 + 3 * period));
        assertTrue(d.refreshRequested().contains("from 100:1 to 101:2 (schema_refresh_ms = 1000)"),
            d.refreshRequested());
        final int reads = catalog.reads;
        assertEquals(0, watch.check(d, t0 + 5 * period), "a pending refresh is not asked for again");
        assertEquals(reads, catalog.reads);

        d.rebind(new Binding(ENCODER, new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8", "", "")),
            "MergeTree", "101:2"), List.of("`id`"), 2));
        assertNull(d.refreshRequested(), "rebinding clears the request");
        assertEquals(1, watch.check(d, t0 + 6 * period));
        assertNull(d.refreshRequested(), "the new binding has the table's version");
    }

    @Test
    void shouldReadTheVersionsOfADatabasesTablesInOneQueryPerPeriod()
    {
        final Catalog catalog = new Catalog();
        final java.util.List<Destination> ds = new java.util.ArrayList<>();
        final String[] names = {"a", "b", "c", "gone", "altered"};
        for (int i = 0; i < names.length; i++)
        {
            final Binding binding = new Binding(ENCODER, new TableSchema("db", names[i], List.of(new ColumnSpec("id",
                "UInt8", "", "")), "MergeTree", "100:1"), List.of("`id`"), 1);
            ds.add(new Destination(i, 0, "b", "db", names[i], "`db`.`" + names[i] + "`", "s", catalog, 1000,
                binding));
        }
        final Binding other = new Binding(ENCODER, new TableSchema("db2", "x", List.of(new ColumnSpec("id", "UInt8",
            "", "")), "MergeTree", "100:1"), List.of("`id`"), 1);
        ds.add(new Destination(9, 0, "b", "db2", "x", "`db2`.`x`", "s", catalog, 1000, other));
        final SchemaWatch watch = new SchemaWatch("w", new DestinationResolver());
        final long period = TimeUnit.MILLISECONDS.toNanos(1000);
        long t0 = Long.MIN_VALUE;
        for (final Destination d : ds)
        {
            t0 = Math.max(t0, d.lastVersionCheckNanos());
        }

        assertEquals(0, watch.checkAll(ds, t0 + period / 4), "nothing is due yet");
        assertEquals(0, catalog.batches + catalog.reads);
        assertEquals(6, watch.checkAll(ds, t0 + period), "every table read once");
        assertEquals(2, catalog.batches, "one query for the 5 tables of db, one for db2: " + catalog.batchSizes);
        assertEquals(java.util.Set.of(5, 1), new java.util.HashSet<>(catalog.batchSizes));
        assertEquals(0, catalog.reads, "no query per table");
        assertTrue(ds.get(4).refreshRequested().contains("from 100:1 to 200:9"), ds.get(4).refreshRequested());
        assertNull(ds.get(0).refreshRequested(), "same version");
        assertNull(ds.get(3).refreshRequested(), "a table gone asks for nothing (its inserts say so)");
        assertEquals(0, watch.checkAll(ds, t0 + period + period / 4), "not again within the period");
    }

    @Test
    void shouldNeverReadWithoutACatalogOrAPeriod()
    {
        final Destination handMade = new Destination(0, 0, "b", "db", "t", "`db`.`t`", List.of("`id`"), "s", ENCODER);
        assertEquals(0, new SchemaWatch("w", new DestinationResolver()).check(handMade, Long.MAX_VALUE / 2));
    }
}
