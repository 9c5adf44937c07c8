package io.sluice.core.gather.split;

import java.util.List;
import java.util.Map;

import com.google.re2j.Pattern;

import io.sluice.core.config.ConfigDefaults;
import io.sluice.core.config.DeadLetterConfig;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.gather.sink.SinkSpec;

/**
 * Everything one gather pipeline runs: what it consumes (topics or a pattern, in a consumer group), how a record
 * becomes a view ({@code decoder}), the {@link Split} that sends each view to a branch, the sinks the branches name,
 * and the record error policy. Built from a {@code [[sinks]]} table by {@code TomlGather}, or by an embedding
 * application, by name:
 *
 * <pre>{@code
 * GatherSpec<JsonRecord> spec = new GatherSpec<JsonRecord>().name("s1").groupId("my-group")
 *     .topics(List.of("events")).decoder(record).split(split).sinks(sinks).onError(ErrorPolicy.FAIL).conclude();
 * }</pre>
 *
 * <p>Every field starts at the default of its {@code [[sinks]]} key ({@link ConfigDefaults}): auto_offset_reset
 * earliest, topic_refresh_ms 2000, on_error fail, tombstones skip, no dead-letter topic. {@link #conclude()} checks
 * the whole (a classifier and at least one branch are set, every branch names an installed sink, a dead_letter policy
 * has a dead-letter topic) and copies the collections; call it once, before the spec is handed to the pipeline.
 *
 * <p>Thread-safety: built and concluded on one thread; after {@link #conclude()} it is read-only and may be read from
 * any thread that received it through a safe publication (the pipeline's constructor).
 *
 * @param <T> view type
 */
public final class GatherSpec<T>
{
    private String name;
    private String groupId;
    private Pattern pattern;
    private List<String> topics = List.of();
    private String autoOffsetReset = ConfigDefaults.AUTO_OFFSET_RESET;
    private long topicRefreshMs = ConfigDefaults.TOPIC_REFRESH_MS;
    private RecordDecoder<T> decoder;
    private Split<T> split;
    private Map<String, SinkSpec> sinks = Map.of();
    private ErrorPolicy onError = ConfigDefaults.ON_ERROR;
    private DeadLetterConfig deadLetter;
    private ErrorPolicy tombstones = ConfigDefaults.TOMBSTONES;
    private boolean concluded;

    /**
     * Checks that a classifier and a branch are set, that every branch names an installed sink and that a
     * dead_letter policy has a dead-letter topic; copies topics and sinks. Call once, after the last setter.
     *
     * @return this spec
     * @throws IllegalArgumentException when a branch names a sink that is not installed, or no classifier or no branch is set
     * @throws IllegalStateException    when called twice
     */
    public GatherSpec<T> conclude()
    {
        if (concluded)
        {
            throw new IllegalStateException("pipeline " + name + ": the spec is already concluded");
        }
        if (name == null || name.isBlank())
        {
            throw new IllegalArgumentException("pipeline: the spec has no name (sinks[].name)");
        }
        if (decoder == null || split == null)
        {
            throw new IllegalArgumentException("pipeline " + name + ": the spec has no " + (decoder == null
                ? "decoder"
                : "split"));
        }
        if (split.classifier() == null)
        {
            throw new IllegalArgumentException("pipeline " + name + ": the split has no classifier (call route)");
        }
        for (final Split.Branch<?> b : split.branches())
        {
            if (!sinks.containsKey(b.sink()))
            {
                throw new IllegalArgumentException(
                    "pipeline " + name + ": branch " + b.name() + " names sink \"" + b.sink()
                        + "\" which is not installed (sinks: " + sinks.keySet() + ")");
            }
        }
        if (split.branches().isEmpty())
        {
            throw new IllegalArgumentException("pipeline " + name + ": the split has no branches");
        }
        if (deadLetter == null && (onError == ErrorPolicy.DEAD_LETTER || split.unmatched() == ErrorPolicy.DEAD_LETTER
            || tombstones == ErrorPolicy.DEAD_LETTER))
        {
            throw new IllegalArgumentException("pipeline " + name + ": a dead_letter policy needs a dead-letter topic");
        }
        topics = List.copyOf(topics);
        sinks = Map.copyOf(sinks);
        concluded = true;
        return this;
    }

    /** @return whether {@link #conclude()} has run */
    public boolean concluded()
    {
        return concluded;
    }

    /**
     * @param name pipeline name (logs, metrics, thread names)
     * @return this spec
     */
    public GatherSpec<T> name(final String name)
    {
        checkOpen();
        this.name = name;
        return this;
    }

