package io.sluice.engine.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 6 (a): {@code kill -9} the engine at random moments five times during a run over 204,048 GitHub events and
 * restart it each time. At the end every input id is in ClickHouse, the committed offsets are the end offsets, and
 * the duplicates (count() − uniqExact(id)) are reported per crash.
 *
 * <p>The moments are random but always mid-run: kill k (1–5) comes once the group's committed offsets have reached a
 * random point between 5 + 12(k−1) % and 15 + 12(k−1) % of the input and the run has committed something itself (so
 * every incarnation makes progress), plus a random 0–1000 ms, which puts the kill anywhere in the one-second commit
 * cycle: during a poll, an insert, or between an insert and the commit that follows it. The engine reads from a
 * {@link FaultTopic.Staged staged} copy of the input that holds 35 + 12(k−1) % of it during run k and the rest only
 * after the fifth kill: however fast the machine, no run can commit the whole input before it is killed (a CI run
 * once committed everything within one commit cycle past the fifth target). The seed is printed;
 * {@code -Dfaults.seed=N} repeats a run's choices.
 *
 * <p>After each kill (once ClickHouse's row count has settled) the at-least-once invariant is checked directly:
 * every record below each partition's committed offset (Kafka's Admin client) is in ClickHouse (its HTTP
 * interface). The records at or after the committed offsets that are already written form the crash's re-read
 * window: the duplicates the restart is expected to write. Checkpoint lag is sampled from the Prometheus endpoint
 * throughout (the engine catching up a backlog at full speed: "under load").
 */
@ExtendWith(FaultTopic.Resolver.class)
class KillNineFaultIT
{
    private static final int KILLS = 5;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shouldLoseNothingWhenKilledFiveTimesAtRandomMoments(final FaultTopic input) throws Exception
    {
        killFiveTimes(input, new Faults.ClickHouse(Faults.sharedClickHouse()), "a", "faults_kill_");
    }

