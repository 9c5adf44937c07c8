package io.sluice.sinks.clickhouse.json;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPath;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.gather.batch.OmissionMask;
import io.sluice.core.gather.json.ColumnMappings;
import io.sluice.core.gather.json.ConstantValues;
import io.sluice.core.gather.json.ExplainableEncoder;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.KnownFields;
import io.sluice.core.gather.json.MetadataColumn;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * The TOML form's encoder: writes a JSON record as one RowBinary row of its destination table. Binding reads the
 * table's columns: each insertable column (not MATERIALIZED or ALIAS) takes the JSON value at the path the branch's
 * {@code columns} maps it to, or at the path of the same name.
 *
 * <p>A value that is absent from the record takes, in this order, as ClickHouse does for an omitted column:
 * <ol>
 *   <li>the column's DEFAULT: a constant expression ({@code 0}, {@code 'x'}, {@code CAST(7, 'Int32')}) is
 *       evaluated once by the server at bind time and its bytes are written here; any other expression
 *       ({@code cityHash64(id)}, {@code now()}, {@code concat(a, 'x')}) is left to the server: the column is
 *       omitted from the row ({@link RowEncoder.Bound#omittableColumns()}: every row starts with its omission
 *       mask), so the server evaluates it for that row, per Native block, exactly as for an INSERT that does not
 *       name the column (case T5: {@code hn Nullable(UInt64) DEFAULT cityHash64(id)} gets {@code cityHash64(id)},
 *       never NULL);</li>
 *   <li>NULL when the column is Nullable, an empty Array or Map;</li>
 *   <li>else the record fails, naming column and path.</li>
 * </ol>
 * A JSON {@code null} is NULL for a Nullable column; for any other column it fails the record unless
 * {@code null_as_default} is on, which writes the column's DEFAULT (or the type's zero when it has none).
 * A table with more than 64 columns whose DEFAULT only the server can evaluate is refused at bind, naming the
 * table, the 65th column and its expression.
 *
 * <p>Unknown JSON fields are ignored by default. With {@code unknown_fields = "fail"} a record whose top level has a
 * key that no column reads (by its own name or as the first part of a mapped path) fails, naming the key: the
 * check walks the record's top-level keys once more after the row is encoded, so it costs a pass over the record
 * when on and nothing when off. Nested objects are not checked.
 *
 * <p>Used by one route stage thread; encoding allocates nothing in steady state.
 */
