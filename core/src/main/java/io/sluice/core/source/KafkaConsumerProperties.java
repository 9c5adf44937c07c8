package io.sluice.core.source;

import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/** The properties of a {@link KafkaSource}'s consumer. Stateless; any thread. */
public final class KafkaConsumerProperties
{
    private KafkaConsumerProperties()
    {
    }

    /**
     * The consumer properties this source uses (Sluice's own keys override the user's).
     *
     * <p>Following new topics: a pattern's new match must be consumed within {@code topic_refresh_ms} of its
     * creation. The consumer re-reads the topic list every {@code metadata.max.age.ms}, set to half of it, so that the
     * other half is left for what follows the discovery: a metadata refresh before re-joining, the rebalance
     * (JoinGroup, SyncGroup), and the first ListOffsets of the new partition. Each of those requests queues behind
     * the fetch in flight to the same broker, which an idle consumer holds for up to {@code fetch.max.wait.ms}
     * (Kafka's default 500 ms, measured here as two 500 ms stalls per new topic), so that is shortened by default to
     * {@code topic_refresh_ms / 20} (100 ms), at most 500 ms. Fetches that find data return at once either way.
     *
     * @param s the source's settings
     * @return the properties
     */
    public static Properties of(final KafkaSourceContext s)
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(32 << 20));
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(8 << 20));
        // Kafka's 64 KiB socket buffer costs the poll thread about 10 % more CPU per record on 2.4 KB records
        // (bench ConsumerSettingsCpu, docs/tuning.md "Kafka consumer defaults")
        p.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, String.valueOf(1 << 20));
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
            String.valueOf(Math.max(1, Math.min(500, s.topicRefreshMs() / 20))));
        p.putAll(s.consumerProperties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, s.groupId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, s.autoOffsetReset());
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, String.valueOf(Math.max(1, s.topicRefreshMs() / 2)));
        if (s.pattern() != null)
        {
            // the matched topics are subscribed by name: a deleted one must not be re-created by a metadata request
            p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        }
        p.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "sluice-" + s.name());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
        return p;
    }
}
