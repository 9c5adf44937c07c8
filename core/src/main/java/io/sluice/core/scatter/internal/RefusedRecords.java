package io.sluice.core.scatter.internal;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.scatter.ProduceErrors;
import io.sluice.core.scatter.ScatterStats;

/**
 * Decides what becomes of a record that can never be produced to its topic: the broker refused the topic or the
 * record for good, or the topic is absent under {@code create_topics = false} (the permanent kinds of
 * {@link ProduceErrors}). This is the one place that decides it:
 *
 * <ul>
 *   <li>the rule has a fallback (and the record was not refused by the fallback itself): the record goes there; the
 *       reason is logged (the first ten, then every 10,000th) and counted ({@code fallbacks} and {@code refused});</li>
 *   <li>else, when the source has {@code on_error = "dead_letter"}, the record goes to the dead-letter topic
 *       ({@link #DEAD_LETTER}: the caller hands it to {@link ScatterDeadLetters}; its offset is acknowledged once the
 *       broker has the dead letter); this is also where a record goes that the fallback itself refused;</li>
 *   <li>else the pipeline stops at once (exit 1), naming the record, the topic and the broker's error
 *       ({@link RecordFailures#stop}); nothing at or after the record is committed. A record of the embedded API
 *       is reported to its listener instead.</li>
 * </ul>
 * Retrying is never the answer here: the same bytes would be refused the same way, and a re-read would send the
 * partition's later records again.
 *
 * <p>Thread-safe: called by the produce stage and by the producer's I/O thread.
 */
final class RefusedRecords
{
    private static final Logger LOG = LoggerFactory.getLogger(RefusedRecords.class);

    private final String name;
    private final TopicTable table;
    private final int fallbackId;
    private final RecordFailures failures;
    private final ScatterStats stats;
    private final AtomicLong toFallback = new AtomicLong();
    private final AtomicLong toDeadLetter = new AtomicLong();
    private volatile boolean deadLetters;

    /** {@link #onRefused}: the caller sends the record to the dead-letter topic. */
    static final int DEAD_LETTER = -2;
    /** {@link #onRefused}: the record is settled (the pipeline stops, or the embedded caller was told). */
    static final int SETTLED = -1;

    /**
     * @param name       the source's name, for logs
     * @param table      the pipeline's topics
     * @param fallbackId the rule's fallback topic id, or -1
     * @param failures   stops the pipeline for a record without a fallback
     * @param stats      the pipeline's counters
     */
    RefusedRecords(final String name, final TopicTable table, final int fallbackId, final RecordFailures failures,
        final ScatterStats stats)
    {
        this.name = name;
        this.table = table;
        this.fallbackId = fallbackId;
        this.failures = failures;
        this.stats = stats;
    }

    /**
     * Lets refused records without a fallback go to the dead-letter topic (the source's
     * {@code on_error = "dead_letter"}; call before the stages run).
     */
    void deadLetters()
    {
        this.deadLetters = true;
    }

    /**
     * @param topicId    the topic that refused the record
     * @param trackerId  the record's tracker, or -1 for an embedded record
     * @param generation its tracker generation
     * @param offset     its offset, or the embedded correlation id
     * @param listener   the embedded caller's listener, or null
     * @param why        what was refused and the broker's reason, naming the topic
     * @return the topic id to send the record to instead (the fallback, which exists), {@link #DEAD_LETTER} when
     *         the caller sends it to the dead-letter topic, or {@link #SETTLED} (the pipeline stops, or the embedded
     *         caller was told)
     */
    int onRefused(final int topicId, final int trackerId, final int generation, final long offset,
        final DeliveryListener listener, final String why)
    {
        stats.refused.incrementAndGet();
        if (fallbackId >= 0 && fallbackId != topicId)
        {
            final TopicEntry fallback = table.entry(fallbackId);
            if (fallback.state() == TopicEntry.EXISTS)
            {
                stats.fallbacks.incrementAndGet();
                final long n = toFallback.incrementAndGet();
                if (n <= 10 || n % 10_000 == 0)
                {
                    LOG.warn("{}: {} went to the fallback {} ({} refused so far): {}", name,
                        failures.where(trackerId, offset), fallback.name(), n, why);
                }
                return fallbackId;
            }
            return deadLetterOrStop(trackerId, generation, offset, listener, why + "; nor can the fallback "
                + fallback.name() + " take it (" + TopicEntry.stateName(fallback.state())
                + (fallback.error() == null ? "" : ": " + fallback.error()) + ")");
        }
        return deadLetterOrStop(trackerId, generation, offset, listener, why + (fallbackId < 0
            ? "; the rule has no fallback"
            : "; it was on its way to the fallback"));
    }

    private int deadLetterOrStop(final int trackerId, final int generation, final long offset,
        final DeliveryListener listener, final String why)
    {
        if (deadLetters && listener == null && trackerId >= 0)
        {
            final long n = toDeadLetter.incrementAndGet();
            if (n <= 10 || n % 10_000 == 0)
            {
                LOG.warn("{}: {} goes to the dead-letter topic ({} refused so far): {}", name,
                    failures.where(trackerId, offset), n, why);
            }
            return DEAD_LETTER;
        }
        failures.stop(trackerId, generation, offset, listener, why);
        return SETTLED;
    }

    /** @return records sent to the fallback because they were refused */
    long toFallback()
    {
        return toFallback.get();
    }
}
