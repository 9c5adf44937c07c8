package io.sluice.core.gather.split;

import java.util.List;
import java.util.Map;

import com.google.re2j.Pattern;

import io.sluice.core.config.DeadLetterConfig;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.gather.sink.SinkSpec;

/**
 * Everything one gather pipeline runs: what it consumes (topics or a pattern, in a consumer group), how a record
 * becomes a view ({@code decoder}), the {@link Split} that sends each view to a branch, the sinks the branches name,
 * and the record error policy. Built from a {@code [[sinks]]} table by {@code TomlGather}, or by an embedding
 * application. Immutable once built; construction fails with an {@link IllegalArgumentException} when a branch
 * names a sink that is not installed or no classifier is set.
 *
 * @param name            pipeline name (logs, metrics, thread names)
 * @param groupId         Kafka consumer group
 * @param pattern         topic pattern (RE2/J, matched against whole topic names: {@code UserRegex}), or {@code null}
 *                        when {@code topics} is given
 * @param topics          literal topics (empty when a pattern is given)
 * @param autoOffsetReset {@code earliest} or {@code latest}
 * @param topicRefreshMs  how often the pattern is re-evaluated, ms
 * @param decoder         record → view
 * @param split           the split
 * @param sinks           sinks by name
 * @param onError         what happens to a record that cannot be decoded or encoded
 * @param deadLetter      where a {@code dead_letter} policy (unmatched or on_error) sends records, or {@code null}
 * @param tombstones      what happens to a record whose Kafka value is null ({@code tombstones}): never a row;
 *                        {@link ErrorPolicy#SKIP} counts it as dropped (reason {@code tombstone})
 * @param <T>             view type
 */
public record GatherSpec<T>(
    String name,
    String groupId,
    Pattern pattern,
    List<String> topics,
    String autoOffsetReset,
    long topicRefreshMs,
    RecordDecoder<T> decoder,
    Split<T> split,
    Map<String, SinkSpec> sinks,
    ErrorPolicy onError,
    DeadLetterConfig deadLetter,
    ErrorPolicy tombstones)
{
    /**
     * A pipeline without a dead-letter topic that skips tombstones (the default of {@code tombstones}).
     *
     * @param name            pipeline name
     * @param groupId         Kafka consumer group
     * @param pattern         topic pattern, or {@code null}
     * @param topics          literal topics
     * @param autoOffsetReset {@code earliest} or {@code latest}
     * @param topicRefreshMs  pattern refresh, ms
     * @param decoder         record → view
     * @param split           the split
     * @param sinks           sinks by name
     * @param onError         record error policy
     */
    public GatherSpec(final String name, final String groupId, final Pattern pattern, final List<String> topics,
        final String autoOffsetReset, final long topicRefreshMs, final RecordDecoder<T> decoder, final Split<T> split,
        final Map<String, SinkSpec> sinks, final ErrorPolicy onError)
    {
        this(name, groupId, pattern, topics, autoOffsetReset, topicRefreshMs, decoder, split, sinks, onError, null,
            ErrorPolicy.SKIP);
    }

    /**
     * Checks that every branch names an installed sink and a classifier is set.
     *
     * @param name            pipeline name (logs, metrics, thread names)
     * @param groupId         Kafka consumer group
     * @param pattern         topic pattern, or {@code null} when {@code topics} is given
     * @param topics          literal topics (empty when a pattern is given)
     * @param autoOffsetReset {@code earliest} or {@code latest}
     * @param topicRefreshMs  how often the pattern is re-evaluated, ms
     * @param decoder         record → view
     * @param split           the split
     * @param sinks           sinks by name
     * @param onError         what happens to a record that cannot be decoded or encoded
     * @param deadLetter      where a {@code dead_letter} policy (unmatched or on_error) sends records, or {@code null}
     * @param tombstones      what happens to a record whose Kafka value is null
     * @throws IllegalArgumentException when a branch names a sink that is not installed, or no classifier or no branch is set
     */
    public GatherSpec
    {
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
    }
}
