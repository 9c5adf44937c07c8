/**
 * The scatter pipeline: {@link io.sluice.core.scatter.internal.ScatterPipeline} wires a source, the ring, the route
 * stage ({@link io.sluice.core.scatter.internal.ScatterRouteStage}: evaluates the routing rule of
 * {@link io.sluice.core.scatter.internal.TopicRouter} without allocating and looks the topic up by its bytes in a
 * {@link io.sluice.core.scatter.internal.TopicTable}), the produce stage
 * ({@link io.sluice.core.scatter.internal.ProduceStage}), and the admin thread that creates topics on first use
 * ({@link io.sluice.core.scatter.internal.TopicProvisioner}, at most {@code max_new_topics_per_minute}).
 *
 * <p>Internal: public only so that the engine and the embedded API can build it; its shape may change. One thread per
 * stage; the classes say which thread calls what.
 */
package io.sluice.core.scatter.internal;