public final class ClickHouseJsonRowEncoder implements RowEncoder<JsonRecord>
{
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseJsonRowEncoder.class);

    private final String branch;
    private final Map<String, String> columnPaths;
    private final JsonRecord.Scope scope;
    private final EncoderOptions options;
    private final EncodeScratch scratch;
    private final boolean failOnUnknownFields;
    private final JsonValueView view = new JsonValueView();

    /**
     * An encoder that ignores unknown JSON fields.
     *
     * @param branch      branch name, for messages
     * @param columnPaths column → JSON path overrides
     * @param scope       the branch's scope of the route stage's JSON record (its paths are extracted in one pass)
     * @param options     conversion options
     * @param scratch     the route stage's encode scratch (shared by its encoders)
     */
    public ClickHouseJsonRowEncoder(final String branch, final Map<String, String> columnPaths,
        final JsonRecord.Scope scope,
        final EncoderOptions options, final EncodeScratch scratch)
    {
        this(branch, columnPaths, scope, options, scratch, false);
    }

    /**
     * @param branch              branch name, for messages
     * @param columnPaths         column → JSON path overrides
     * @param scope               the branch's scope of the route stage's JSON record (its paths are extracted in one
     *                            pass)
     * @param options             conversion options
     * @param scratch             the route stage's encode scratch (shared by its encoders)
     * @param failOnUnknownFields {@code unknown_fields = "fail"}: a top-level key no column reads fails the record
     */
    public ClickHouseJsonRowEncoder(final String branch, final Map<String, String> columnPaths,
        final JsonRecord.Scope scope,
        final EncoderOptions options, final EncodeScratch scratch, final boolean failOnUnknownFields)
    {
        this.branch = branch;
        this.columnPaths = Map.copyOf(columnPaths);
        this.scope = scope;
        this.options = options;
        this.scratch = scratch;
        this.failOnUnknownFields = failOnUnknownFields;
    }

    /**
     * The row encoders of one pipeline: one {@code ClickHouseJsonRowEncoder} per branch, all sharing one encode scratch (they
     * run on the pipeline's one route stage thread).
     *
     * @return a new encoding
     */
    public static JsonEncoding encoding()
    {
        final EncodeScratch scratch = new EncodeScratch(1 << 20);
        return b -> new ClickHouseJsonRowEncoder(b.name(), b.columnPaths(), b.scope(),
            EncoderOptions.DEFAULTS.withNullAsDefault(b.nullAsDefault()), scratch, b.failOnUnknownFields());
    }

    @Override
    public Bound<JsonRecord> bind(final TableSchema schema, final DestinationCatalog catalog) throws SinkException
    {
        final Set<String> mapped = new HashSet<>(columnPaths.keySet());
        final List<BoundColumn> columns = new ArrayList<>();
        final List<Integer> serverDefaults = new ArrayList<>();
        final List<ClickHouseMetadataColumn> metadata = new ArrayList<>();
        final Set<String> topLevel = new HashSet<>();
        final List<Boolean> mappedFlags = new ArrayList<>();
        // the server's limits narrow the options (ClickHouse 18.x: no Date/DateTime past 2105-12-31)
        final EncoderOptions opts = catalog.encoderOptions(options);
        for (final ColumnSpec c : schema.columns())
        {
            mapped.remove(c.name());
            if (!c.insertable())
            {
                continue;
            }
            final ClickHouseType type;
            try
            {
                type = ClickHouseType.parse(c.type());
            }
            catch (final IllegalArgumentException e)
            {
                throw new IllegalArgumentException("column " + c.name() + " has type " + c.type()
                    + " which Sluice cannot write: " + e.getMessage(), e);
            }
            final ClickHouseMetadataColumn meta = metadataColumn(c.name(), type, opts);
            final ColumnEncoder encoder = meta != null ? meta.encoder() : ColumnEncoder.forType(type, opts);
            final String path = meta != null
                ? meta.spec()
                : ColumnMappings.jsonPath(c.name(), columnPaths.get(c.name()));
            final int pathIndex = meta != null ? -1 : scope.field(path);
            final byte[] defaultBytes = c.hasDefault() ? encodeDefault(c, encoder, catalog) : null;
            if (c.hasDefault() && defaultBytes == null)
            {
                if (serverDefaults.size() == 64)
                {
                    throw new IllegalArgumentException("table " + schema.database() + "." + schema.table()
                        + " has more than 64 columns whose DEFAULT only the server can evaluate; column " + c.name()
                        + " (DEFAULT " + c.defaultExpression() + ") would be the 65th: a row can leave at most 64 "
                        + "to the server");
                }
                serverDefaults.add(columns.size());
                LOG.info("default of column {} ({} DEFAULT {}) of {}.{} is evaluated by the server: a record without "
                    + "the value leaves the column out of its row", c.name(), c.type(), c.defaultExpression(),
                    schema.database(), schema.table());
            }
            columns.add(new BoundColumn(c.name(), c.type(), path, pathIndex, encoder, defaultBytes));
            metadata.add(meta);
            mappedFlags.add(meta != null || columnPaths.containsKey(c.name()));
            if (meta == null)
            {
                topLevel.add(JsonPath.parse(path).segment(0));
            }
        }
        if (!mapped.isEmpty())
        {
            throw new IllegalArgumentException("branch " + branch + " maps column(s) " + mapped + " that table "
                + schema.database() + "." + schema.table() + " does not have (its columns: "
                + schema.columns().stream().map(ColumnSpec::name).toList() + ")");
        }
        final int[] omittable = serverDefaults.stream().mapToInt(Integer::intValue).toArray();
        final boolean[] mappedColumns = new boolean[mappedFlags.size()];
        for (int i = 0; i < mappedColumns.length; i++)
        {
            mappedColumns[i] = mappedFlags.get(i);
        }
        final NestedColumns nested = NestedColumns.bind(
            new HashSet<>(schema.columns().stream().map(ColumnSpec::name).toList()), columns, mappedColumns, scope,
            topLevel);
        return new BoundJson(columns.toArray(new BoundColumn[0]), omittable,
            failOnUnknownFields ? new KnownFields(topLevel) : null,
            metadata.stream().allMatch(m -> m == null) ? null : metadata.toArray(new ClickHouseMetadataColumn[0]),
            nested);
    }

    /** @return the Kafka metadata a column is filled from ({@link ClickHouseMetadataColumn}), or null when it reads JSON */
    private ClickHouseMetadataColumn metadataColumn(final String column, final ClickHouseType type,
        final EncoderOptions opts)
    {
        final String spec = MetadataColumn.specOf(column, columnPaths.get(column));
        return spec == null ? null : ClickHouseMetadataColumn.bind(column, spec, type, opts);
    }

    /** The bound encoder: what {@code explain} shows of each column is its {@link ExplainableEncoder} half. */
    private final class BoundJson implements Bound<JsonRecord>, ExplainableEncoder
    {
        private final BoundColumn[] columns;
        private final int[] omittable;
        /** Per column: its bit in the omission mask, or -1 when the column is never left out. */
        private final int[] bitOf;
        private final boolean[] hasDefault;
        private final boolean[] nullable;
        private final KnownFields known;
        private final boolean nullAsDefault = options.nullAsDefault();
        private final List<String> names;

        /** Per column, its Kafka metadata source; null when every column reads JSON. */
        private final ClickHouseMetadataColumn[] metadata;
        private final boolean readsKeyAndHeaders;
        /** The rules of dotted (Nested) columns; null when no column has a dot. */
        private final NestedColumns nested;

        BoundJson(final BoundColumn[] columns, final int[] omittable, final KnownFields known,
            final ClickHouseMetadataColumn[] metadata, final NestedColumns nested)
        {
            this.columns = columns;
            this.nested = nested;
            this.omittable = omittable;
            this.known = known;
            this.metadata = metadata;
            boolean keys = false;
            for (int i = 0; metadata != null && i < metadata.length; i++)
            {
                keys |= metadata[i] != null && metadata[i].readsKeyAndHeaders();
            }
            this.readsKeyAndHeaders = keys;
            this.bitOf = new int[columns.length];
            Arrays.fill(bitOf, -1);
            for (int bit = 0; bit < omittable.length; bit++)
            {
                bitOf[omittable[bit]] = bit;
            }
            this.hasDefault = new boolean[columns.length];
            this.nullable = new boolean[columns.length];
            final List<String> n = new ArrayList<>(columns.length);
            for (int i = 0; i < columns.length; i++)
            {
                n.add(columns[i].name());
                hasDefault[i] = columns[i].defaultValue() != null || bitOf[i] >= 0;
                nullable[i] = columns[i].encoder().type().isNullable();
            }
            this.names = List.copyOf(n);
        }

        @Override
        public List<String> columns()
        {
            return names;
        }

        @Override
        public String path(final int column)
        {
            return columns[column].path();
        }

        @Override
        public String metadataSpec(final int column)
        {
            return metadata != null && metadata[column] != null ? metadata[column].spec() : null;
        }

        @Override
        public String pathRead(final int column)
        {
            return nested == null ? columns[column].path() : nested.pathOf(column);
        }

        @Override
        public boolean filled(final int column)
        {
            return nested != null && nested.filled(column);
        }

        @Override
        public boolean writesDefault(final int column)
        {
            return columns[column].defaultValue() != null;
        }

        @Override
        public boolean storesNull(final int column)
        {
            return nullable[column];
        }

        @Override
        public int[] omittableColumns()
        {
            return omittable.clone();
        }

        @Override
        public boolean readsKeyAndHeaders()
        {
            return readsKeyAndHeaders;
        }

        /** Writes a column's value from {@link #view}: null, or why the record cannot be written. */
        private String value(final int i, final BoundColumn c, final int kind, final Bytes<?> out, final long start)
        {
            final NestedColumns n = nested;
            if (n != null && (kind == JsonKind.MISSING || kind == JsonKind.NULL) && n.member(i))
            {
                // a Nested member without a value: its element's default, as often as its siblings have elements
                n.fill(i, out);
                return null;
            }
            final int code = c.encoder().encode(view, out, scratch);
            if (code != ConversionError.NONE)
            {
                return "column " + c.name() + " (" + c.type() + ") from path " + (n == null ? c.path() : n.pathOf(i))
                    + ": " + ConversionError.describe(code) + shown(view);
            }
            return n == null ? null : n.written(i, out, start);
        }

        @Override
        public String encode(final JsonRecord row, final Bytes<?> out)
        {
            if (scope.scan() != JsonError.NONE)
            {
                return scope.error();
            }
            final boolean masked = omittable.length > 0;
            final long maskAt = out.writePosition();
            if (masked)
            {
                RowBinary.writeInt64(out, 0);
            }
            long mask = 0;
            final BoundColumn[] cs = columns;
            final boolean[] defaults = hasDefault;
            final ClickHouseMetadataColumn[] meta = metadata;
            final NestedColumns n = nested;
            if (n != null)
            {
                final String wrong = n.begin();
                if (wrong != null)
                {
                    return wrong;
                }
            }
            for (int i = 0; i < cs.length; i++)
            {
                final BoundColumn c = cs[i];
                final long start = out.writePosition();
                if (meta == null || meta[i] == null)
                {
                    scope.value(c.pathIndex(), view);
                    if (n != null)
                    {
                        final String twice = n.resolve(i, view);
                        if (twice != null)
                        {
                            return twice;
                        }
                    }
                }
                else
                {
                    final int rc = meta[i].write(row, out, view);
                    if (rc == ClickHouseMetadataColumn.WRITTEN)
                    {
                        final String wrong = n == null ? null : n.written(i, out, start);
                        if (wrong != null)
                        {
                            return wrong;
                        }
                        continue;
                    }
                    if (rc < 0)
                    {
                        return "column " + c.name() + " (" + c.type() + ") from path " + c.path() + ": "
                            + ConversionError.describe(rc);
                    }
                }
                final int kind = view.kind();
                if (defaults[i])
                {
                    // an omitted value takes the DEFAULT before NULL, as ClickHouse fills an omitted column; a null
                    // takes it only where NULL cannot be stored and null_as_default says so
                    if (kind == JsonKind.MISSING || kind == JsonKind.NULL && nullAsDefault && !nullable[i])
                    {
                        final int bit = bitOf[i];
                        if (bit >= 0)
                        {
                            mask |= 1L << bit; // left to the server: nothing is written
                            continue;
                        }
                        out.write(c.defaultValue());
                        final String wrong = n == null ? null : n.written(i, out, start);
                        if (wrong != null)
                        {
                            return wrong;
                        }
                        continue;
                    }
                }
                final String wrong = value(i, c, kind, out, start);
                if (wrong != null)
                {
                    return wrong;
                }
            }
            if (masked)
            {
                OmissionMask.write(out, maskAt, mask);
            }
            return known == null ? null : known.check(row, view);
        }
    }

    private static byte[] encodeDefault(final ColumnSpec c, final ColumnEncoder encoder,
        final DestinationCatalog catalog)
        throws SinkException
    {
        final String json = catalog.evaluateDefault(c);
        if (json == null)
        {
            return null;
        }
        final EncodeScratch scratch = new EncodeScratch(1024);
        final int[] code = new int[1];
        final byte[] bytes = ConstantValues.encode(json, (v, out) -> encoder.encode(v, out, scratch), code);
        if (code[0] == ConstantValues.NOT_JSON)
        {
            LOG.warn("default of column {} ({}) evaluated to {} which is not JSON; rows without it will fail", c.name(),
                c.defaultExpression(), json);
        }
        else if (bytes == null)
        {
            LOG.warn("default of column {} ({} = {}) does not convert to {}: {}", c.name(), c.defaultExpression(),
                json, c.type(), ConversionError.describe(code[0]));
        }
        return bytes;
    }

    /**
     * @param v the value a column could not take
     * @return {@link ConstantValues#shown}
     */
    static String shown(final JsonValueView v)
    {
        return ConstantValues.shown(v);
    }
}
