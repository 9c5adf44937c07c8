/**
 * The contracts of scatter, the lowest of its three rooms: what a driver must provide
 * ({@link io.sluice.core.scatter.ScatterDriver}: a {@link io.sluice.core.scatter.TopicAdmin} and a
 * {@link io.sluice.core.scatter.TopicProducer}), what an embedding application hears back
 * ({@link io.sluice.core.scatter.DeliveryListener}), the pipeline's counters
 * ({@link io.sluice.core.scatter.ScatterStats}) and its exception. The pipeline itself is in {@code internal}; the
 * host application's entry point is {@code embedded}. Nothing here imports either, nor anything of gather.
 */
package io.sluice.core.scatter;
