package io.sluice.engine.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 6 (c): one table goes away for good in the middle of a run over 204,048 GitHub events. Its inserts fail
 * for good (ClickHouse error 60, UNKNOWN_TABLE: not retriable), the source re-reads the failed batches with backoff,
 * and once a partition has made no progress for {@code checkpoint.stalled_fail_after_ms} the engine exits 1, naming
 * the table. It has committed nothing past a record that is not in ClickHouse.
 *
 * <p>The table is RENAMEd away ({@code watch_events} → {@code watch_events_gone}), not DROPped. For the engine the two
 * are the same fault (the insert fails with UNKNOWN_TABLE either way), but after a DROP the rows written before it
 * would be gone, and the central claim, "every record below each committed offset is in ClickHouse", could no
 * longer be checked for the records of that table. After the RENAME they are still there, under the new name.
 *
 * <p>Stall-to-exit is measured two ways: from the RENAME to the process's exit (test clock), and from the engine's
 * first failed insert to its final "stopped with a failure" line (the engine's log timestamps).
 *
 * <p>{@link PostgresDeadTableFaultIT} runs the same scenario ({@link #tableGone}) against PostgreSQL, with a real DROP.
 */
@ExtendWith(FaultTopic.Resolver.class)
class DeadTableFaultIT
{
    private static final long STALLED_FAIL_AFTER_MS = 10_000;
    private static final String TABLE = "watch_events";
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExitOneNamingTheDeadTableAfterTheStallLimitAndCommitNothingPastItsRecords(final FaultTopic topic)
        throws Exception
    {
        tableGone(topic, new Faults.ClickHouse(Faults.sharedClickHouse()), "c", "faults_dead_");
    }

    /**
     * The scenario, writing into {@code store}, which takes the table away its own way ({@link
     * Faults.Store#removeTable}); report lines start with {@code FAULT(<label>)}.
     */
    static void tableGone(final FaultTopic topic, final Faults.Store store, final String label, final String prefix)
        throws Exception
    {
        final String sfx = Faults.suffix();
        final String db = prefix + sfx;
        final String group = "faults-dead-" + sfx;
        final List<String> tables = store.createGithubTables(db);
        assertTrue(tables.contains(TABLE), tables.toString());
        final Path dir = Faults.workDir(label + "-dead-table-" + sfx);
        final Path cfg = Faults.writeConfig(dir, "run.toml",
            store.pipelineToml(topic.name, group, db, STALLED_FAIL_AFTER_MS, 0, null));
        final long total = topic.records;
        final long start = System.nanoTime();
        final long renamedAt;
        final long exitedAt;
        final int rc;
        final String out;
        final long[] committedAtRename;
        final String how;
        try (
            EngineRun e = EngineRun.start(dir, "engine", store.engineEnv(), "--config", cfg.toString(),
                "--until-caught-up");
            Admin admin = Faults.admin())
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (Faults.sum(Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS)) < total / 10)
            {
                if (!e.alive() || System.nanoTime() > deadline)
                {
                    fail("the engine did not commit a tenth of the input; log " + e.logFile() + ":\n" + e.tail(40));
                }
                Thread.sleep(50);
            }
            how = store.removeTable(db, TABLE);
            renamedAt = System.nanoTime();
            committedAtRename = Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS);
            rc = e.waitFor(120);
            exitedAt = e.exitNanos();
            out = e.output();
        }
        final long renameToExitMs = TimeUnit.NANOSECONDS.toMillis(exitedAt - renamedAt);
        final long firstFailureToExitMs = logMillis(out, "not retriable", "stopped with a failure");

        // what Kafka and ClickHouse say afterwards
        final long[] committed;
        try (Admin admin = Faults.admin())
        {
            committed = Faults.committed(admin, group, topic.name, FaultTopic.PARTITIONS);
        }
        final List<String> present = new ArrayList<>(tables);
        present.set(present.indexOf(TABLE), TABLE + "_gone");
        final long[] written = store.distinctIds(db, present);
        final long[] firstUnwritten = topic.firstUnwritten(written);
        final long[] end = topic.endOffsets();
        final String failureLine = firstLine(out, "stopped with a failure");
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        Faults.report(String.format(
            "FAULT(%s) stall-to-exit=%d ms from the %s of %s.%s (checkpoint.stalled_fail_after_ms=%d; "
                + "first failed insert to the engine's final line %d ms, engine log); exit=%d; committed %s at the "
                + "removal, %s at the exit, first unwritten offsets %s of %s (the rows written before the removal "
                + "checked under %s_gone); duration=%d s",
            label, renameToExitMs, how, db, TABLE, STALLED_FAIL_AFTER_MS, firstFailureToExitMs, rc,
            Arrays.toString(committedAtRename), Arrays.toString(committed), Arrays.toString(firstUnwritten),
            Arrays.toString(end), TABLE, seconds));
        System.out.println("FAULT(" + label + ") the engine's reason: " + failureLine);

        assertEquals(1, rc, "exit code; log " + dir.resolve("engine.log"));
        assertTrue(store.names(failureLine, db, TABLE), "the failure names the table: " + failureLine);
        assertTrue(failureLine.contains("stalled_fail_after_ms"), "the failure names the stall limit: " + failureLine);
        for (int p = 0; p < FaultTopic.PARTITIONS; p++)
        {
            if (committed[p] > firstUnwritten[p])
            {
                fail(topic.name + "-" + p + " committed " + committed[p] + " past offset " + firstUnwritten[p] + " (id "
                    + topic.ids[p][(int)firstUnwritten[p]] + "), which is in no table of " + db);
            }
        }
        assertTrue(Faults.sum(committed) < Faults.sum(end), "the dead table held the partitions back");
        assertTrue(renameToExitMs >= STALLED_FAIL_AFTER_MS,
            "the engine gave up before the stall limit: " + renameToExitMs + " ms");
        store.drop(db);
    }

    /**
     * Milliseconds between the first log line containing {@code from} and the first containing {@code to} (lines
     * stamped {@code HH:mm:ss.SSS} or ISO-8601 {@code yyyy-MM-ddTHH:mm:ss.SSSZ}); -1 if absent.
     */
    private static long logMillis(final String log, final String from, final String to)
    {
        final LocalTime a = time(log, from);
        final LocalTime b = time(log, to);
        if (a == null || b == null)
        {
            return -1;
        }
        long ms = java.time.Duration.between(a, b).toMillis();
        if (ms < 0)
        {
            ms += TimeUnit.DAYS.toMillis(1); // past midnight
        }
        return ms;
    }

    private static LocalTime time(final String log, final String containing)
    {
        final Matcher m = Pattern
            .compile("^(?:\\d{4}-\\d\\d-\\d\\dT)?(\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)Z? .*" + Pattern.quote(containing),
                Pattern.MULTILINE)
            .matcher(log);
        return m.find() ? LocalTime.parse(m.group(1), LOG_TIME) : null;
    }

    private static String firstLine(final String log, final String containing)
    {
        for (final String line : log.split("\n"))
        {
            if (line.contains(containing))
            {
                return line;
            }
        }
        return "(no line containing \"" + containing + "\")";
    }
}
