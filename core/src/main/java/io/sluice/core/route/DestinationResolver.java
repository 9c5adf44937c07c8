package io.sluice.core.route;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.core.batch.BoundColumn;
import io.sluice.core.batch.Destination;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.naming.DestinationTemplate;
import io.sluice.core.naming.IdentifierPolicy;
import io.sluice.core.sink.ColumnSpec;
import io.sluice.core.sink.DestinationCatalog;
import io.sluice.core.sink.SinkException;
import io.sluice.core.sink.TableSchema;

/**
 * Turns (branch, topic) into a bound {@link Destination}: resolves the database and table templates from the topic,
 * applies the sink's identifier policy, checks the table exists (creating it when allowed), reads its columns once,
 * maps each column to a JSON path (the branch's {@code columns} entry, else the column's own name) and binds a
 * RowBinary encoder per column. Results are cached per (branch, database, table); callers cache per topic.
 *
 * <p>Runs on the route stage thread, off the hot path (once per new topic and branch). Not thread-safe.
 */
public final class DestinationResolver {
    private static final Logger LOG = LoggerFactory.getLogger(DestinationResolver.class);

    /** The outcome of a resolution: a destination, or the reason there is none. */
    public record Result(Destination destination, String error, boolean retriable) {
        static Result ok(final Destination d) {
            return new Result(d, null, false);
        }

        static Result failed(final String error, final boolean retriable) {
            return new Result(null, error, retriable);
        }
    }

    private final DestinationCatalog catalog;
    private final PathRegistry paths;
    private final IdentifierPolicy identifierPolicy;
    private final boolean createTable;
    private final EncoderOptions encoderOptions;
    private final Map<String, Destination> byName = new HashMap<>();
    private final List<Destination> all = new ArrayList<>();
    private final Map<Integer, DestinationTemplate[]> templates = new HashMap<>();

    /**
     * @param sink    the sink's configuration
     * @param catalog the sink's catalog
     * @param paths   the route stage's path registry
     */
    public DestinationResolver(final SluiceConfig.Sink sink, final DestinationCatalog catalog, final PathRegistry paths) {
        this.catalog = catalog;
        this.paths = paths;
        this.identifierPolicy = IdentifierPolicy.parse(sink.plugin().identifier());
        this.createTable = sink.plugin().createTable();
        this.encoderOptions = EncoderOptions.DEFAULTS.withNullAsDefault(sink.plugin().nullAsDefault());
        for (int b = 0; b < sink.branches().size(); b++) {
            final SluiceConfig.Branch br = sink.branches().get(b);
            templates.put(b, new DestinationTemplate[] {DestinationTemplate.parse(br.database()), DestinationTemplate.parse(br.targetTable())});
        }
    }

    /** @return whether the branch's database and table are literals (resolvable without a topic) */
    public boolean isLiteral(final int branch) {
        final DestinationTemplate[] t = templates.get(branch);
        return t[0].isLiteral() && t[1].isLiteral();
    }

    /** @return every destination resolved so far */
    public List<Destination> destinations() {
        return List.copyOf(all);
    }

    /**
     * @param branchIndex the branch
     * @param branch      its configuration
     * @param topic       the topic the records came from (any topic for literal branches)
     * @return the destination, or why there is none (a topic with too few segments, a missing table, a column the
     *     engine cannot write, an unreachable server (retriable))
     */
    public Result resolve(final int branchIndex, final SluiceConfig.Branch branch, final String topic) {
        final DestinationTemplate[] t = templates.get(branchIndex);
        final DestinationTemplate.Resolution db = t[0].resolve(topic);
        if (!db.ok()) {
            return Result.failed("branch " + branch.name() + ": database " + db.error(), false);
        }
        final DestinationTemplate.Resolution table = t[1].resolve(topic);
        if (!table.ok()) {
            return Result.failed("branch " + branch.name() + ": target_table " + table.error(), false);
        }
        final String database = identifierPolicy.apply(db.name());
        final String tableName = identifierPolicy.apply(table.name());
        final String key = branchIndex + "\u0000" + database + "\u0000" + tableName;
        final Destination cached = byName.get(key);
        if (cached != null) {
            return Result.ok(cached);
        }
        try {
            TableSchema schema = catalog.describe(database, tableName);
            if (schema == null && createTable) {
                LOG.info("creating table {}.{} for topic {} (branch {})", database, tableName, topic, branch.name());
                catalog.create(database, tableName);
                schema = catalog.describe(database, tableName);
            }
            if (schema == null) {
                return Result.failed("table " + database + "." + tableName + " does not exist in database " + database
                    + " (branch " + branch.name() + (createTable ? "" : "; set plugin_config.create_table = true to create it") + ")", false);
            }
            final Destination d = bind(branchIndex, branch, schema);
            byName.put(key, d);
            all.add(d);
            LOG.info("destination {} for topic {} (branch {}): {} columns", d, topic, branch.name(), d.columnCount());
            return Result.ok(d);
        } catch (final SinkException e) {
            return Result.failed("destination " + database + "." + tableName + ": " + e.getMessage(), e.retriable());
        } catch (final IllegalArgumentException e) {
            return Result.failed("destination " + database + "." + tableName + ": " + e.getMessage(), false);
        }
    }

