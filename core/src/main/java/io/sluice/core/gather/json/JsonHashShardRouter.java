package io.sluice.core.gather.json;

import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.hash.Murmur2;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.gather.split.ShardRouter;

/**
 * Shards by the murmur2 hash of a JSON field's derived value (the same value derivation as routing), so one key
 * always lands on the same shard: {@code toPositive(murmur2(utf8)) % shards}, identical to Kafka's
 * {@code BuiltInPartitioner.partitionForKey}. A record without the value takes shards in turn (the router is total).
 * Used by one route stage thread.
 */
public final class JsonHashShardRouter implements ShardRouter<JsonRecord>
{
    private final JsonRecord.Scope scope;
    private final int field;
    private final JsonValueView view = new JsonValueView();
    private UnsafeBuffer text = new UnsafeBuffer(new byte[256]);
    private final ShardRouter<JsonRecord> fallback = ShardRouter.roundRobin();

    /**
     * @param scope the branch's scope
     * @param path  the shard key's JSON path
     */
    public JsonHashShardRouter(final JsonRecord.Scope scope, final String path)
    {
        this.scope = scope;
        this.field = scope.field(path);
    }

    @Override
    public int shard(final JsonRecord row, final int shards)
    {
        if (shards == 1)
        {
            return 0;
        }
        scope.value(field, view);
        if (view.length() > text.capacity())
        {
            text = new UnsafeBuffer(new byte[Math.max(view.length(), text.capacity() * 2)]);
        }
        final int n = RoutingValues.derive(view, text, 0);
        if (n < 0)
        {
            return fallback.shard(row, shards);
        }
        return Murmur2.bucket(Murmur2.hash(text, 0, n), shards);
    }
}
