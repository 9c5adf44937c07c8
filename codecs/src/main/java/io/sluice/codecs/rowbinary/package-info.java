/**
 * ClickHouse RowBinary writing: parsed column types ({@link io.sluice.codecs.rowbinary.ClickHouseType}), primitive
 * writers into chronicle-bytes ({@link io.sluice.codecs.rowbinary.RowBinary}), and per-column JSON-to-RowBinary
 * encoders ({@link io.sluice.codecs.rowbinary.ColumnEncoder}) that report failures as
 * {@link io.sluice.codecs.rowbinary.ConversionError} codes. Layout source: ClickHouse documentation, "RowBinary"
 * format page and the data type pages.
 */
package io.sluice.codecs.rowbinary;
