package io.sluice.core.deadletter;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.DeadLetterConfig;
import io.sluice.core.naming.DestinationTemplate;
import io.sluice.core.naming.ReservedTopics;
import io.sluice.core.naming.TopicNameSanitizer;
import io.sluice.core.stage.PaddedAtomicLong;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.StageAgents;

/**
 * The dead-letter stage of one pipeline: an Agrona {@link Agent} on a thread of its own that takes
 * {@link DeadLetter}s from the stages that decide records' fates ({@link #offer}), resolves each one's dead-letter
 * topic from {@code dead_letter_topic} (a template over the record's topic, sanitised as routed topic names are:
 * seed 000), makes sure the topic exists (created on first use when {@code create_topics} allows it, cached), and
 * sends it with its pipeline's idempotent {@code acks=all} producer.
 *
 * <p>At-least-once: the record's offset is acknowledged in its partition's tracker only when the broker acknowledged
 * its dead letter. When the dead letter cannot be written the offset is failed with the reason instead (nothing is
 * committed past it), and then:
 * <ul>
 *   <li>when trying again cannot help, the pipeline stops at once ({@link PipelineControl#fail}), naming the record,
 *       the dead-letter topic and why: the template does not resolve for the record's topic or gives no legal name,
 *       it gives a name Kafka reserves ({@link ReservedTopics}), or the broker or the producer refused the lookup,
 *       the creation or the send with an error Kafka's taxonomy calls non-retriable ({@link #permanent}: a name that
 *       collides with an existing topic once {@code .} and {@code _} are alike, a record larger than the producer's
 *       {@code max.request.size} or the topic's {@code max.message.bytes}, a missing ACL, a policy);</li>
 *   <li>otherwise (the topic is absent under {@code create_topics = false}, which an operator may fix; the broker away;
 *       a timeout) the source re-reads the partition with backoff and tries again, and after
 *       {@code checkpoint.stalled_fail_after_ms} the run ends naming the record and why its dead letter could not be
 *       written. A topic that could not be found or created is believed for one second, then asked about again.</li>
 * </ul>
 *
 * <p>Back-pressure: at most {@code capacity} dead letters (and {@code maxQueuedBytes} of them) wait; beyond that
 * {@link #offer} returns {@link #FULL} and the caller waits (the route stage holds the ring, as for a full worker
 * queue). The agent idles 1 ms when there is nothing to do (dead letters are rare; no stage of {@code [tuning]}).
 *
 * <p>Threads: {@link #offer} from one or more stage threads; the agent on its own; the producer's callbacks on its
 * I/O thread; the getters from any thread.
 */
