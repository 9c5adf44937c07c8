package io.sluice.codecs.pgcopy;

import java.util.List;
import java.util.Locale;

/**
 * A PostgreSQL column type as the binary COPY encoders need it: the base type, its modifier (numeric precision and
 * scale, varchar/char length), whether it is a one-dimensional array, and for enums the type's OID and labels.
 *
 * <p>Domains are given by their base type (the binding layer resolves {@code pg_type.typbasetype}); enums are
 * written as their label text. Built from the type names PostgreSQL prints ({@code format_type}:
 * {@code "numeric(10,2)"}, {@code "character varying(20)"}, {@code "timestamp with time zone"}, {@code "integer[]"})
 * or their internal names ({@code int4}, {@code varchar}, {@code timestamptz}, {@code _int4}), or from a base type
 * name and {@code pg_attribute.atttypmod} ({@link #fromCatalog}). Immutable and thread-safe.
 */
public final class PgType
{
    /** The base types the encoders write, with their OIDs (pg_type.oid) and array OIDs (pg_type.typarray). */
    public enum Kind
    {
        /** {@code boolean}: 1 byte, 1 or 0. */
        BOOL(16, 1000, "boolean"),
        /** {@code smallint}: int16. */
        INT2(21, 1005, "smallint"),
        /** {@code integer}: int32. */
        INT4(23, 1007, "integer"),
        /** {@code bigint}: int64. */
        INT8(20, 1016, "bigint"),
        /** {@code real}: IEEE 754 binary32. */
        FLOAT4(700, 1021, "real"),
        /** {@code double precision}: IEEE 754 binary64. */
        FLOAT8(701, 1022, "double precision"),
        /** {@code numeric[(p[,s])]}: ndigits, weight, sign, dscale, base-10000 digits. */
        NUMERIC(1700, 1231, "numeric"),
        /** {@code text}: UTF-8 bytes. */
        TEXT(25, 1009, "text"),
        /** {@code character varying[(n)]}: UTF-8 bytes, at most n characters. */
        VARCHAR(1043, 1015, "character varying"),
        /** {@code character[(n)]} ({@code bpchar}): UTF-8 bytes, at most n characters, the server pads. */
        BPCHAR(1042, 1014, "character"),
        /** {@code json}: the JSON text. */
        JSON(114, 199, "json"),
        /** {@code jsonb}: version byte 1 then the JSON text. */
        JSONB(3802, 3807, "jsonb"),
        /** {@code uuid}: 16 bytes. */
        UUID(2950, 2951, "uuid"),
        /** {@code date}: int32 days since 2000-01-01. */
        DATE(1082, 1182, "date"),
        /** {@code timestamp without time zone}: int64 microseconds since 2000-01-01 00:00:00. */
        TIMESTAMP(1114, 1115, "timestamp without time zone"),
        /** {@code timestamp with time zone}: int64 microseconds since 2000-01-01 00:00:00 UTC. */
        TIMESTAMPTZ(1184, 1185, "timestamp with time zone"),
        /** A user-defined enum ({@code pg_type.typtype = 'e'}): its label as text; OIDs are per database. */
        ENUM(0, 0, "enum");

        private final int oid;
        private final int arrayOid;
        private final String sqlName;

        Kind(final int oid, final int arrayOid, final String sqlName)
        {
            this.oid = oid;
            this.arrayOid = arrayOid;
            this.sqlName = sqlName;
        }

        /**
         * The type's OID, fixed for built-in types (0 for {@link #ENUM}, whose OID is per database).
         *
         * @return the OID.
         */
        public int oid()
        {
            return oid;
        }

        /**
         * The OID of the type's array type (0 for {@link #ENUM}).
         *
         * @return the OID.
         */
        public int arrayOid()
        {
            return arrayOid;
        }

        /**
         * The name {@code format_type} prints, without modifier.
         *
         * @return e.g. {@code "double precision"}.
         */
        public String sqlName()
        {
            return sqlName;
        }

