package io.sluice.core.scatter.internal;

import io.sluice.core.scatter.ScatterStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.apache.kafka.common.internals.Topic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.naming.ReservedTopics;
import io.sluice.core.naming.TopicNameSanitizer;
import io.sluice.core.scatter.ProduceErrors;
import io.sluice.core.scatter.TopicAdmin;
import io.sluice.core.scatter.TopicProducer;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.StageAgents;

/**
 * Makes routed topics known: the admin thread of a scatter pipeline. With {@code create_topics = true} it creates each
 * new topic through the admin API (a topic that exists already, or that another client creates at the same time,
 * counts as existing); with {@code create_topics = false} it looks the topic up. Every request waiting when the
 * thread wakes goes into one admin call, so a burst of new names costs one round trip, and a topic costs at most
 * one round trip over the life of the process unless the producer reports it unknown again.
 *
 * <p>At start, {@link #seed()} lists the broker's topics once: known topics never cost a round trip.
 *
 * <p>Refusals (state REFUSED, permanent: the produce stage sends the topic's records to the rule's fallback, or stops
 * the pipeline): a name Kafka reserves ({@link ReservedTopics}: {@code __consumer_offsets}, {@code __cluster_metadata},
 * ..., what the broker lists as internal, and names that differ from those only in {@code .} versus {@code _}; never
 * asked for); with {@code create_topics}, a new name that collides with a topic known
 * to exist once {@code .} and {@code _} are the same ({@code x_eu} when {@code x.eu} exists: Kafka 4 refuses to create
 * it, and the message names both topics); and whatever the broker answers that {@link ProduceErrors} classifies as
 * permanent (an invalid name, a missing ACL, a policy). Other failures (a timeout, the broker away) are FAILED: the
 * records are read again. Every state but EXISTS is looked at again after {@code retry_backoff_ms}.
 *
 * <p>An Agrona {@link Agent} on the pipeline's admin thread: each {@link #doWork()} takes every waiting request into one
 * admin call and returns how many it took (0 lets the runner's idle strategy wait). An exception of the admin client
 * fails the topics of that call and goes to the agent's error handler, which fails the pipeline. When the agent
 * closes, whatever is still waiting fails, so nothing waits for an answer that will not come.
 *
 * <p>Threads: {@link #request(TopicEntry)} from any thread (the route stage, the producer's I/O thread);
 * {@link #isKnownAtStart(String)} from the route stage after {@link #seed()}; the agent on its own thread.
 */
