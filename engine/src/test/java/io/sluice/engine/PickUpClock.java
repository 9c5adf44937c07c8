package io.sluice.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.clients.admin.Admin;

/**
 * Measures pick-up from the outside, every {@link #PERIOD_MS} ms on its own thread: when each topic first shows in
 * Kafka's topic list (Admin client) and when its table first has rows in ClickHouse ({@code system.parts}, over
 * HTTP). Pick-up time = first row visible - topic first listed; listing lags the creation by at most one period plus
 * an Admin round trip, so the figure errs low by at most that much, and the creator's own clock (where the test
 * creates the topic) is used when given.
 */
final class PickUpClock implements AutoCloseable
{
    static final long PERIOD_MS = 20;

    private final String topicPrefix;
    private final String database;
    private final Function<String, String> tableOf;
    private final Map<String, Long> listedNanos = new ConcurrentHashMap<>();
    private final Map<String, Long> createdNanos = new ConcurrentHashMap<>();
    private final Map<String, Long> rowNanos = new ConcurrentHashMap<>();
    private final Map<String, String> topicOfTable = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * @param topicPrefix topics to watch start with it
     * @param database    where their tables are
     * @param tableOf     the table a topic's records go to
     */
    PickUpClock(final String topicPrefix, final String database, final Function<String, String> tableOf)
    {
        this.topicPrefix = topicPrefix;
        this.database = database;
        this.tableOf = tableOf;
        this.thread = new Thread(this::run, "pick-up-clock");
        thread.setDaemon(true);
        thread.start();
    }

    /** The test itself created the topic just now (the createTopics call returned). */
    void created(final String topic)
    {
        createdNanos.putIfAbsent(topic, System.nanoTime());
        topicOfTable.put(tableOf.apply(topic), topic);
    }

    private void run()
    {
        try (Admin admin = TestServices.admin())
        {
            while (running)
            {
                final long start = System.nanoTime();
                for (final String t : admin.listTopics().names().get(10, TimeUnit.SECONDS))
                {
                    if (t.startsWith(topicPrefix) && listedNanos.putIfAbsent(t, System.nanoTime()) == null)
                    {
                        topicOfTable.put(tableOf.apply(t), t);
                    }
                }
                for (final Map.Entry<String, Long> e : DestinationFixtures.rowsPerTable(database).entrySet())
                {
                    final String topic = topicOfTable.get(e.getKey());
                    if (topic != null && e.getValue() > 0)
                    {
                        rowNanos.putIfAbsent(topic, System.nanoTime());
                    }
                }
                final long spent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                Thread.sleep(Math.max(1, PERIOD_MS - spent));
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Throwable t)
        {
            failure = t;
        }
    }

    /**
     * Waits until the clock itself has seen rows in every topic's table: the test sees the rows through its own query,
     * and on a loaded machine one round of the clock (a topic listing and a row count) takes longer than its period.
     *
     * @param topics    the topics
     * @param timeoutMs the longest wait
     * @throws AssertionError naming the topics whose rows the clock has not seen within {@code timeoutMs}
     */
    void awaitRowsSeen(final Set<String> topics, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!rowNanos.keySet().containsAll(topics))
        {
            if (failure != null)
            {
                throw new IllegalStateException("the pick-up clock failed", failure);
            }
            if (System.nanoTime() - deadline > 0)
            {
                final Set<String> missing = new java.util.TreeSet<>(topics);
                missing.removeAll(rowNanos.keySet());
                throw new AssertionError("the pick-up clock saw no rows within " + timeoutMs + " ms for " + missing);
            }
            Thread.sleep(PERIOD_MS);
        }
    }

    /** @return every topic's pick-up time in ms (created or first listed -> first row visible), for topics with rows */
    Map<String, Long> pickUpMs(final Set<String> topics)
    {
        if (failure != null)
        {
            throw new IllegalStateException("the pick-up clock failed", failure);
        }
        final Map<String, Long> out = new java.util.TreeMap<>();
        for (final String t : topics)
        {
            final Long from = createdNanos.containsKey(t) ? createdNanos.get(t) : listedNanos.get(t);
            final Long to = rowNanos.get(t);
            if (from != null && to != null)
            {
                out.put(t, TimeUnit.NANOSECONDS.toMillis(to - from));
            }
        }
        return out;
    }

    /** @return ms from the first listing of each topic to its first row, for topics the test did not create itself */
    Map<String, Long> listedToRowMs(final Set<String> topics)
    {
        final Map<String, Long> out = new java.util.TreeMap<>();
        for (final String t : topics)
        {
            final Long from = listedNanos.get(t);
            final Long to = rowNanos.get(t);
            if (from != null && to != null)
            {
                out.put(t, TimeUnit.NANOSECONDS.toMillis(to - from));
            }
        }
        return out;
    }

    /** @return the nanoTime a topic's table first had rows, or null */
    Long rowAt(final String topic)
    {
        return rowNanos.get(topic);
    }

    static String summary(final Map<String, Long> ms)
    {
        final List<Long> v = new ArrayList<>(ms.values());
        v.sort(null);
        if (v.isEmpty())
        {
            return "no topics";
        }
        final double mean = v.stream().mapToLong(Long::longValue).average().orElse(0);
        return String.format("n=%d min=%d median=%d mean=%.0f p90=%d max=%d ms", v.size(), v.get(0),
            v.get(v.size() / 2), mean,
            v.get(Math.min(v.size() - 1, (int)Math.ceil(v.size() * 0.9) - 1)), v.get(v.size() - 1));
    }

    @Override
    public void close() throws InterruptedException
    {
        running = false;
        thread.join(15_000);
    }
}
