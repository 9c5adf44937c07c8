package io.sluice.sinks.kafka;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.ScatterDriver;
import io.sluice.core.scatter.TopicAdmin;
import io.sluice.core.scatter.TopicProducer;

/**
 * The Kafka routing producer of scatter pipelines, on the source's Kafka connection (its own [sources.kafka]
 * override, else [kafka], security block included): an {@link KafkaTopicAdmin} (Kafka's {@code Admin} client) for
 * listing, looking up and creating topics, and a {@link KafkaTopicProducer} (an idempotent {@code KafkaProducer}
 * with {@code acks=all}). Stateless; each call opens a new client that the pipeline owns and closes.
 */
public final class KafkaScatterDriver implements ScatterDriver
{
    @Override
    public TopicAdmin admin(final SluiceConfig config, final SluiceConfig.Source source)
    {
        return new KafkaTopicAdmin(config.kafkaFor(source), "sluice-" + source.name() + "-admin");
    }

    @Override
    public TopicProducer producer(final SluiceConfig config, final SluiceConfig.Source source)
    {
        return new KafkaTopicProducer(
            KafkaTopicProducer.properties(config.kafkaFor(source), "sluice-" + source.name()));
    }
}
