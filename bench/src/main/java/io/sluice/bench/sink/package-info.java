/**
 * Benchmarks of what an insert costs on the way to ClickHouse (request compression).
 */
package io.sluice.bench.sink;
