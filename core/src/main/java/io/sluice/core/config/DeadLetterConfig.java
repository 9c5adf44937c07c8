package io.sluice.core.config;

import io.sluice.core.naming.DestinationTemplate;

/**
 * The dead-letter topic of a pipeline ({@code dead_letter_topic} with its topic-creation keys), validated: the
 * template parses ({@code {topic}}, {@code {topic_segment[n]}}, {@code {topic_segment[-n]}} over the record's topic,
 * as a sink's destination template does). Immutable.
 *
 * @param topic             the template (a literal name when it has no placeholder)
 * @param createTopics      whether a missing dead-letter topic is created on first use
 * @param partitions        partitions of a created topic, -1 for the broker's default
 * @param replicationFactor replicas of a created topic, -1 for the broker's default
 */
public record DeadLetterConfig(String topic, boolean createTopics, int partitions, int replicationFactor)
{
    /** Checks the template parses. */
    public DeadLetterConfig
    {
        DestinationTemplate.parse(topic);
    }

    /**
     * A dead-letter topic that must exist already (nothing is created).
     *
     * @param topic the template or literal name
     * @return the configuration
     */
    public static DeadLetterConfig of(final String topic)
    {
        return new DeadLetterConfig(topic, false, 1, -1);
    }
}
