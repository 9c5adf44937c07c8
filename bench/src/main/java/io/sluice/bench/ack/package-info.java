/**
 * JMH benchmarks of the ack tracker: register, acknowledge and watermark under contention.
 */
package io.sluice.bench.ack;
