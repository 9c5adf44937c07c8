/**
 * JMH benchmarks of a ring hop between two stage threads, against a blocking queue.
 */
package io.sluice.bench.ring;
