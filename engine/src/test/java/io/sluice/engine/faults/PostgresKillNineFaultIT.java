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
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void shouldLoseNothingInPostgresWhenKilledFiveTimesAtRandomMoments(final FaultTopic input) throws Exception
    {
        KillNineFaultIT.killFiveTimes(input, FaultPostgres.shared(), "a-pg", "faults_kill_");
    }
}
