package io.sluice.core.route;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
import io.sluice.core.pipeline.JsonRecord;
import io.sluice.core.pipeline.RowEncoder;
import io.sluice.core.sink.ColumnSpec;
import io.sluice.core.sink.DestinationCatalog;
import io.sluice.core.sink.SinkException;
import io.sluice.core.sink.TableSchema;

/**
 * The TOML form's encoder: writes a JSON record as one RowBinary row of its destination table. Binding reads the
 * table's columns: each insertable column (not MATERIALIZED or ALIAS) takes the JSON value at the path the branch's
 * {@code columns} maps it to, or at the path of the same name; unknown JSON fields are ignored. A missing value
 * takes the column's constant DEFAULT (evaluated once), NULL when Nullable, an empty Array/Map, else the record
 * fails naming column and path. Used by one route stage thread.
 */
public final class JsonRowEncoder implements RowEncoder<JsonRecord> {
    private static final Logger LOG = LoggerFactory.getLogger(JsonRowEncoder.class);

    private final String branch;
    private final Map<String, String> columnPaths;
    private final JsonRecord.Scope scope;
    private final EncoderOptions options;
    private final EncodeScratch scratch;
    private final JsonValueView view = new JsonValueView();

    /**
     * @param branch      branch name, for messages
     * @param columnPaths column → JSON path overrides
     * @param scope       the branch's scope of the route stage's JSON record (its paths are extracted in one pass)
     * @param options     conversion options
     * @param scratch     the route stage's encode scratch (shared by its encoders)
     */
    public JsonRowEncoder(final String branch, final Map<String, String> columnPaths, final JsonRecord.Scope scope,
        final EncoderOptions options, final EncodeScratch scratch) {
        this.branch = branch;
        this.columnPaths = Map.copyOf(columnPaths);
        this.scope = scope;
        this.options = options;
        this.scratch = scratch;
    }

    @Override
    public Bound<JsonRecord> bind(final TableSchema schema, final DestinationCatalog catalog) throws SinkException {
        final Set<String> mapped = new HashSet<>(columnPaths.keySet());
        final List<BoundColumn> columns = new ArrayList<>();
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
            final ColumnEncoder encoder = ColumnEncoder.forType(type, options);
            final String path = columnPaths.getOrDefault(c.name(), escapeName(c.name()));
            final int pathIndex = scope.field(path);
            final byte[] defaultBytes = c.hasDefault() ? encodeDefault(c, encoder, catalog) : null;
            columns.add(new BoundColumn(c.name(), c.type(), path, pathIndex, encoder, defaultBytes));
        }
        if (!mapped.isEmpty()) {
            throw new IllegalArgumentException("branch " + branch + " maps column(s) " + mapped + " that table "
                + schema.database() + "." + schema.table() + " does not have (its columns: "
                + schema.columns().stream().map(ColumnSpec::name).toList() + ")");
        }
        return new BoundJson(columns.toArray(new BoundColumn[0]));
    }

    /** A column name used as a JSON path: dots and backslashes in the name are escaped (JsonPath syntax). */
    static String escapeName(final String name) {
        return name.replace("\\", "\\\\").replace(".", "\\.");
    }

    private final class BoundJson implements Bound<JsonRecord> {
        private final BoundColumn[] columns;
        private final List<String> names;

        BoundJson(final BoundColumn[] columns) {
            this.columns = columns;
            final List<String> n = new ArrayList<>(columns.length);
            for (final BoundColumn c : columns) {
                n.add(c.name());
            }
            this.names = List.copyOf(n);
        }

        @Override
        public List<String> columns() {
            return names;
        }

        @Override
        public String encode(final JsonRecord row, final Bytes<?> out) {
            if (scope.scan() != io.sluice.codecs.json.JsonError.NONE) {
                return scope.error();
            }
            final BoundColumn[] cs = columns;
            for (final BoundColumn c : cs) {
                scope.value(c.pathIndex(), view);
                final int code = c.encoder().encode(view, out, scratch);
                if (code != ConversionError.NONE) {
                    if (code == ConversionError.MISSING_NOT_ALLOWED && c.defaultValue() != null) {
                        out.write(c.defaultValue());
                        continue;
                    }
                    return "column " + c.name() + " (" + c.type() + ") from path " + c.path() + ": " + ConversionError.describe(code);
                }
            }
            return null;
        }
    }

    private static byte[] encodeDefault(final ColumnSpec c, final ColumnEncoder encoder, final DestinationCatalog catalog)
        throws SinkException {
        final String json = catalog.evaluateDefault(c);
        if (json == null) {
            return null;
        }
        final byte[] doc = ("{\"v\":" + json + "}").getBytes(StandardCharsets.UTF_8);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), 64);
        if (scanner.scan(new UnsafeBuffer(doc), 0, doc.length) != JsonError.NONE) {
            LOG.warn("default of column {} ({}) evaluated to {} which is not JSON; rows without it will fail", c.name(),
                c.defaultExpression(), json);
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
