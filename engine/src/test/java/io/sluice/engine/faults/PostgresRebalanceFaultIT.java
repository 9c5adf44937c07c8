package io.sluice.engine.faults;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22: {@link RebalanceFaultIT}'s scenario (two engines in one group, one SIGKILLed mid-run) with a PostgreSQL
 * sink on the shared server ({@link FaultPostgres}): the survivor is assigned the dead member's partitions, commits
 * past its offsets and to the end, nothing is lost, and the duplicates are at most the dead member's written but
 * uncommitted records.
 *
 * <p>Both members run with a 15 s group session (heartbeat 3 s) instead of the ClickHouse twin's 6 s: on a machine at
 * load 25 the survivor's own 6 s session ran out twice after the kill, so it was evicted and re-read its own
 * uncommitted records, duplicates the dead member's window does not cover. The assertions are unchanged; only the
 * takeover comes about 9 s later.
 */
@ExtendWith(FaultTopic.Resolver.class)
class PostgresRebalanceFaultIT
{
    /**
     * The method's bound covers the scenario's own bounded waits (180 s for both members to hold partitions, 60 s for
     * the victim's commits, 30 s to settle, 90 s for the takeover, 120 s to catch up, 60 s to drain) and the staging,
     * so that a slow step fails with its own message.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void shouldHandTheKilledMembersPartitionsToTheSurvivorAndLoseNothingInPostgres(final FaultTopic input)
        throws Exception
    {
        try (FaultTopic.Staged staged = input.stage("faults-rebalance-pg-" + Faults.suffix()))
        {
            RebalanceFaultIT.handOver(staged, FaultPostgres.shared(), "d-pg", "faults_rebalance_", 15_000);
        }
    }
}
