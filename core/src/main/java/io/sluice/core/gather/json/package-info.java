/**
 * The JSON form of the split, as the TOML configuration builds it: {@link io.sluice.core.gather.json.JsonRecord}
 * (a view over one record, scanned once for the paths every reader needs, registered in a
 * {@link io.sluice.core.gather.json.PathRegistry}), the {@code when} conditions
 * ({@link io.sluice.core.gather.json.Classifier}), what a kind's row encoders are given
 * ({@link io.sluice.core.gather.json.JsonEncoding}: the branch's columns and paths; the column-to-path rules of
 * {@link io.sluice.core.gather.json.ColumnMappings}; the Kafka metadata values of
 * {@link io.sluice.core.gather.json.MetadataColumn}; {@code unknown_fields = "fail"} as
 * {@link io.sluice.core.gather.json.KnownFields}), the {@code shard_by} router
 * ({@link io.sluice.core.gather.json.JsonHashShardRouter}) and {@link io.sluice.core.gather.json.TomlGather}, which
 * builds a {@link io.sluice.core.gather.split.GatherSpec} from a sink's TOML. Route-stage thread only, zero
 * allocation per record.
 */
package io.sluice.core.gather.json;
