/**
 * The gather stages: {@link io.sluice.core.gather.GatherPipeline} wires a Kafka source, the ingest ring, the route
 * stage ({@link io.sluice.core.gather.RouteStage}: decode, classify, resolve the destination, shard, encode), the
 * {@link io.sluice.core.gather.Sealer} (open batches per branch, destination and shard, sealed on {@code max_rows},
 * {@code max_bytes}, {@code linger_ms}, pool exhaustion or flush) and the insert workers
 * ({@link io.sluice.core.gather.InsertWorker}, per shard, with retry and a {@link io.sluice.core.gather.CircuitBreaker}).
 * Destinations come from the sink's templates ({@link io.sluice.core.gather.DestinationResolver}); a sink is reached
 * through the {@link io.sluice.core.gather.SinkDriver} and {@link io.sluice.core.gather.BatchWriter} contracts.
 *
 * <p>Sub-packages, bottom to top: {@code sink} (what a sink is), {@code split} (the split model), {@code batch}
 * (sealed batches), {@code json} (the JSON form of the split).
 */
package io.sluice.core.gather;
