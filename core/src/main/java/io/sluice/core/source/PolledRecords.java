package io.sluice.core.source;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.PipelineStats;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The records of a {@link KafkaSource}'s last poll that are not in the ring yet, and how they get there: each is
 * copied once, from the fetched bytes (no {@code byte[]} copy: {@code ByteBufferDeserializer}) into a claimed slot
 * of the {@link RingPublisher}, its offset registered with its partition's tracker. A record above
 * {@code engine.max_record_bytes} takes a slot of 0 bytes marked too large, so the route stage applies
 * {@code on_error} to it. A write that throws aborts its claim (the stages see a no-op) and the offset stays
 * registered and unacknowledged, so nothing is committed past it.
 *
 * <p>Source thread only. Allocates nothing per record beyond Kafka's own header iteration.
 */
final class PolledRecords
{
    private final RingPublisher publisher;
    private final RecordClaim claim = new RecordClaim();
    /** Copy keys and headers too: from the start (scatter), or once a gather stage asked ({@link #copyKeysAndHeaders}). */
    private volatile boolean withKeyAndHeaders;
    /** {@link #withKeyAndHeaders} as read at the start of a {@link #publish} (source thread). */
    private boolean copyKeys;
    private final PipelineStats stats;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private ConsumerRecords<ByteBuffer, ByteBuffer> records;
    private int partitionIndex;
    private List<ConsumerRecord<ByteBuffer, ByteBuffer>> list;
    private KafkaPartition state;
    private int recordIndex;

    /**
     * @param publisher         the ring's publisher (single producer)
     * @param withKeyAndHeaders copy keys and headers too (scatter), or values only until a stage asks for them with
     *                          {@link #copyKeysAndHeaders()} (gather)
     * @param stats             counts {@code recordsIn}
     */
    PolledRecords(final RingPublisher publisher, final boolean withKeyAndHeaders, final PipelineStats stats)
    {
        this.publisher = publisher;
        this.withKeyAndHeaders = withKeyAndHeaders;
        this.stats = stats;
    }

    /**
     * From the next record on, copies keys and headers too (any thread: a gather stage that finds it needs them, a
     * dead-letter policy). Never switched off again.
     */
    void copyKeysAndHeaders()
    {
        withKeyAndHeaders = true;
    }

    /** @return whether keys and headers are copied */
    boolean copiesKeysAndHeaders()
    {
        return withKeyAndHeaders;
    }

    /** @return whether records of the last poll are still kept */
    boolean pending()
    {
        return records != null;
    }

