/**
 * The multi-sink split of seed 001, independent of the record format: a {@link io.sluice.core.gather.split.Split}
 * of typed branches, a {@link io.sluice.core.gather.split.SplitClassifier} that emits each record to one branch
 * through an {@link io.sluice.core.gather.split.Emitter} and a {@link io.sluice.core.gather.split.BranchHandle}, each
 * branch with its {@link io.sluice.core.gather.split.RowEncoder}, {@link io.sluice.core.gather.split.ShardRouter} and
 * {@link io.sluice.core.gather.split.ChunkConfig}; {@link io.sluice.core.gather.split.GatherSpec} is what an embedding
 * application builds (docs/embedding.md).
 */
package io.sluice.core.gather.split;
