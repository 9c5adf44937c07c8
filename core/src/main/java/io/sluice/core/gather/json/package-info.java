/**
 * The JSON form of the split, as the TOML configuration builds it: {@link io.sluice.core.gather.json.JsonRecord}
 * (a view over one record, scanned once for the paths every reader needs, registered in a
 * {@link io.sluice.core.gather.json.PathRegistry}), the {@code when} conditions
 * ({@link io.sluice.core.gather.json.Classifier}), the encoder that fills columns from JSON paths
 * ({@link io.sluice.core.gather.json.JsonRowEncoder}), the {@code shard_by} router
 * ({@link io.sluice.core.gather.json.JsonHashShardRouter}) and {@link io.sluice.core.gather.json.TomlGather}, which
 * builds a {@link io.sluice.core.gather.split.GatherSpec} from a sink's TOML. Route-stage thread only, zero
 * allocation per record.
 */
package io.sluice.core.gather.json;
