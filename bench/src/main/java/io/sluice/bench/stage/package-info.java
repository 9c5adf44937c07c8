/**
 * JMH benchmarks of stage plumbing: counters written by several threads, padded and not.
 */
package io.sluice.bench.stage;
