package io.sluice.codecs.rowbinary;

/**
 * Options that change how {@link ColumnEncoder}s convert JSON values. Immutable; build with the fluent
 * {@code withXxx} methods starting from {@link #DEFAULTS}.
 *
 * <ul>
 *   <li>{@link #nullAsDefault()} (default false): JSON {@code null} into a non-Nullable column writes the type's
 *       zero value (0, empty string, zero-filled FixedString, 1970-01-01, nil UUID, the Enum's smallest value,
 *       false, empty Array/Map, a Tuple of defaults) instead of failing with
 *       {@link ConversionError#NULL_NOT_ALLOWED}. ClickHouse calls this {@code input_format_null_as_default}.</li>
 *   <li>{@link #missingAsDefault()} (default false): the same for a missing value instead of
 *       {@link ConversionError#MISSING_NOT_ALLOWED}.</li>
 *   <li>{@link #epochUnit()} (default {@link EpochUnit#COLUMN}): the unit of integer epoch numbers given to
 *       DateTime and DateTime64 columns.</li>
 *   <li>{@link #dateRange()} (default {@link DateRange#CURRENT}): the range of Date and DateTime values the server
 *       handles.</li>
 * </ul>
 */
public final class EncoderOptions
{
    /** The unit of an integer epoch number (a JSON number or numeric string without fraction or exponent). */
    public enum EpochUnit
    {
        /** ClickHouse's own rule: seconds for DateTime, ticks of the column's precision for DateTime64(P)
         * (so DateTime64(3) takes milliseconds). */
        COLUMN,
        /** Seconds since 1970-01-01 00:00:00 UTC. */
        SECONDS,
        /** Milliseconds since the epoch; finer units than the column keeps are truncated toward negative
         * infinity. */
        MILLISECONDS,
        /** Microseconds since the epoch. */
        MICROSECONDS,
        /** Nanoseconds since the epoch. */
        NANOSECONDS
    }

    /**
     * The range of Date and DateTime values accepted, by the server generation's documentation. Date32 and
     * DateTime64 (which 18.16 lacks) always take their current documented ranges.
     */
    public enum DateRange
    {
        /** Current ClickHouse documentation: Date [1970-01-01, 2149-06-06] (all of UInt16), DateTime
         * [1970-01-01 00:00:00, 2106-02-07 06:28:15] UTC (all of UInt32). */
        CURRENT,
        /** ClickHouse 18.16's documentation: Date and DateTime are stored as on current servers, but the final
         * fully-supported year is 2105, so the range ends at 2105-12-31 (23:59:59 UTC). Verified on 18.16.1: day
         * numbers and seconds past it are stored, but read back as {@code 0000-00-00} or as wrong times. */
        CLICKHOUSE_18_16
    }

    /** All defaults: nulls and missing values fail, epoch numbers in the column's unit, current date ranges. */
    public static final EncoderOptions DEFAULTS = new EncoderOptions(false, false, EpochUnit.COLUMN,
        DateRange.CURRENT);

    private final boolean nullAsDefault;
    private final boolean missingAsDefault;
    private final EpochUnit epochUnit;
    private final DateRange dateRange;

    private EncoderOptions(final boolean nullAsDefault, final boolean missingAsDefault, final EpochUnit epochUnit,
        final DateRange dateRange)
    {
        this.nullAsDefault = nullAsDefault;
        this.missingAsDefault = missingAsDefault;
        this.epochUnit = epochUnit;
        this.dateRange = dateRange;
    }

    /**
     * Whether JSON null into a non-Nullable column writes the type's default.
     *
     * @return the flag.
     */
    public boolean nullAsDefault()
    {
        return nullAsDefault;
    }

    /**
     * Whether a missing value into a non-Nullable, non-Array, non-Map column writes the type's default.
     *
     * @return the flag.
     */
    public boolean missingAsDefault()
    {
        return missingAsDefault;
    }

    /**
     * The unit of integer epoch numbers for DateTime and DateTime64 columns.
     *
     * @return the unit.
     */
    public EpochUnit epochUnit()
    {
        return epochUnit;
    }

    /**
     * A copy with {@link #nullAsDefault()} set.
     *
     * @param value the new value.
     * @return the new options.
     */
    public EncoderOptions withNullAsDefault(final boolean value)
    {
        return new EncoderOptions(value, missingAsDefault, epochUnit, dateRange);
    }

    /**
     * A copy with {@link #missingAsDefault()} set.
     *
     * @param value the new value.
     * @return the new options.
     */
    public EncoderOptions withMissingAsDefault(final boolean value)
    {
        return new EncoderOptions(nullAsDefault, value, epochUnit, dateRange);
    }

    /**
     * A copy with {@link #epochUnit()} set.
     *
     * @param value the new unit; not null.
     * @return the new options.
     */
    public EncoderOptions withEpochUnit(final EpochUnit value)
    {
        if (value == null)
        {
            throw new IllegalArgumentException("epochUnit must not be null");
        }
        return new EncoderOptions(nullAsDefault, missingAsDefault, value, dateRange);
    }

    /**
     * The range of Date and DateTime values accepted; values outside it are
     * {@link ConversionError#OUT_OF_RANGE}.
     *
     * @return the range.
     */
    public DateRange dateRange()
    {
        return dateRange;
    }

    /**
     * A copy with {@link #dateRange()} set.
     *
     * @param value the new range; not null.
     * @return the new options.
     */
    public EncoderOptions withDateRange(final DateRange value)
    {
        if (value == null)
        {
            throw new IllegalArgumentException("dateRange must not be null");
        }
        return new EncoderOptions(nullAsDefault, missingAsDefault, epochUnit, value);
    }

    /**
     * The options as text, for logs.
     *
     * @return e.g. {@code EncoderOptions{nullAsDefault=false, missingAsDefault=false, epochUnit=COLUMN,
     *     dateRange=CURRENT}}.
     */
    @Override
    public String toString()
    {
        return "EncoderOptions{nullAsDefault=" + nullAsDefault + ", missingAsDefault=" + missingAsDefault +
            ", epochUnit=" + epochUnit + ", dateRange=" + dateRange + "}";
    }
}
