package io.sluice.core.source;

import java.nio.file.Path;

import io.sluice.core.config.ConfigDefaults;
import io.sluice.core.config.ConfigException;

/**
 * The settings of a {@link LineSource} (a file or stdin), set by name
 * ({@code new LineSourceContext().name("users").displayName("stdin")}). Every field starts at the default of its
 * configuration key ({@link ConfigDefaults}); {@link #conclude()} checks every value, naming its key, and derives the
 * size of the replay log, and is called once before the context is handed to the source.
 *
 * <p>Thread-safety: built and concluded on one thread; after {@link #conclude()} it is read-only and may be read from
 * any thread that received it through a safe publication (the source's constructor, the start of its thread).
 */
public final class LineSourceContext
{
    private String configPath = "source";
    private String name;
    private String displayName;
    private int maxRecordBytes = ConfigDefaults.MAX_RECORD_BYTES;
    private long replayBufferBytes = ConfigDefaults.REPLAY_BUFFER_BYTES;
    private int replayBytes;
    private int ackWindow = ConfigDefaults.ACK_WINDOW;
    private long stalledFailAfterMs = ConfigDefaults.STALLED_FAIL_AFTER_MS;
    private long statusIntervalMs = ConfigDefaults.COMMIT_INTERVAL_MS;
    private long backoffMs = ConfigDefaults.SOURCE_RETRY_BACKOFF_MS;
    private long backoffMaxMs = ConfigDefaults.SOURCE_RETRY_BACKOFF_MAX_MS;
    private long drainTimeoutMs = ConfigDefaults.DRAIN_TIMEOUT_MS;
    private Path checkpointFile;
    private boolean concluded;

    /**
     * Checks every value and derives {@link #replayBytes()}: {@code replay_buffer_bytes}, raised so that it holds
     * two records of {@code engine.max_record_bytes}, at most what an int holds. Call once, after the last setter.
     *
     * @return this context
     * @throws ConfigException naming the key of the first value that cannot be used
     * @throws IllegalStateException when called twice
     */
    public LineSourceContext conclude()
    {
        if (concluded)
        {
            throw new IllegalStateException("LineSourceContext of " + name + " already concluded");
        }
        ContextChecks.requireText(configPath, "name", name);
        ContextChecks.requireText(configPath, "path", displayName);
        ContextChecks.requirePositive(configPath, "engine.max_record_bytes", maxRecordBytes);
        ContextChecks.requirePositive(configPath, "replay_buffer_bytes", replayBufferBytes);
        ContextChecks.requirePositive(configPath, "engine.ack_window", ackWindow);
        ContextChecks.requirePositive(configPath, "checkpoint.stalled_fail_after_ms", stalledFailAfterMs);
        ContextChecks.requirePositive(configPath, "checkpoint.commit_interval_ms", statusIntervalMs);
        ContextChecks.requirePositive(configPath, "retry_backoff_ms", backoffMs);
        ContextChecks.requirePositive(configPath, "retry_backoff_max_ms", backoffMaxMs);
        if (drainTimeoutMs < 0)
        {
            throw ContextChecks.problem(configPath, "checkpoint.drain_timeout_ms",
                "must be >= 0, was " + drainTimeoutMs);
        }
        final long replay = Math.max(replayBufferBytes, 2L * ReplayLog.recordSize(maxRecordBytes) + 64);
        replayBytes = (int)Math.min(Integer.MAX_VALUE - 64, replay);
        concluded = true;
        return this;
    }

    /** @return whether {@link #conclude()} has run */
    public boolean concluded()
    {
        return concluded;
    }

    /**
     * @param configPath where this source's keys live in the configuration, for messages, e.g. {@code sources[users]}
     * @return this context
     */
    public LineSourceContext configPath(final String configPath)
    {
        checkOpen();
        this.configPath = configPath;
        return this;
    }

    /** @return where this source's keys live in the configuration */
    public String configPath()
    {
        return configPath;
    }

    /**
     * @param name the source's name, for logs
     * @return this context
     */
    public LineSourceContext name(final String name)
    {
        checkOpen();
        this.name = name;
        return this;
    }

    /** @return the source's name */
    public String name()
    {
        return name;
    }

    /**
     * @param displayName what the input is, e.g. {@code file events.jsonl} or {@code stdin}
     * @return this context
     */
    public LineSourceContext displayName(final String displayName)
    {
        checkOpen();
        this.displayName = displayName;
        return this;
    }

