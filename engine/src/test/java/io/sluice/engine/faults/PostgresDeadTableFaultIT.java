package io.sluice.engine.faults;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22: {@link DeadTableFaultIT}'s scenario with a PostgreSQL sink on the shared server ({@link FaultPostgres}),
 * {@code create_table = false} (the example's): {@code watch_events} is DROPped mid-run, after its rows are copied to
 * {@code watch_events_gone} in the same transaction under an ACCESS EXCLUSIVE lock, so that what was written before
 * stays checkable. The COPYs into it fail for good (the table is missing from the catalog, 42P01 undefined_table),
 * the partitions stay committed at their first unwritten record, and the stall limit ends the run with exit 1, the
 * reason naming {@code "schema"."watch_events"} and {@code stalled_fail_after_ms}.
 */
@ExtendWith(FaultTopic.Resolver.class)
class PostgresDeadTableFaultIT
{
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExitOneNamingTheDroppedTableAfterTheStallLimitAndCommitNothingPastItsRecords(final FaultTopic topic)
        throws Exception
    {
        DeadTableFaultIT.tableGone(topic, FaultPostgres.shared(), "c-pg", "faults_dead_");
    }
}
