package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import com.google.re2j.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Following new topics within {@code topic_refresh_ms}: the consumer refreshes the topic list every half of it and
 * does not hold an idle fetch long enough to delay the rebalance and the first ListOffsets behind it.
 */
class KafkaSourcePropertiesTest
{
    private static Properties properties(final long refreshMs, final Map<String, String> user)
    {
        return KafkaConsumerProperties
            .of(new KafkaSourceContext().name("s").bootstrapServers("k:9092").groupId("g")
                .pattern(Pattern.compile("users\\..*")).topics(List.of()).autoOffsetReset("earliest")
                .topicRefreshMs(refreshMs).consumerProperties(user).commitIntervalMs(1000).stalledFailAfterMs(300_000)
                .drainTimeoutMs(30_000).maxRecordBytes(1 << 20).copyKeyAndHeaders(false).untilCaughtUp(false)
                .pollTimeoutMs(100).conclude());
    }

    @Test
    void shouldRefreshTopicsEveryHalfPeriodAndShortenIdleFetches()
    {
        final Properties p = properties(2000, Map.of());
        assertEquals("1000", p.get("metadata.max.age.ms"));
        assertEquals("100", p.get("fetch.max.wait.ms"));
        assertEquals("earliest", p.get("auto.offset.reset"));
        assertEquals("500", properties(60_000, Map.of()).get("fetch.max.wait.ms"), "never longer than Kafka's default");
        assertEquals("50", properties(100, Map.of()).get("metadata.max.age.ms"));
        assertEquals("5", properties(100, Map.of()).get("fetch.max.wait.ms"));
    }

    @Test
    void shouldLetTheUserSetTheFetchWaitButNotTheRefresh()
    {
        final Properties p = properties(2000, Map.of("fetch.max.wait.ms", "250", "metadata.max.age.ms", "300000"));
        assertEquals("250", p.get("fetch.max.wait.ms"));
        assertEquals("1000", p.get("metadata.max.age.ms"), "topic_refresh_ms is the setting for that");
    }

    @Test
    void shouldReadWithAOneMebibyteSocketBufferUnlessTheUserSetsOne()
    {
        assertEquals("1048576", properties(2000, Map.of()).get("receive.buffer.bytes"));
        assertEquals("-1", properties(2000, Map.of("receive.buffer.bytes", "-1")).get("receive.buffer.bytes"));
        assertEquals("2000", properties(2000, Map.of()).get("max.poll.records"));
        assertEquals(String.valueOf(8 << 20), properties(2000, Map.of()).get("max.partition.fetch.bytes"));
    }
}
