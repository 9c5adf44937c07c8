package io.sluice.core.scatter.embedded;

import java.util.concurrent.TimeUnit;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.SystemNanoClock;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.scatter.ScatterDriver;
import io.sluice.core.scatter.ScatterException;
import io.sluice.core.scatter.ScatterStats;
import io.sluice.core.scatter.internal.ScatterPipeline;
import io.sluice.core.scatter.internal.ScatterSlots;
import io.sluice.core.source.RecordClaim;
import io.sluice.core.source.RingPublisher;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The embedded Java API of scatter: a host application offers records (value bytes, optional key and headers) to a
 * source of {@code kind = "embedded"}; each is routed by the source's rule and produced into its topic, and the
 * record's {@link DeliveryListener} learns when it is safely in Kafka ({@code acks=all}), or why it is not.
 *
 * <pre>{@code
 * SluiceConfig config = ConfigLoader.load(Path.of("sluice.toml"));
 * try (ScatterRouter router = ScatterRouter.open(config, "api", new KafkaScatterDriver())) {
 *     int rc = router.offer(value, 0, value.capacity(), null, 0, -1, null, null, 0, requestId, listener);
 *     if (rc == ScatterRouter.BACK_PRESSURED) { ... retry later, or shed load ... }
 * }
 * }</pre>
 *
 * <p>Offering copies the record into a pre-allocated off-heap ring slot ({@link RingPublisher}: claim, write, commit)
 * and returns at once: it never blocks and allocates nothing (after a thread's first offer). Expected outcomes are return codes: {@link #OFFERED}, {@link #BACK_PRESSURED} (the ring, or the
 * overflow pool for large records, is full: try again later), {@link #TOO_LARGE} (above
 * {@code engine.max_record_bytes}), {@link #CLOSED}. Every {@link #OFFERED} record gets exactly one listener call.
 * A record whose value is missing and whose rule has no fallback fails with the rule's reason: the engine does not
 * retry records it cannot re-read, the host decides.
 *
 * <p>Thread-safety: {@link #offer} may be called from any number of threads (the ring is multi-producer);
 * {@link #close()} once, after the offering threads are done.
 */
public final class ScatterRouter implements AutoCloseable
{
    /** {@link #offer}: the record was accepted; its listener will be called once. */
    public static final int OFFERED = 0;
    /** {@link #offer}: no room now (ring or overflow pool full); nothing was taken. Retry later. */
    public static final int BACK_PRESSURED = -1;
    /** {@link #offer}: the router is closed or its pipeline failed; nothing was taken. */
    public static final int CLOSED = -2;
    /** {@link #offer}: the record is larger than {@code engine.max_record_bytes}; nothing was taken. */
    public static final int TOO_LARGE = -3;

    private final ScatterPipeline pipeline;
    private final RingPublisher publisher;
    private final ScatterSlots slots;
    /** One claim per offering thread: created on a thread's first offer, reused for every later one. */
    private final ThreadLocal<RecordClaim> claims = ThreadLocal.withInitial(RecordClaim::new);
    private volatile boolean closed;

    private ScatterRouter(final ScatterPipeline pipeline, final int maxRecordBytes)
    {
        this.pipeline = pipeline;
        this.publisher = new RingPublisher(pipeline.ring(), true, pipeline.overflow(), maxRecordBytes,
            SystemNanoClock.INSTANCE);
        this.slots = pipeline.slots();
    }

    /**
     * Starts the pipeline of an embedded source: its route and produce stages, the admin thread and the producer.
     *
     * @param config     a loaded configuration
     * @param sourceName the name of a {@code [[sources]]} with {@code kind = "embedded"}
     * @param driver     the Kafka connection ({@code io.sluice.sinks.kafka.KafkaScatterDriver})
     * @return the started router
     * @throws ConfigException  when there is no such source or it is not embedded
     * @throws ScatterException when the cluster cannot be reached, or a fixed topic of the rule does not exist and
     *                          {@code create_topics = false}
     */
    public static ScatterRouter open(final SluiceConfig config, final String sourceName, final ScatterDriver driver)
        throws ScatterException
    {
        final SluiceConfig.Source source = config.source(sourceName);
        if (!SluiceConfig.Source.EMBEDDED.equals(source.kind()))
        {
            throw new ConfigException("sources", "source \"" + sourceName + "\" is kind = \"" + source.kind()
                + "\"; the embedded API needs kind = \"embedded\"");
        }
        final ScatterPipeline pipeline = new ScatterPipeline(config, source, driver, false);
        pipeline.start();
        return new ScatterRouter(pipeline, config.engine().maxRecordBytes());
    }

    /**
     * Offers a record with only a value.
     *
     * @param value         the value (a JSON document for field and hash-of-field rules)
     * @param correlationId the caller's id, passed back to the listener
     * @param listener      told once what became of the record
     * @return {@link #OFFERED}, {@link #BACK_PRESSURED}, {@link #TOO_LARGE} or {@link #CLOSED}
     */
    public int offer(final byte[] value, final long correlationId, final DeliveryListener listener)
    {
        final RecordClaim claim = claims.get();
        final int rc = claim(RecordEvent.requiredBytes(-1, value.length, 0), claim);
        if (rc != OFFERED)
        {
            return rc;
        }
        try
        {
            final RecordEvent event = claim.record(0, 0, correlationId, 0L, -1, 0);
            event.putValue(value);
            event.putKey((byte[])null);
        }
        catch (final RuntimeException | Error e)
        {
            claim.abort();
            throw e;
        }
        return commit(claim, listener);
    }

    /**
     * Offers a record. The bytes are copied before this returns; the arrays may be reused at once.
     *
     * @param value         buffer holding the value, or null for a record without value (a tombstone)
     * @param valueOffset   index of the value's first byte
     * @param valueLength   value bytes
     * @param key           buffer holding the key, or null for an unkeyed record
     * @param keyOffset     index of the key's first byte
     * @param keyLength     key bytes, or -1 when unkeyed
     * @param headerNames   header names (the first {@code headerCount} are used), or null
     * @param headerValues  header values, UTF-8 for the header strategy (an element may be null), or null
     * @param headerCount   number of headers
     * @param correlationId the caller's id, passed back to the listener
     * @param listener      told once what became of the record; not null
     * @return {@link #OFFERED}, {@link #BACK_PRESSURED}, {@link #TOO_LARGE} or {@link #CLOSED}
     */
    public int offer(final DirectBuffer value, final int valueOffset, final int valueLength, final DirectBuffer key,
        final int keyOffset, final int keyLength, final String[] headerNames, final byte[][] headerValues,
        final int headerCount, final long correlationId, final DeliveryListener listener)
    {
        int headerBytes = 0;
        for (int i = 0; i < headerCount; i++)
        {
            headerBytes += RecordEvent.headerBytesBound(headerNames[i].length(),
                headerValues[i] == null ? -1 : headerValues[i].length);
        }
        final RecordClaim claim = claims.get();
        final int rc = claim(RecordEvent.requiredBytes(key == null ? -1 : keyLength, value == null ? -1 : valueLength,
            headerBytes), claim);
        if (rc != OFFERED)
        {
            return rc;
        }
        try
        {
            final RecordEvent event = claim.record(0, 0, correlationId, 0L, -1, 0);
            if (value == null)
            {
                event.putValue((byte[])null);
            }
            else
            {
                event.putValue(value, valueOffset, valueLength);
            }
            if (key == null || keyLength < 0)
            {
                event.putKey((byte[])null);
            }
            else
            {
                event.putKey(key, keyOffset, keyLength);
            }
            for (int i = 0; i < headerCount; i++)
            {
                event.putHeader(headerNames[i], headerValues[i]);
            }
        }
        catch (final RuntimeException | Error e)
        {
            claim.abort();
            throw e;
        }
        return commit(claim, listener);
    }

    private int claim(final int requiredBytes, final RecordClaim claim)
    {
        if (closed || pipeline.control().stopRequested())
        {
            return CLOSED;
        }
        switch (publisher.tryClaim(requiredBytes, claim))
        {
            case RingPublisher.OFFERED :
                return OFFERED;
            case RingPublisher.TOO_LARGE :
                return TOO_LARGE;
            case RingPublisher.CLOSED :
                return CLOSED;
            default :
                return BACK_PRESSURED;
        }
    }

    private int commit(final RecordClaim claim, final DeliveryListener listener)
    {
        slots.listener(claim.sequence(), listener);
        claim.commit();
        pipeline.sourceStats().recordsIn.incrementAndGet();
        return OFFERED;
    }

    /** @return the pipeline's counters */
    public ScatterStats stats()
    {
        return pipeline.stats();
    }

    /** @return the pipeline (status, topics) */
    public ScatterPipeline pipeline()
    {
        return pipeline;
    }

    /**
     * Stops accepting offers, waits (up to {@code checkpoint.drain_timeout_ms}) until every offered record has been
     * acknowledged or failed, and closes the producer and the admin connection. Records still in flight after the
     * timeout get no listener call.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        publisher.close();
        pipeline.drainEmbedded();
        pipeline.requestStop();
        try
        {
            pipeline.awaitTermination(TimeUnit.SECONDS.toMillis(30));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
