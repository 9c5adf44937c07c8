/**
 * Pre-allocated rings of off-heap record slots: {@link io.sluice.ringbuffers.RecordRing} is a Disruptor ring of
 * {@link io.sluice.ringbuffers.RecordEvent}s over one {@link io.sluice.ringbuffers.RecordSlab} (value, key and
 * headers of each record in a fixed-size slot), and {@link io.sluice.ringbuffers.OverflowPool} lends larger buffers
 * to records that do not fit a slot. Nothing here allocates per record.
 *
 * <p>Threads: a slot is written by the thread that claimed its sequence and read by the stages after it; the
 * Disruptor's sequences order those accesses.
 */
package io.sluice.ringbuffers;
