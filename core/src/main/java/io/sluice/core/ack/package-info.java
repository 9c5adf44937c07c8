/**
 * Ack tracking: one {@link io.sluice.core.ack.AckTracker} per partition, a lock-free bitmap of the offsets in flight
 * whose watermark is the first offset not yet durably written everywhere (worst-status merge: a failed offset holds
 * it), with generations so that acknowledgements from before a re-read are ignored;
 * {@link io.sluice.core.ack.PartitionTrackers} keeps them by partition. docs/ack-tracking.md has the design.
 *
 * <p>Threads: a tracker is registered and committed by its source thread and acknowledged by any stage thread;
 * the classes spell out the memory ordering.
 */
package io.sluice.core.ack;
