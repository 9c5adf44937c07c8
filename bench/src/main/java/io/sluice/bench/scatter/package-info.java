/**
 * JMH benchmarks of scatter routing rules (derive, render, sanitise, look up).
 */
package io.sluice.bench.scatter;
