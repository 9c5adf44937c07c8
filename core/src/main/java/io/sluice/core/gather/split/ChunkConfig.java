package io.sluice.core.gather.split;

/**
 * Batch ("chunk") tuning of a branch: a batch of one (destination, shard) is sealed when it holds {@code maxRows}
 * rows, when its encoded rows reach {@code maxBytes} (a single larger row is sealed alone), or {@code lingerMs}
 * after its first row, whichever comes first.
 *
 * @param maxRows  rows per batch, at least 1
 * @param maxBytes encoded bytes per batch, at least 1
 * @param lingerMs longest wait after the first row, ms, at least 0
 */
public record ChunkConfig(int maxRows, long maxBytes, long lingerMs)
{
    /** The defaults of {@code [sinks.plugin_config]}: 100,000 rows, 16 MiB, 1 s. */
    public static final ChunkConfig DEFAULT = new ChunkConfig(100_000, 16L << 20, 1000);

    /**
     * Validates the ranges.
     *
     * @param maxRows  rows per batch, at least 1
     * @param maxBytes encoded bytes per batch, at least 1
     * @param lingerMs longest wait after the first row, ms, at least 0
     * @throws IllegalArgumentException when a value is out of its range
     */
    public ChunkConfig
    {
        if (maxRows < 1 || maxBytes < 1 || lingerMs < 0)
        {
            throw new IllegalArgumentException(
                "chunk config: max_rows=" + maxRows + " max_bytes=" + maxBytes + " linger_ms=" + lingerMs);
        }
    }
}