    /** @return what the input is */
    public String displayName()
    {
        return displayName;
    }

    /**
     * @param maxRecordBytes {@code engine.max_record_bytes}: the longest line kept, bytes (default 8 MiB)
     * @return this context
     */
    public LineSourceContext maxRecordBytes(final int maxRecordBytes)
    {
        checkOpen();
        this.maxRecordBytes = maxRecordBytes;
        return this;
    }

    /** @return the longest line kept, bytes */
    public int maxRecordBytes()
    {
        return maxRecordBytes;
    }

    /**
     * @param replayBufferBytes {@code replay_buffer_bytes}: the replay log asked for, bytes (default 64 MiB);
     *                          {@link #conclude()} raises it to hold two of the longest records
     * @return this context
     */
    public LineSourceContext replayBufferBytes(final long replayBufferBytes)
    {
        checkOpen();
        this.replayBufferBytes = replayBufferBytes;
        return this;
    }

    /** @return {@code replay_buffer_bytes} as set */
    public long replayBufferBytes()
    {
        return replayBufferBytes;
    }

    /** @return bytes of the replay log, derived by {@link #conclude()} (0 before) */
    public int replayBytes()
    {
        return replayBytes;
    }

    /**
     * @param ackWindow {@code engine.ack_window}: lines that may be in flight (a power of two)
     * @return this context
     */
    public LineSourceContext ackWindow(final int ackWindow)
    {
        checkOpen();
        this.ackWindow = ackWindow;
        return this;
    }

    /** @return lines that may be in flight */
    public int ackWindow()
    {
        return ackWindow;
    }

    /**
     * @param stalledFailAfterMs {@code checkpoint.stalled_fail_after_ms} (default 300000)
     * @return this context
     */
    public LineSourceContext stalledFailAfterMs(final long stalledFailAfterMs)
    {
        checkOpen();
        this.stalledFailAfterMs = stalledFailAfterMs;
        return this;
    }

    /** @return {@code checkpoint.stalled_fail_after_ms} */
    public long stalledFailAfterMs()
    {
        return stalledFailAfterMs;
    }

    /**
     * @param statusIntervalMs how often progress is checked, stalls detected and the checkpoint file written, ms
     *                         ({@code checkpoint.commit_interval_ms}, default 1000)
     * @return this context
     */
    public LineSourceContext statusIntervalMs(final long statusIntervalMs)
    {
        checkOpen();
        this.statusIntervalMs = statusIntervalMs;
        return this;
    }

    /** @return how often progress is checked, ms */
    public long statusIntervalMs()
    {
        return statusIntervalMs;
    }

    /**
     * @param backoffMs {@code retry_backoff_ms}: first wait before a replay, ms (default 200)
     * @return this context
     */
    public LineSourceContext backoffMs(final long backoffMs)
    {
        checkOpen();
        this.backoffMs = backoffMs;
        return this;
    }

    /** @return first wait before a replay, ms */
    public long backoffMs()
    {
        return backoffMs;
    }

    /**
     * @param backoffMaxMs {@code retry_backoff_max_ms}: longest wait before a replay, ms (default 5000)
     * @return this context
     */
    public LineSourceContext backoffMaxMs(final long backoffMaxMs)
    {
        checkOpen();
        this.backoffMaxMs = backoffMaxMs;
        return this;
    }

    /** @return longest wait before a replay, ms */
    public long backoffMaxMs()
    {
        return backoffMaxMs;
    }

    /**
     * @param drainTimeoutMs {@code checkpoint.drain_timeout_ms} (default 30000)
     * @return this context
     */
    public LineSourceContext drainTimeoutMs(final long drainTimeoutMs)
    {
        checkOpen();
        this.drainTimeoutMs = drainTimeoutMs;
        return this;
    }

    /** @return {@code checkpoint.drain_timeout_ms} */
    public long drainTimeoutMs()
    {
        return drainTimeoutMs;
    }

    /**
     * @param checkpointFile {@code checkpoint_file}: where the position is kept between runs, or null (default: every
     *                       run starts at line 1)
     * @return this context
     */
    public LineSourceContext checkpointFile(final Path checkpointFile)
    {
        checkOpen();
        this.checkpointFile = checkpointFile;
        return this;
    }

    /** @return {@code checkpoint_file}, or null */
    public Path checkpointFile()
    {
        return checkpointFile;
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException("LineSourceContext of " + name + " is concluded (read-only)");
        }
    }
}