        /**
         * The kind of a base type name: the SQL spelling ({@code integer}, {@code double precision}, {@code
         * character varying}, {@code timestamp with time zone}, {@code decimal}, {@code int}, {@code char}) or the
         * internal one ({@code int4}, {@code float8}, {@code varchar}, {@code bpchar}, {@code timestamptz}), any case.
         *
         * @param name the base type name, without modifier or array brackets.
         * @return the kind.
         * @throws IllegalArgumentException if the type is not supported.
         */
        public static Kind forName(final String name)
        {
            switch (name.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " "))
            {
                case "bool" :
                case "boolean" :
                    return BOOL;
                case "int2" :
                case "smallint" :
                    return INT2;
                case "int4" :
                case "int" :
                case "integer" :
                    return INT4;
                case "int8" :
                case "bigint" :
                    return INT8;
                case "float4" :
                case "real" :
                    return FLOAT4;
                case "float8" :
                case "double precision" :
                    return FLOAT8;
                case "numeric" :
                case "decimal" :
                    return NUMERIC;
                case "text" :
                    return TEXT;
                case "varchar" :
                case "character varying" :
                    return VARCHAR;
                case "bpchar" :
                case "char" :
                case "character" :
                    return BPCHAR;
                case "json" :
                    return JSON;
                case "jsonb" :
                    return JSONB;
                case "uuid" :
                    return UUID;
                case "date" :
                    return DATE;
                case "timestamp" :
                case "timestamp without time zone" :
                    return TIMESTAMP;
                case "timestamptz" :
                case "timestamp with time zone" :
                    return TIMESTAMPTZ;
                default :
                    throw new IllegalArgumentException("unsupported PostgreSQL type for binary COPY: " + name);
            }
        }
    }

    /** No modifier: unconstrained numeric, varchar and bpchar without length. */
    public static final int NONE = -1;

    private final Kind kind;
    private final int precision;
    private final int scale;
    private final int length;
    private final boolean array;
    private final int enumOid;
    private final List<String> enumLabels;

    private PgType(final Kind kind, final int precision, final int scale, final int length, final boolean array,
        final int enumOid, final List<String> enumLabels)
    {
        this.kind = kind;
        this.precision = precision;
        this.scale = scale;
        this.length = length;
        this.array = array;
        this.enumOid = enumOid;
        this.enumLabels = enumLabels;
    }

    /**
     * A scalar type without modifier.
     *
     * @param kind the base type (not {@link Kind#ENUM}: see {@link #enumeration}).
     * @return the type.
     */
    public static PgType of(final Kind kind)
    {
        if (kind == Kind.ENUM)
        {
            throw new IllegalArgumentException("an enum needs its OID and labels: PgType.enumeration");
        }
        return new PgType(kind, NONE, NONE, NONE, false, 0, null);
    }

    /**
     * {@code numeric(precision, scale)}.
     *
     * @param precision 1..1000.
     * @param scale     -1000..1000 (PostgreSQL 15 allows a scale below 0 or above the precision).
     * @return the type.
     * @throws IllegalArgumentException if out of PostgreSQL's bounds.
     */
    public static PgType numeric(final int precision, final int scale)
    {
        if (precision < 1 || precision > 1000 || scale < -1000 || scale > 1000)
        {
            throw new IllegalArgumentException("numeric(" + precision + "," + scale + ") is outside PostgreSQL's "
                + "bounds (precision 1..1000, scale -1000..1000)");
        }
        return new PgType(Kind.NUMERIC, precision, scale, NONE, false, 0, null);
    }

    /**
     * {@code timestamp(p)} or {@code timestamptz(p)}: the server rounds a value to {@code p} fractional digits of a
     * second when it stores it ({@link #roundMicros}).
     *
     * @param kind      {@link Kind#TIMESTAMP} or {@link Kind#TIMESTAMPTZ}.
     * @param precision 0..6 fractional digits, or {@link #NONE} (6, microseconds).
     * @return the type.
     * @throws IllegalArgumentException for another kind or precision.
     */
    public static PgType timestamp(final Kind kind, final int precision)
    {
        if ((kind != Kind.TIMESTAMP && kind != Kind.TIMESTAMPTZ) || precision < NONE || precision > 6)
        {
            throw new IllegalArgumentException("a precision (0..6) applies to timestamp and timestamptz only: " + kind
                + "(" + precision + ")");
        }
        return new PgType(kind, precision, NONE, NONE, false, 0, null);
    }

    /** Microseconds per unit of the last kept digit, and half of it, by precision 0..6 (PostgreSQL's timestamp.c). */
    private static final long[] SCALES = {1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};
    private static final long[] OFFSETS = {500_000, 50_000, 5_000, 500, 50, 5, 0};

    /**
     * What the server stores for a timestamp of this type: microseconds since 2000-01-01 rounded to the type's
     * precision, half away from zero, as PostgreSQL's {@code AdjustTimestampForTypmod} (timestamp.c) does on input and
     * on binary receive. Infinity ({@link Long#MIN_VALUE}, {@link Long#MAX_VALUE}) is kept.
     *
     * @param micros the value sent.
     * @return the value stored; {@code micros} for a type without precision or of another kind.
     */
    public long roundMicros(final long micros)
    {
        if ((kind != Kind.TIMESTAMP && kind != Kind.TIMESTAMPTZ) || precision == NONE || precision >= 6
            || micros == Long.MIN_VALUE || micros == Long.MAX_VALUE)
        {
            return micros;
        }
        return micros >= 0
            ? (micros + OFFSETS[precision]) / SCALES[precision] * SCALES[precision]
            : -((-micros + OFFSETS[precision]) / SCALES[precision] * SCALES[precision]);
    }

    /**
     * {@code character varying(n)} or {@code character(n)}.
     *
     * @param kind   {@link Kind#VARCHAR} or {@link Kind#BPCHAR}.
     * @param length the most characters, 1..10485760.
     * @return the type.
     * @throws IllegalArgumentException for another kind or length.
     */
    public static PgType withLength(final Kind kind, final int length)
    {
        if ((kind != Kind.VARCHAR && kind != Kind.BPCHAR) || length < 1 || length > 10_485_760)
        {
            throw new IllegalArgumentException("a length (1..10485760) applies to varchar and char only: " + kind
                + "(" + length + ")");
        }
        return new PgType(kind, NONE, NONE, length, false, 0, null);
    }

    /**
     * An enum type, written as its label text; a value that is no label is refused before the server sees it.
     *
     * @param oid    the enum type's OID (pg_type.oid), needed in arrays of it.
     * @param labels its labels (pg_enum.enumlabel), in any order.
     * @return the type.
     */
    public static PgType enumeration(final int oid, final List<String> labels)
    {
        return new PgType(Kind.ENUM, NONE, NONE, NONE, false, oid, List.copyOf(labels));
    }

    /**
     * The type from a base type name and {@code pg_attribute.atttypmod}, as the catalog gives it.
     *
     * @param baseName the base type's {@code pg_type.typname} ({@link Kind#forName}; {@code "char"}, the internal
     *                 one-byte type, is refused); for a domain, its base type's.
     * @param typmod   the modifier, -1 for none: numeric {@code ((p << 16) | (s & 0x7ff)) + 4}; varchar and
     *                 bpchar {@code n + 4}; timestamp and timestamptz the precision 0..6 (the server rounds to it).
     * @return the type.
     * @throws IllegalArgumentException if the type is not supported.
     */
    public static PgType fromCatalog(final String baseName, final int typmod)
    {
        if (baseName.equals("char"))
        {
            // pg_type's "char" (OID 18) is the internal one-byte type, not character(n), whose typname is bpchar
            throw new IllegalArgumentException("unsupported PostgreSQL type for binary COPY: \"char\" (the "
                + "internal one-byte type; character(n) is bpchar)");
        }
        final Kind kind = Kind.forName(baseName);
        if (typmod < 0)
        {
            return of(kind);
        }
        switch (kind)
        {
            case NUMERIC :
            {
                final int t = typmod - 4;
                final int scaleBits = t & 0x7ff;
                return numeric((t >> 16) & 0xffff, (scaleBits ^ 1024) - 1024);
            }
            case VARCHAR :
            case BPCHAR :
                return withLength(kind, typmod - 4);
            case TIMESTAMP :
            case TIMESTAMPTZ :
                return timestamp(kind, Math.min(typmod, 6));
            default :
                return of(kind);
        }
    }

    /**
     * Parses a type as {@code format_type} prints it or by its internal name: {@code integer}, {@code
     * numeric(10,2)}, {@code character varying(20)}, {@code char(3)}, {@code timestamp(3) with time zone}, {@code
     * text[]}, {@code _int8}. Not for enums ({@link #enumeration}).
     *
     * @param text the type text.
     * @return the type.
     * @throws IllegalArgumentException if malformed or unsupported.
     */
    public static PgType parse(final String text)
    {
        String t = text.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        boolean isArray = false;
        if (t.endsWith("[]"))
        {
            isArray = true;
            t = t.substring(0, t.length() - 2).trim();
        }
        else if (t.startsWith("_"))
        {
            isArray = true;
            t = t.substring(1);
        }
        String modifier = null;
        final int open = t.indexOf('(');
        if (open >= 0)
        {
            final int close = t.indexOf(')', open);
            if (close < 0)
            {
                throw new IllegalArgumentException("malformed PostgreSQL type: " + text);
            }
            modifier = t.substring(open + 1, close).replace(" ", "");
            t = (t.substring(0, open) + t.substring(close + 1)).trim().replaceAll("\\s+", " ");
        }
        final Kind kind = Kind.forName(t);
        PgType type;
        try
        {
            if (modifier == null)
            {
                type = kind == Kind.BPCHAR && !t.equals("bpchar") ? withLength(kind, 1) : of(kind);
            }
            else if (kind == Kind.NUMERIC)
            {
                final int comma = modifier.indexOf(',');
                type = comma < 0
                    ? numeric(Integer.parseInt(modifier), 0)
                    : numeric(Integer.parseInt(modifier.substring(0, comma)),
                        Integer.parseInt(modifier.substring(comma + 1)));
            }
            else if (kind == Kind.VARCHAR || kind == Kind.BPCHAR)
            {
                type = withLength(kind, Integer.parseInt(modifier));
            }
            else if (kind == Kind.TIMESTAMP || kind == Kind.TIMESTAMPTZ)
            {
                final int p = Integer.parseInt(modifier);
                if (p < 0 || p > 6)
                {
                    throw new IllegalArgumentException("timestamp precision is 0..6: " + text);
                }
                type = timestamp(kind, p);
            }
            else
            {
                throw new IllegalArgumentException("type " + kind.sqlName() + " takes no modifier: " + text);
            }
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("malformed modifier in PostgreSQL type: " + text, e);
        }
        return isArray ? type.arrayOf() : type;
    }

    /**
     * The one-dimensional array type of this element type.
     *
     * @return the array type.
     * @throws IllegalStateException if this is already an array.
     */
    public PgType arrayOf()
    {
        if (array)
        {
            throw new IllegalStateException("only one-dimensional arrays are supported: " + this + "[]");
        }
        return new PgType(kind, precision, scale, length, true, enumOid, enumLabels);
    }

    /**
     * The element type of an array, or this type.
     *
     * @return the scalar type.
     */
    public PgType element()
    {
        return array ? new PgType(kind, precision, scale, length, false, enumOid, enumLabels) : this;
    }

    /**
     * The base type.
     *
     * @return the kind.
     */
    public Kind kind()
    {
        return kind;
    }

    /**
     * Whether this is a one-dimensional array of {@link #kind()}.
     *
     * @return true for an array.
     */
    public boolean isArray()
    {
        return array;
    }

    /**
     * Numeric precision.
     *
     * @return the precision, or {@link #NONE} for an unconstrained numeric and other types.
     */
    public int precision()
    {
        return precision;
    }

    /**
     * Numeric scale.
     *
     * @return the scale (may be negative), or {@link #NONE} when {@link #precision()} is.
     */
    public int scale()
    {
        return scale;
    }

    /**
     * The most characters of varchar(n) and char(n).
     *
     * @return n, or {@link #NONE} without length.
     */
    public int length()
    {
        return length;
    }

    /**
     * The OID of the scalar type (for enums, the one given to {@link #enumeration}), as array headers carry it.
     *
     * @return the OID.
     */
    public int elementOid()
    {
        return kind == Kind.ENUM ? enumOid : kind.oid();
    }

    /**
     * An enum's labels.
     *
     * @return the labels, or null for other types.
     */
    public List<String> enumLabels()
    {
        return enumLabels;
    }

    /**
     * The type as {@code format_type} prints it.
     *
     * @return e.g. {@code numeric(10,2)[]}.
     */
    @Override
    public String toString()
    {
        final String base;
        if (kind == Kind.NUMERIC && precision != NONE)
        {
            base = "numeric(" + precision + "," + scale + ")";
        }
        else if (length != NONE)
        {
            base = kind.sqlName() + "(" + length + ")";
        }
        else if (kind == Kind.BPCHAR)
        {
            base = "bpchar";
        }
        else if ((kind == Kind.TIMESTAMP || kind == Kind.TIMESTAMPTZ) && precision != NONE)
        {
            base = "timestamp(" + precision + ")" + kind.sqlName().substring("timestamp".length());
        }
        else if (kind == Kind.ENUM)
        {
            base = "enum " + enumOid;
        }
        else
        {
            base = kind.sqlName();
        }
        return array ? base + "[]" : base;
    }
}