    /** @return pipeline name */
    public String name()
    {
        return name;
    }

    /**
     * @param groupId Kafka consumer group
     * @return this spec
     */
    public GatherSpec<T> groupId(final String groupId)
    {
        checkOpen();
        this.groupId = groupId;
        return this;
    }

    /** @return Kafka consumer group */
    public String groupId()
    {
        return groupId;
    }

    /**
     * @param pattern topic pattern (RE2/J, matched against whole topic names: {@code UserRegex}), or {@code null} when
     *                {@code topics} is given
     * @return this spec
     */
    public GatherSpec<T> pattern(final Pattern pattern)
    {
        checkOpen();
        this.pattern = pattern;
        return this;
    }

    /** @return topic pattern, or {@code null} */
    public Pattern pattern()
    {
        return pattern;
    }

    /**
     * @param topics literal topics (empty when a pattern is given)
     * @return this spec
     */
    public GatherSpec<T> topics(final List<String> topics)
    {
        checkOpen();
        this.topics = topics;
        return this;
    }

    /** @return literal topics */
    public List<String> topics()
    {
        return topics;
    }

    /**
     * @param autoOffsetReset {@code earliest} or {@code latest} (default earliest)
     * @return this spec
     */
    public GatherSpec<T> autoOffsetReset(final String autoOffsetReset)
    {
        checkOpen();
        this.autoOffsetReset = autoOffsetReset;
        return this;
    }

    /** @return {@code earliest} or {@code latest} */
    public String autoOffsetReset()
    {
        return autoOffsetReset;
    }

    /**
     * @param topicRefreshMs how often the pattern is re-evaluated, ms (default 2000)
     * @return this spec
     */
    public GatherSpec<T> topicRefreshMs(final long topicRefreshMs)
    {
        checkOpen();
        this.topicRefreshMs = topicRefreshMs;
        return this;
    }

    /** @return how often the pattern is re-evaluated, ms */
    public long topicRefreshMs()
    {
        return topicRefreshMs;
    }

    /**
     * @param decoder record → view
     * @return this spec
     */
    public GatherSpec<T> decoder(final RecordDecoder<T> decoder)
    {
        checkOpen();
        this.decoder = decoder;
        return this;
    }

    /** @return record → view */
    public RecordDecoder<T> decoder()
    {
        return decoder;
    }

    /**
     * @param split the split
     * @return this spec
     */
    public GatherSpec<T> split(final Split<T> split)
    {
        checkOpen();
        this.split = split;
        return this;
    }

    /** @return the split */
    public Split<T> split()
    {
        return split;
    }

    /**
     * @param sinks sinks by name
     * @return this spec
     */
    public GatherSpec<T> sinks(final Map<String, SinkSpec> sinks)
    {
        checkOpen();
        this.sinks = sinks;
        return this;
    }

    /** @return sinks by name */
    public Map<String, SinkSpec> sinks()
    {
        return sinks;
    }

    /**
     * @param onError what happens to a record that cannot be decoded or encoded (default fail)
     * @return this spec
     */
    public GatherSpec<T> onError(final ErrorPolicy onError)
    {
        checkOpen();
        this.onError = onError;
        return this;
    }

    /** @return what happens to a record that cannot be decoded or encoded */
    public ErrorPolicy onError()
    {
        return onError;
    }

    /**
     * @param deadLetter where a {@code dead_letter} policy (unmatched or on_error) sends records, or {@code null}
     * @return this spec
     */
    public GatherSpec<T> deadLetter(final DeadLetterConfig deadLetter)
    {
        checkOpen();
        this.deadLetter = deadLetter;
        return this;
    }

    /** @return the dead-letter topic's configuration, or {@code null} */
    public DeadLetterConfig deadLetter()
    {
        return deadLetter;
    }

    /**
     * @param tombstones what happens to a record whose Kafka value is null ({@code tombstones}, default skip): never a
     *                   row; {@link ErrorPolicy#SKIP} counts it as dropped (reason {@code tombstone})
     * @return this spec
     */
    public GatherSpec<T> tombstones(final ErrorPolicy tombstones)
    {
        checkOpen();
        this.tombstones = tombstones;
        return this;
    }

    /** @return what happens to a record whose Kafka value is null */
    public ErrorPolicy tombstones()
    {
        return tombstones;
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException("pipeline " + name + ": the spec is concluded (read-only)");
        }
    }
}
