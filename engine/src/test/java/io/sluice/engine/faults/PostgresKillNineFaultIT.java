package io.sluice.engine.faults;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22: {@link KillNineFaultIT}'s scenario (five SIGKILLs at random mid-run moments, a restart after each) with a
 * PostgreSQL sink on the shared server: the shipped {@code examples/github-events-postgres.toml} in append mode into
 * the example's eight tables without their primary keys, in a schema of its own ({@link FaultPostgres}). After every
 * kill every record below each committed offset is in PostgreSQL; at the end nothing is lost, the committed offsets
 * are the end offsets (lag 0), and the duplicates ({@code count(*) - count(DISTINCT id)}) are reported per crash and
 * bounded by what the kills left written but uncommitted.
 */
@ExtendWith(FaultTopic.Resolver.class)
class PostgresKillNineFaultIT
{
    /**
     * The method's bound is the sum of the scenario's own bounded waits (per kill: 120 s for the commits, 30 s to
     * settle; 240 s for the last run; the input staged once), so that on a slow machine the step that was slow fails
     * with its message and its engine log. At 600 s, beside two CPU hogs at load 25, the method timed out in the last
     * run, mid catch-up: each of the six engines took 43-63 s from its JVM's start to its first assignment and then
     * wrote 1-3k rows/s, well inside each step's own bound.
     */
    @Test
    @Timeout(value = 1200, unit = TimeUnit.SECONDS)
    void shouldLoseNothingInPostgresWhenKilledFiveTimesAtRandomMoments(final FaultTopic input) throws Exception
    {
        KillNineFaultIT.killFiveTimes(input, FaultPostgres.shared(), "a-pg", "faults_kill_");
    }
}
