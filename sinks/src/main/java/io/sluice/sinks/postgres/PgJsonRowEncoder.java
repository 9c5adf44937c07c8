package io.sluice.sinks.postgres;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPath;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.pgcopy.PgColumnEncoder;
import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.pgcopy.PgScratch;
import io.sluice.codecs.pgcopy.PgType;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.core.gather.batch.OmissionMask;
import io.sluice.core.gather.json.ExplainableEncoder;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.json.ColumnMappings;
import io.sluice.core.gather.json.ConstantValues;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.KafkaMetadata;
import io.sluice.core.gather.json.KnownFields;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * The TOML form's encoder for a PostgreSQL table: writes a JSON record as one tuple of PostgreSQL's binary COPY
 * format (PostgreSQL 15 documentation, "COPY", section "Binary Format"), the twin of ClickHouse's {@code ClickHouseJsonRowEncoder}.
 *
 * <h2>Binding</h2>
 * Each insertable column of the table (not a generated column) takes the JSON value at the path the branch's
 * {@code columns} maps it to, or at the path of its own name (dots and backslashes in the name escaped: a name is
 * never split on dots), encoded by a {@link PgColumnEncoder} of the column's real type: the base type under its
 * domains, an enum by its labels, a one-dimensional array by its element type ({@link PostgresCatalog#columnsOf}).
 * A type the encoders cannot write (a composite, a range, an array of an enum or of a domain, ...) is refused here,
 * naming column and type; so is a {@code columns} mapping that names no column of the table or a generated one.
 * A mapping that starts with {@code $} fills the column from the record's Kafka coordinates ({@link KafkaMetadata}):
 * {@code $key} and {@code $header.NAME} are taken as they are (as text) into {@code text}, {@code varchar} and
 * {@code char} columns, and parsed as a JSON value into any other type; {@code $timestamp} is epoch milliseconds,
 * read as that instant by {@code timestamp} and {@code timestamptz} columns and as the number of milliseconds by
 * numbers and text; {@code $timestamp_type} is Kafka's id (0, 1, -1) in a number column, else its name. The header
 * lists ({@code $headers}, {@code $header_names}, {@code $header_values}) are refused. Unlike ClickHouse's encoder,
 * column names such as {@code _offset} are not filled from Kafka without a mapping.
 *
 * <h2>Absent values and NULL</h2>
 * A value that is absent from the record takes, in this order:
 * <ol>
 *   <li>a constant DEFAULT ({@code 0}, {@code 'x'::text}, {@code '{1,2}'::integer[]}): evaluated once by the server
 *       at bind time ({@link DestinationCatalog#evaluateDefault}), encoded once, and its bytes written here;</li>
 *   <li>a DEFAULT only the server can evaluate ({@code now()}, {@code nextval(...)}, {@code gen_random_uuid()}) or an
 *       identity column: the column is left out of the row (below), so the server fills it as for a COPY that does
 *       not name the column;</li>
 *   <li>NULL when the column may be NULL;</li>
 *   <li>else the record fails, naming column and path.</li>
 * </ol>
 * A JSON {@code null} is NULL for a column that may be NULL; for a NOT NULL column (the column's or a domain's) it
 * fails the record unless {@code null_as_default} is on and the column has a DEFAULT, which is then applied as for
 * an absent value.
 *
 * <p>Bound through a {@link PostgresCatalog} of an upsert sink ({@code insert_mode = "upsert"}), an absent value keeps
 * the stored one and a JSON {@code null} sets NULL: a constant DEFAULT is then left to the server too, and so is a
 * nullable column without DEFAULT (the column is left out of the row, so a new row gets the DEFAULT or NULL and the
 * merge's {@code DO UPDATE SET} leaves a stored row's value alone), and a key column ({@link PostgresCatalog#upsertKeyOf}) whose value would be NULL (null, or absent
 * without DEFAULT) fails the record, naming the column: PostgreSQL never matches a NULL key. A value PostgreSQL would
 * refuse (a NUL character, too many characters, a number out of range,
 * ...) fails the record, never the batch: the message reads {@code column s (text) from path s: NUL character
 * (U+0000): ... (value "a\u0000b")}, with {@link PgCopyError#describe} as the reason.
 *
 * <h2>The bytes of a row (the COPY writer's contract)</h2>
 * Each {@link Bound#encode} appends, at the buffer's write position:
 * <ol>
 *   <li>when the bound encoder has omittable columns ({@link Bound#omittableColumns()} not empty): the row's omission
 *       mask, 8 bytes, a 64-bit little-endian integer ({@link OmissionMask})
 *       whose bit {@code i} says that the {@code i}-th omittable column is left out of this row;</li>
 *   <li>then one binary COPY tuple: a big-endian int16 count of the fields that follow (the columns of
 *       {@link Bound#columns()} that are not left out), then per such column, in {@code columns()} order, a
 *       big-endian int32 length (-1 for NULL) and the value's bytes in the binary format of the column's type.</li>
 * </ol>
 * No COPY header or trailer is written: the writer starts one {@code COPY ... (columns) FROM STDIN (FORMAT binary)}
 * per group of rows with the same mask, naming the columns without the left-out ones, writes the header, the tuples
 * (without their masks) and the trailer. The count is 0 only for a row that leaves out every column (a table whose
 * every insertable column has a server-evaluated DEFAULT, and a record that gives none of them): COPY cannot name no
 * column, so the writer inserts such a row with {@code INSERT INTO table DEFAULT VALUES}. At most 64 columns are
 * omittable; a table with more is refused at bind.
 *
 * <h2>Unknown fields</h2>
 * With {@code unknown_fields = "fail"} a record whose top level has a key that no column reads (by its own name or as
 * the first part of a mapped path) fails, naming the key ({@link KnownFields}).
 *
 * <p>Used by one route stage thread; encoding allocates nothing per record (only a failing record's message does).
 */
public final class PgJsonRowEncoder implements RowEncoder<JsonRecord>
{
    private static final Logger LOG = LoggerFactory.getLogger(PgJsonRowEncoder.class);
    private static final boolean BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
    private static final int MAX_OMITTABLE = 64;
    /**
     * Set in a tuple's int16 field count to mark a delete row ({@link Bound#encodeDelete}): a count PostgreSQL's
     * COPY never has (at most 1,664 columns), so the writer tells it apart from the row's first two bytes.
     */
    static final int DELETE_FLAG = 0x8000;

    private final String branch;
    private final Map<String, String> columnPaths;
    private final JsonRecord.Scope scope;
    private final boolean nullAsDefault;
    private final boolean failOnUnknownFields;
    private final PgScratch scratch;
    private final JsonValueView view = new JsonValueView();

    /**
     * @param branch              branch name, for messages
     * @param columnPaths         column → JSON path or Kafka metadata spec ({@code $offset}), the branch's
     *                            {@code columns}
     * @param scope               the branch's scope of the route stage's JSON record
     * @param nullAsDefault       {@code null_as_default}: a JSON null into a NOT NULL column takes its DEFAULT
     * @param failOnUnknownFields {@code unknown_fields = "fail"}
     * @param scratch             the route stage's scratch, shared by its encoders
     */
    public PgJsonRowEncoder(final String branch, final Map<String, String> columnPaths, final JsonRecord.Scope scope,
        final boolean nullAsDefault, final boolean failOnUnknownFields, final PgScratch scratch)
    {
        this.branch = branch;
        this.columnPaths = Map.copyOf(columnPaths);
        this.scope = scope;
        this.nullAsDefault = nullAsDefault;
        this.failOnUnknownFields = failOnUnknownFields;
        this.scratch = scratch;
    }

    /**
     * The row encoders of one pipeline: one {@code PgJsonRowEncoder} per branch, all sharing one {@link PgScratch}
     * (they run on the pipeline's one route stage thread). Strings of up to 1 MiB with escapes are unescaped.
     *
     * @return a new encoding
     */
    public static JsonEncoding encoding()
    {
        final PgScratch scratch = new PgScratch(1 << 20);
        return b -> new PgJsonRowEncoder(b.name(), b.columnPaths(), b.scope(), b.nullAsDefault(),
            b.failOnUnknownFields(), scratch);
    }

    /**
     * Binds to a table: with a {@link PostgresCatalog}, its columns as the catalog read them
     * ({@link PostgresCatalog#columnsOf}); with a {@link PgSchemaFile} ({@code explain --schema}), as the file
     * declares them; with any other catalog, the columns of {@code schema} alone (each may be
     * NULL, its type parsed from {@link ColumnSpec#type()}, {@code DEFAULT} a constant and {@code EXPRESSION} left
     * to the server).
     */
    @Override
    public Bound<JsonRecord> bind(final TableSchema schema, final DestinationCatalog catalog) throws SinkException
    {
        final List<PostgresColumn> columns = catalog instanceof PostgresCatalog pg
            ? pg.columnsOf(schema)
            : catalog instanceof PgSchemaFile file ? file.columnsOf(schema) : fromSpecs(schema);
        return bind(schema, columns, catalog);
    }

    /**
     * Binds to a table whose columns are given.
     *
     * @param schema  the table's description (for names in messages and the columns' order)
     * @param columns the same columns with what the catalog knows of them, in table order
     * @param catalog evaluates constant DEFAULTs
     * @return the bound encoder
     * @throws IllegalArgumentException naming the column and what does not fit (its type, a mapping)
     * @throws SinkException            when the catalog cannot be asked
     */
    public Bound<JsonRecord> bind(final TableSchema schema, final List<PostgresColumn> columns,
        final DestinationCatalog catalog) throws SinkException
    {
        final String table = catalog.qualifiedName(schema.database(), schema.table());
        if (columns.size() != schema.columns().size())
        {
            throw new IllegalArgumentException("table " + table + ": " + columns.size() + " columns given for "
                + schema.columns().size() + " described");
        }
        final Set<String> mapped = new HashSet<>(columnPaths.keySet());
        final List<Column> bound = new ArrayList<>();
        final List<Integer> omittable = new ArrayList<>();
        final List<String> kept = new ArrayList<>(); // upsert: nullable columns a record may leave out, logged once
        final Set<String> topLevel = new HashSet<>();
        final boolean upsert = catalog instanceof PostgresCatalog pg && pg.upsert();
        final List<String> key = upsert ? ((PostgresCatalog)catalog).upsertKeyOf(schema) : List.of();
        for (int i = 0; i < columns.size(); i++)
        {
            final PostgresColumn c = columns.get(i);
            final ColumnSpec spec = schema.columns().get(i);
            mapped.remove(c.name());
            if (c.defaultClass() == PostgresColumn.DefaultClass.GENERATED || !spec.insertable())
            {
                if (columnPaths.containsKey(c.name()))
                {
                    throw new IllegalArgumentException("branch " + branch + " maps column " + c.name() + " of table "
                        + table + ", which is a generated column (" + c.defaultExpression() + "): the server computes "
                        + "it and COPY cannot write it; remove the mapping");
                }
                continue;
            }
            final PgType type = typeOf(c);
            final PgColumnEncoder encoder = PgColumnEncoder.forType(type, !c.notNull());
            final String mapping = columnPaths.get(c.name());
            final KafkaMetadata meta = KafkaMetadata.isMetadata(mapping)
                ? metadata(c.name(), mapping, type, c.type())
                : null;
            final String path = meta != null ? meta.spec() : ColumnMappings.jsonPath(c.name(), mapping);
            final int pathIndex = meta != null ? -1 : scope.field(path);
            byte[] defaultBytes = null;
            final boolean isKey = key.contains(c.name());
            boolean server = c.defaultClass() == PostgresColumn.DefaultClass.EXPRESSION && !isKey;
            if (c.defaultClass() == PostgresColumn.DefaultClass.CONSTANT && upsert && !isKey)
            {
                // upsert: an absent value keeps the stored one, so a constant DEFAULT is left to the server like an
                // expression; the mask leaves the column out of the row and so out of DO UPDATE SET
                server = true;
            }
            else if (c.defaultClass() == PostgresColumn.DefaultClass.CONSTANT)
            {
                defaultBytes = encodeDefault(spec, encoder, catalog);
                server = defaultBytes == null && !isKey;
                if (isKey && isNullField(defaultBytes))
                {
                    defaultBytes = null; // DEFAULT NULL: no key, so a record without the column fails
                }
            }
            if (isKey && c.defaultClass() != PostgresColumn.DefaultClass.NONE && defaultBytes == null)
            {
                // a key left to the server would reach the merge as NULL, where every such row is one group
                LOG.info("upsert into {}: key column {} has DEFAULT {}, which gives no value the merge can match; a "
                    + "record without the column fails, naming it", table, c.name(), c.defaultExpression());
            }
            final boolean keep = upsert && !server && c.defaultClass() == PostgresColumn.DefaultClass.NONE
                && !c.notNull() && !key.contains(c.name()) && meta == null;
            if (server || keep)
            {
                if (omittable.size() == MAX_OMITTABLE)
                {
                    throw new IllegalArgumentException("table " + table + " has more than 64 columns "
                        + (upsert
                            ? "a record may leave out (in upsert mode: every column that is nullable or has a "
                                + "DEFAULT, the key excepted)"
                            : "whose DEFAULT only the server can evaluate")
                        + "; column " + c.name() + " would be the 65th: a row can leave out at most 64");
                }
                omittable.add(bound.size());
                server = true;
                if (keep)
                {
                    kept.add(c.name() + " (" + c.type() + ")");
                }
                else
                {
                    LOG.info("default of column {} ({} DEFAULT {}) of {} is evaluated by the server: a record without "
                        + "the value leaves the column out of its row", c.name(), c.type(), c.defaultExpression(),
                        table);
                }
            }
            final boolean raw = meta != null && isText(type) && readsBytes(mapping);
            bound.add(new Column(c.name(), c.type(), path, pathIndex, encoder, defaultBytes, server, !c.notNull(), meta,
                raw, isKey, isKey && c.defaultClass() != PostgresColumn.DefaultClass.NONE && defaultBytes == null
                    ? " (its DEFAULT " + c.defaultExpression() + " gives no key value Sluice can match)"
                    : ""));
            if (meta == null)
            {
                topLevel.add(JsonPath.parse(path).segment(0));
            }
        }
        if (!kept.isEmpty())
        {
            // one line per table (not one per column): a wide table would otherwise fill the log at start
            LOG.info("upsert into {}: a record without one of the {} nullable columns {} leaves it out of its row, so "
                + "a stored row keeps its value and a new row gets NULL", table, kept.size(), String.join(", ", kept));
        }
        if (!mapped.isEmpty())
        {
            throw new IllegalArgumentException("branch " + branch + " maps column(s) " + mapped + " that table "
                + table + " does not have (its columns: " + schema.columns().stream().map(ColumnSpec::name).toList()
                + ")");
        }
        if (bound.isEmpty())
        {
            throw new IllegalArgumentException("table " + table + " has no column Sluice can write (every column is "
                + "generated)");
        }
        return new BoundPg(bound.toArray(new Column[0]), omittable.stream().mapToInt(Integer::intValue).toArray(),
            failOnUnknownFields ? new KnownFields(topLevel) : null);
    }

    /** The columns of a description alone, for a catalog that is not a {@link PostgresCatalog}. */
    private static List<PostgresColumn> fromSpecs(final TableSchema schema)
    {
        final List<PostgresColumn> out = new ArrayList<>();
        for (final ColumnSpec s : schema.columns())
        {
            final PostgresColumn.DefaultClass cls = switch (s.defaultKind())
            {
                case "DEFAULT" -> PostgresColumn.DefaultClass.CONSTANT;
                case "EXPRESSION" -> PostgresColumn.DefaultClass.EXPRESSION;
                case "MATERIALIZED", "ALIAS" -> PostgresColumn.DefaultClass.GENERATED;
                default -> PostgresColumn.DefaultClass.NONE;
            };
            out.add(new PostgresColumn(s.name(), s.type(), s.type(), "b", "", List.of(), false, cls,
                s.defaultExpression()));
        }
        return out;
    }

    /**
     * The type the encoders write for a column: its base type under every domain; an enum by its labels.
     *
     * @throws IllegalArgumentException naming column and type when Sluice cannot write it
     */
    private static PgType typeOf(final PostgresColumn c)
    {
        final String shown = c.type().equals(c.baseType()) ? c.type() : c.type() + ", a domain over " + c.baseType();
        final String kind = c.typeKind() == null ? "b" : c.typeKind();
        if ("e".equals(kind))
        {
            return PgType.enumeration(0, c.enumLabels());
        }
        if (!"b".equals(kind))
        {
            throw new IllegalArgumentException("column " + c.name() + " has type " + shown + " which Sluice cannot "
                + "write: it is a " + switch (kind)
                {
                    case "c" -> "composite type";
                    case "r" -> "range type";
                    case "m" -> "multirange type";
                    case "p" -> "pseudo-type";
                    default -> "type of kind '" + kind + "'";
                } + " (see docs/postgres.md, \"Types\")");
        }
        if (!c.enumLabels().isEmpty())
        {
            throw new IllegalArgumentException("column " + c.name() + " has type " + shown + " which Sluice cannot "
                + "write: an array of an enum (see docs/postgres.md, \"Types\")");
        }
        try
        {
            return PgType.parse(c.baseType());
        }
        catch (final IllegalArgumentException | IllegalStateException e)
        {
            throw new IllegalArgumentException("column " + c.name() + " has type " + shown + " which Sluice cannot "
                + "write: " + e.getMessage() + " (see docs/postgres.md, \"Types\")", e);
        }
    }

    /**
     * Binds a metadata column; checks that its type takes the source, as ClickHouse's encoder does, so a column that
     * would fail every record (epoch milliseconds into a date or an integer) is refused once, at bind.
     */
    private static KafkaMetadata metadata(final String column, final String spec, final PgType type,
        final String typeText)
    {
        final PgType.Kind k = type.kind();
        final boolean scalar = !type.isArray();
        final boolean integer = scalar && (k == PgType.Kind.INT2 || k == PgType.Kind.INT4 || k == PgType.Kind.INT8);
        final boolean number = integer || scalar && (k == PgType.Kind.NUMERIC || k == PgType.Kind.FLOAT4
            || k == PgType.Kind.FLOAT8);
        final boolean time = scalar && (k == PgType.Kind.TIMESTAMP || k == PgType.Kind.TIMESTAMPTZ);
        final boolean text = isText(type);
        final String takes = switch (spec)
        {
            case "$topic" -> text || scalar && k == PgType.Kind.ENUM ? null : "text, varchar, char or an enum";
            case "$partition", "$offset" ->
                number || text ? null : "an integer, numeric, real, double precision or text";
            case "$timestamp" -> time || number && k != PgType.Kind.INT2 && k != PgType.Kind.INT4 || text
                ? null
                : "timestamp, timestamptz, bigint (ms), numeric, real, double precision or text";
            case "$timestamp_type" -> integer || text || scalar && k == PgType.Kind.ENUM
                ? null
                : "text, varchar, char, an enum or an integer (Kafka's id)";
            default -> null;
        };
        if (takes != null)
        {
            throw new IllegalArgumentException("column " + column + " (" + typeText + ") cannot take " + spec + ": it "
                + "takes " + takes);
        }
        return KafkaMetadata.bind(column, spec, isText(type) ? KafkaMetadata.Bytes.RAW : KafkaMetadata.Bytes.JSON,
            time ? KafkaMetadata.Time.EPOCH_SECONDS : KafkaMetadata.Time.EPOCH_MILLIS, number);
    }

    private static boolean isText(final PgType type)
    {
        final PgType.Kind k = type.kind();
        return !type.isArray() && (k == PgType.Kind.TEXT || k == PgType.Kind.VARCHAR || k == PgType.Kind.BPCHAR);
    }

    private static boolean readsBytes(final String spec)
    {
        return spec.equals("$key") || spec.startsWith("$header.");
    }

    /**
     * Encodes a constant DEFAULT once: the catalog's JSON text of its value, through the column's encoder.
     *
     * @return the field's bytes (length and value), or null when there is no constant to write (the server then
     *     evaluates it)
     */
    private static byte[] encodeDefault(final ColumnSpec c, final PgColumnEncoder encoder,
        final DestinationCatalog catalog) throws SinkException
    {
        final String json = catalog.evaluateDefault(c);
        if (json == null)
        {
            return null;
        }
        final PgScratch scratch = new PgScratch(Math.max(1024, json.length() + 16));
        final int[] code = new int[1];
        final byte[] bytes = ConstantValues.encode(json, (v, out) -> encoder.encode(v, out, scratch), code);
        if (code[0] == ConstantValues.NOT_JSON)
        {
            LOG.warn("default of column {} ({}) evaluated to {} which is not JSON; the server evaluates it per row",
                c.name(), c.defaultExpression(), json);
        }
        else if (bytes == null)
        {
            LOG.warn("default of column {} ({} = {}) does not convert to {}: {}; the server evaluates it per row",
                c.name(), c.defaultExpression(), json, c.type(), PgCopyError.describe(code[0]));
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

    /** One bound column. */
    private record Column(String name, String type, String path, int pathIndex, PgColumnEncoder encoder,
        byte[] defaultValue, boolean serverDefault, boolean nullable, KafkaMetadata meta, boolean raw, boolean key,
        String keyDefault)
    {
    }

    /** @return whether the encoded field is SQL NULL (length -1) */
    private static boolean isNullField(final byte[] field)
    {
        return field != null && field.length == 4 && field[0] == -1 && field[1] == -1 && field[2] == -1
            && field[3] == -1;
    }

    private final class BoundPg implements Bound<JsonRecord>, ExplainableEncoder
    {
        private final Column[] columns;
        private final int[] omittable;
        /** Per column: its bit in the omission mask, or -1 when the column is never left out. */
        private final int[] bitOf;
        private final boolean[] hasDefault;
        private final KnownFields known;
        private final List<String> names;
        private final boolean readsKeyAndHeaders;
        /** The key columns' indexes (upsert), in table order; empty when the binding cannot delete. */
        private final int[] keyColumns;
        /** Finds the key columns' members in a Kafka key; null when the binding cannot delete. */
        private final JsonScanner keyScanner;

        BoundPg(final Column[] columns, final int[] omittable, final KnownFields known)
        {
            this.columns = columns;
            this.omittable = omittable;
            this.known = known;
            this.bitOf = new int[columns.length];
            Arrays.fill(bitOf, -1);
            for (int bit = 0; bit < omittable.length; bit++)
            {
                bitOf[omittable[bit]] = bit;
            }
            this.hasDefault = new boolean[columns.length];
            final List<String> n = new ArrayList<>(columns.length);
            boolean keys = false;
            for (int i = 0; i < columns.length; i++)
            {
                n.add(columns[i].name());
                hasDefault[i] = columns[i].defaultValue() != null || bitOf[i] >= 0;
                keys |= columns[i].meta() != null && columns[i].meta().readsKeyAndHeaders();
            }
            this.names = List.copyOf(n);
            this.readsKeyAndHeaders = keys;
            final List<String> keyPaths = new ArrayList<>();
            final List<Integer> keyIndexes = new ArrayList<>();
            for (int i = 0; i < columns.length; i++)
            {
                if (columns[i].key())
                {
                    keyIndexes.add(i);
                    keyPaths.add(ColumnMappings.jsonPath(columns[i].name(), null));
                }
            }
            this.keyColumns = keyIndexes.stream().mapToInt(Integer::intValue).toArray();
            this.keyScanner = keyPaths.isEmpty()
                ? null
                : new JsonScanner(JsonPathSet.compile(keyPaths), JsonScanner.DEFAULT_MAX_DEPTH, DuplicateKeys.FAIL);
        }

        @Override
        public boolean deletes()
        {
            return keyScanner != null;
        }

        /**
         * A delete row: the omission mask when the binding has one (0, not read), then a tuple whose int16 field
         * count is {@link #DELETE_FLAG} plus the number of key columns, then the key columns' fields in table order,
         * each encoded by its column's encoder from the Kafka key: a JSON object whose members are named as the key
         * columns (other members are not read), or, for a one-column key, a JSON scalar. Not JSON, a missing or null
         * member, a value the column's type refuses: the record's error, naming the column.
         */
        @Override
        public String encodeDelete(final DirectBuffer key, final int keyLength, final Bytes<?> out)
        {
            if (keyScanner == null)
            {
                return "the table's rows are not deleted (insert_mode = \"upsert\" only)";
            }
            if (keyLength < 0)
            {
                return "the tombstone has no key, so it names no row";
            }
            final int root = JsonScanner.topLevelKind(key, 0, keyLength);
            final JsonValueView v = view;
            final boolean scalar = root != JsonKind.OBJECT && keyColumns.length == 1 && root != JsonKind.ARRAY;
            final int rc = scalar ? keyScanner.validate(key, 0, keyLength) : keyScanner.scan(key, 0, keyLength);
            if (rc != JsonError.NONE)
            {
                return "the key is not JSON (" + JsonError.describe(rc) + " at byte " + keyScanner.errorOffset()
                    + "), so it names no row: a tombstone's key is a JSON object naming the key columns "
                    + keyNames() + (keyColumns.length == 1 ? " or a JSON scalar" : "");
            }
            if (root != JsonKind.OBJECT && !scalar)
            {
                return "the key is a JSON " + JsonKind.name(root) + ", not an object naming the key columns "
                    + keyNames();
            }
            if (masked())
            {
                out.writeLong(0);
            }
            PgCopy.writeInt16(out, DELETE_FLAG | keyColumns.length);
            for (int k = 0; k < keyColumns.length; k++)
            {
                final Column c = columns[keyColumns[k]];
                if (scalar)
                {
                    scalarKey(key, keyLength, root, v);
                }
                else
                {
                    keyScanner.value(k, v);
                }
                if (v.kind() == JsonKind.MISSING || v.kind() == JsonKind.NULL)
                {
                    return "key column " + c.name() + " (" + c.type() + "): the key "
                        + (v.kind() == JsonKind.MISSING
                            ? "has no member named " + PostgresIdentifiers.quote(c.name())
                            : "member " + PostgresIdentifiers.quote(c.name()) + " is null")
                        + ", so it names no row (key columns " + keyNames() + ")";
                }
                final int code = c.encoder().encode(v, out, scratch);
                if (code != ConversionError.NONE)
                {
                    return "key column " + c.name() + " (" + c.type() + ") from the record's key: "
                        + PgCopyError.describe(code) + shown(v);
                }
            }
            return null;
        }

        private boolean masked()
        {
            return omittable.length > 0;
        }

        private String keyNames()
        {
            final StringBuilder b = new StringBuilder();
            for (final int i : keyColumns)
            {
                b.append(b.length() == 0 ? "" : ", ").append(PostgresIdentifiers.quote(columns[i].name()));
            }
            return b.toString();
        }

        /** The key's whole text as one value (validated), a string without its quotes, as {@code $key} reads it. */
        private void scalarKey(final DirectBuffer key, final int keyLength, final int kind, final JsonValueView v)
        {
            int start = 0;
            int end = keyLength;
            while (start < end && key.getByte(start) <= ' ')
            {
                start++;
            }
            while (end > start && key.getByte(end - 1) <= ' ')
            {
                end--;
            }
            if (kind == JsonKind.STRING)
            {
                boolean escaped = false;
                for (int i = start + 1; i < end - 1 && !escaped; i++)
                {
                    escaped = key.getByte(i) == '\\';
                }
                v.set(key, kind, start + 1, end - start - 2, escaped);
            }
            else
            {
                v.set(key, kind, start, end - start, false);
            }
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
            return columns[column].meta() == null ? null : columns[column].meta().spec();
        }

        @Override
        public String pathRead(final int column)
        {
            return columns[column].path();
        }

        @Override
        public boolean filled(final int column)
        {
            return false;
        }

        @Override
        public boolean writesDefault(final int column)
        {
            return columns[column].defaultValue() != null;
        }

        @Override
        public boolean storesNull(final int column)
        {
            return columns[column].nullable();
        }

        /** @return the written type: a domain's base type, {@code text} for an enum (its label) */
        @Override
        public String writtenType(final int column)
        {
            final PgType t = columns[column].encoder().type();
            return t.kind() == PgType.Kind.ENUM ? "text" : t.toString();
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

        @Override
        public String encode(final JsonRecord row, final Bytes<?> out)
        {
            if (scope.scan() != JsonError.NONE)
            {
                return scope.error();
            }
            final Column[] cs = columns;
            final boolean masked = omittable.length > 0;
            final long maskAt = out.writePosition();
            if (masked)
            {
                out.writeLong(0);
            }
            final long countAt = out.writePosition();
            PgCopy.writeInt16(out, cs.length);
            long mask = 0;
            int fields = cs.length;
            final JsonValueView v = view;
            for (int i = 0; i < cs.length; i++)
            {
                final Column c = cs[i];
                final KafkaMetadata meta = c.meta();
                if (meta == null)
                {
                    scope.value(c.pathIndex(), v);
                }
                else
                {
                    final int rc = meta.fill(row, v);
                    if (rc != ConversionError.NONE)
                    {
                        return "column " + c.name() + " (" + c.type() + ") from path " + c.path() + ": "
                            + PgCopyError.describe(rc);
                    }
                    if (c.raw() && hasNul(v))
                    {
                        return "column " + c.name() + " (" + c.type() + ") from path " + c.path() + ": "
                            + PgCopyError.describe(PgCopyError.NUL_CHARACTER) + shown(v);
                    }
                }
                final int kind = v.kind();
                if (hasDefault[i]
                    && (kind == JsonKind.MISSING || kind == JsonKind.NULL && nullAsDefault && !c.nullable()))
                {
                    final int bit = bitOf[i];
                    if (bit >= 0)
                    {
                        mask |= 1L << bit; // left to the server: nothing is written
                        fields--;
                        continue;
                    }
                    out.write(c.defaultValue());
                    continue;
                }
                if (c.key() && (kind == JsonKind.MISSING || kind == JsonKind.NULL))
                {
                    return "key column " + c.name() + " (" + c.type() + ") from path " + c.path() + " is "
                        + (kind == JsonKind.MISSING ? "missing" + c.keyDefault() : "null")
                        + ": an upsert matches rows by their key, and "
                        + "PostgreSQL never finds a NULL key equal to another, so the row cannot be upserted";
                }
                final int code = c.encoder().encode(v, out, scratch);
                if (code != ConversionError.NONE)
                {
                    return "column " + c.name() + " (" + c.type() + ") from path " + c.path() + ": "
                        + PgCopyError.describe(code) + shown(v);
                }
            }
            if (masked)
            {
                OmissionMask.write(out, maskAt, mask);
                final short count = (short)fields;
                out.writeShort(countAt, BIG_ENDIAN ? count : Short.reverseBytes(count));
            }
            return known == null ? null : known.check(row, v);
        }

        private boolean hasNul(final JsonValueView v)
        {
            if (v.kind() != JsonKind.STRING)
            {
                return false;
            }
            for (int i = 0; i < v.length(); i++)
            {
                if (v.buffer().getByte(v.offset() + i) == 0)
                {
                    return true;
                }
            }
            return false;
        }
    }
}
