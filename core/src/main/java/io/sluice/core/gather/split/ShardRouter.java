package io.sluice.core.gather.split;

/**
 * Chooses the shard of a row among a branch's shards. Total: always returns a shard in {@code [0, shards)} (the
 * split's unmatched policy is the only place routing may yield no destination). Used by one route stage thread.
 *
 * @param <R> the row type
 */
@FunctionalInterface
public interface ShardRouter<R>
{
    /**
     * @param row    the row
     * @param shards number of shards, at least 1
     * @return the shard index
     */
    int shard(R row, int shards);

    /**
     * @param <R> row type
     * @return a router that takes shards in turn
     */
    static <R> ShardRouter<R> roundRobin()
    {
        return new ShardRouter<>()
        {
            private int next;

            @Override
            public int shard(final R row, final int shards)
            {
                final int s = next;
                next = s + 1 == shards ? 0 : s + 1;
                return s < shards ? s : 0;
            }
        };
    }
}