    private Destination bind(final int branchIndex, final SluiceConfig.Branch branch, final TableSchema schema) throws SinkException {
        final Set<String> mapped = new HashSet<>(branch.columns().keySet());
        final List<BoundColumn> columns = new ArrayList<>();
        final List<String> sqlColumns = new ArrayList<>();
        for (final ColumnSpec c : schema.columns()) {
            mapped.remove(c.name());
            if (!c.insertable()) {
                continue;
            }
            final ClickHouseType type;
            try {
                type = ClickHouseType.parse(c.type());
            } catch (final IllegalArgumentException e) {
                throw new IllegalArgumentException("column " + c.name() + " has type " + c.type()
                    + " which Sluice cannot write: " + e.getMessage(), e);
            }
            final ColumnEncoder encoder = ColumnEncoder.forType(type, encoderOptions);
            final String path = branch.columns().getOrDefault(c.name(), escapeName(c.name()));
            final int pathIndex = paths.indexOf(path);
            final byte[] defaultBytes = c.hasDefault() ? encodeDefault(c, encoder) : null;
            columns.add(new BoundColumn(c.name(), c.type(), path, pathIndex, encoder, defaultBytes));
            sqlColumns.add(catalog.quoteColumn(c.name()));
        }
        if (!mapped.isEmpty()) {
            throw new IllegalArgumentException("branch " + branch.name() + " maps column(s) " + mapped + " that table "
                + schema.database() + "." + schema.table() + " does not have (its columns: "
                + schema.columns().stream().map(ColumnSpec::name).toList() + ")");
        }
        return new Destination(all.size(), branchIndex, branch.name(), schema.database(), schema.table(),
            catalog.qualifiedName(schema.database(), schema.table()), sqlColumns, columns.toArray(new BoundColumn[0]));
    }

    /** A column name used as a JSON path: dots and backslashes in the name are escaped (JsonPath syntax). */
    static String escapeName(final String name) {
        return name.replace("\\", "\\\\").replace(".", "\\.");
    }

    private byte[] encodeDefault(final ColumnSpec c, final ColumnEncoder encoder) throws SinkException {
        final String json = catalog.evaluateDefault(c);
        if (json == null) {
            return null;
        }
        final byte[] doc = ("{\"v\":" + json + "}").getBytes(StandardCharsets.UTF_8);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), 64);
        final UnsafeBuffer buffer = new UnsafeBuffer(doc);
        if (scanner.scan(buffer, 0, doc.length) != JsonError.NONE) {
            LOG.warn("default of column {} ({}) evaluated to {} which is not JSON; rows without it will fail", c.name(), c.defaultExpression(), json);
            return null;
        }
        final JsonValueView v = new JsonValueView();
        scanner.value(0, v);
        final Bytes<Void> out = Bytes.allocateElasticDirect(64);
        try {
            final int rc = encoder.encode(v, out, new EncodeScratch(1024));
            if (rc != ConversionError.NONE) {
                LOG.warn("default of column {} ({} = {}) does not convert to {}: {}", c.name(), c.defaultExpression(), json,
                    c.type(), ConversionError.describe(rc));
                return null;
            }
            final byte[] bytes = new byte[(int)out.writePosition()];
            out.read(bytes);
            return bytes;
        } finally {
            out.releaseLast();
        }
    }
}
