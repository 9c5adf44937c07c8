package io.sluice.core.gather.sink;

import java.util.List;

import io.sluice.core.config.SinkConnection;

/**
 * A sink installed under a name: where its rows go (shards of its database's endpoints, database and table, each
 * a literal or a template over the topic) and how it connects, creates tables and retries ({@code connection}: the
 * kind's own object behind the neutral {@link SinkConnection}; only the kind's driver reads the rest of it). Branches of a
 * split refer to sinks by name. Immutable.
 *
 * @param name        name branches refer to
 * @param connection  endpoints, credentials, identifier policy, table creation, retry and breaker settings
 * @param shards      one endpoint list (replicas) per shard, at least one shard
 * @param database    database, literal or template
 * @param targetTable table, literal or template
 */
public record SinkSpec(String name, SinkConnection connection, List<List<String>> shards, String database,
    String targetTable)
{
    /**
     * Copies the shard lists and checks there is at least one.
     *
     * @param name        name branches refer to
     * @param connection  endpoints, credentials, identifier policy, table creation, retry and breaker settings
     * @param shards      one endpoint list (replicas) per shard, at least one shard
     * @param database    database, literal or template
     * @param targetTable table, literal or template
     * @throws IllegalArgumentException when there is no shard or a shard has no endpoint
     */
    public SinkSpec
    {
        shards = shards.stream().map(List::copyOf).toList();
        if (shards.isEmpty() || shards.stream().anyMatch(List::isEmpty))
        {
            throw new IllegalArgumentException("sink " + name + ": every shard needs at least one endpoint");
        }
    }
}
