package io.sluice.sinks.clickhouse.json;

import java.util.Map;

import io.sluice.codecs.rowbinary.EncoderOptions;

import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.TableSchema;

/**
 * A destination catalog for encoder tests that never connects: constant DEFAULTs are answered from a table (DEFAULT
 * expression → the JSON the server's toString would give), other expressions are for the server only (null); names
 * are written {@code db.t} and unquoted; the time zone and the date range of the server are given.
 */
final class StubCatalog implements DestinationCatalog
{
    private final Map<String, String> defaults;
    private final String timeZone;
    private final boolean legacyDates;

    StubCatalog(final Map<String, String> defaults, final String timeZone, final boolean legacyDates)
    {
        this.defaults = Map.copyOf(defaults);
        this.timeZone = timeZone;
        this.legacyDates = legacyDates;
    }

    @Override
    public TableSchema describe(final String database, final String table)
    {
        return null;
    }

    @Override
    public void create(final String database, final String table)
    {
    }

    @Override
    public String evaluateDefault(final ColumnSpec column)
    {
        return defaults.get(column.defaultExpression());
    }

    @Override
    public String serverTimeZone()
    {
        return timeZone;
    }

    @Override
    public EncoderOptions encoderOptions(final EncoderOptions configured)
    {
        return legacyDates ? configured.withDateRange(EncoderOptions.DateRange.CLICKHOUSE_18_16) : configured;
    }

    @Override
    public String qualifiedName(final String database, final String table)
    {
        return database + "." + table;
    }

    @Override
    public String quoteColumn(final String column)
    {
        return column;
    }
}