public final class TopicProvisioner implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

    private final String name;
    private final TopicAdmin admin;
    private final boolean createTopics;
    private final int partitions;
    private final int replicationFactor;
    private final ScatterStats stats;
    private final ManyToOneConcurrentArrayQueue<TopicEntry> requests = new ManyToOneConcurrentArrayQueue<>(1 << 16);
    private final List<TopicEntry> batch = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final List<String> ready = new ArrayList<>();
    private Set<String> known = Set.of();
    /** What the broker lists as internal ({@link #seed()}); read-only once the stages run. */
    private Set<String> brokerInternal = Set.of();
    /** Topics known to exist (at start, then found or created), by their name with every '.' read as '_'. */
    private final Map<String, String> existingByUnified = new HashMap<>();
    private TopicProducer producer;
    private volatile boolean stopped;
    private volatile long roundTrips;
    private String failedWork;

    /**
     * @param name              the source's name, for logs
     * @param admin             the admin connection (used by this thread only once it runs)
     * @param createTopics      create missing topics (else only look them up)
     * @param partitions        partitions of a created topic, -1 for the broker's default
     * @param replicationFactor replicas of a created topic, -1 for the broker's default
     * @param stats             the pipeline's counters
     */
    public TopicProvisioner(final String name, final TopicAdmin admin, final boolean createTopics, final int partitions,
        final int replicationFactor, final ScatterStats stats)
    {
        this.name = name;
        this.admin = admin;
        this.createTopics = createTopics;
        this.partitions = partitions;
        this.replicationFactor = replicationFactor;
        this.stats = stats;
    }

    /**
     * Lists the broker's topics (the starting thread, before the stages run).
     *
     * @return the number of topics
     * @throws RuntimeException when the broker cannot be reached
     */
    public int seed()
    {
        known = new HashSet<>(admin.listTopics());
        brokerInternal = Set.copyOf(admin.listInternalTopics());
        synchronized (existingByUnified)
        {
            for (final String t : known)
            {
                existingByUnified.putIfAbsent(Topic.unifyCollisionChars(t), t);
            }
        }
        return known.size();
    }

    /**
     * Makes sure a topic exists before the stages start (the starting thread): the rule's fallback, which every
     * refused record may need and which never waits for {@code max_new_topics_per_minute}. With
     * {@code create_topics} a missing topic is created; without, it must exist.
     *
     * @param topic a topic name
     * @return true when this call created it
     * @throws IllegalStateException naming the topic and the broker's reason when it does not exist and cannot be
     *                               created
     */
    public boolean ensureAtStart(final String topic)
    {
        if (known.contains(topic))
        {
            return false;
        }
        if (!createTopics)
        {
            throw new IllegalStateException("topic " + topic + " does not exist and create_topics = false");
        }
        final String refusal = refusalBeforeAsking(topic);
        if (refusal != null)
        {
            throw new IllegalStateException(refusal);
        }
        final TopicAdmin.Result r = admin.createTopics(List.of(topic), partitions, replicationFactor).get(topic);
        roundTrips = roundTrips + 1;
        if (r == null || r.outcome() != TopicAdmin.Outcome.CREATED && r.outcome() != TopicAdmin.Outcome.EXISTS)
        {
            throw new IllegalStateException("cannot create topic " + topic + ": "
                + (r == null ? "no answer from the admin client" : r.error()));
        }
        known.add(topic);
        exists(topic);
        if (r.outcome() == TopicAdmin.Outcome.CREATED)
        {
            ScatterStats.increment(stats.topicsCreated);
            LOG.info("{}: created topic {} at start ({} partitions, replication factor {})", name, topic,
                partitions < 0 ? "broker default" : partitions,
                replicationFactor < 0 ? "broker default" : replicationFactor);
            return true;
        }
        return false;
    }

    /**
     * @param topic a routed topic name
     * @return why it is refused without asking the broker (internal; colliding with an existing topic when it
     *         would be created), or null
     */
    String refusalBeforeAsking(final String topic)
    {
        final String internal = internalRefusal(topic);
        if (internal != null)
        {
            return internal;
        }
        if (!createTopics)
        {
            return null;
        }
        final String other;
        synchronized (existingByUnified)
        {
            other = existingByUnified.get(Topic.unifyCollisionChars(topic));
        }
        if (other != null && TopicNameSanitizer.collidesInMetrics(other, topic))
        {
            return collision(topic, other, "the existing topic " + other);
        }
        return null;
    }

    private static String collision(final String topic, final String other, final String otherDescribed)
    {
        return "topic " + topic + " collides with " + otherDescribed + ": " + topic + " and " + other + " are the "
            + "same name once '.' and '_' are read alike (as Kafka's metric names read them), and Kafka refuses to "
            + "create it";
    }

    /**
     * @param topic a topic name
     * @return why records cannot go to it when Kafka reserves it ({@link ReservedTopics#refusal(String,
     *         java.util.Collection)}, with what the broker listed as internal at {@link #seed()}), else null
     *         (allocates: once per distinct topic)
     */
    public String internalRefusal(final String topic)
    {
        return ReservedTopics.refusal(topic, brokerInternal);
    }

    private void exists(final String topic)
    {
        synchronized (existingByUnified)
        {
            existingByUnified.putIfAbsent(Topic.unifyCollisionChars(topic), topic);
        }
    }

    /**
     * @param topic a topic name
     * @return whether the topic existed when {@link #seed()} listed the broker's topics
     */
    public boolean isKnownAtStart(final String topic)
    {
        return known.contains(topic);
    }

    /**
     * Lets the provisioner prepare the producer for the topics it finds or creates ({@link TopicProducer#prepare}),
     * before records for them are released to the produce stage. Call before the agent starts.
     *
     * @param topicProducer the pipeline's producer
     */
    public void prepareWith(final TopicProducer topicProducer)
    {
        this.producer = topicProducer;
    }

    /** @return whether this provisioner creates topics */
    public boolean createsTopics()
    {
        return createTopics;
    }

    /**
     * Asks for a topic in state PENDING to be created or looked up (any thread).
     *
     * @param entry the topic
     */
    public void request(final TopicEntry entry)
    {
        if (!requests.offer(entry))
        {
            entry.transition(TopicEntry.PENDING, TopicEntry.FAILED,
                "too many topics waiting to be created or looked up",
                System.nanoTime());
        }
    }

    /** @return admin round trips made so far */
    public long roundTrips()
    {
        return roundTrips;
    }

    /** @return topics waiting for the admin thread (approximate) */
    public int pending()
    {
        return requests.size();
    }

    /** Ends the agent after the request in progress. */
    public void stop()
    {
        stopped = true;
    }

    @Override
    public String roleName()
    {
        return name + "-admin";
    }

    @Override
    public int doWork()
    {
        if (stopped)
        {
            throw StageAgents.STOP;
        }
        final int n = requests.drainTo(batch, 10_000);
        if (n == 0)
        {
            return 0;
        }
        try
        {
            process();
        }
        catch (final RuntimeException | Error e)
        {
            failedWork = "topics " + names;
            failWaiting("the admin thread failed: " + e);
            throw e;
        }
        failedWork = null;
        return n;
    }

    @Override
    public void onClose()
    {
        requests.drainTo(batch, Integer.MAX_VALUE);
        failWaiting("the pipeline is stopping");
    }

    /** @return the topics of the admin call that failed, for the error handler (allocates) */
    public String describeWork()
    {
        return failedWork;
    }

    private void failWaiting(final String why)
    {
        for (final TopicEntry e : batch)
        {
            e.transition(TopicEntry.PENDING, TopicEntry.FAILED, why, System.nanoTime());
        }
        batch.clear();
    }

    /** Takes out of the batch (state REFUSED) what the broker would refuse: internal names, collisions. */
    private void refuseBeforeAsking()
    {
        final long start = System.nanoTime();
        final Map<String, String> asked = new HashMap<>();
        int kept = 0;
        for (int i = 0; i < batch.size(); i++)
        {
            final TopicEntry e = batch.get(i);
            String refusal = refusalBeforeAsking(e.name());
            if (refusal == null && createTopics)
            {
                // two new names of one request that collide: the first is asked for, the second refused
                final String other = asked.putIfAbsent(Topic.unifyCollisionChars(e.name()), e.name());
                if (other != null && !other.equals(e.name()))
                {
                    refusal = collision(e.name(), other, "the topic " + other + " asked for first");
                }
            }
            if (refusal != null)
            {
                LOG.warn("{}: {}", name, refusal);
                e.transition(TopicEntry.PENDING, TopicEntry.REFUSED, refusal, start);
                continue;
            }
            batch.set(kept++, e);
        }
        batch.subList(kept, batch.size()).clear();
    }

    private void process()
    {
        names.clear();
        refuseBeforeAsking();
        if (batch.isEmpty())
        {
            return;
        }

        for (final TopicEntry e : batch)
        {
            names.add(e.name());
        }
        if (Failpoints.ENABLED)
        {
            Failpoints.check(Failpoints.SCATTER_ADMIN, 0);
        }
        Map<String, TopicAdmin.Result> results;
        String failure = null;
        try
        {
            results = createTopics
                ? admin.createTopics(names, partitions, replicationFactor)
                : admin.describeTopics(names);
        }
        catch (final RuntimeException e)
        {
            results = Map.of();
            failure = e.toString();
        }
        roundTrips = roundTrips + 1;
        ready.clear();
        for (final TopicEntry e : batch)
        {
            final TopicAdmin.Result r = results.get(e.name());
            if (r != null && (r.outcome() == TopicAdmin.Outcome.CREATED || r.outcome() == TopicAdmin.Outcome.EXISTS))
            {
                ready.add(e.name());
            }
        }
        if (producer != null && !ready.isEmpty())
        {
            try
            {
                producer.prepare(ready);
            }
            catch (final RuntimeException ex)
            {
                LOG.debug("{}: preparing the producer for {} topics: {}", name, ready.size(), ex.toString());
            }
        }
        final long now = System.nanoTime();
        for (final TopicEntry e : batch)
        {
            final TopicAdmin.Result r = results.get(e.name());
            final TopicAdmin.Outcome outcome = r == null ? TopicAdmin.Outcome.FAILED : r.outcome();
            switch (outcome)
            {
                case CREATED -> {
                    exists(e.name());
                    ScatterStats.increment(stats.topicsCreated);
                    LOG.info("{}: created topic {} ({} partitions, replication factor {})", name, e.name(),
                        partitions < 0 ? "broker default" : partitions,
                        replicationFactor < 0 ? "broker default" : replicationFactor);
                    e.transition(TopicEntry.PENDING, TopicEntry.EXISTS, null, now);
                }
                case EXISTS -> {
                    exists(e.name());
                    e.transition(TopicEntry.PENDING, TopicEntry.EXISTS, null, now);
                }
                case ABSENT -> e.transition(TopicEntry.PENDING, TopicEntry.ABSENT, "topic " + e.name()
                    + " does not exist and create_topics = false (it has to be provisioned first)", now);
                default -> {
                    final String why = (createTopics ? "cannot create topic " : "cannot look up topic ") + e.name()
                        + ": "
                        + (r != null ? r.error() : failure != null ? failure : "no answer from the admin client");
                    // the topic refused for good (invalid, a policy, no ACL); not an authentication failure of the
                    // admin client itself, which is no reason to send the records elsewhere
                    final boolean refused = r != null && ProduceErrors.permanent(ProduceErrors.classify(r.cause()));
                    LOG.warn("{}: {}{}", name, why, refused ? " (refused for good: the fallback, else stop)" : "");
                    e.transition(TopicEntry.PENDING, refused ? TopicEntry.REFUSED : TopicEntry.FAILED, why, now);
                }
            }
        }
        batch.clear();
    }
}
