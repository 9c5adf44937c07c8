package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.batch.PositionChain;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * Turns (branch, topic) into a bound {@link Destination}: resolves the sink's database and table templates from the
 * topic ({@code {topic}}, {@code {topic_segment[n]}}; a topic with too few segments fails, never a partial name) and
 * applies the sink's identifier policy (both through {@link DestinationNames}, the step the dry run shares), checks
 * that the table exists (creating it when the sink allows), reads its columns once and binds the branch's encoder
 * to them. Results are cached per (branch, database, table); callers cache per topic, so later batches pay nothing.
 *
 * <p>Runs on the route stage thread, off the hot path (once per new topic and branch). Not thread-safe.
 */
public final class DestinationResolver
{
    private static final Logger LOG = LoggerFactory.getLogger(DestinationResolver.class);

    /** The outcome of a resolution: a destination, or the reason there is none. */
    public record Result(Destination destination, String error, boolean retriable)
    {
        static Result ok(final Destination d)
        {
            return new Result(d, null, false);
        }

        static Result failed(final String error, final boolean retriable)
        {
            return new Result(null, error, retriable);
        }
    }

    /** What the resolver needs of one installed sink. */
    public static final class SinkTarget
    {
        final SinkSpec spec;
        final DestinationCatalog catalog;
        final DestinationNames names;
        /** Whether nothing may be written to the destination, not even a missing table created (explain). */
        final boolean readOnly;

        /**
         * @param spec    the sink
         * @param catalog its catalog
         * @throws IllegalArgumentException when a template or the identifier policy is invalid
         */
        public SinkTarget(final SinkSpec spec, final DestinationCatalog catalog)
        {
            this(spec, catalog, false);
        }

        /**
         * @param spec     the sink
         * @param catalog  its catalog
         * @param readOnly true for a dry run ({@code explain --connect}): a missing table is never created, whatever
         *                 {@code create_table} says; resolving it fails saying that a run would create it
         * @throws IllegalArgumentException when a template or the identifier policy is invalid
         */
        public SinkTarget(final SinkSpec spec, final DestinationCatalog catalog, final boolean readOnly)
        {
            this.spec = spec;
            this.catalog = catalog;
            this.readOnly = readOnly;
            this.names = new DestinationNames(spec.database(), spec.targetTable(), spec.connection().identifier(),
                catalog::qualifiedName);
        }

        /** @return whether database and table are literals (resolvable without a topic) */
        public boolean isLiteral()
        {
            return names.isLiteral();
        }

        /** @return the pure naming step of this sink (templates and identifier policy), shared with the dry run */
        public DestinationNames names()
        {
            return names;
        }
    }

    /** The encoder bound to one description of the table, with its columns quoted for SQL. */
    private static Binding bind(final RowEncoder<?> encoder, final SinkTarget target, final TableSchema schema,
        final int generation) throws SinkException
    {
        final RowEncoder.Bound<?> bound = encoder.bind(schema, target.catalog);
        final List<String> sqlColumns = new ArrayList<>();
        for (final String c : bound.columns())
        {
            sqlColumns.add(target.catalog.quoteColumn(c));
        }
        return new Binding(bound, schema, sqlColumns, generation);
    }

    /**
     * Describes a destination's table again after a change was noticed ({@link Destination#refreshRequested()})
     * and rebinds the branch's encoder when its columns changed; when only the version moved (the columns are the
     * same), the binding takes the new version and keeps its encoder. Route stage thread, off the hot path (once per
     * change).
     *
     * @param destination the destination
     * @param encoder     its branch's encoder
     * @param target      its sink
     * @return the new binding, or {@code null} when the destination keeps its binding because the table cannot be
     *     described now (gone without {@code create_table}, or the server unreachable: its inserts say so); a table
     *     that is gone is created again first where {@code create_table} allows; throws when the new columns cannot
     *     be written
     * @throws IllegalArgumentException naming what the encoder cannot write in the changed table (a mapped column
     *                                  dropped, a type it cannot write)
     * @throws SinkException            when the catalog fails while binding (a default cannot be evaluated)
     */
    public Binding refresh(final Destination destination, final RowEncoder<?> encoder, final SinkTarget target)
        throws SinkException
    {
        final Binding current = destination.binding();
        TableSchema schema;
        try
        {
            schema = target.catalog.describe(destination.database(), destination.table());
            if (schema == null && target.spec.connection().createTable() && !target.readOnly)
            {
                LOG.warn("destination {}: the table does not exist any more (dropped or renamed while the engine "
                    + "ran); it is created again (create_table) and the failed records are read again",
                    destination.sqlTable());
                target.catalog.create(destination.database(), destination.table());
                schema = target.catalog.describe(destination.database(), destination.table());
            }
        }
        catch (final SinkException e)
        {
            LOG.warn("destination {}: cannot describe{} the table again ({}); its rows keep the columns read before",
                destination.sqlTable(), target.spec.connection().createTable() ? " or create" : "", e.getMessage());
            return null;
        }
        if (schema == null)
        {
            LOG.warn("destination {}: the table does not exist any more; its inserts fail until it is back{}",
                destination.sqlTable(), target.spec.connection().createTable() ? "" : " (create_table is off)");
            return null;
        }
        final int generation = current == null ? 1 : current.generation() + 1;
        final Binding next;
        if (current != null && current.schema().sameColumns(schema))
        {
            next = new Binding(current.encoder(), schema, current.sqlColumns(), generation);
            LOG.info("destination {}: the table's version moved ({} -> {}) but its columns are the same",
                destination.sqlTable(),
                current.version(), schema.version());
        }
        else
        {
            next = bind(encoder, target, schema, generation);
            LOG.info("destination {} (branch {}): the table changed; rows are encoded for its columns now: {} "
                + "(before: {})", destination.sqlTable(), destination.branchName(), describe(next),
                current == null
                    ? "none"
                    : describe(current));
        }
        destination.rebind(next);
        return next;
    }