    /**
     * The scenario, writing into {@code store}; its report lines start with {@code FAULT(<label>)}, its database or
     * schema is {@code prefix} and a suffix.
     */
    static void killFiveTimes(final FaultTopic input, final Faults.Store store, final String label,
        final String prefix) throws Exception
    {
        final long seed = Long.getLong("faults.seed", System.nanoTime());
        final Random rnd = new Random(seed);
        final String sfx = Faults.suffix();
        final String db = prefix + sfx;
        final String group = "faults-kill-" + sfx;
        final List<String> tables = store.createGithubTables(db);
        final Path dir = Faults.workDir(label + "-kill9-" + sfx);
        final long total = input.records;
        final long start = System.nanoTime();
        final long[] dupsAtKill = new long[KILLS];
        final long[] window = new long[KILLS];
        final List<String> kills = new ArrayList<>();
        final String lagSummary;
        try (FaultTopic.Staged staged = input.stage("faults-kill-" + sfx);
            LagSampler lag = new LagSampler(100);
            Admin admin = Faults.admin())
        {
            final FaultTopic topic = staged.topic;
            for (int k = 0; k < KILLS; k++)
            {
                final long available = staged.release(0.35 + 0.12 * k);
                final int port = Faults.freePort();
                final Path cfg = Faults.writeConfig(dir, "run-" + (k + 1) + ".toml",
                    store.pipelineToml(topic.name, group, db, 120_000, port, null));
                final long base = Faults.sum(Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS));
                // kill k (0-based) once the committed offsets reach a random point in [5 + 12k, 15 + 12k] % of the
                // input, and only after this run has committed something itself
                final long target = Math.max(base + 1, (long)(total * (0.05 + 0.12 * k + 0.10 * rnd.nextDouble())));
                final long jitterMs = rnd.nextInt(1000);
                final long killedAfterMs;
                try (
                    EngineRun e = EngineRun.start(dir, "run-" + (k + 1), store.engineEnv(), "--config", cfg.toString()))
                {
                    lag.port(port);
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    while (Faults.sum(Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS)) < target)
                    {
                        if (!e.alive())
                        {
                            fail("run " + (k + 1) + " exited (" + e.waitFor(1) + ") before it was killed; log "
                                + e.logFile() + ":\n" + e.tail(40));
                        }
                        if (System.nanoTime() > deadline)
                        {
                            fail("run " + (k + 1) + " did not commit up to " + target + " offsets in 120 s; log "
                                + e.logFile() + ":\n" + e.tail(40));
                        }
                        Thread.sleep(50);
                    }
                    // a random moment of the commit cycle (commit_interval_ms = 1000): mid-insert, mid-poll, mid-commit
                    Thread.sleep(jitterMs);
                    lag.port(0);
                    killedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - e.startNanos);
                    e.kill9();
                }
                store.settle(db);
                // the at-least-once invariant, straight from Kafka and ClickHouse
                final long[] committed = Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS);
                final long[] written = store.distinctIds(db, tables);
                final long[] firstUnwritten = topic.firstUnwritten(written);
                for (int p = 0; p < FaultTopic.PARTITIONS; p++)
                {
                    if (committed[p] > firstUnwritten[p])
                    {
                        fail(
                            "at-least-once violated after kill " + (k + 1) + ": " + topic.name + "-" + p + " committed "
                                + committed[p] + " but offset " + firstUnwritten[p] + " (id "
                                + topic.ids[p][(int)firstUnwritten[p]]
                                + ") is not in " + store.kind() + " (database " + db + ", seed " + seed + ")");
                    }
                }
                window[k] = topic.writtenAtOrAfter(committed, written);
                final long[] cu = store.countAndUniq(db, tables);
                dupsAtKill[k] = cu[0] - cu[1];
                kills.add(String.format("kill %d after %d ms of run %d: %d of %d ids written (%.0f%%), %d committed "
                    + "of %d available, re-read window %d, duplicates so far %d", k + 1, killedAfterMs, k + 1,
                    written.length, total, 100.0 * written.length / total, Faults.sum(committed), available, window[k],
                    dupsAtKill[k]));
                System.out.println("FAULT(" + label + ") " + kills.get(k));
            }
            staged.release(1.0);
            final int port = Faults.freePort();
            final Path cfg = Faults.writeConfig(dir, "run-" + (KILLS + 1) + ".toml",
                store.pipelineToml(topic.name, group, db, 120_000, port, null));
            try (EngineRun e = EngineRun.start(dir, "run-" + (KILLS + 1), store.engineEnv(), "--config", cfg.toString(),
                "--until-caught-up"))
            {
                lag.port(port);
                assertEquals(0, e.waitFor(240), "the last run ends cleanly once caught up; log " + e.logFile());
                lag.port(0);
            }
            assertArrayEquals(topic.endOffsets(), Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS),
                "committed offsets equal the end offsets");
            lagSummary = lag.summary();
        }
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        final long[] written = store.distinctIds(db, tables);
        final long lost = input.lost(written);
        final long[] cu = store.countAndUniq(db, tables);
        final long duplicates = cu[0] - cu[1];
        final StringJoiner perCrash = new StringJoiner("/");
        for (int k = 0; k < KILLS; k++)
        {
            perCrash.add(Long.toString((k + 1 < KILLS ? dupsAtKill[k + 1] : duplicates) - dupsAtKill[k]));
        }
        final StringJoiner windows = new StringJoiner("/");
        Arrays.stream(window).forEach(w -> windows.add(Long.toString(w)));
        Faults.report(String.format(
            "FAULT(%s) kills=%d ids=%d lost=%d duplicates=%d (per crash, new duplicates in the run after "
                + "it: %s; written but not committed at each kill: %s; before the first kill: %d) seed=%d duration=%d s",
            label, KILLS,
            input.distinct.length, lost, duplicates, perCrash, windows, dupsAtKill[0], seed, seconds));
        Faults.report(
            "FAULT(" + label
                + ") checkpoint lag under load (6 runs catching up the backlog at full speed, commit_interval_ms = "
                + "1000): " + lagSummary);
        assertEquals(0, lost, "lost ids (database " + db + "): " + input.describeLost(written, 10));
        assertEquals(input.distinct.length, cu[1], "distinct ids over the 8 tables");
        assertTrue(duplicates <= Arrays.stream(window).sum(),
            "duplicates " + duplicates + " exceed what the crashes left "
                + "uncommitted (" + windows + "): something was written twice without a crash");
        store.drop(db);
    }
}
