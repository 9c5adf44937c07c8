package io.sluice.core.source;

import java.util.List;
import java.util.Map;

import com.google.re2j.Pattern;

import io.sluice.core.config.ConfigDefaults;
import io.sluice.core.config.ConfigException;

/**
 * The settings of a {@link KafkaSource}, set by name ({@code new KafkaSourceContext().name("events").groupId("g")}).
 * Every field starts at the default of its configuration key ({@link ConfigDefaults}); {@link #conclude()} checks
 * every value, naming its key, and is called once before the context is handed to the source.
 *
 * <p>Thread-safety: built and concluded on one thread; after {@link #conclude()} it is read-only and may be read from
 * any thread that received it through a safe publication (the source's constructor, the start of its thread).
 */
public final class KafkaSourceContext
{
    /** The default wait of one consumer poll, ms. */
    public static final long DEFAULT_POLL_TIMEOUT_MS = 100;

    private String configPath = "source";
    private String name;
    private String bootstrapServers;
    private String groupId;
    private Pattern pattern;
    private List<String> topics = List.of();
    private String autoOffsetReset = ConfigDefaults.AUTO_OFFSET_RESET;
    private long topicRefreshMs = ConfigDefaults.TOPIC_REFRESH_MS;
    private Map<String, String> consumerProperties = Map.of();
    private long commitIntervalMs = ConfigDefaults.COMMIT_INTERVAL_MS;
    private long stalledFailAfterMs = ConfigDefaults.STALLED_FAIL_AFTER_MS;
    private long drainTimeoutMs = ConfigDefaults.DRAIN_TIMEOUT_MS;
    private int maxRecordBytes = ConfigDefaults.MAX_RECORD_BYTES;
    private boolean copyKeyAndHeaders;
    private boolean untilCaughtUp;
    private long pollTimeoutMs = DEFAULT_POLL_TIMEOUT_MS;
    private boolean concluded;

    /**
     * Checks every value and makes the collections immutable. Call once, after the last setter.
     *
     * @return this context
     * @throws ConfigException naming the key of the first value that cannot be used
     * @throws IllegalStateException when called twice
     */
    public KafkaSourceContext conclude()
    {
        if (concluded)
        {
            throw new IllegalStateException("KafkaSourceContext of " + name + " already concluded");
        }
        ContextChecks.requireText(configPath, "name", name);
        ContextChecks.requireText(configPath, "kafka.bootstrap_servers", bootstrapServers);
        ContextChecks.requireText(configPath, "group_id", groupId);
        // Kafka's own values (none, by_duration:...) are the consumer's to check; the loader allows earliest, latest
        ContextChecks.requireText(configPath, "auto_offset_reset", autoOffsetReset);
        ContextChecks.requirePositive(configPath, "topic_refresh_ms", topicRefreshMs);
        ContextChecks.requirePositive(configPath, "checkpoint.commit_interval_ms", commitIntervalMs);
        ContextChecks.requirePositive(configPath, "checkpoint.stalled_fail_after_ms", stalledFailAfterMs);
        if (drainTimeoutMs < 0)
        {
            throw ContextChecks.problem(configPath, "checkpoint.drain_timeout_ms",
                "must be >= 0, was " + drainTimeoutMs);
        }
        ContextChecks.requirePositive(configPath, "engine.max_record_bytes", maxRecordBytes);
        ContextChecks.requirePositive(configPath, "poll_timeout_ms", pollTimeoutMs);
        topics = topics == null ? List.of() : List.copyOf(topics);
        consumerProperties = consumerProperties == null ? Map.of() : Map.copyOf(consumerProperties);
        concluded = true;
        return this;
    }

    /** @return whether {@link #conclude()} has run */
    public boolean concluded()
    {
        return concluded;
    }

    /**
     * @param configPath where this source's keys live in the configuration, for messages, e.g. {@code sinks[events]}
     * @return this context
     */
    public KafkaSourceContext configPath(final String configPath)
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
     * @param name the pipeline's name, for logs, the thread and the consumer's client id
     * @return this context
     */
    public KafkaSourceContext name(final String name)
    {
        checkOpen();
        this.name = name;
        return this;
    }

    /** @return the pipeline's name */
    public String name()
    {
        return name;
    }

    /**
     * @param bootstrapServers {@code kafka.bootstrap_servers}
     * @return this context
     */
    public KafkaSourceContext bootstrapServers(final String bootstrapServers)
    {
        checkOpen();
        this.bootstrapServers = bootstrapServers;
        return this;
    }

    /** @return {@code kafka.bootstrap_servers} */
    public String bootstrapServers()
    {
        return bootstrapServers;
    }

    /**
     * @param groupId {@code group_id}: the consumer group
     * @return this context
     */
    public KafkaSourceContext groupId(final String groupId)
    {
        checkOpen();
        this.groupId = groupId;
        return this;
    }

    /** @return {@code group_id} */
    public String groupId()
    {
        return groupId;
    }