    private static String describe(final Binding b)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.columns().size(); i++)
        {
            sb.append(i == 0 ? "" : ", ").append(b.columns().get(i));
            if (i < b.types().size())
            {
                sb.append(' ').append(b.types().get(i));
            }
        }
        return sb.toString();
    }

    private final Map<String, Destination> byName = new HashMap<>();
    private final List<Destination> all = new ArrayList<>();
    private volatile List<Destination> published = List.of();
    /** Where the exactly-once sinks keep their positions (the keys of their tables' positions). */
    private SinkPositions positions = new SinkPositions();

    /**
     * @param p where the pipeline's exactly-once sinks keep their positions (before any destination is resolved)
     */
    void positions(final SinkPositions p)
    {
        this.positions = p;
    }

    /** @return every destination resolved so far (any thread) */
    public List<Destination> destinations()
    {
        return published;
    }

    /**
     * @param branchIndex the branch
     * @param branchName  its name
     * @param encoder     its encoder
     * @param target      the sink it writes to
     * @param topic       the topic the records came from (any topic for literal sinks)
     * @return the destination, or why there is none (a topic with too few segments, a missing table, a column the
     *     encoder cannot write, an unreachable server (retriable))
     */
    public Result resolve(final int branchIndex, final String branchName, final RowEncoder<?> encoder,
        final SinkTarget target,
        final String topic)
    {
        final Result known = known(branchIndex, branchName, encoder, target, topic);
        return known != null
            ? known
            : install(branchIndex, branchName, encoder, target, topic,
                prepare(branchName, target, topic));
    }

    /**
     * The part of {@link #resolve} that needs no new table: the destination already resolved for the topic's table in
     * this branch, or why the topic has none by its name (too few segments for the template). Route stage thread;
     * asks the catalog only to describe again a table that had changed into one the branch could not write.
     *
     * @param branchIndex the branch
     * @param branchName  its name
     * @param encoder     its encoder
     * @param target      the sink it writes to
     * @param topic       the topic
     * @return the result, or {@code null} when the table must be set up first ({@link #prepare}, then
     *     {@link #install})
     */
    public Result known(final int branchIndex, final String branchName, final RowEncoder<?> encoder,
        final SinkTarget target, final String topic)
    {
        final DestinationNames.Name name = target.names.resolve(topic);
        if (!name.ok())
        {
            return Result.failed("branch " + branchName + ": " + name.error(), false);
        }
        final Destination cached = byName.get(key(branchIndex, name.database(), name.table()));
        if (cached != null && cached.unwritable() == null)
        {
            return Result.ok(cached);
        }
        if (cached != null)
        {
            // its table changed into one the branch cannot write: try again, it may have been fixed
            try
            {
                refresh(cached, encoder, target);
                cached.unwritable(null);
                return Result.ok(cached);
            }
            catch (final SinkException e)
            {
                return Result.failed("destination " + cached + ": " + e.getMessage(), e.retriable());
            }
            catch (final IllegalArgumentException e)
            {
                cached.unwritable(e.getMessage());
                return Result.failed("destination " + cached + " changed and cannot be written: " + e.getMessage(),
                    false);
            }
        }
        return null;
    }

    private static String key(final int branchIndex, final String database, final String table)
    {
        return branchIndex + "\u0000" + database + "\u0000" + table;
    }

    /**
     * What the catalog says of a topic's table: whether it exists (created first when the sink allows it) and its
     * columns. The slow part of setting up a destination (round trips to the database), and the only one that may
     * run off the route stage thread ({@link DestinationSetup}): it touches no state of the resolver.
     *
     * <p>Any thread (catalogs are thread-safe).
     *
     * @param branchName the branch's name, for messages
     * @param target     the sink it writes to
     * @param topic      the topic
     * @return the table's description, or why there is none
     */
    public static Prepared prepare(final String branchName, final SinkTarget target, final String topic)
    {
        final DestinationNames.Name name = target.names.resolve(topic);
        if (!name.ok())
        {
            return new Prepared(null, "branch " + branchName + ": " + name.error(), false);
        }
        final String database = name.database();
        final String tableName = name.table();
        final boolean create = target.spec.connection().createTable();
        try
        {
            TableSchema schema = target.catalog.describe(database, tableName);
            if (schema == null && create && target.readOnly)
            {
                return new Prepared(null, target.catalog.missingTable(database, tableName) + " (branch " + branchName
                    + "); a run would create it (create_table = true), a dry run creates nothing, so its columns "
                    + "are not known here: create it, or explain with --schema and the table's CREATE TABLE", false);
            }
            if (schema == null && create)
            {
                // as the kind writes it in SQL: "public"."orders.eu" is one table, public.orders.eu would read as two dots
                LOG.info("creating table {} for topic {} (branch {})", name.sql(), topic, branchName);
                target.catalog.create(database, tableName);
                schema = target.catalog.describe(database, tableName);
            }
            if (schema == null)
            {
                return new Prepared(null, target.catalog.missingTable(database, tableName)
                    + " (branch " + branchName + (create ? "" : "; set plugin_config.create_table = true to create it")
                    + ")", false);
            }
            return new Prepared(schema, null, false);
        }
        catch (final SinkException e)
        {
            return new Prepared(null, "destination " + name.sql() + ": " + e.getMessage(),
                e.retriable());
        }
        catch (final RuntimeException e)
        {
            return new Prepared(null, "destination " + name.sql() + ": " + e.getMessage(), false);
        }
    }

    /**
     * The table of a topic as {@link #prepare} found it: its columns, or why there is none.
     *
     * @param schema    the table's columns, or {@code null} with {@code error}
     * @param error     why there is no table to write, or {@code null}
     * @param retriable whether the failure may pass (the server unreachable)
     */
    public record Prepared(TableSchema schema, String error, boolean retriable)
    {
    }

    /**
     * Binds the branch's encoder to a prepared table and registers the destination (or finds the one registered for
     * the same table meanwhile, through another topic). Route stage thread (the thread that calls {@link #resolve});
     * no round trip to the database unless the encoder asks the catalog for a DEFAULT it evaluates.
     *
     * @param branchIndex the branch
     * @param branchName  its name
     * @param encoder     its encoder
     * @param target      the sink it writes to
     * @param topic       the topic
     * @param prepared    what {@link #prepare} found for it
     * @return the destination, or why there is none
     */
    public Result install(final int branchIndex, final String branchName, final RowEncoder<?> encoder,
        final SinkTarget target, final String topic, final Prepared prepared)
    {
        if (prepared.schema() == null)
        {
            return Result.failed(prepared.error(), prepared.retriable());
        }
        final TableSchema schema = prepared.schema();
        final DestinationNames.Name name = target.names.resolve(topic);
        final String key = key(branchIndex, name.database(), name.table());
        final Destination known = byName.get(key);
        if (known != null && known.unwritable() == null)
        {
            return Result.ok(known);
        }
        try
        {
            final Binding binding = bind(encoder, target, schema, 1);
            final Destination d = new Destination(all.size(), branchIndex, branchName, schema.database(),
                schema.table(), target.catalog.qualifiedName(schema.database(), schema.table()), target.spec.name(),
                target.catalog, target.spec.connection().schemaRefreshMs(), binding);
            final String shared = exactlyOnce(target, d);
            if (shared != null)
            {
                return Result.failed(shared, false);
            }
            byName.put(key, d);
            all.add(d);
            published = List.copyOf(all);
            LOG.info("destination {} for {} (branch {}): {} columns", d.sqlTable(),
                topic.isEmpty() ? "every topic" : "topic " + topic,
                branchName, d.columnCount());
            return Result.ok(d);
        }
        catch (final SinkException e)
        {
            return Result.failed("destination " + name.database() + "." + name.table() + ": " + e.getMessage(),
                e.retriable());
        }
        catch (final IllegalArgumentException e)
        {
            return Result.failed("destination " + name.database() + "." + name.table() + ": " + e.getMessage(),
                false);
        }
    }

    /**
     * Gives a destination of an exactly-once sink its positions; refuses a table another branch writes already: the
     * batches of a table must be one chain per partition, which two branches' batches (sealed apart) are not.
     *
     * @return null, or why the destination cannot be written
     */
    private String exactlyOnce(final SinkTarget target, final Destination d)
    {
        if (!target.spec.connection().exactlyOnce())
        {
            return null;
        }
        // one chain per positions row: two branches whose tables share a row (the same table, its sink or another
        // sink keeping positions in the same place) would each take the other's position as its own
        final String key = positions.key(d.sink(), d.sqlTable());
        for (final Destination o : all)
        {
            if (o.branch() != d.branch() && o.positions() != null && o.positions().key().equals(key))
            {
                return "destination " + d.sqlTable() + ": branches " + o.branchName() + " and " + d.branchName()
                    + " both write it, with delivery = \"exactly_once\" and their positions kept in one place: a table's positions are one chain of batches per partition, so "
                    + "only one branch may write a table (send both kinds of record through one branch, or write them "
                    + "to two tables)";
            }
        }
        d.positions(new PositionChain(key));
        return null;
    }
}
