package io.sluice.core.config;

/**
 * The defaults of the configuration keys that the pipeline stages' Context objects start from, read from
 * {@link ConfigSchema} (the one place a default is written), so that an embedder who builds a stage without a TOML
 * file gets the same values as the loader. Constants; any thread.
 */
public final class ConfigDefaults
{
    /** {@code checkpoint.commit_interval_ms}. */
    public static final long COMMIT_INTERVAL_MS = longOf(ConfigSchema.CHECKPOINT_COMMIT_INTERVAL_MS);
    /** {@code checkpoint.stalled_fail_after_ms}. */
    public static final long STALLED_FAIL_AFTER_MS = longOf(ConfigSchema.CHECKPOINT_STALLED_FAIL_AFTER_MS);
    /** {@code checkpoint.drain_timeout_ms}. */
    public static final long DRAIN_TIMEOUT_MS = longOf(ConfigSchema.CHECKPOINT_DRAIN_TIMEOUT_MS);
    /** {@code engine.max_record_bytes}. */
    public static final int MAX_RECORD_BYTES = (int)longOf(ConfigSchema.ENGINE_MAX_RECORD_BYTES);
    /** {@code engine.ack_window}. */
    public static final int ACK_WINDOW = (int)longOf(ConfigSchema.ENGINE_ACK_WINDOW);
    /** {@code engine.status_interval_ms}. */
    public static final long STATUS_INTERVAL_MS = longOf(ConfigSchema.ENGINE_STATUS_INTERVAL_MS);
    /** {@code sinks[].auto_offset_reset} (also {@code sources[].auto_offset_reset}). */
    public static final String AUTO_OFFSET_RESET = ConfigSchema.SINK_AUTO_OFFSET_RESET.defaultValue();
    /** {@code sinks[].topic_refresh_ms} (also {@code sources[].topic_refresh_ms}). */
    public static final long TOPIC_REFRESH_MS = longOf(ConfigSchema.SINK_TOPIC_REFRESH_MS);
    /** {@code sinks[].on_error}. */
    public static final ErrorPolicy ON_ERROR = ErrorPolicy.parse(ConfigSchema.SINK_ON_ERROR.defaultValue());
    /** {@code sinks[].tombstones}. */
    public static final ErrorPolicy TOMBSTONES = ErrorPolicy.parse(ConfigSchema.SINK_TOMBSTONES.defaultValue());
    /** {@code sources[].retry_backoff_ms}. */
    public static final long SOURCE_RETRY_BACKOFF_MS = longOf(ConfigSchema.SRC_RETRY_BACKOFF_MS);
    /** {@code sources[].retry_backoff_max_ms}. */
    public static final long SOURCE_RETRY_BACKOFF_MAX_MS = longOf(ConfigSchema.SRC_RETRY_BACKOFF_MAX_MS);
    /** {@code sources[].replay_buffer_bytes}. */
    public static final long REPLAY_BUFFER_BYTES = longOf(ConfigSchema.SRC_REPLAY_BUFFER_BYTES);

    private ConfigDefaults()
    {
    }

    private static long longOf(final ConfigKey key)
    {
        return Long.parseLong(key.defaultValue());
    }
}
