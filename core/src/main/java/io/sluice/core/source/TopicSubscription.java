package io.sluice.core.source;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.internals.Topic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;

/**
 * What a Kafka source subscribes to: a list of topics, or the topics whose whole name matches a pattern.
 *
 * <p>A pattern is matched here, with RE2/J (linear time: no topic name can make a match slow), and the consumer is
 * subscribed to the matched set by name; Sluice never hands a pattern to the consumer. Kafka's
 * {@code subscribe(java.util.regex.Pattern)} evaluates a backtracking expression against every topic of the cluster
 * at each metadata refresh, on the consumer's thread (a hostile pattern delayed an assignment by 75 s), and Kafka 4's
 * {@code subscribe(SubscriptionPattern)}, which the broker evaluates with RE2/J, works only with the new
 * {@code consumer} group protocol (KIP-848): with the classic protocol that Sluice's groups use, kafka-clients 4.1
 * throws {@code UnsupportedOperationException}.
 *
 * <p>Following new topics: every {@code topic_refresh_ms / 4} the cluster's topics are listed (one metadata round trip,
 * bounded by {@code min(topic_refresh_ms, 5 s)}) and matched, and when the set changed the source subscribes again.
 * With {@link #listInBackground} (what {@link KafkaSource} does) the listing and the matching run on a thread of
 * their own ({@link TopicListing}, Kafka's Admin client) and the source thread only reads the last matched set between
 * polls: a slow or failing listing never stops it from polling. Without it the source thread lists through its
 * consumer ({@code KafkaConsumer.listTopics}). Subscribing again: the group rebalances (cooperatively, with Sluice's default
 * assignor, so only the new partitions move), as it does when Kafka's own pattern subscription finds a new topic.
 * A quarter, not Kafka's half ({@code metadata.max.age.ms}): subscribing by name costs one more metadata round trip
 * (for the new topics) before the group re-joins, which Kafka's pattern path has already made, so discovery is given
 * less of {@code topic_refresh_ms}; one listing every 500 ms with the default is one small request. A
 * deleted topic leaves the set the same way. Internal topics ({@code __consumer_offsets}, ...) are never matched
 * unless {@code exclude.internal.topics = false} is set in the consumer's properties, as with Kafka's pattern
 * subscription. A listing that fails (the broker is away) is tried again at the next refresh, logged once per streak
 * of failures in the background.
 *
 * <p>Not thread-safe: the source thread, which owns the consumer, calls it (the background listing publishes to it
 * through a volatile snapshot).
 */
public final class TopicSubscription
{
    private static final Logger LOG = LoggerFactory.getLogger(TopicSubscription.class);
    private static final long MAX_LIST_MS = 5_000;

    private final String name;
    private final Pattern pattern;
    private final List<String> topics;
    private final boolean excludeInternal;
    private final long refreshNanos;
    private final Duration listTimeout;
    private final Matcher matcher;
    private Set<String> subscribed = Set.of();
    private long nextRefreshNanos;
    private ConsumerRebalanceListener listener;
    private TopicListing listing;
    private TopicListing.Snapshot seen;