public final class DeadLetters implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    /** The dead letter was queued. */
    public static final int OFFERED = 0;
    /** The queue is full: try again later. */
    public static final int FULL = -1;
    /** The stage has stopped: nothing was queued. */
    public static final int CLOSED = -2;

    /** The error code stored in a tracker when a dead letter could not be written. */
    public static final int CODE_NOT_WRITTEN = -3;

    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String pipeline;
    private final DeadLetterConfig config;
    private final DestinationTemplate template;
    private final DeadLetterClients clients;
    private final PartitionTrackers trackers;
    private final PipelineControl control;
    private final ManyToOneConcurrentArrayQueue<DeadLetter> queue;
    private final long maxQueuedBytes;
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final PaddedAtomicLong[] written = new PaddedAtomicLong[DeadLetterReason.values().length];
    private final PaddedAtomicLong notWritten = new PaddedAtomicLong();
    private final IdleStrategy idle = new SleepingMillisIdleStrategy(1);
    /** Per sanitised topic name: null when it exists, else why not (agent thread only). */
    private final Map<String, DeadLetterClients.Missing> topicErrors = new HashMap<>();
    private final Map<String, Long> topicErrorUntil = new HashMap<>();
    private final Map<String, String> resolved = new HashMap<>();
    private volatile boolean stopping;
    private volatile boolean abandoned;
    private volatile boolean finished;
    private volatile String lastError;
    private final AtomicLong failuresLogged = new AtomicLong();

    /**
     * @param pipeline       the pipeline's name
     * @param config         {@code dead_letter_topic} and its creation keys
     * @param clients        the producer and admin client (owned by this stage from now on)
     * @param trackers       the pipeline's ack trackers
     * @param control        the pipeline's run state, failed when a dead letter can never be written
     * @param capacity       dead letters that may wait
     * @param maxQueuedBytes bytes of dead letters that may wait (one larger dead letter always fits an empty queue)
     */
    public DeadLetters(final String pipeline, final DeadLetterConfig config, final DeadLetterClients clients,
        final PartitionTrackers trackers, final PipelineControl control, final int capacity,
        final long maxQueuedBytes)
    {
        this.pipeline = pipeline;
        this.config = config;
        this.template = DestinationTemplate.parse(config.topic());
        this.clients = clients;
        this.trackers = trackers;
        this.control = control;
        this.queue = new ManyToOneConcurrentArrayQueue<>(Math.max(2, capacity));
        this.maxQueuedBytes = maxQueuedBytes;
        for (int i = 0; i < written.length; i++)
        {
            written[i] = new PaddedAtomicLong();
        }
    }

    /**
     * Queues a dead letter (never waits).
     *
     * @param letter the dead letter
     * @return {@link #OFFERED}; {@link #FULL} when the queue is full (the caller retries later); {@link #CLOSED}
     *         when the stage has stopped (the caller leaves the offset unacknowledged: it is read again)
     */
    public int offer(final DeadLetter letter)
    {
        if (stopping && abandoned || finished)
        {
            return CLOSED;
        }
        final int bytes = letter.bytes();
        final long queued = queuedBytes.get();
        if (queued > 0 && queued + bytes > maxQueuedBytes)
        {
            return FULL;
        }
        inFlight.incrementAndGet();
        if (!queue.offer(letter))
        {
            inFlight.decrementAndGet();
            return FULL;
        }
        queuedBytes.addAndGet(bytes);
        return OFFERED;
    }

    /** @return true when every dead letter offered has been acknowledged by the broker or failed */
    public boolean idle()
    {
        return inFlight.get() == 0;
    }

    /** @return dead letters offered and not yet settled */
    public long inFlight()
    {
        return inFlight.get();
    }

    /** Asks the stage to stop once every queued dead letter is settled. */
    public void stop()
    {
        stopping = true;
    }

    /** Asks the stage to stop now: queued dead letters are dropped unacknowledged (they are read again later). */
    public void abandon()
    {
        abandoned = true;
        stopping = true;
    }

    /** @return the idle strategy to run this agent with (1 ms sleeps) */
    public IdleStrategy idleStrategy()
    {
        return idle;
    }

    /** @return true once the agent has closed */
    public boolean finished()
    {
        return finished;
    }

    /** @return why the last dead letter that failed could not be written, or null */
    public String lastError()
    {
        return lastError;
    }

    /**
     * @param reason a reason
     * @return dead letters the broker acknowledged for that reason (any thread)
     */
    public long written(final DeadLetterReason reason)
    {
        return written[reason.ordinal()].get();
    }

    /** @return dead letters that could not be written (their offsets failed; any thread) */
    public long notWritten()
    {
        return notWritten.get();
    }

    @Override
    public String roleName()
    {
        return pipeline + "-dead-letters";
    }

    @Override
    public int doWork()
    {
        final DeadLetter letter = queue.poll();
        if (letter == null)
        {
            if (stopping && (abandoned || inFlight.get() == 0))
            {
                throw StageAgents.STOP;
            }
            return 0;
        }
        queuedBytes.addAndGet(-letter.bytes());
        if (abandoned)
        {
            inFlight.decrementAndGet();
            return 1;
        }
        send(letter);
        return 1;
    }

    @Override
    public void onClose()
    {
        try
        {
            DeadLetter left;
            while ((left = queue.poll()) != null)
            {
                // not acknowledged: the source reads the record again
                queuedBytes.addAndGet(-left.bytes());
                inFlight.decrementAndGet();
            }
            clients.close();
        }
        finally
        {
            finished = true;
        }
    }

    private void send(final DeadLetter letter)
    {
        final String topic = topicOf(letter);
        if (topic == null)
        {
            return;
        }
        final DeadLetterClients.Missing missing = ensure(topic);
        if (missing != null)
        {
            notWritten(letter, missing.why(), missing.permanent());
            return;
        }
        final ProducerRecord<byte[], byte[]> record = letter.toProducerRecord(topic);
        try
        {
            clients.producer().send(record, (metadata, error) ->
            {
                if (error == null)
                {
                    written(letter);
                }
                else
                {
                    notWritten(letter, "producing it to " + topic + " failed: " + error, permanent(error));
                }
            });
        }
        catch (final RuntimeException e)
        {
            notWritten(letter, "the producer refused it for " + topic + ": " + e, permanent(e));
        }
    }

    /** @return the sanitised dead-letter topic of the record, or null when there is none (the letter is failed) */
    private String topicOf(final DeadLetter letter)
    {
        final String cached = resolved.get(letter.topic());
        if (cached != null)
        {
            return cached;
        }
        final DestinationTemplate.Resolution r = template.resolve(letter.topic());
        if (!r.ok())
        {
            notWritten(letter, "dead_letter_topic " + template.template() + " does not resolve for topic "
                + letter.topic() + ": " + r.error(), true);
            return null;
        }
        final String name = TopicNameSanitizer.sanitize(r.name());
        if (name == null)
        {
            notWritten(letter, "dead_letter_topic " + template.template() + " gives no legal topic name for topic "
                + letter.topic() + " (\"" + r.name() + "\")", true);
            return null;
        }
        final String reserved = ReservedTopics.refusal(name);
        if (reserved != null)
        {
            // never created nor produced to, as a routed name (docs/routing.md, "Names Kafka reserves")
            notWritten(letter, "dead_letter_topic " + template.template() + " gives " + name
                + (name.equals(r.name()) ? "" : " (rendered \"" + r.name() + "\", then sanitised)") + " for topic "
                + letter.topic() + ": " + reserved, true);
            return null;
        }
        resolved.put(letter.topic(), name);
        return name;
    }

    /** @return null when the topic exists (now), else why not */
    private DeadLetterClients.Missing ensure(final String topic)
    {
        final long now = System.nanoTime();
        if (topicErrors.containsKey(topic))
        {
            final DeadLetterClients.Missing error = topicErrors.get(topic);
            if (error == null || now - topicErrorUntil.get(topic) < 0)
            {
                return error;
            }
        }
        final DeadLetterClients.Missing error = clients.ensureTopic(topic, config.createTopics(), config.partitions(),
            config.replicationFactor());
        topicErrors.put(topic, error);
        if (error != null)
        {
            topicErrorUntil.put(topic, now + RECHECK_NANOS);
        }
        else
        {
            LOG.info("{}: dead letters go to topic {}", pipeline, topic);
        }
        return error;
    }

    private void written(final DeadLetter letter)
    {
        written[letter.why().reason().ordinal()].incrementAndGet();
        if (letter.trackerId() >= 0)
        {
            trackers.get(letter.trackerId()).ack(letter.offset(), letter.generation());
        }
        inFlight.decrementAndGet();
    }

    /**
     * @param why       what failed, naming the dead-letter topic
     * @param permanent true when trying again cannot help: the pipeline stops at once instead of re-reading the
     *                  partition until the stall limit
     */
    private void notWritten(final DeadLetter letter, final String why, final boolean permanent)
    {
        notWritten.incrementAndGet();
        final String reason = "record " + letter.where() + " (" + letter.why().reason().label() + ": "
            + letter.why().message() + "): its dead letter could not be written: " + why;
        lastError = reason;
        if (letter.trackerId() >= 0)
        {
            final AckTracker t = trackers.get(letter.trackerId());
            t.fail(letter.offset(), letter.generation(), CODE_NOT_WRITTEN, reason);
        }
        final long n = failuresLogged.incrementAndGet();
        if (permanent)
        {
            if (n <= 10 || n % 1000 == 0)
            {
                LOG.error("{}: {}; this cannot succeed on a retry: the pipeline stops", pipeline, reason);
            }
            control.fail(pipeline + ": " + reason + " (for good: the pipeline stops)");
        }
        else if (n <= 10 || n % 1000 == 0)
        {
            LOG.error("{}: {}; the partition stops here until it can be (re-read with backoff; "
                + "checkpoint.stalled_fail_after_ms ends the run)", pipeline, reason);
        }
        inFlight.decrementAndGet();
    }

    /**
     * Whether a failure to look up, create or produce to a dead-letter topic fails the same way every time, read from
     * Kafka's own taxonomy (kafka-clients {@code org.apache.kafka.common.errors}): the first {@link ApiException} in
     * the cause chain that is not a {@link RetriableException}. So {@code InvalidTopicException} (an invalid name, or
     * one that collides with an existing topic once {@code .} and {@code _} are alike, which Kafka 4 refuses to
     * create), {@code RecordTooLargeException}, {@code TopicAuthorizationException}, {@code PolicyViolationException},
     * {@code InvalidReplicationFactorException} and an authentication failure are permanent; a timeout, a leader
     * moving, an unknown topic or partition ({@code RetriableException}s) and anything that is no {@code ApiException}
     * (the producer closing) are not.
     *
     * @param failure what the admin client or the producer reported (may be null)
     * @return true when trying again cannot help
     */
    public static boolean permanent(final Throwable failure)
    {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (c instanceof RetriableException)
            {
                return false;
            }
            if (c instanceof ApiException)
            {
                return true;
            }
        }
        return false;
    }
}
