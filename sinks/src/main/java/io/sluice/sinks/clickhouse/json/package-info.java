/**
 * ClickHouse's row encoder for the TOML form's JSON records
 * ({@link io.sluice.sinks.clickhouse.json.ClickHouseJsonRowEncoder}, returned per branch by the driver's
 * {@code jsonEncoding()}): each insertable column of the bound table takes the JSON value at its path, a Kafka
 * metadata value ({@link io.sluice.sinks.clickhouse.json.ClickHouseMetadataColumn} over core's kind-neutral
 * {@code MetadataColumn}) or its DEFAULT, written as RowBinary for the insert worker's Native blocks; dotted
 * (Nested) columns follow ClickHouse's rules ({@link io.sluice.sinks.clickhouse.json.NestedColumns}). What is
 * kind-neutral (paths, metadata values, {@code unknown_fields}, the omission mask) stays in core.
 *
 * <p>Threads: the route stage thread only; zero allocation per record in steady state.
 */
package io.sluice.sinks.clickhouse.json;
