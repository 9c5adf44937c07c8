package io.sluice.core.ack;

/**
 * The lowest failed offset of one {@link AckTracker} generation, with the code and reason of the first
 * {@link AckTracker#fail(long, int, int, String)} call that reported it.
 *
 * <p>Immutable, so a failure is published with one reference compare-and-set and read consistently (offset, code
 * and reason always belong together). Allocated only on the failure path, never on the hot path.
 *
 * @param generation the tracker generation the failure belongs to; a failure of another generation is ignored.
 * @param offset     the failed Kafka offset.
 * @param code       the caller's error code (for example a ClickHouse exception code).
 * @param reason     the caller's reason, never null.
 * @param awaited    what the failed offset waits for when the failure is a wait ({@link AckTracker#CODE_AWAITING}),
 *                   or null.
 */
record AckFailure(int generation, long offset, int code, String reason, Awaited awaited)
{
}
