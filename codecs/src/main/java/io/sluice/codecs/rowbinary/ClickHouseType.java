package io.sluice.codecs.rowbinary;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A parsed ClickHouse column type, as ClickHouse spells it: {@code Nullable(String)},
 * {@code LowCardinality(Nullable(String))}, {@code DateTime('UTC')}, {@code DateTime64(3, 'Europe/Berlin')},
 * {@code Decimal(18, 4)}, {@code Decimal64(4)}, {@code Enum8('a' = 1, 'b' = 2)}, {@code Array(Tuple(String, UInt8))},
 * {@code Tuple(name String, n UInt8)}, {@code Map(String, UInt64)}, {@code FixedString(16)}, {@code Bool},
 * {@code UUID}, {@code Date32}, and the integer and float types.
 *
 * <p>Supported: Int8, Int16, Int32, Int64, Int128, Int256, UInt8, UInt16, UInt32, UInt64, UInt128, UInt256, Float32,
 * Float64, Bool (alias Boolean), String, FixedString(N), Date, Date32, DateTime[(tz)], DateTime64(P[, tz]) with P
 * in 0..9, UUID,
 * Decimal(P, S) with P in 1..38 (and Decimal32/64/128(S)), Enum8/Enum16 (explicit or implicit values), Nullable(T),
 * LowCardinality(T), Array(T), Map(K, V), Tuple(T...) and named Tuple(name T, ...). ClickHouse's rules on nesting
 * are checked: Nullable cannot wrap Array, Map, Tuple, Nullable or LowCardinality; Map keys cannot be Nullable,
 * Array, Map or Tuple. Time zones must be known to {@code java.time}.
 *
 * <p>Immutable and thread-safe. {@link #toString()} gives canonical text, e.g. {@code Decimal64(4)} becomes
 * {@code Decimal(18, 4)}.
 */
public final class ClickHouseType
{
    /** The type constructors. */
    public enum Kind
    {
        /** Int8. */
        INT8,
        /** Int16. */
        INT16,
        /** Int32. */
        INT32,
        /** Int64. */
        INT64,
        /** UInt8. */
        UINT8,
        /** UInt16. */
        UINT16,
        /** UInt32. */
        UINT32,
        /** UInt64. */
        UINT64,
        /** Int128: 16 bytes, two's complement. */
        INT128,
        /** UInt128: 16 bytes. */
        UINT128,
        /** Int256: 32 bytes, two's complement. */
        INT256,
        /** UInt256: 32 bytes. */
        UINT256,
        /** Float32. */
        FLOAT32,
        /** Float64. */
        FLOAT64,
        /** Bool. */
        BOOL,
        /** String. */
        STRING,
        /** FixedString(N). */
        FIXED_STRING,
        /** Date. */
        DATE,
        /** Date32. */
        DATE32,
        /** DateTime[(tz)]. */
        DATETIME,
        /** DateTime64(P[, tz]). */
        DATETIME64,
        /** UUID. */
        UUID,
        /** Decimal(P, S). */
        DECIMAL,
        /** Enum8(...). */
        ENUM8,
        /** Enum16(...). */
        ENUM16,
        /** Nullable(T). */
        NULLABLE,
        /** LowCardinality(T). */
        LOW_CARDINALITY,
        /** Array(T). */
        ARRAY,
        /** Map(K, V). */
        MAP,
        /** Tuple(...). */
        TUPLE
    }

    private final Kind kind;
    private final List<ClickHouseType> nested;
    private final List<String> elementNames;
    private final int length;
    private final int precision;
    private final int scale;
    private final String timeZone;
    private final List<String> enumNames;
    private final int[] enumValues;

    private ClickHouseType(final Kind kind, final List<ClickHouseType> nested, final List<String> elementNames,
        final int length, final int precision, final int scale, final String timeZone, final List<String> enumNames,
        final int[] enumValues)
    {
        this.kind = kind;
        this.nested = Collections.unmodifiableList(nested);
        this.elementNames = elementNames == null ? null : Collections.unmodifiableList(elementNames);
        this.length = length;
        this.precision = precision;
        this.scale = scale;
        this.timeZone = timeZone;
        this.enumNames = enumNames == null ? null : Collections.unmodifiableList(enumNames);
        this.enumValues = enumValues;
    }

    private static ClickHouseType simple(final Kind kind)
    {
        return new ClickHouseType(kind, List.of(), null, 0, 0, 0, null, null, null);
    }

    /**
     * Parses a type.
     *
     * @param typeText the type as ClickHouse spells it; not null.
     * @return the parsed type.
     * @throws IllegalArgumentException naming the text, the problem and the character position.
     */
    public static ClickHouseType parse(final String typeText)
    {
        if (typeText == null)
        {
            throw new IllegalArgumentException("ClickHouse type is null");
        }
        final Parser parser = new Parser(typeText);
        final ClickHouseType type = parser.type();
        parser.skipSpace();
        if (parser.pos != typeText.length())
        {
            throw parser.error("unexpected text after the type");
        }
        return type;
    }

    /**
     * The type constructor.
     *
     * @return the kind.
     */
    public Kind kind()
    {
        return kind;
    }

    /**
     * Whether values may be NULL: true for {@code Nullable(T)} and for {@code LowCardinality(Nullable(T))}.
     *
     * @return the flag.
     */
    public boolean isNullable()
    {
        return kind == Kind.NULLABLE || (kind == Kind.LOW_CARDINALITY && nested.get(0).isNullable());
    }

    /**
     * The nested types: one for Nullable, LowCardinality and Array; key and value for Map; the elements of a Tuple;
     * none otherwise.
     *
     * @return an unmodifiable list.
     */
    public List<ClickHouseType> nestedTypes()
    {
        return nested;
    }

    /**
     * One nested type.
     *
     * @param index index into {@link #nestedTypes()}.
     * @return the nested type.
     */
    public ClickHouseType nested(final int index)
    {
        return nested.get(index);
    }

    /**
     * The element names of a named Tuple.
     *
     * @return an unmodifiable list, or null for other types and unnamed Tuples.
     */
    public List<String> elementNames()
    {
        return elementNames;
    }

    /**
     * N of FixedString(N), in bytes.
     *
     * @return the length, 0 for other types.
     */
    public int fixedLength()
    {
        return length;
    }

    /**
     * P of Decimal(P, S) or DateTime64(P).
     *
     * @return the precision, 0 for other types.
     */
    public int precision()
    {
        return precision;
    }

    /**
     * S of Decimal(P, S).
     *
     * @return the scale, 0 for other types.
     */
    public int scale()
    {
        return scale;
    }

    /**
     * The time zone of DateTime('tz') or DateTime64(P, 'tz').
     *
     * @return the zone name, or null when none was given.
     */
    public String timeZone()
    {
        return timeZone;
    }

    /**
     * The element names of an Enum, in declaration order.
     *
     * @return an unmodifiable list, or null for other types.
     */
    public List<String> enumNames()
    {
        return enumNames;
    }

    /**
     * The value of an Enum element.
     *
     * @param index index into {@link #enumNames()}.
     * @return its number.
     */
    public int enumValue(final int index)
    {
        return enumValues[index];
    }

    /**
     * Storage width of a Decimal in bytes: 4 for P up to 9, 8 up to 18, 16 up to 38.
     *
     * @return the width, 0 for other types.
     */
    public int decimalBytes()
    {
        if (kind != Kind.DECIMAL)
        {
            return 0;
        }
        return precision <= 9 ? 4 : precision <= 18 ? 8 : 16;
    }

    /**
     * Canonical ClickHouse spelling.
     *
     * @return the type text.
     */
    @Override
    public String toString()
    {
        final StringBuilder out = new StringBuilder();
        appendTo(out);
        return out.toString();
    }

    /**
     * Types are equal when their canonical texts are.
     *
     * @param other the other object.
     * @return equality.
     */
    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ClickHouseType && toString().equals(other.toString());
    }

    /**
     * Hash of the canonical text.
     *
     * @return the hash code.
     */
    @Override
    public int hashCode()
    {
        return toString().hashCode();
    }

    private void appendTo(final StringBuilder out)
    {
        switch (kind)
        {
            case FIXED_STRING :
                out.append("FixedString(").append(length).append(')');
                return;
            case DATETIME :
                out.append("DateTime");
                if (timeZone != null)
                {
                    out.append('(');
                    quote(out, timeZone);
                    out.append(')');
                }
                return;
            case DATETIME64 :
                out.append("DateTime64(").append(precision);
                if (timeZone != null)
                {
                    out.append(", ");
                    quote(out, timeZone);
                }
                out.append(')');
                return;
            case DECIMAL :
                out.append("Decimal(").append(precision).append(", ").append(scale).append(')');
                return;
            case ENUM8 :
            case ENUM16 :
                out.append(kind == Kind.ENUM8 ? "Enum8(" : "Enum16(");
                for (int i = 0; i < enumNames.size(); i++)
                {
                    if (i > 0)
                    {
                        out.append(", ");
                    }
                    quote(out, enumNames.get(i));
                    out.append(" = ").append(enumValues[i]);
                }
                out.append(')');
                return;
            case NULLABLE :
            case LOW_CARDINALITY :
            case ARRAY :
            case MAP :
            case TUPLE :
                out.append(NAMES[kind.ordinal()]).append('(');
                for (int i = 0; i < nested.size(); i++)
                {
                    if (i > 0)
                    {
                        out.append(", ");
                    }
                    if (elementNames != null)
                    {
                        out.append(elementNames.get(i)).append(' ');
                    }
                    nested.get(i).appendTo(out);
                }
                out.append(')');
                return;
            default :
                out.append(NAMES[kind.ordinal()]);
        }
    }

    private static void quote(final StringBuilder out, final String text)
    {
        out.append('\'');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '\'' || c == '\\')
            {
                out.append('\\');
            }
            out.append(c);
        }
        out.append('\'');
    }

    private static final String[] NAMES = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
        "Int128", "UInt128", "Int256", "UInt256", "Float32", "Float64", "Bool", "String", "FixedString", "Date",
        "Date32", "DateTime", "DateTime64", "UUID",
        "Decimal", "Enum8", "Enum16", "Nullable", "LowCardinality", "Array", "Map", "Tuple"};

    /** Recursive-descent parser over the type text. */
    private static final class Parser
    {
        private final String text;
        private int pos;

        Parser(final String text)
        {
            this.text = text;
        }

        IllegalArgumentException error(final String problem)
        {
            return new IllegalArgumentException("ClickHouse type '" + text + "': " + problem + " at position " + pos);
        }

        void skipSpace()
        {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos)))
            {
                pos++;
            }
        }

        boolean peek(final char c)
        {
            skipSpace();
            return pos < text.length() && text.charAt(pos) == c;
        }

        void expect(final char c)
        {
            if (!peek(c))
            {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        boolean identifierAhead()
        {
            skipSpace();
            return pos < text.length() && (Character.isLetter(text.charAt(pos)) || text.charAt(pos) == '_');
        }

        String identifier()
        {
            skipSpace();
            final int start = pos;
            while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_'))
            {
                pos++;
            }
            if (start == pos)
            {
                throw error("expected a type name");
            }
            return text.substring(start, pos);
        }

        long number()
        {
            skipSpace();
            final int start = pos;
            if (pos < text.length() && (text.charAt(pos) == '-' || text.charAt(pos) == '+'))
            {
                pos++;
            }
            while (pos < text.length() && Character.isDigit(text.charAt(pos)))
            {
                pos++;
            }
            try
            {
                return Long.parseLong(text.substring(start, pos));
            }
            catch (final NumberFormatException ex)
            {
                pos = start;
                throw error("expected a number");
            }
        }

        int parameter(final long min, final long max, final String what)
        {
            final int start = pos;
            final long value = number();
            if (value < min || value > max)
            {
                pos = start;
                throw error(what + " " + value + " outside " + min + ".." + max);
            }
            return (int)value;
        }

        String quoted()
        {
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != '\'')
            {
                throw error("expected a quoted string");
            }
            pos++;
            final StringBuilder out = new StringBuilder();
            while (pos < text.length())
            {
                final char c = text.charAt(pos++);
                if (c == '\'')
                {
                    if (pos < text.length() && text.charAt(pos) == '\'')
                    {
                        out.append('\'');
                        pos++;
                        continue;
                    }
                    return out.toString();
                }
                if (c == '\\' && pos < text.length())
                {
                    out.append(text.charAt(pos++));
                    continue;
                }
                out.append(c);
            }
            throw error("unterminated quoted string");
        }

        String zone()
        {
            final int start = pos;
            final String zone = quoted();
            try
            {
                ZoneId.of(zone);
            }
            catch (final DateTimeException ex)
            {
                pos = start;
                throw error("unknown time zone '" + zone + "'");
            }
            return zone;
        }

        ClickHouseType type()
        {
            final int start = pos;
            final String name = identifier();
            switch (name)
            {
                case "Int8" :
                    return simple(Kind.INT8);
                case "Int16" :
                    return simple(Kind.INT16);
                case "Int32" :
                    return simple(Kind.INT32);
                case "Int64" :
                    return simple(Kind.INT64);
                case "UInt8" :
                    return simple(Kind.UINT8);
                case "UInt16" :
                    return simple(Kind.UINT16);
                case "UInt32" :
                    return simple(Kind.UINT32);
                case "UInt64" :
                    return simple(Kind.UINT64);
                case "Int128" :
                    return simple(Kind.INT128);
                case "UInt128" :
                    return simple(Kind.UINT128);
                case "Int256" :
                    return simple(Kind.INT256);
                case "UInt256" :
                    return simple(Kind.UINT256);
                case "Float32" :
                    return simple(Kind.FLOAT32);
                case "Float64" :
                    return simple(Kind.FLOAT64);
                case "Bool" :
                case "Boolean" :
                    return simple(Kind.BOOL);
                case "String" :
                    return simple(Kind.STRING);
                case "UUID" :
                    return simple(Kind.UUID);
                case "Date" :
                    return simple(Kind.DATE);
                case "Date32" :
                    return simple(Kind.DATE32);
                case "FixedString" :
                {
                    expect('(');
                    final int n = parameter(1, 1 << 24, "FixedString length");
                    expect(')');
                    return new ClickHouseType(Kind.FIXED_STRING, List.of(), null, n, 0, 0, null, null, null);
                }
                case "DateTime" :
                {
                    String zone = null;
                    if (peek('('))
                    {
                        pos++;
                        zone = zone();
                        expect(')');
                    }
                    return new ClickHouseType(Kind.DATETIME, List.of(), null, 0, 0, 0, zone, null, null);
                }
                case "DateTime64" :
                {
                    expect('(');
                    final int p = parameter(0, 9, "DateTime64 precision");
                    String zone = null;
                    if (peek(','))
                    {
                        pos++;
                        zone = zone();
                    }
                    expect(')');
                    return new ClickHouseType(Kind.DATETIME64, List.of(), null, 0, p, 0, zone, null, null);
                }
                case "Decimal" :
                {
                    expect('(');
                    final int p = parameter(1, 38, "Decimal precision");
                    int s = 0;
                    if (peek(','))
                    {
                        pos++;
                        s = parameter(0, p, "Decimal scale");
                    }
                    expect(')');
                    return decimal(p, s);
                }
                case "Decimal32" :
                case "Decimal64" :
                case "Decimal128" :
                {
                    final int p = name.equals("Decimal32") ? 9 : name.equals("Decimal64") ? 18 : 38;
                    expect('(');
                    final int s = parameter(0, p, "Decimal scale");
                    expect(')');
                    return decimal(p, s);
                }
                case "Enum8" :
                case "Enum16" :
                    return enumType(name.equals("Enum8") ? Kind.ENUM8 : Kind.ENUM16);
                case "Nullable" :
                {
                    expect('(');
                    final ClickHouseType inner = type();
                    expect(')');
                    switch (inner.kind)
                    {
                        case NULLABLE :
                        case LOW_CARDINALITY :
                        case ARRAY :
                        case MAP :
                        case TUPLE :
                            pos = start;
                            throw error("Nullable cannot wrap " + inner);
                        default :
                            return composite(Kind.NULLABLE, List.of(inner), null);
                    }
                }
                case "LowCardinality" :
                {
                    expect('(');
                    final ClickHouseType inner = type();
                    expect(')');
                    switch (inner.kind)
                    {
                        case LOW_CARDINALITY :
                        case ARRAY :
                        case MAP :
                        case TUPLE :
                            pos = start;
                            throw error("LowCardinality cannot wrap " + inner);
                        default :
                            return composite(Kind.LOW_CARDINALITY, List.of(inner), null);
                    }
                }
                case "Array" :
                {
                    expect('(');
                    final ClickHouseType inner = type();
                    expect(')');
                    return composite(Kind.ARRAY, List.of(inner), null);
                }
                case "Map" :
                {
                    expect('(');
                    final int keyAt = pos;
                    final ClickHouseType key = type();
                    switch (key.kind)
                    {
                        case NULLABLE :
                        case ARRAY :
                        case MAP :
                        case TUPLE :
                            pos = keyAt;
                            throw error("a Map key cannot be " + key);
                        default :
                            break;
                    }
                    expect(',');
                    final ClickHouseType value = type();
                    expect(')');
                    return composite(Kind.MAP, List.of(key, value), null);
                }
                case "Tuple" :
                    return tuple();
                default :
                    pos = start;
                    throw error("unsupported or unknown type '" + name + "'");
            }
        }

        private static ClickHouseType composite(final Kind kind, final List<ClickHouseType> nested,
            final List<String> names)
        {
            return new ClickHouseType(kind, nested, names, 0, 0, 0, null, null, null);
        }

        private static ClickHouseType decimal(final int p, final int s)
        {
            return new ClickHouseType(Kind.DECIMAL, List.of(), null, 0, p, s, null, null, null);
        }

        private ClickHouseType tuple()
        {
            expect('(');
            final List<ClickHouseType> elements = new ArrayList<>();
            final List<String> names = new ArrayList<>();
            do
            {
                final int elementStart = pos;
                String elementName = null;
                if (identifierAhead())
                {
                    final String first = identifier();
                    if (identifierAhead())
                    {
                        elementName = first;
                    }
                    else
                    {
                        pos = elementStart;
                    }
                }
                if (!elements.isEmpty() && (elementName == null) != names.isEmpty())
                {
                    throw error("a Tuple's elements must be all named or all unnamed");
                }
                if (elementName != null)
                {
                    if (names.contains(elementName))
                    {
                        throw error("duplicate Tuple element name '" + elementName + "'");
                    }
                    names.add(elementName);
                }
                elements.add(type());
                skipSpace();
            }
            while (tryConsume(','));
            expect(')');
            return composite(Kind.TUPLE, elements, names.isEmpty() ? null : names);
        }

        private boolean tryConsume(final char c)
        {
            if (peek(c))
            {
                pos++;
                return true;
            }
            return false;
        }

        private ClickHouseType enumType(final Kind kind)
        {
            final int limit = kind == Kind.ENUM8 ? 127 : 32767;
            expect('(');
            final List<String> names = new ArrayList<>();
            final List<Integer> values = new ArrayList<>();
            boolean explicit = false;
            do
            {
                final String elementName = quoted();
                int value;
                if (tryConsume('='))
                {
                    if (!explicit && !values.isEmpty())
                    {
                        throw error("Enum values must be all explicit or all implicit");
                    }
                    explicit = true;
                    value = parameter(-limit - 1, limit, "Enum value");
                }
                else
                {
                    if (explicit)
                    {
                        throw error("Enum values must be all explicit or all implicit");
                    }
                    value = values.size() + 1;
                    if (value > limit)
                    {
                        throw error("too many Enum elements");
                    }
                }
                if (names.contains(elementName))
                {
                    throw error("duplicate Enum name '" + elementName + "'");
                }
                if (values.contains(value))
                {
                    throw error("duplicate Enum value " + value);
                }
                names.add(elementName);
                values.add(value);
            }
            while (tryConsume(','));
            expect(')');
            final int[] array = new int[values.size()];
            for (int i = 0; i < array.length; i++)
            {
                array[i] = values.get(i);
            }
            return new ClickHouseType(kind, List.of(), null, 0, 0, 0, null, names, array);
        }
    }
}
