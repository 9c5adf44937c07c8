package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.gather.batch.Destination;
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

        /**
         * @param spec    the sink
         * @param catalog its catalog
         * @throws IllegalArgumentException when a template or the identifier policy is invalid
         */
        public SinkTarget(final SinkSpec spec, final DestinationCatalog catalog)
        {
            this.spec = spec;
            this.catalog = catalog;
            this.names = new DestinationNames(spec.database(), spec.targetTable(), spec.connection().identifier());
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

    private final Map<String, Destination> byName = new HashMap<>();
    private final List<Destination> all = new ArrayList<>();
    private volatile List<Destination> published = List.of();

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
        final DestinationNames.Name name = target.names.resolve(topic);
        if (!name.ok())
        {
            return Result.failed("branch " + branchName + ": " + name.error(), false);
        }
        final String database = name.database();
        final String tableName = name.table();
        final String key = branchIndex + "\u0000" + database + "\u0000" + tableName;
        final Destination cached = byName.get(key);
        if (cached != null)
        {
            return Result.ok(cached);
        }
        final boolean create = target.spec.connection().createTable();
        try
        {
            TableSchema schema = target.catalog.describe(database, tableName);
            if (schema == null && create)
            {
                LOG.info("creating table {}.{} for topic {} (branch {})", database, tableName, topic, branchName);
                target.catalog.create(database, tableName);
                schema = target.catalog.describe(database, tableName);
            }
            if (schema == null)
            {
                return Result.failed("table " + database + "." + tableName + " does not exist in database " + database
                    + " (branch " + branchName + (create ? "" : "; set plugin_config.create_table = true to create it")
                    + ")", false);
            }
            final RowEncoder.Bound<?> bound = encoder.bind(schema, target.catalog);
            final List<String> sqlColumns = new ArrayList<>();
            for (final String c : bound.columns())
            {
                sqlColumns.add(target.catalog.quoteColumn(c));
            }
            final Destination d = new Destination(all.size(), branchIndex, branchName, schema.database(),
                schema.table(),
                target.catalog.qualifiedName(schema.database(), schema.table()), sqlColumns, target.spec.name(), bound);
            byName.put(key, d);
            all.add(d);
            published = List.copyOf(all);
            LOG.info("destination {} for {} (branch {}): {} columns", d,
                topic.isEmpty() ? "every topic" : "topic " + topic,
                branchName, d.columnCount());
            return Result.ok(d);
        }
        catch (final SinkException e)
        {
            return Result.failed("destination " + database + "." + tableName + ": " + e.getMessage(), e.retriable());
        }
        catch (final IllegalArgumentException e)
        {
            return Result.failed("destination " + database + "." + tableName + ": " + e.getMessage(), false);
        }
    }
}
