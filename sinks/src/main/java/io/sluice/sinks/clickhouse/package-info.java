/**
 * The ClickHouse sink, over client-v2's HTTP interface: {@link io.sluice.sinks.clickhouse.ClickHouseDriver}
 * connects a gather sink's shards ({@link io.sluice.sinks.clickhouse.ClickHouseConnections}: endpoints,
 * credentials, TLS, compression), reads and creates tables ({@link io.sluice.sinks.clickhouse.ClickHouseCatalog}:
 * DESCRIBE in TabSeparated, since 18.16 has no RowBinaryWithNamesAndTypes output), and inserts sealed batches
 * ({@link io.sluice.sinks.clickhouse.ClickHouseBatchWriter}). Failures are classified once, by ClickHouse's error
 * code, in an explicit and tested table ({@link io.sluice.sinks.clickhouse.ClickHouseErrors}): retriable or not.
 *
 * <p>Threads: a batch writer belongs to one insert worker; the catalog is called by the thread that resolves
 * destinations.
 */
package io.sluice.sinks.clickhouse;
