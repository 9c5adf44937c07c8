package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.sluice.core.config.UserRegex;

/**
 * The pattern's topic listing off the source thread ({@link TopicListing} behind {@link TopicSubscription}): a listing
 * that hangs or fails never blocks {@link TopicSubscription#refresh} (the source thread keeps polling the topics it
 * follows), a streak of failures is logged once and its end once, and the set that the listing thread matched is
 * subscribed when it changes. A fake lister stands for the cluster; the real broker's pick-up is engine's
 * PatternPickUpIT.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TopicListingTest
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

    /** Answers each listing with the next step: a set of names, a failure, or a wait on a latch. */
    private static final class ScriptedLister implements TopicListing.Lister
    {
        final BlockingQueue<Object> steps = new ArrayBlockingQueue<>(64);
        final AtomicInteger calls = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();
        volatile Set<String> last = Set.of();

        @Override
        @SuppressWarnings("unchecked")
        public Set<String> names(final Duration timeout)
        {
            calls.incrementAndGet();
            final Object step = steps.poll();
            if (step == null)
            {
                return last;
            }
            if (step instanceof CountDownLatch latch)
            {
                try
                {
                    latch.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                throw new KafkaException("Timeout expired while fetching topic metadata");
            }
            if (step instanceof RuntimeException e)
            {
                throw e;
            }
            last = (Set<String>)step;
            return last;
        }

        @Override
        public void close()
        {
            closed.set(true);
        }
    }

    private final Logger logger = (Logger)LoggerFactory.getLogger(TopicListing.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private Level level;

    @BeforeEach
    void capture()
    {
        log.start();
        logger.addAppender(log);
        level = logger.getLevel();
        logger.setLevel(Level.INFO);
    }

    @AfterEach
    void release()
    {
        logger.detachAppender(log);
        logger.setLevel(level);
    }

    private static void await(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("not within 20 s: " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** Waits (bounded) until the subscription is {@code topics}: at start, the first listing may come late. */
    private static void subscribed(final TopicSubscription s, final MockConsumer<byte[], byte[]> c,
        final Set<String> topics)
    {
        await(() ->
        {
            s.refresh(c, System.nanoTime());
            return c.subscription().equals(topics);
        }, "subscribed to " + topics);
    }

    private List<String> messages(final Level at)
    {
        return log.list.stream().filter(e -> e.getLevel() == at).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void shouldKeepTheSourceThreadFreeWhileAListingHangsAndFollowTheNextOne()
    {
        final ScriptedLister lister = new ScriptedLister();
        final CountDownLatch hang = new CountDownLatch(1);
        lister.steps.add(Set.of("crawl.1.fetched", "other"));
        lister.steps.add(hang);
        final MockConsumer<byte[], byte[]> c = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        // topic_refresh_ms 40: a listing every 10 ms, each bounded by 100 ms
        final TopicSubscription s = new TopicSubscription("src", UserRegex.compile("crawl\\.[0-9]+\\.fetched"),
            List.of(), 40, true).listInBackground(lister);
        try
        {
            s.subscribe(c, NONE, System.nanoTime());
            subscribed(s, c, Set.of("crawl.1.fetched"));
            await(() -> lister.calls.get() >= 2, "the second listing started (and hangs)");
            for (int i = 0; i < 1000; i++)
            {
                assertFalse(s.refresh(c, System.nanoTime()), "nothing new while the listing hangs");
            }
            lister.steps.add(Set.of("crawl.1.fetched", "crawl.2.fetched"));
            hang.countDown();
            await(() -> s.refresh(c, System.nanoTime()), "the next listing's new topic subscribed");
            assertEquals(Set.of("crawl.1.fetched", "crawl.2.fetched"), c.subscription());
            assertFalse(s.refresh(c, System.nanoTime()), "the same set: no new subscription");
        }
        finally
        {
            s.close();
        }
        assertTrue(lister.closed.get(), "the lister (its Admin client) is closed with the subscription");
    }

    @Test
    void shouldLogAStreakOfFailedListingsOnceAndItsEndOnceWhileTheFollowedTopicsStay()
    {
        final ScriptedLister lister = new ScriptedLister();
        lister.steps.add(Set.of("crawl.1.fetched"));
        for (int i = 0; i < 6; i++)
        {
            lister.steps.add(new KafkaException("Timeout expired while fetching topic metadata"));
        }
        final MockConsumer<byte[], byte[]> c = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        final TopicSubscription s = new TopicSubscription("src", UserRegex.compile("crawl\\..*"), List.of(), 40,
            true).listInBackground(lister);
        try
        {
            s.subscribe(c, NONE, System.nanoTime());
            subscribed(s, c, Set.of("crawl.1.fetched"));
            await(() -> lister.calls.get() >= 7, "six failed listings after the first");
            assertFalse(s.refresh(c, System.nanoTime()));
            assertEquals(Set.of("crawl.1.fetched"), c.subscription(), "the followed topics stay while listings fail");
            lister.steps.add(Set.of("crawl.1.fetched", "crawl.9"));
            await(() -> s.refresh(c, System.nanoTime()), "the topic of the listing that works again");
            assertEquals(Set.of("crawl.1.fetched", "crawl.9"), c.subscription());
        }
        finally
        {
            s.close();
        }
        final List<String> warnings = messages(Level.WARN);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("src: cannot list the cluster's topics to match crawl\\..*: Timeout "
            + "expired while fetching topic metadata; the source keeps consuming the topics it follows"),
            warnings.get(0));
        final List<String> infos = messages(Level.INFO);
        assertEquals(1, infos.size(), infos.toString());
        assertTrue(infos.get(0).startsWith("src: listing the cluster's topics to match crawl\\..* works again after 6 "
            + "failed attempt(s) over "), infos.get(0));
    }

    @Test
    void shouldStartWithNoTopicsWhenTheFirstListingFailsAndPollNothing()
    {
        final ScriptedLister lister = new ScriptedLister();
        lister.steps.add(new KafkaException("broker away"));
        final MockConsumer<byte[], byte[]> c = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        final TopicSubscription s = new TopicSubscription("src", UserRegex.compile("crawl\\..*"), List.of(), 40,
            true).listInBackground(lister);
        try
        {
            s.subscribe(c, NONE, System.nanoTime());
            lister.last = Set.of("crawl.a");
            assertTrue(s.poll(c, Duration.ZERO).isEmpty(), "no subscription yet: polls nothing, does not throw");
            await(() -> s.refresh(c, System.nanoTime()), "the first listing that works");
            assertEquals(Set.of("crawl.a"), c.subscription());
        }
        finally
        {
            s.close();
        }
    }
}
