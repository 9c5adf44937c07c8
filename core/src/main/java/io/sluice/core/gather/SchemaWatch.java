package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.Agent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.StageAgents;

/**
 * Notices a destination table that changed while the pipeline runs ({@code ALTER TABLE ... ADD COLUMN},
 * {@code DROP COLUMN}, {@code MODIFY COLUMN}), within {@code schema_refresh_ms}, without an insert having to fail
 * first: every {@code schema_refresh_ms} it reads each resolved destination's table version through its catalog
 * ({@link DestinationCatalog#tableVersions}: one query per database and period, for all its tables, see
 * {@link #checkAll}) and, when it is not the version the
 * destination's binding was made from, asks the destination for a refresh ({@link Destination#requestRefresh}). The
 * route stage then describes the table again and rebinds before it encodes the next row for it; so a column added to
 * the table is filled from the records encoded after that (case T6), and a retyped column is written with its new
 * type from then on (an insert of rows encoded before is refused by the server, and those are re-read).
 *
 * <p>An Agrona {@link Agent} on its own thread, off the record path: a query that fails (the server is down) is
 * logged at debug and tried again at the next period; the inserts say what is wrong. {@link #stop()} ends it.
 * Thread-safety: one thread runs it; {@link #stop()} from any.
 */
public final class SchemaWatch implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(SchemaWatch.class);

    private final String name;
    private final DestinationResolver resolver;
    private volatile boolean stopping;

    /**
     * @param name     the agent's name, e.g. {@code github-schema-watch}
     * @param resolver the pipeline's destinations
     */
    public SchemaWatch(final String name, final DestinationResolver resolver)
    {
        this.name = name;
        this.resolver = resolver;
    }

    /** Ends the agent at its next duty cycle. */
    public void stop()
    {
        stopping = true;
    }

    @Override
    public String roleName()
    {
        return name;
    }

    @Override
    public int doWork()
    {
        if (stopping)
        {
            throw StageAgents.STOP;
        }
        return checkAll(resolver.destinations(), System.nanoTime());
    }

    /**
     * Reads the versions of the destinations whose period has passed, one query per (catalog, database)
     * ({@link DestinationCatalog#tableVersions}): once one table of a database is due, every table of it whose last
     * read is at least half a period old is read with it, so the tables of a database, set up at different times,
     * fall into one read per period instead of one query per table.
     *
     * @param destinations the pipeline's destinations
     * @param nowNanos     {@link System#nanoTime()}
     * @return the tables whose version was read (or tried)
     */
    int checkAll(final List<Destination> destinations, final long nowNanos)
    {
        Map<DestinationCatalog, Map<String, List<Destination>>> groups = null;
        Set<Object> due = null;
        for (final Destination d : destinations)
        {
            final DestinationCatalog catalog = d.catalog();
            final long periodNanos = TimeUnit.MILLISECONDS.toNanos(d.schemaRefreshMs());
            if (catalog == null || periodNanos <= 0 || nowNanos - d.lastVersionCheckNanos() < periodNanos / 2
                || d.refreshRequested() != null)
            {
                continue;
            }
            if (groups == null)
            {
                groups = new IdentityHashMap<>();
                due = new HashSet<>();
            }
            groups.computeIfAbsent(catalog, c -> new HashMap<>()).computeIfAbsent(d.database(),
                k -> new ArrayList<>()).add(d);
            if (nowNanos - d.lastVersionCheckNanos() >= periodNanos)
            {
                due.add(List.of(catalog, d.database()));
            }
        }
        if (groups == null)
        {
            return 0;
        }
        int work = 0;
        for (final Map.Entry<DestinationCatalog, Map<String, List<Destination>>> c : groups.entrySet())
        {
            for (final Map.Entry<String, List<Destination>> db : c.getValue().entrySet())
            {
                if (due.contains(List.of(c.getKey(), db.getKey())))
                {
                    work += readVersions(c.getKey(), db.getKey(), db.getValue(), nowNanos);
                }
            }
        }
        return work;
    }

    private int readVersions(final DestinationCatalog catalog, final String database, final List<Destination> ds,
        final long nowNanos)
    {
        final Set<String> tables = new LinkedHashSet<>();
        for (final Destination d : ds)
        {
            d.lastVersionCheckNanos(nowNanos);
            final Binding binding = d.binding();
            if (binding != null && !binding.version().isEmpty())
            {
                tables.add(d.table());
            }
        }
        if (tables.isEmpty())
        {
            return ds.size();
        }
        final Map<String, String> versions;
        try
        {
            versions = catalog.tableVersions(database, tables);
        }
        catch (final SinkException e)
        {
            LOG.debug("{}: cannot read the versions of {} tables of {}: {}", name, tables.size(), database,
                e.getMessage());
            return ds.size();
        }
        for (final Destination d : ds)
        {
            final Binding binding = d.binding();
            if (binding != null && !binding.version().isEmpty())
            {
                compare(d, binding, versions.get(d.table()));
            }
        }
        return ds.size();
    }

    private void compare(final Destination d, final Binding binding, final String version)
    {
        if (version != null && !version.isEmpty() && !version.equals(binding.version()))
        {
            LOG.info("{}: table {} changed (version {} -> {}): it is described again before its next row",
                name, d.sqlTable(), binding.version(), version);
            d.requestRefresh("the table's version moved from " + binding.version() + " to " + version
                + " (schema_refresh_ms = " + d.schemaRefreshMs() + ")");
        }
    }

    /**
     * Reads one destination's table version when its period has passed.
     *
     * @return 1 when it asked, else 0
     */
    int check(final Destination d, final long nowNanos)
    {
        final DestinationCatalog catalog = d.catalog();
        final long periodNanos = TimeUnit.MILLISECONDS.toNanos(d.schemaRefreshMs());
        if (catalog == null || periodNanos <= 0 || nowNanos - d.lastVersionCheckNanos() < periodNanos
            || d.refreshRequested() != null)
        {
            return 0;
        }
        d.lastVersionCheckNanos(nowNanos);
        final Binding binding = d.binding();
        if (binding == null || binding.version().isEmpty())
        {
            return 1;
        }
        try
        {
            compare(d, binding, catalog.tableVersion(d.database(), d.table()));
        }
        catch (final SinkException e)
        {
            LOG.debug("{}: cannot read the version of {}: {}", name, d, e.getMessage());
        }
        return 1;
    }
}
