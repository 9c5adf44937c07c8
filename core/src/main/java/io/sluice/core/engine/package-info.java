/**
 * The top layer: {@link io.sluice.core.engine.SluiceEngine} builds and runs the pipelines of a configuration
 * (gather and scatter), watches them, and decides the exit code; {@link io.sluice.core.engine.MetricsEndpoint}
 * serves the Prometheus series ({@link io.sluice.core.engine.EngineMetrics}, listed in docs/metrics.md) and the
 * {@code /live} and {@code /ready} probes ({@link io.sluice.core.engine.Health});
 * {@link io.sluice.core.engine.ProcessMeter} measures CPU, GC and allocation for the benchmarks. The only package of
 * core that sees both gather and scatter.
 */
package io.sluice.core.engine;
