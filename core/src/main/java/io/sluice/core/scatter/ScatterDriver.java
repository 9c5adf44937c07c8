package io.sluice.core.scatter;

import io.sluice.core.config.SluiceConfig;

/**
 * What a scatter pipeline needs from Kafka, behind an interface so core does not depend on a concrete client setup:
 * an admin connection for topics and a producer. The implementation lives in {@code sinks/} (the Kafka routing
 * producer, {@code io.sluice.sinks.kafka.KafkaScatterDriver}); tests use fakes.
 *
 * <p>Thread-safety: the factory methods are called once per pipeline, on the starting thread.
 */
public interface ScatterDriver
{
    /**
     * Opens the admin connection of a source (topic listing, lookup and creation). Called once per pipeline.
     *
     * @param config the whole configuration ([kafka] and its admin properties)
     * @param source the source
     * @return an admin connection owned by the pipeline from now on
     */
    TopicAdmin admin(SluiceConfig config, SluiceConfig.Source source);

    /**
     * Opens the producer of a source. Called once per pipeline.
     *
     * @param config the whole configuration ([kafka] and its producer properties)
     * @param source the source
     * @return a producer owned by the pipeline from now on
     */
    TopicProducer producer(SluiceConfig config, SluiceConfig.Source source);
}
