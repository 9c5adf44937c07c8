/**
 * JMH benchmarks of the gather route stage and its sealer.
 */
package io.sluice.bench.route;
