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
 */
@ExtendWith(FaultTopic.Resolver.class)
class PostgresRebalanceFaultIT
{
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shouldHandTheKilledMembersPartitionsToTheSurvivorAndLoseNothingInPostgres(final FaultTopic input)
        throws Exception
    {
        try (FaultTopic.Staged staged = input.stage("faults-rebalance-pg-" + Faults.suffix()))
        {
            RebalanceFaultIT.handOver(staged, FaultPostgres.shared(), "d-pg", "faults_rebalance_");
        }
    }
}
