package io.sluice.core.config;

import java.util.List;
import java.util.Map;

import io.sluice.core.pipeline.ErrorPolicy;

/**
 * A whole validated configuration file. Immutable; produced by {@link ConfigLoader}.
 *
 * @param kafka      [kafka]
 * @param checkpoint [checkpoint]
 * @param engine     [engine]
 * @param tuning     [tuning]
 * @param metrics    [metrics]
 * @param sinks      [[sinks]], in file order
 */
public record SluiceConfig(
    Kafka kafka,
    Checkpoint checkpoint,
    Engine engine,
    Tuning tuning,
    Metrics metrics,
    List<Sink> sinks) {

    /**
     * @param name a sink name
     * @return the sink with that name
     * @throws ConfigException when there is none
     */
    public Sink sink(final String name) {
        for (final Sink s : sinks) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new ConfigException("sinks", "no sink named \"" + name + "\" (sinks: "
            + String.join(", ", sinks.stream().map(Sink::name).toList()) + ")");
    }

    /** [kafka]: the cluster connection. Client property maps are passed to Kafka's clients verbatim. */
    public record Kafka(String bootstrapServers, Map<String, String> consumer, Map<String, String> producer,
        Map<String, String> admin) {
    }

    /** [checkpoint]: commit cadence and stall limit, in milliseconds. */
    public record Checkpoint(long commitIntervalMs, long stalledFailAfterMs, long drainTimeoutMs) {
    }

    /** [engine]: sizes of the record path. */
    public record Engine(int ringSize, int slotBytes, int maxRecordBytes, int overflowBuffers, int ackWindow,
        int queueDepth, long statusIntervalMs) {
    }

    /** [tuning]: CPUs given to the engine, default wait kind and layout (null = by CPU count), per-stage overrides. */
    public record Tuning(List<Integer> cpus, String waitKind, String layout, Map<String, Stage> stages) {
        /** One [tuning.stages.NAME] table: wait kind (null = default) and CPU (-1 = unpinned). */
        public record Stage(String waitKind, int cpu) {
        }
    }

    /** [metrics]: Prometheus endpoint ({@code host:port}, empty = off). */
    public record Metrics(String listen) {
    }

    /** One [[sinks]] gather pipeline. */
    public record Sink(
        String name,
        String kind,
        String pattern,
        List<String> topics,
        String groupId,
        ErrorPolicy unmatched,
        ErrorPolicy onError,
        String autoOffsetReset,
        long topicRefreshMs,
        ClickHouse plugin,
        List<Branch> branches) {
    }

    /**
     * [sinks.plugin_config] of a ClickHouse sink. {@code shards} is always set: the configured shards, or one shard
     * made of {@code endpoints}.
     */
    public record ClickHouse(
        List<String> endpoints,
        List<List<String>> shards,
        int insertWorkers,
        String database,
        String targetTable,
        String username,
        String password,
        int maxRows,
        long maxBytes,
        long lingerMs,
        String identifier,
        boolean createTable,
        String createTableDdl,
        String createTableLike,
        boolean nullAsDefault,
        long insertTimeoutMs,
        long retryBackoffMs,
        long retryBackoffMaxMs,
        int breakerFailures,
        long breakerOpenMs) {
    }

    /**
     * One [[sinks.branches]] (or the implicit single branch of a sink without branches), with batching defaults
     * already taken from plugin_config.
     */
    public record Branch(
        String name,
        Condition when,
        String database,
        String targetTable,
        Map<String, String> columns,
        String shardBy,
        int maxRows,
        long maxBytes,
        long lingerMs) {
    }

    /**
     * A branch condition on one JSON path. {@code values} holds the literal(s) for EQUALS, IN, PREFIX and MATCHES;
     * EXISTS uses {@code exists}. A null condition (no {@code when}) matches every record.
     */
    public record Condition(String path, Op op, List<String> values, boolean exists) {
        /** The comparison. */
        public enum Op {
            /** The derived value equals the literal. */
            EQUALS,
            /** The derived value equals one of the literals. */
            IN,
            /** The derived value starts with the literal. */
            PREFIX,
            /** The derived value matches the regular expression (whole value). */
            MATCHES,
            /** The path holds a non-null value ({@code exists = true}) or does not ({@code exists = false}). */
            EXISTS
        }
    }
}
