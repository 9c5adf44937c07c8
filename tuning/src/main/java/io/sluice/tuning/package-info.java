/**
 * Tuning: how each stage thread waits for work, which cpu it runs on, and which JVM flags the engine should run with.
 *
 * <ul>
 *   <li>{@link io.sluice.tuning.WaitKind} names the five wait kinds of the {@code [tuning]} configuration;
 *       {@link io.sluice.tuning.WaitStrategies} turns one into a Disruptor {@code WaitStrategy} (with an optional
 *       timeout that drives {@code onTimeout}, used to seal batches on {@code linger}) or an Agrona
 *       {@code IdleStrategy}.</li>
 *   <li>{@link io.sluice.tuning.StagePlan} validates a stage-to-thread layout ({@link io.sluice.tuning.Layout},
 *       {@link io.sluice.tuning.StageThread}) against the cpus given to the engine: never more spinning threads than
 *       cpus, and a default that does not spin on small machines.</li>
 *   <li>{@link io.sluice.tuning.CpuAffinity} pins stage threads to cpus through OpenHFT Java-Thread-Affinity and says
 *       once, clearly, when it cannot.</li>
 *   <li>{@link io.sluice.tuning.JvmProfile} lists the recommended JVM flags and describes the running JVM for the
 *       start-up banner.</li>
 * </ul>
 *
 * <p>The keys, the costs of each wait kind and the advice on isolating cpus are in {@code docs/tuning.md}.
 */
package io.sluice.tuning;
