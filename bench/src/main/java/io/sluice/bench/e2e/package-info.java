/**
 * The end-to-end benchmark ({@code scripts/bench.sh}): the contenders (Kafka's consumer alone, ClickHouse's ingest
 * alone, a plain consumer, ClickHouse's Kafka engine with views, and Sluice) on the same topic and tables, each
 * verified row by row, with CPU per process and per thread found by listening port. docs/benchmarks.md has the
 * method.
 */
package io.sluice.bench.e2e;
