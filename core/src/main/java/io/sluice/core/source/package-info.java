/**
 * Every source: {@link io.sluice.core.source.KafkaSource} (owns the KafkaConsumer: poll, pause/resume, commit,
 * rebalance), {@link io.sluice.core.source.LineSource} (JSON lines from a file or stdin, with its
 * {@link io.sluice.core.source.ReplayLog} and {@link io.sluice.core.source.FileCheckpoint}), and the skeleton they
 * and the embedded API share: {@link io.sluice.core.source.RingPublisher} (claim a ring slot, write the record through
 * a {@link io.sluice.core.source.RecordClaim}, commit or abort; outcomes as codes),
 * {@link io.sluice.core.source.RereadSchedule} (fail, hold, back off, resume) and
 * {@link io.sluice.core.source.StallWatch} ({@code checkpoint.stalled_fail_after_ms}).
 *
 * <p>Threads: a source runs as one agent on its own thread and owns its client; the stages after it talk to it only
 * through the ring, the ack trackers and the {@link io.sluice.core.stage.Downstream} contract.
 */
package io.sluice.core.source;
