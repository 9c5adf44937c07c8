package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.UserRegex;

/**
 * The matching and re-subscribing of {@link TopicSubscription}, over Kafka's own {@link MockConsumer} (what a topic
 * list looks like to the consumer); that a real broker's new topic is consumed within topic_refresh_ms is
 * engine's PatternPickUpIT.
 */
class TopicSubscriptionTest
{
    private static final ConsumerRebalanceListener NONE = new ConsumerRebalanceListener()
    {
        @Override
        public void onPartitionsRevoked(final Collection<TopicPartition> partitions)
        {
        }

        @Override
        public void onPartitionsAssigned(final Collection<TopicPartition> partitions)
        {
        }
    };

    private static void topic(final MockConsumer<byte[], byte[]> c, final String name)
    {
        c.updatePartitions(name, List.of(new PartitionInfo(name, 0, null, null, null)));
    }

    @Test
    void shouldMatchWholeNamesWithEscapedDotsAndLeaveInternalTopicsOut()
    {
        final TopicSubscription s = new TopicSubscription("t", UserRegex.compile("crawl\\.[0-9]+\\.fetched|__.*"),
            List.of(), 2_000, true);
        assertEquals(Set.of("crawl.1.fetched", "crawl.22.fetched", "__mine"),
            s.match(List.of("crawl.1.fetched", "crawl.22.fetched", "crawl.x.fetched", "crawlX3Xfetched",
                "crawl.1.fetched.old", "__consumer_offsets", "__transaction_state", "__mine")));
        final TopicSubscription all = new TopicSubscription("t", UserRegex.compile("__.*"), List.of(), 2_000, false);
        assertEquals(Set.of("__consumer_offsets"), all.match(List.of("__consumer_offsets")));
    }

    @Test
    void shouldSubscribeToTheMatchedSetAndFollowItEveryQuarterRefresh()
    {
        final MockConsumer<byte[], byte[]> c = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        topic(c, "crawl.1.fetched");
        topic(c, "crawl.x.fetched");
        final TopicSubscription s = new TopicSubscription("t", UserRegex.compile("crawl\\.[0-9]+\\.fetched"),
            List.of(), 2_000, true);
        long now = 0;
        s.subscribe(c, NONE, now);
        assertEquals(Set.of("crawl.1.fetched"), c.subscription());

        topic(c, "crawl.2.fetched");
        assertFalse(s.refresh(c, now + TimeUnit.MILLISECONDS.toNanos(499)), "not due before topic_refresh_ms / 4");
        now += TimeUnit.MILLISECONDS.toNanos(500);
        assertTrue(s.refresh(c, now));
        assertEquals(Set.of("crawl.1.fetched", "crawl.2.fetched"), c.subscription());
        now += TimeUnit.MILLISECONDS.toNanos(500);
        assertFalse(s.refresh(c, now), "the same set: no new subscription, no rebalance");
    }

    @Test
    void shouldPollNothingWhileNoTopicMatchesInsteadOfFailing()
    {
        final MockConsumer<byte[], byte[]> c = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        topic(c, "other");
        final TopicSubscription s = new TopicSubscription("t", UserRegex.compile("crawl\\..*"), List.of(), 2_000,
            true);
        s.subscribe(c, NONE, 0);
        assertTrue(c.subscription().isEmpty());
        assertTrue(s.poll(c, Duration.ZERO).isEmpty(), "a consumer without a subscription would throw");
    }

    @Test
    void shouldSubscribeToLiteralTopicsAsGiven()
    {
        final MockConsumer<byte[], byte[]> c = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        final TopicSubscription s = new TopicSubscription("t", null, List.of("a.b", "c"), 2_000, true);
        s.subscribe(c, NONE, 0);
        assertEquals(Set.of("a.b", "c"), c.subscription());
        assertFalse(s.refresh(c, Long.MAX_VALUE / 2));
    }
}