    /**
     * @param name            the source's name, for logs
     * @param pattern         the topic pattern (RE2/J, matched against the whole name), or null for {@code topics}
     * @param topics          the literal topics when there is no pattern
     * @param topicRefreshMs  {@code topic_refresh_ms}: the pattern is matched again every quarter of it
     * @param excludeInternal the consumer's {@code exclude.internal.topics} (Kafka's default: true)
     */
    public TopicSubscription(final String name, final Pattern pattern, final List<String> topics,
        final long topicRefreshMs, final boolean excludeInternal)
    {
        this.name = name;
        this.pattern = pattern;
        this.topics = List.copyOf(topics);
        this.excludeInternal = excludeInternal;
        this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, topicRefreshMs / 4));
        this.listTimeout = Duration.ofMillis(Math.max(100, Math.min(MAX_LIST_MS, topicRefreshMs)));
        this.matcher = pattern == null ? null : pattern.matcher("");
    }

    /**
     * Lists the cluster's topics on a thread of its own from now on (a pattern only; call before {@link #subscribe}).
     * The listing thread starts at {@link #subscribe} and stops at {@link #close()}.
     *
     * @param lister lists the cluster's topic names ({@link TopicListing#admin}); closed with this subscription
     * @return this subscription
     */
    public TopicSubscription listInBackground(final TopicListing.Lister lister)
    {
        if (pattern != null)
        {
            final Pattern p = pattern;
            listing = new TopicListing(name, pattern.pattern(), lister, names -> match(p.matcher(""), names),
                TimeUnit.NANOSECONDS.toMillis(refreshNanos), listTimeout);
        }
        else
        {
            lister.close();
        }
        return this;
    }

    /** @return the listing timeout: {@code min(topic_refresh_ms, 5 s)}, at least 100 ms */
    public Duration listTimeout()
    {
        return listTimeout;
    }

    /** Stops the background listing, if any (source thread, when the source closes). */
    public void close()
    {
        if (listing != null)
        {
            listing.close();
        }
    }

    /**
     * Subscribes the consumer: to the topics, or to the topics that match the pattern now (possibly none yet). With a
     * background listing, starts it and waits for its first listing, at most the listing timeout.
     *
     * @param consumer the source's consumer
     * @param rebalance the source's rebalance listener
     * @param nowNanos {@link System#nanoTime()}
     */
    public void subscribe(final Consumer<?, ?> consumer, final ConsumerRebalanceListener rebalance,
        final long nowNanos)
    {
        this.listener = rebalance;
        if (pattern == null)
        {
            consumer.subscribe(topics, rebalance);
            return;
        }
        LOG.info("{}: following the topics that match {} (RE2/J, matched by Sluice every {} ms)", name,
            pattern.pattern(), TimeUnit.NANOSECONDS.toMillis(refreshNanos));
        nextRefreshNanos = nowNanos;
        if (listing != null)
        {
            listing.start();
            listing.awaitFirst(listTimeout.toNanos());
        }
        refresh(consumer, nowNanos);
    }

    /**
     * Matches the pattern against the cluster's topics when a refresh is due, and subscribes again when the set
     * changed (every {@code topic_refresh_ms / 4}). Does nothing for a list of topics, or before the next refresh is due.
     *
     * @param consumer the source's consumer
     * @param nowNanos {@link System#nanoTime()}
     * @return true when the subscription changed
     */
    public boolean refresh(final Consumer<?, ?> consumer, final long nowNanos)
    {
        if (pattern == null)
        {
            return false;
        }
        if (listing != null)
        {
            // the listing thread's last matched set: a volatile read, no round trip on this thread
            final TopicListing.Snapshot latest = listing.latest();
            if (latest == null || latest == seen)
            {
                return false;
            }
            seen = latest;
            return resubscribe(consumer, latest.matched());
        }
        if (nowNanos - nextRefreshNanos < 0)
        {
            return false;
        }
        // on a fixed cadence (the source calls between polls, so "now" is late by up to a poll)
        nextRefreshNanos = Math.max(nextRefreshNanos + refreshNanos, nowNanos + refreshNanos / 2);
        final Map<String, List<PartitionInfo>> all;
        try
        {
            all = consumer.listTopics(listTimeout);
        }
        catch (final KafkaException e)
        {
            LOG.warn("{}: cannot list the cluster's topics to match {}; trying again in {} ms: {}", name,
                pattern.pattern(), TimeUnit.NANOSECONDS.toMillis(refreshNanos), KafkaChecks.describe(e));
            return false;
        }
        return resubscribe(consumer, match(all.keySet()));
    }

    private boolean resubscribe(final Consumer<?, ?> consumer, final Set<String> matched)
    {
        if (matched.equals(subscribed))
        {
            return false;
        }
        LOG.info("{}: {} topics match {}{}", name, matched.size(), pattern.pattern(), describeChange(matched));
        subscribed = matched;
        if (matched.isEmpty())
        {
            consumer.unsubscribe();
        }
        else
        {
            consumer.subscribe(matched, listener);
        }
        return true;
    }

    /**
     * @param names topic names
     * @return those whose whole name matches the pattern (internal topics left out when excluded), sorted
     */
    Set<String> match(final Collection<String> names)
    {
        return match(matcher, names);
    }

    private Set<String> match(final Matcher m, final Collection<String> names)
    {
        final Set<String> out = new TreeSet<>();
        for (final String topic : names)
        {
            if (!(excludeInternal && Topic.isInternal(topic)) && m.reset(topic).matches())
            {
                out.add(topic);
            }
        }
        return out;
    }

    /**
     * Polls the consumer, or, while no topic matches the pattern (the consumer is then not subscribed, and Kafka's
     * {@code poll} would throw), waits as long as a poll that finds nothing would.
     *
     * @param consumer the source's consumer
     * @param timeout  the poll's timeout
     * @param <K>      key type
     * @param <V>      value type
     * @return what the poll returned, or no records
     */
    public <K, V> ConsumerRecords<K, V> poll(final Consumer<K, V> consumer, final Duration timeout)
    {
        if (pattern != null && subscribed.isEmpty())
        {
            if (!timeout.isZero())
            {
                LockSupport.parkNanos(timeout.toNanos());
            }
            return ConsumerRecords.empty();
        }
        return consumer.poll(timeout);
    }

    /** @return the topics subscribed to now (a pattern's current matches, or the literal topics) */
    public Set<String> subscribed()
    {
        return pattern == null ? Set.copyOf(topics) : subscribed;
    }

    private String describeChange(final Set<String> matched)
    {
        final Set<String> added = new TreeSet<>(matched);
        added.removeAll(subscribed);
        final Set<String> removed = new TreeSet<>(subscribed);
        removed.removeAll(matched);
        return (added.isEmpty() ? "" : "; new: " + abbreviate(added)) + (removed.isEmpty()
            ? ""
            : "; gone: " + abbreviate(removed));
    }

    private static String abbreviate(final Set<String> names)
    {
        return names.size() <= 10
            ? names.toString()
            : names.stream().limit(10).toList() + " and "
                + (names.size() - 10) + " more";
    }
}