    /**
     * Keeps the records of a poll (none may be kept now). A partition whose position advanced without records (only
     * transaction markers or aborted records were fetched) is advanced at once: its position is a gap up to which
     * nothing more will come ({@link KafkaPartition#skipTo}).
     *
     * @param polled a poll result with records or with advanced positions ({@link ConsumerRecords#nextOffsets()})
     * @param assigned the source's assigned partitions
     */
    void take(final ConsumerRecords<ByteBuffer, ByteBuffer> polled, final Map<TopicPartition, KafkaPartition> assigned)
    {
        records = polled;
        partitions.clear();
        partitions.addAll(polled.partitions());
        partitionIndex = 0;
        list = null;
        final Map<TopicPartition, OffsetAndMetadata> next = polled.nextOffsets();
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : next.entrySet())
        {
            final KafkaPartition ps = assigned.get(e.getKey());
            if (ps != null)
            {
                ps.fetched = e.getValue().offset();
            }
        }
        if (next.size() > partitions.size())
        {
            for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : next.entrySet())
            {
                final KafkaPartition ps = assigned.get(e.getKey());
                if (ps != null && !ps.holding() && polled.records(e.getKey()).isEmpty())
                {
                    ps.skipTo(e.getValue().offset());
                }
            }
        }
        if (partitions.isEmpty())
        {
            records = null;
        }
    }

    /**
     * Forgets what is kept of a partition that is held for a re-read (or revoked): its records of this poll are not
     * published, and its position in this poll is not applied (the re-read seeks it back).
     *
     * @param partition the partition
     */
    void forget(final KafkaPartition partition)
    {
        drop(partition);
        if (records != null)
        {
            for (int i = partitions.size() - 1; i >= partitionIndex; i--)
            {
                if (partitions.get(i).equals(partition.tp))
                {
                    partitions.remove(i);
                }
            }
        }
        partition.pendingSkip = -1;
    }

    /**
     * Drops what is kept of a partition that is being published now (it was held or revoked).
     *
     * @param partition the partition
     */
    void drop(final KafkaPartition partition)
    {
        if (state == partition)
        {
            list = null;
            state = null;
        }
    }

    /** Drops everything kept (stop). */
    void clear()
    {
        records = null;
        list = null;
        state = null;
        partitions.clear();
    }

    /** @return the record being published, e.g. {@code record t-0@15}, or null (allocates) */
    String describe()
    {
        final KafkaPartition ps = state;
        final List<ConsumerRecord<ByteBuffer, ByteBuffer>> l = list;
        if (ps == null || l == null || recordIndex >= l.size())
        {
            return null;
        }
        return "record " + ps.tp + "@" + l.get(recordIndex).offset();
    }

    /**
     * Publishes the kept records in poll order until the ring, a window or the overflow pool is full (the rest stays
     * kept) or all are published. Records of a partition that is held (failed, waiting to be re-read) or no longer
     * assigned are dropped: the seek of the re-read, or the partition's new owner, reads them again.
     *
     * @param assigned the source's assigned partitions
     */
    void publish(final Map<TopicPartition, KafkaPartition> assigned)
    {
        copyKeys = withKeyAndHeaders;
        while (true)
        {
            if (list == null)
            {
                if (partitionIndex == partitions.size())
                {
                    records = null;
                    partitions.clear();
                    return;
                }
                final TopicPartition tp = partitions.get(partitionIndex++);
                list = records.records(tp);
                state = assigned.get(tp);
                recordIndex = 0;
                if (state != null && !state.holding() && !list.isEmpty())
                {
                    // below what the partition reached: the consumer went back on its own (out of range)
                    state.firstReturned(list.get(0).offset());
                }
            }
            final KafkaPartition ps = state;
            final List<ConsumerRecord<ByteBuffer, ByteBuffer>> l = list;
            final int n = l.size();
            int i = recordIndex;
            // a partition revoked while its records were kept: the new owner re-reads them from the last commit;
            // a partition waiting to be re-read reads them again after its seek
            if (ps != null && !ps.holding())
            {
                try
                {
                    while (i < n)
                    {
                        if (!tryPublish(ps, l.get(i)))
                        {
                            recordIndex = i;
                            return;
                        }
                        i++;
                    }
                    // every record of the partition is registered: markers and aborted records after the last one
                    // are gaps up to the consumer's position
                    final OffsetAndMetadata next = records.nextOffsets().get(ps.tp);
                    if (next != null)
                    {
                        ps.skipTo(next.offset());
                    }
                }
                catch (final RuntimeException | Error e)
                {
                    recordIndex = i;
                    throw e;
                }
            }
            list = null;
            state = null;
        }
    }

    /** @return false when back-pressured (nothing was registered or published) */
    private boolean tryPublish(final KafkaPartition ps, final ConsumerRecord<ByteBuffer, ByteBuffer> r)
    {
        final RereadFilter filter = ps.filter;
        if (filter != null && filter.active() && filter.written(r.offset()))
        {
            // a re-read: this record was durably written before; acknowledge it without sending it again
            final AckTracker t = ps.tracker;
            if (t.tryRegister(r.offset()) != AckTracker.REGISTERED)
            {
                return false;
            }
            t.ack(r.offset(), t.generation());
            stats.rereadSkipped.lazySet(stats.rereadSkipped.get() + 1);
            return true;
        }
        // ByteBufferDeserializer hands over the fetched bytes without copying them into a byte[] first
        final ByteBuffer value = r.value();
        final boolean withKey = copyKeys;
        final ByteBuffer key = withKey ? r.key() : null;
        int headerBytes = 0;
        if (withKey)
        {
            for (final Header h : r.headers())
            {
                headerBytes += RecordEvent.headerBytesBound(h.key().length(),
                    h.value() == null ? -1 : h.value().length);
            }
        }
        final int need = RecordEvent.requiredBytes(key == null ? -1 : key.remaining(),
            value == null ? -1 : value.remaining(), headerBytes);
        final RecordClaim c = claim;
        int rc = publisher.tryClaim(need, ps.tracker, r.offset(), c);
        final boolean tooLarge = rc == RingPublisher.TOO_LARGE;
        boolean keysOfTooLarge = false;
        if (tooLarge)
        {
            // the route stage applies on_error to it: the value is not copied; its key and headers are, when they
            // are wanted and fit, so that a dead letter can carry them
            final int keysOnly = withKey
                ? RecordEvent.requiredBytes(key == null ? -1 : key.remaining(), -1, headerBytes)
                : 0;
            rc = withKey ? publisher.tryClaim(keysOnly, ps.tracker, r.offset(), c) : RingPublisher.TOO_LARGE;
            keysOfTooLarge = rc == RingPublisher.OFFERED;
            if (rc == RingPublisher.TOO_LARGE)
            {
                rc = publisher.tryClaim(0, ps.tracker, r.offset(), c);
            }
        }
        if (rc != RingPublisher.OFFERED)
        {
            return false;
        }
        try
        {
            final RecordEvent event = c.record(ps.topicId, r.partition(), r.offset(), r.timestamp(), ps.trackerId,
                ps.tracker.generation());
            event.timestampType(r.timestampType().id);
            if (Failpoints.ENABLED)
            {
                Failpoints.check(Failpoints.SOURCE, r.offset());
            }
            if (tooLarge)
            {
                event.markTooLarge(need);
                if (keysOfTooLarge)
                {
                    event.putKey(key);
                    for (final Header h : r.headers())
                    {
                        event.putHeader(h.key(), h.value());
                    }
                }
            }
            else
            {
                event.putValue(value);
                if (withKey)
                {
                    event.putKey(key);
                    for (final Header h : r.headers())
                    {
                        event.putHeader(h.key(), h.value());
                    }
                }
            }
        }
        catch (final RuntimeException | Error e)
        {
            c.abort();
            throw e;
        }
        c.commit();
        stats.recordsIn.lazySet(stats.recordsIn.get() + 1);
        return true;
    }
}
