package io.sluice.core.source;

import java.time.Duration;
import java.util.Collections;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists the cluster's topics for a pattern subscription on a thread of its own, so that a slow or failing listing
 * never keeps the source thread from polling (issue 24: under load the listing, bounded by
 * {@code min(topic_refresh_ms, 5 s)}, timed out and cost the source thread that long without a poll each time).
 *
 * <p>Every {@code topic_refresh_ms / 4} the thread asks the {@link Lister} for the topic names (each attempt bounded
 * by the listing timeout), matches them with the subscription's function, and publishes the matched set
 * ({@link #latest()}); the source thread reads it between polls and subscribes when it changed. A listing that
 * fails is logged once per streak of failures (WARN, with the first failure's cause), and once more when a listing
 * works again (INFO, with the number of failed attempts and how long the streak lasted); the attempts in between
 * are logged at DEBUG. Meanwhile the source keeps consuming the topics it follows.
 *
 * <p>Cost: one thread and one Admin client per pattern-following Kafka source, one metadata request per period;
 * nothing on the record path.
 *
 * <p>Thread-safety: {@link #start()}, {@link #awaitFirst(long)} and {@link #close()} from the source thread;
 * {@link #latest()} from any thread (a volatile read of an immutable snapshot).
 */
public final class TopicListing implements AutoCloseable
{
    /** Lists the cluster's topic names, bounded by a timeout. */
    @FunctionalInterface
    public interface Lister extends AutoCloseable
    {
        /**
         * @param timeout the longest the listing may take
         * @return every topic name of the cluster (internal ones included)
         * @throws RuntimeException when the listing fails or times out (the next period tries again)
         */
        Set<String> names(Duration timeout);

        /** Releases what the lister holds (its client). */
        @Override
        default void close()
        {
        }
    }

    /**
     * One published listing.
     *
     * @param matched  the topics that matched, sorted, immutable
     * @param sequence the number of the successful listing (1, 2, ...)
     */
    public record Snapshot(Set<String> matched, long sequence)
    {
    }

    private static final Logger LOG = LoggerFactory.getLogger(TopicListing.class);

    private final String name;
    private final String what;
    private final Lister lister;
    private final Function<Set<String>, Set<String>> match;
    private final long periodNanos;
    private final Duration timeout;
    private final Thread thread;
    private volatile Snapshot latest;
    private volatile boolean closed;
    private long failures;
    private long failingSinceNanos;

    /**
     * @param name     the source's name, for logs and the thread's name ({@code NAME-topic-listing})
     * @param what     what is matched, for logs (the pattern)
     * @param lister   lists the cluster's topics; closed by {@link #close()}
     * @param match    picks the followed topics out of a listing (called on the listing thread only)
     * @param periodMs how often to list, ms
     * @param timeout  the longest one listing may take
     */
    public TopicListing(final String name, final String what, final Lister lister,
        final Function<Set<String>, Set<String>> match, final long periodMs, final Duration timeout)
    {
        this.name = name;
        this.what = what;
        this.lister = lister;
        this.match = match;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, periodMs));
        this.timeout = timeout;
        this.thread = new Thread(this::run, name + "-topic-listing");
        this.thread.setDaemon(true);
    }

    /**
     * A lister over Kafka's own {@link Admin} client, configured from the source's consumer properties (the
     * connection and security settings: the keys {@link AdminClientConfig} knows; the rest are the consumer's own).
     *
     * @param consumerProperties the source's consumer properties ({@link KafkaConsumerProperties#of})
     * @param timeout            the longest one listing may take
     * @return the lister; its Admin client connects lazily, on the first listing
     */
    public static Lister admin(final Properties consumerProperties, final Duration timeout)
    {
        final Properties props = new Properties();
        final Set<String> known = AdminClientConfig.configNames();
        for (final String key : consumerProperties.stringPropertyNames())
        {
            if (known.contains(key))
            {
                props.put(key, consumerProperties.getProperty(key));
            }
        }
        final String clientId = consumerProperties.getProperty(ConsumerConfig.CLIENT_ID_CONFIG, "sluice");
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId + "-topics");
        final int ms = (int)Math.max(100, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(ms));
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(ms));
        final Admin client = Admin.create(props);
        return new Lister()
        {
            @Override
            public Set<String> names(final Duration t)
            {
                final long limit = Math.max(1, t.toMillis());
                try
                {
                    return client.listTopics(new ListTopicsOptions().listInternal(true)
                        .timeoutMs((int)Math.min(Integer.MAX_VALUE, limit))).names().get(limit, TimeUnit.MILLISECONDS);
                }
                catch (final ExecutionException e)
                {
                    throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
                }
                catch (final TimeoutException e)
                {
                    throw new KafkaException("listing the cluster's topics took longer than " + limit + " ms");
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    throw new KafkaException("interrupted while listing the cluster's topics");
                }
            }

            @Override
            public void close()
            {
                client.close(Duration.ofSeconds(5));
            }
        };
    }

    /** Starts the listing thread (once). */
    public void start()
    {
        thread.start();
    }

    /**
     * Waits for the first successful listing, at most {@code nanos} (at start: the first subscription is made from
     * it, so a source follows the topics that exist before it polls).
     *
     * @param nanos the longest wait, nanoseconds
     * @return the first listing, or null when none succeeded within the wait
     */
    public Snapshot awaitFirst(final long nanos)
    {
        final long deadline = System.nanoTime() + nanos;
        Snapshot s = latest;
        while (s == null && !closed && deadline - System.nanoTime() > 0)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            s = latest;
        }
        return s;
    }

    /** @return the last successful listing, or null before the first (any thread) */
    public Snapshot latest()
    {
        return latest;
    }

    /** Stops the thread (waits for it at most the listing timeout) and closes the lister. */
    @Override
    public void close()
    {
        closed = true;
        LockSupport.unpark(thread);
        try
        {
            if (thread.isAlive())
            {
                thread.join(Math.max(100, timeout.toMillis()));
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        try
        {
            lister.close();
        }
        catch (final RuntimeException e)
        {
            LOG.debug("{}: closing the topic lister: {}", name, e.toString());
        }
    }

    private void run()
    {
        long sequence = 0;
        long next = System.nanoTime();
        while (!closed)
        {
            final long start = System.nanoTime();
            try
            {
                final Set<String> matched = new TreeSet<>(match.apply(lister.names(timeout)));
                latest = new Snapshot(Collections.unmodifiableSet(matched), ++sequence);
                if (failures > 0)
                {
                    LOG.info("{}: listing the cluster's topics to match {} works again after {} failed attempt(s) "
                        + "over {} ms", name, what, failures,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSinceNanos));
                    failures = 0;
                }
            }
            catch (final RuntimeException e)
            {
                if (closed)
                {
                    break;
                }
                if (failures++ == 0)
                {
                    failingSinceNanos = start;
                    LOG.warn("{}: cannot list the cluster's topics to match {}: {}; the source keeps consuming the "
                        + "topics it follows and tries again every {} ms (logged again when a listing works)", name,
                        what, KafkaChecks.describe(e), TimeUnit.NANOSECONDS.toMillis(periodNanos));
                }
                else
                {
                    LOG.debug("{}: listing the cluster's topics failed again ({} in a row): {}", name, failures,
                        KafkaChecks.describe(e));
                }
            }
            next = Math.max(next + periodNanos, System.nanoTime() + periodNanos / 2);
            long wait;
            while (!closed && (wait = next - System.nanoTime()) > 0)
            {
                LockSupport.parkNanos(this, wait);
            }
        }
    }
}
