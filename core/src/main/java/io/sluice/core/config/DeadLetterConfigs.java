package io.sluice.core.config;

import static io.sluice.core.config.ConfigSchema.SINK_CREATE_TOPICS;
import static io.sluice.core.config.ConfigSchema.SINK_DEAD_LETTER_TOPIC;
import static io.sluice.core.config.ConfigSchema.SINK_TOMBSTONES;
import static io.sluice.core.config.ConfigSchema.SINK_ON_ERROR;
import static io.sluice.core.config.ConfigSchema.SINK_PARTITIONS;
import static io.sluice.core.config.ConfigSchema.SINK_REPLICATION_FACTOR;
import static io.sluice.core.config.ConfigSchema.SINK_UNMATCHED;
import static io.sluice.core.config.ConfigSchema.SRC_DEAD_LETTER_TOPIC;
import static io.sluice.core.config.ConfigSchema.SRC_ON_ERROR;

import io.sluice.core.naming.DestinationTemplate;
import io.sluice.core.naming.ReservedTopics;

/**
 * Reads and checks {@code dead_letter_topic} and the keys that go with it, for sinks and sources: a dead_letter
 * policy needs the topic, a topic without a policy that sends records there is a mistake, the template must parse,
 * a literal name must be a legal topic name as written (one that sanitising would change is refused with the fix, as
 * a static rule's topic is) and not one Kafka reserves ({@link ReservedTopics}), and a source that has no input topic
 * (file, stdin) takes a literal name only.
 */
final class DeadLetterConfigs
{
    private DeadLetterConfigs()
    {
    }

    /**
     * @param r         the sink's table
     * @param policies  the sink's policies that may send records to the dead-letter topic, in the order
     *                  {@code unmatched}, {@code on_error}, {@code tombstones}
     * @return the dead-letter topic, or null when there is none (or it has a problem, which is reported)
     */
    static DeadLetterConfig readSink(final TableReader r, final ErrorPolicy... policies)
    {
        final String topic = r.string(SINK_DEAD_LETTER_TOPIC);
        final boolean create = r.bool(SINK_CREATE_TOPICS);
        final int partitions = r.intValue(SINK_PARTITIONS);
        final int replication = r.intValue(SINK_REPLICATION_FACTOR);
        if (partitions == 0)
        {
            r.problem(SINK_PARTITIONS.name(), "0 partitions: give at least 1, or -1 for the broker's default");
        }
        if (replication == 0)
        {
            r.problem(SINK_REPLICATION_FACTOR.name(), "0 replicas: give at least 1, or -1 for the broker's default");
        }
        boolean used = false;
        final ConfigKey[] keys = {SINK_UNMATCHED, SINK_ON_ERROR, SINK_TOMBSTONES};
        for (int i = 0; i < policies.length; i++)
        {
            if (policies[i] == ErrorPolicy.DEAD_LETTER)
            {
                used = true;
                if (topic == null)
                {
                    r.problem(keys[Math.min(i, keys.length - 1)].name(),
                        "\"dead_letter\" needs dead_letter_topic (a topic name, or a template such as \"dlq.{topic}\")");
                }
            }
        }
        if (topic == null)
        {
            return null;
        }
        if (!used)
        {
            r.problem(SINK_DEAD_LETTER_TOPIC.name(), "no policy sends records there: set on_error, unmatched or "
                + "tombstones to \"dead_letter\", or leave dead_letter_topic out");
            return null;
        }
        return parsed(r, SINK_DEAD_LETTER_TOPIC, topic, create, partitions, replication);
    }

    /**
     * @param r            the source's table
     * @param kind         the source's kind
     * @param create       its create_topics
     * @param partitions   its partitions
     * @param replication  its replication_factor
     * @return {@code on_error} and the dead-letter topic (null when none or when it has a problem, which is reported)
     */
    static Result readSource(final TableReader r, final String kind, final boolean create, final int partitions,
        final int replication)
    {
        final ErrorPolicy onError = ErrorPolicy.parse(r.string(SRC_ON_ERROR));
        final String topic = r.string(SRC_DEAD_LETTER_TOPIC);
        if (onError == ErrorPolicy.DEAD_LETTER && topic == null)
        {
            r.problem(SRC_ON_ERROR.name(),
                "\"dead_letter\" needs dead_letter_topic (a topic name, or for kind = \"kafka\" a template such as "
                    + "\"dlq.{topic}\")");
        }
        if (topic == null)
        {
            return new Result(onError, null);
        }
        if (onError != ErrorPolicy.DEAD_LETTER)
        {
            r.problem(SRC_DEAD_LETTER_TOPIC.name(), "no policy sends records there: set on_error = \"dead_letter\", "
                + "or leave dead_letter_topic out");
            return new Result(onError, null);
        }
        if (SluiceConfig.Source.EMBEDDED.equals(kind))
        {
            r.problem(SRC_DEAD_LETTER_TOPIC.name(), "not for kind = \"embedded\": a record offered through the Java "
                + "API that cannot be produced is reported to its DeliveryListener, which decides");
            return new Result(onError, null);
        }
        final DeadLetterConfig parsed = parsed(r, SRC_DEAD_LETTER_TOPIC, topic, create, partitions, replication);
        if (parsed != null && !SluiceConfig.Source.KAFKA.equals(kind)
            && !DestinationTemplate.parse(topic).isLiteral())
        {
            r.problem(SRC_DEAD_LETTER_TOPIC.name(), "a " + kind + " source has no input topic for the template's "
                + "placeholders: give a topic name");
            return new Result(onError, null);
        }
        return new Result(onError, parsed);
    }

    /** A source's {@code on_error} and dead-letter topic. */
    record Result(ErrorPolicy onError, DeadLetterConfig deadLetter)
    {
    }

    private static DeadLetterConfig parsed(final TableReader r, final ConfigKey key, final String topic,
        final boolean create, final int partitions, final int replication)
    {
        try
        {
            final DeadLetterConfig c = new DeadLetterConfig(topic, create, partitions, replication);
            // a literal is used as written: one that sanitising would change (or make reserved) is refused here,
            // never left for the run to discover record by record
            if (DestinationTemplate.parse(topic).isLiteral() && !SourceConfigs.literalTopic(r, key.name(), topic))
            {
                return null;
            }
            return c;
        }
        catch (final IllegalArgumentException e)
        {
            r.problem(key.name(), e.getMessage());
            return null;
        }
    }
}
