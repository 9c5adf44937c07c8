package io.sluice.core.gather.split;

import java.util.List;
import java.util.Map;

import com.google.re2j.Pattern;

import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.gather.sink.SinkSpec;

/**
 * Everything one gather pipeline runs: what it consumes (topics or a pattern, in a consumer group), how a record
 * becomes a view ({@code decoder}), the {@link Split} that sends each view to a branch, the sinks the branches name,
 * and the record error policy. Built from a {@code [[sinks]]} table by {@code TomlGather}, or by an embedding
 * application. Immutable once built.
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
    ErrorPolicy onError)
{

    /** Checks that every branch names an installed sink and a classifier is set. */
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
        topics = List.copyOf(topics);
        sinks = Map.copyOf(sinks);
    }
}