    /**
     * @param pattern {@code pattern}: the topics to follow, or null when {@link #topics(List)} names them
     * @return this context
     */
    public KafkaSourceContext pattern(final Pattern pattern)
    {
        checkOpen();
        this.pattern = pattern;
        return this;
    }

    /** @return {@code pattern}, or null */
    public Pattern pattern()
    {
        return pattern;
    }

    /**
     * @param topics literal topic names to consume (empty when a pattern is given)
     * @return this context
     */
    public KafkaSourceContext topics(final List<String> topics)
    {
        checkOpen();
        this.topics = topics;
        return this;
    }

    /** @return the literal topic names, possibly empty */
    public List<String> topics()
    {
        return topics;
    }

    /**
     * @param autoOffsetReset {@code auto_offset_reset}: earliest or latest (default earliest)
     * @return this context
     */
    public KafkaSourceContext autoOffsetReset(final String autoOffsetReset)
    {
        checkOpen();
        this.autoOffsetReset = autoOffsetReset;
        return this;
    }

    /** @return {@code auto_offset_reset} */
    public String autoOffsetReset()
    {
        return autoOffsetReset;
    }

    /**
     * @param topicRefreshMs {@code topic_refresh_ms}: the longest a new matching topic waits, ms (default 2000)
     * @return this context
     */
    public KafkaSourceContext topicRefreshMs(final long topicRefreshMs)
    {
        checkOpen();
        this.topicRefreshMs = topicRefreshMs;
        return this;
    }

    /** @return {@code topic_refresh_ms} */
    public long topicRefreshMs()
    {
        return topicRefreshMs;
    }

    /**
     * @param consumerProperties the user's KafkaConsumer properties ({@code kafka.consumer}, with security and
     *                           isolation level); Sluice's own keys override them
     * @return this context
     */
    public KafkaSourceContext consumerProperties(final Map<String, String> consumerProperties)
    {
        checkOpen();
        this.consumerProperties = consumerProperties;
        return this;
    }

    /** @return the user's consumer properties */
    public Map<String, String> consumerProperties()
    {
        return consumerProperties;
    }

    /**
     * @param commitIntervalMs {@code checkpoint.commit_interval_ms} (default 1000)
     * @return this context
     */
    public KafkaSourceContext commitIntervalMs(final long commitIntervalMs)
    {
        checkOpen();
        this.commitIntervalMs = commitIntervalMs;
        return this;
    }

    /** @return {@code checkpoint.commit_interval_ms} */
    public long commitIntervalMs()
    {
        return commitIntervalMs;
    }

    /**
     * @param stalledFailAfterMs {@code checkpoint.stalled_fail_after_ms} (default 300000)
     * @return this context
     */
    public KafkaSourceContext stalledFailAfterMs(final long stalledFailAfterMs)
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
     * @param drainTimeoutMs {@code checkpoint.drain_timeout_ms} (default 30000)
     * @return this context
     */
    public KafkaSourceContext drainTimeoutMs(final long drainTimeoutMs)
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
     * @param maxRecordBytes {@code engine.max_record_bytes}: the largest record accepted (default 8 MiB)
     * @return this context
     */
    public KafkaSourceContext maxRecordBytes(final int maxRecordBytes)
    {
        checkOpen();
        this.maxRecordBytes = maxRecordBytes;
        return this;
    }

    /** @return {@code engine.max_record_bytes} */
    public int maxRecordBytes()
    {
        return maxRecordBytes;
    }

    /**
     * @param copyKeyAndHeaders whether each record's key and headers are copied into its slot from the start
     *                          (default false: values only, until {@link KafkaSource#copyKeysAndHeaders()})
     * @return this context
     */
    public KafkaSourceContext copyKeyAndHeaders(final boolean copyKeyAndHeaders)
    {
        checkOpen();
        this.copyKeyAndHeaders = copyKeyAndHeaders;
        return this;
    }

    /** @return whether keys and headers are copied from the start */
    public boolean copyKeyAndHeaders()
    {
        return copyKeyAndHeaders;
    }

    /**
     * @param untilCaughtUp whether the run ends once every assigned partition is committed up to its end (default
     *                      false); once every record up to the end offsets is read, the open batches are sealed at
     *                      once instead of after linger_ms
     * @return this context
     */
    public KafkaSourceContext untilCaughtUp(final boolean untilCaughtUp)
    {
        checkOpen();
        this.untilCaughtUp = untilCaughtUp;
        return this;
    }

    /** @return whether the run ends once caught up */
    public boolean untilCaughtUp()
    {
        return untilCaughtUp;
    }

    /**
     * @param pollTimeoutMs the longest one consumer poll waits, ms (default {@value #DEFAULT_POLL_TIMEOUT_MS})
     * @return this context
     */
    public KafkaSourceContext pollTimeoutMs(final long pollTimeoutMs)
    {
        checkOpen();
        this.pollTimeoutMs = pollTimeoutMs;
        return this;
    }

    /** @return the longest one consumer poll waits, ms */
    public long pollTimeoutMs()
    {
        return pollTimeoutMs;
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException("KafkaSourceContext of " + name + " is concluded (read-only)");
        }
    }
}
