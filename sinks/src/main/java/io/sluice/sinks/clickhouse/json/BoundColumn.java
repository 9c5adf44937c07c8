package io.sluice.sinks.clickhouse.json;

import io.sluice.codecs.rowbinary.ColumnEncoder;

/**
 * One column of a destination, bound to the JSON path its value is read from and the encoder that writes it.
 *
 * @param name         column name, verbatim
 * @param type         ClickHouse type text
 * @param path         JSON path expression the value comes from
 * @param pathIndex    index of {@code path} in the route stage's compiled path set
 * @param encoder      writes a JSON value as this column's row format
 * @param defaultValue pre-encoded bytes of the column's DEFAULT, written when the value is missing; {@code null}
 *                     when the column has no usable default
 */
record BoundColumn(String name, String type, String path, int pathIndex, ColumnEncoder encoder,
    byte[] defaultValue)
{
}
