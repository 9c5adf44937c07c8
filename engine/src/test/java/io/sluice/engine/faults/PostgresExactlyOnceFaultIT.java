package io.sluice.engine.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import io.sluice.engine.TestServices;

/**
 * Issue 23's fault test: {@code delivery = "exactly_once"} on the real broker and a PostgreSQL of the test's own
 * ({@link FaultPostgres.Server}, never the shared one). 100,000 records {@code {"id":i,"kind":"kK"}} over 4 partitions
 * are split by {@code kind} into 4 tables. A feed produces them at a steady pace, and each fault comes at a point of
 * the feed while records still arrive, so batches are in flight: the engine is killed with SIGKILL five times,
 * PostgreSQL is taken down with an immediate shutdown and started again once, and a second member joins, is frozen
 * with SIGSTOP right after its batch's conditional position update, holding that position's row lock in an open
 * transaction (made so: the test holds the position rows until that member's update waits for them, seen in
 * {@code pg_stat_activity}, then freezes it and lets the update through), stays frozen past its session timeout until
 * its partitions moved and the new owner wrote them (the server ends the frozen member's idle transaction after
 * {@code insert_timeout_ms}, so the new owner's update does not wait for the resume), and is resumed: its transaction
 * is gone and its retry is fenced by the positions' conditional update. At the end every table holds each of
 * its records once ({@code count(*) = count(DISTINCT id) = 25,000}, plain queries), every row sits at its record's
 * coordinates, the positions table equals {@code max(offset) + 1} of each table's rows per partition (the last record
 * of that kind in the partition), and the group is committed to the end. The same feed with {@code at_least_once}
 * (12,000 records, two kills) shows the duplicates exactly-once prevents; both counts are reported.
 */
class PostgresExactlyOnceFaultIT
{
    private static final int PARTITIONS = 4;
    private static final int KINDS = 4;
    private static final int RATE = 1250;
    private static final int LEAD = 4000;
    private static final String FENCED = "another member wrote the partition since";
    /** {@code insert_timeout_ms}: also the sessions' {@code idle_in_transaction_session_timeout}. */
    private static final long IDLE_MS = 15_000;

    /**
     * The scenario, once; {@code -Dfaults.repeat=N} runs it N times in one JVM (each with its own topic, group,
     * schema and PostgreSQL), for measuring it beside a load without rebuilding between runs.
     */
    @TestFactory
    Stream<DynamicTest> shouldWriteEveryRecordOnceThroughKillsAnOutageAndAFrozenMember()
    {
        return IntStream.rangeClosed(1, Integer.getInteger("faults.repeat", 1)).mapToObj(i -> DynamicTest.dynamicTest(
            "run " + i, () -> assertTimeoutPreemptively(Duration.ofSeconds(900), PostgresExactlyOnceFaultIT::scenario,
                "the scenario did not end within 900 s")));
    }

    static void scenario() throws Exception
    {
        final long start = System.nanoTime();
        final String loadAtStart = load();
        final String sfx = Faults.suffix();
        final Path dir = Faults.workDir("pg-eos-" + sfx);
        final FaultPostgres.Server server = new FaultPostgres.Server(dir, Faults.freePort());
        final String schema = "eos_" + sfx;
        final List<String> topics = new ArrayList<>();
        boolean passed = false;
        server.run("start");
        try (Admin admin = Faults.admin())
        {
            final FaultPostgres pg = server.store();
            pg.sql("CREATE SCHEMA " + FaultPostgres.q(schema));
            for (final String prefix : List.of("e_", "a_"))
            {
                for (int k = 0; k < KINDS; k++)
                {
                    pg.sql("CREATE TABLE " + table(schema, prefix, k) + " (id bigint NOT NULL, kind text, p integer, "
                        + "o bigint)");
                }
            }
            final Scenario eos = new Scenario(admin, pg, server, dir, schema, "e_", "exactly_once", 100_000, sfx);
            topics.add(eos.topic);
            final String eosReport = eos.runExactlyOnce();
            final Scenario alo = new Scenario(admin, pg, server, dir, schema, "a_", "at_least_once", 12_000, sfx);
            topics.add(alo.topic);
            final String aloReport = alo.runKillsOnly(2);
            Faults.report(String.format("FAULT(pg-eos) %s; %s; duration=%d s, load average (1 min) %s at the start, "
                + "%s at the end", eosReport, aloReport, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                loadAtStart, load()));
            pg.drop(schema);
            admin.deleteTopics(topics).all().get();
            passed = true;
        }
        finally
        {
            server.run("stop");
            if (passed)
            {
                server.run("wipe");
            }
        }
    }

    /** @return the 1-minute load average ({@code /proc/loadavg}), for the report */
    static String load()
    {
        try
        {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        }
        catch (final IOException e)
        {
            return "?";
        }
    }

    static String table(final String schema, final String prefix, final int kind)
    {
        return FaultPostgres.q(schema) + "." + FaultPostgres.q(prefix + "k" + kind);
    }

    /** One pipeline (its topic, group and tables) and the faults run against it. */
    private static final class Scenario
    {
        final Admin admin;
        final FaultPostgres pg;
        final FaultPostgres.Server server;
        final Path dir;
        final String schema;
        final String prefix;
        final String delivery;
        final int total;
        final String topic;
        final String group;
        final Feed feed;
        final List<String> events = new ArrayList<>();
        private int runs;

        Scenario(final Admin admin, final FaultPostgres pg, final FaultPostgres.Server server, final Path dir,
            final String schema, final String prefix, final String delivery, final int total, final String sfx)
            throws Exception
        {
            this.admin = admin;
            this.pg = pg;
            this.server = server;
            this.dir = dir;
            this.schema = schema;
            this.prefix = prefix;
            this.delivery = delivery;
            this.total = total;
            this.topic = "faults-pg-eos-" + prefix.charAt(0) + "-" + sfx;
            this.group = "faults-pg-eos-" + prefix.charAt(0) + "-" + sfx;
            TestServices.createTopic(topic, PARTITIONS);
            this.feed = new Feed(topic, total);
        }

        String config(final String clientId, final int metricsPort)
        {
            final StringBuilder sb = new StringBuilder();
            sb.append("[kafka]\nbootstrap_servers = \"").append(Faults.bootstrap()).append("\"\n")
                .append("[checkpoint]\ncommit_interval_ms = 250\nstalled_fail_after_ms = 120000\n")
                .append("[[sinks]]\nname = \"pg\"\nkind = \"postgres\"\ntopics = [\"").append(topic)
                .append("\"]\ngroup_id = \"").append(group).append("\"\nunmatched = \"fail\"\n")
                .append("[sinks.plugin_config]\nurl = \"").append(pg.url).append("\"\nusername = \"").append(pg.user())
                .append("\"\n")
                .append("password = \"${PGPASSWORD}\"\nschema = \"").append(schema).append("\"\ndelivery = \"")
                .append(delivery).append("\"\ninsert_workers = 2\nmax_rows = 500\nlinger_ms = 100\n")
                .append("insert_timeout_ms = ").append(IDLE_MS).append('\n');
            for (int k = 0; k < KINDS; k++)
            {
                sb.append("[[sinks.branches]]\nname = \"k").append(k)
                    .append("\"\nwhen = { path = \"kind\", equals = \"k")
                    .append(k).append("\" }\ntarget_table = \"").append(prefix).append('k').append(k)
                    .append("\"\ncolumns = { p = \"$partition\", o = \"$offset\" }\n");
            }
            return Faults.withRunSettings(sb.toString(), metricsPort, clientId);
        }

        EngineRun start(final String member) throws IOException
        {
            final String name = prefix + member + "-" + (++runs);
            final int port = Faults.freePort();
            final Path cfg = Faults.writeConfig(dir, name + ".toml", config(prefix + member, port));
            final EngineRun run = EngineRun.start(dir, name, pg.engineEnv(), "--config", cfg.toString());
            lagPort = port;
            return run;
        }

        volatile int lagPort;

        long committed() throws Exception
        {
            return Faults.sum(Faults.committed(admin, group, topic, PARTITIONS));
        }

        long rows() throws Exception
        {
            final StringBuilder sb = new StringBuilder("SELECT 0");
            for (int k = 0; k < KINDS; k++)
            {
                sb.append(" + (SELECT count(*) FROM ").append(table(schema, prefix, k)).append(')');
            }
            return pg.sqlLong(sb.toString());
        }

        /**
         * Lets the feed run to {@code point} (and {@link #LEAD} records beyond, so records keep arriving through the
         * fault) and waits until it has and the running engines have committed since {@code since}.
         */
        void reach(final int point, final long since, final EngineRun... running) throws Exception
        {
            feed.allow(Math.min(total, point + LEAD));
            await("the feed produced " + point + " records and the group committed past " + since, 120,
                () -> feed.produced() >= point && committedQuietly() > since, running);
        }

        /** Keeps the feed going ({@link #LEAD} records ahead of what it produced), never past {@code cap}. */
        void flow(final int cap)
        {
            feed.allow(Math.min(cap, feed.produced() + LEAD));
        }

        long committedQuietly()
        {
            try
            {
                return committed();
            }
            catch (final Exception e)
            {
                return -1;
            }
        }

        /** SIGKILL while records are in flight (produced, not committed); returns the restarted member. */
        EngineRun kill(final EngineRun victim, final String member) throws Exception
        {
            // on a quiet machine the engine catches up with a feed held at its allowance: let the feed go on and kill
            // at a moment when some of what it produced is not committed yet
            flow(total);
            final long[] at = new long[2];
            await("records in flight (produced, not committed) before killing " + victim.name, 60, () ->
            {
                at[0] = committedQuietly();
                at[1] = feed.produced();
                return at[0] >= 0 && at[0] < at[1];
            }, victim);
            final long c = at[0];
            final long produced = at[1];
            victim.kill9();
            assertTrue(c < produced, "the kill came with records in flight (committed " + c + " < produced " + produced
                + ")");
            events.add("kill " + victim.name + " at committed/produced " + c + "/" + produced);
            return start(member);
        }

        long sinceNow() throws Exception
        {
            return committed();
        }

        String runKillsOnly(final int kills) throws Exception
        {
            final long t0 = System.nanoTime();
            EngineRun a = start("a");
            try
            {
                for (int i = 1; i <= kills; i++)
                {
                    reach(total * i / (kills + 2), sinceNow(), a);
                    a = kill(a, "a");
                }
                finish(List.of(a));
            }
            finally
            {
                a.close();
                feed.close();
            }
            final long[] counts = counts();
            assertEquals(total, counts[1], "distinct ids over the at_least_once tables");
            assertTrue(counts[0] > counts[1], "the kills left duplicates in at_least_once mode: " + counts[0]);
            return String.format("at_least_once, %d records, %d kills (%s): %d rows, %d distinct, %d duplicates, "
                + "%d s", total, kills, String.join("; ", events), counts[0], counts[1], counts[0] - counts[1],
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
        }

        String runExactlyOnce() throws Exception
        {
            final long t0 = System.nanoTime();
            EngineRun a = start("a");
            EngineRun b = null;
            String frozen;
            try (LagSampler lag = new LagSampler(200))
            {
                lag.port(lagPort);
                reach(10_000, 0, a);
                a = kill(a, "a");
                lag.port(lagPort);
                reach(20_000, sinceNow(), a);
                a = kill(a, "a");
                lag.port(lagPort);
                reach(30_000, sinceNow(), a);
                a = kill(a, "a");
                lag.port(lagPort);

                // an immediate shutdown of PostgreSQL with batches in flight, started again once records pile up
                reach(40_000, sinceNow(), a);
                final long atDown = committed();
                final int producedAtDown = feed.produced();
                final long down = System.nanoTime();
                server.immediateShutdown();
                feed.allow(producedAtDown + 2000 + LEAD);
                await("records arrive while PostgreSQL is down", 60, () -> feed.produced() >= producedAtDown + 2000, a);
                server.run("start");
                final long outageMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - down);
                await("the engine resumes after PostgreSQL's restart", 120, () -> committedQuietly() > atDown, a);
                events.add(String.format("immediate shutdown at committed/produced %d/%d, down %d ms, resumed %d ms "
                    + "after the shutdown", atDown, producedAtDown, outageMs,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - down)));

                // a second member joins, is frozen with a batch open in PostgreSQL, and resumed after its partitions
                // moved and were written by their new owner
                reach(50_000, atDown, a);
                b = start("b");
                lag.port(lagPort);
                final EngineRun a1 = a;
                final EngineRun b1 = b;
                await("both members hold partitions", 120, () ->
                {
                    flow(80_000); // records keep arriving while b starts, however long that takes
                    final Map<String, List<Integer>> m = members();
                    return m.size() == 2 && !m.getOrDefault(prefix + "a", List.of()).isEmpty()
                        && !m.getOrDefault(prefix + "b", List.of()).isEmpty();
                }, a1, b1);
                frozen = freeze(a1, b1);
                final int from = feed.produced();
                reach(from + (total - from) / 3, sinceNow(), a1, b1);
                a = kill(a1, "a");
                lag.port(lagPort);
                reach(from + 2 * (total - from) / 3, sinceNow(), a, b1);
                b = kill(b1, "b");
                finish(List.of(a, b));
                final String lagSummary = lag.summary();
                events.add("checkpoint lag " + lagSummary);
            }
            finally
            {
                a.close();
                if (b != null)
                {
                    b.close();
                }
                feed.close();
            }
            final long[] counts = counts();
            assertPerTable();
            return String.format("exactly_once, %d records over %d partitions split into %d tables, 5 kills, an "
                + "immediate shutdown, a frozen member (%s): %d rows, %d distinct, %d duplicates (%s), %d s", total,
                PARTITIONS, KINDS, frozen, counts[0], counts[1], counts[0] - counts[1], String.join("; ", events),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
        }

        /**
         * Freezes member {@code b} right after its batch's conditional update of a position of table k0, the last
         * statement before COMMIT: the test holds those position rows ({@code SELECT ... FOR UPDATE}) until one of b's
         * connections waits for them, then SIGSTOP, then lets the update through, so b's transaction holds the
         * position's row lock and waits for its frozen client. The group gives b's partitions to {@code a}; a's
         * update of that position waits for the lock until the server ends b's session
         * ({@code idle_in_transaction_session_timeout} = {@code insert_timeout_ms}, {@link #IDLE_MS}), and a must
         * move k0's positions of every one of b's partitions while b is still frozen. b is resumed after that: its
         * transaction is gone, and its retry of the batch is fenced.
         */
        String freeze(final EngineRun a, final EngineRun b) throws Exception
        {
            final String k0 = table(schema, prefix, 0);
            final Map<String, List<Integer>> before = members();
            final List<Integer> moved = before.get(prefix + "b");
            final int port;
            final long frozeAt;
            try (Connection lock = pg.open(); Statement s = lock.createStatement())
            {
                lock.setAutoCommit(false);
                final StringBuilder in = new StringBuilder();
                moved.forEach(p -> in.append(in.length() == 0 ? "" : ", ").append(p));
                int held = 0;
                try (
                    ResultSet r = s.executeQuery("SELECT partition FROM " + FaultPostgres.q(schema) + ".sluice_offsets "
                        + "WHERE group_id = '" + group + "' AND topic = '" + topic + "' AND table_name = '"
                        + k0.replace("'", "''") + "' AND partition IN (" + in + ") FOR UPDATE"))
                {
                    while (r.next())
                    {
                        held++;
                    }
                }
                assertEquals(moved.size(), held, "positions of " + k0 + " stored for b's partitions " + moved);
                final int[] waiting = new int[1];
                await("a batch of member b waits to update a position of " + k0, 60, () ->
                {
                    flow(total - 15_000);
                    for (final int p : clientPorts("wait_event_type = 'Lock' AND query LIKE 'UPDATE %sluice_offsets%'"))
                    {
                        if (pidOf(p) == b.pid())
                        {
                            waiting[0] = p;
                            return true;
                        }
                    }
                    return false;
                }, a, b);
                port = waiting[0];
                b.signal("STOP");
                frozeAt = System.nanoTime();
                lock.rollback();
            }
            await("b's batch holds a position of " + k0 + " in an open transaction (idle in transaction, its client "
                + "frozen)", 30, () -> clientPorts("state = 'idle in transaction'").contains(port), a);
            final Map<Integer, Long> atFreeze = positions(0, moved);
            await("the group gives b's partitions " + moved + " to a (b frozen past session.timeout.ms)", 90, () ->
            {
                final Map<String, List<Integer>> m = members();
                return m.size() == 1 && m.getOrDefault(prefix + "a", List.of()).size() == PARTITIONS;
            }, a);
            final long movedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt);
            await("a moves the positions of " + k0 + " for " + moved + " past " + atFreeze + " while b is frozen", 90,
                () ->
                {
                    final Map<Integer, Long> now = positions(0, moved);
                    return moved.stream().allMatch(p -> now.getOrDefault(p, -1L) > atFreeze.getOrDefault(p, -1L));
                }, a);
            final long wroteMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt);
            assertEquals("T", FaultPostgres.Server.state(b.pid()), "b was still stopped when a wrote its partitions");
            assertTrue(wroteMs < IDLE_MS + 60_000, "a wrote " + moved + " within insert_timeout_ms (" + IDLE_MS
                + " ms) + 60 s of the freeze: " + wroteMs + " ms");
            await("the server ends b's idle transaction (client port " + port + ", "
                + "idle_in_transaction_session_timeout)", IDLE_MS / 1000 + 30,
                () -> !clientPorts("true").contains(port),
                a);
            final long endedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt);
            assertEquals("T", FaultPostgres.Server.state(b.pid()), "b was still stopped when its session ended");
            b.signal("CONT");
            final long frozenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt);
            final String[] seen = new String[1];
            await("b's stale batch fails on resume (" + FENCED + ", or its ended session)", 90, () ->
            {
                final String out = b.output();
                seen[0] = out.contains(FENCED)
                    ? "fenced"
                    : out.contains("25P03") || out.contains("08006")
                        ? "its session ended (the retry not yet fenced)"
                        : null;
                return seen[0] != null;
            }, a, b);
            return String.format("b held %s, frozen after its position update of %s for %d ms, partitions moved after "
                + "%d ms, a wrote them after %d ms with b still frozen, b's session ended by the server after %d ms, "
                + "b on resume: %s", moved, k0, frozenMs, movedMs, wroteMs, endedMs, seen[0]);
        }

        /** Lets the feed produce everything and waits until the group is committed to the end; stops the engines. */
        void finish(final List<EngineRun> running) throws Exception
        {
            feed.allow(total);
            final EngineRun[] r = running.toArray(new EngineRun[0]);
            await("the feed produced all " + total + " records", 120, () -> feed.produced() == total, r);
            feed.close();
            final long[] end = Faults.endOffsets(admin, topic, PARTITIONS);
            assertEquals(total, Faults.sum(end), "records in " + topic);
            await("the group is committed to the end offsets " + Arrays.toString(end), 180, () ->
            {
                try
                {
                    return Arrays.equals(end, Faults.committed(admin, group, topic, PARTITIONS));
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, r);
            for (final EngineRun e : running)
            {
                e.terminate();
            }
            for (final EngineRun e : running)
            {
                assertEquals(0, e.waitFor(60), e.name + " drains and exits 0 on SIGTERM; log " + e.logFile());
            }
            assertArrayEquals(end, Faults.committed(admin, group, topic, PARTITIONS), "lag 0: committed = end");
        }

        /** @return {rows, distinct ids} over the scenario's tables */
        long[] counts()
        {
            final StringBuilder u = new StringBuilder();
            for (int k = 0; k < KINDS; k++)
            {
                u.append(k == 0 ? "" : " UNION ALL ").append("SELECT id FROM ").append(table(schema, prefix, k));
            }
            return new long[]{pg.sqlLong("SELECT count(*) FROM (" + u + ") AS u"),
                pg.sqlLong("SELECT count(DISTINCT id) FROM (" + u + ") AS u")};
        }

        /** Each table: its records once, each at its coordinates, and its positions = its rows' max offset + 1. */
        void assertPerTable() throws Exception
        {
            final Map<String, Long> expected = new TreeMap<>();
            final Map<String, Long> fromRows = new TreeMap<>();
            final Map<String, Long> stored = new TreeMap<>();
            for (int k = 0; k < KINDS; k++)
            {
                final String t = table(schema, prefix, k);
                final long perKind = total / KINDS;
                assertEquals(perKind + "|" + perKind + "|" + perKind, string("SELECT count(*) || '|' || count(DISTINCT "
                    + "id) || '|' || count(DISTINCT (p, o)) FROM " + t), "count, distinct ids, distinct coordinates "
                        + "of " + t);
                assertEquals(0, pg.sqlLong("SELECT count(*) FROM " + t + " WHERE kind <> 'k" + k + "' OR id <> 4 * o "
                    + "+ p"), "rows of " + t + " not at their record's coordinates");
                for (int p = 0; p < PARTITIONS; p++)
                {
                    expected.put(k + "|" + p, feed.last(k, p) + 1);
                    fromRows.put(k + "|" + p, pg.sqlLong("SELECT coalesce(max(o), -1) + 1 FROM " + t + " WHERE p = "
                        + p));
                    stored.put(k + "|" + p, pg.sqlLong("SELECT coalesce(max(next_offset), -1) FROM "
                        + FaultPostgres.q(schema) + ".sluice_offsets WHERE group_id = '" + group + "' AND topic = '"
                        + topic + "' AND partition = " + p + " AND table_name = '" + t.replace("'", "''") + "'"));
                }
            }
            assertEquals(expected, fromRows, "each table holds up to the last record of its kind in each partition");
            assertEquals(expected, stored, "the positions table agrees with the rows (table|partition)");
        }

        String string(final String query) throws SQLException
        {
            try (Connection c = pg.open(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(query))
            {
                r.next();
                return r.getString(1);
            }
        }

        /** @return partition -> next_offset of table k for those partitions (absent: none stored yet) */
        Map<Integer, Long> positions(final int kind, final List<Integer> partitions)
        {
            final Map<Integer, Long> out = new TreeMap<>();
            try (Connection c = pg.open();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT partition, next_offset FROM " + FaultPostgres.q(schema)
                    + ".sluice_offsets WHERE group_id = '" + group + "' AND table_name = '"
                    + table(schema, prefix, kind).replace("'", "''") + "'"))
            {
                while (r.next())
                {
                    if (partitions.contains(r.getInt(1)))
                    {
                        out.put(r.getInt(1), r.getLong(2));
                    }
                }
            }
            catch (final SQLException e)
            {
                throw new IllegalStateException(e);
            }
            return out;
        }

        /** @return the client ports of the engines' sessions in this condition */
        List<Integer> clientPorts(final String condition)
        {
            final List<Integer> out = new ArrayList<>();
            try (Connection c = pg.open();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT client_port FROM pg_stat_activity WHERE application_name = "
                    + "'sluice' AND " + condition))
            {
                while (r.next())
                {
                    out.add(r.getInt(1));
                }
            }
            catch (final SQLException e)
            {
                throw new IllegalStateException(e);
            }
            return out;
        }

        Map<String, List<Integer>> members()
        {
            try
            {
                return Faults.members(admin, group, topic);
            }
            catch (final Exception e)
            {
                return Map.of();
            }
        }
    }

    /** @return the pid owning the local TCP port (ss -tnp), or -1 */
    static long pidOf(final int localPort)
    {
        try
        {
            final Process p = new ProcessBuilder("ss", "-tnpH", "sport = :" + localPort).redirectErrorStream(true)
                .start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            final Matcher m = Pattern.compile("pid=(\\d+)").matcher(out);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }
        catch (final IOException e)
        {
            return -1;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Waits for a condition with a bound; fails naming it, or at once when one of the engines exited. */
    static void await(final String what, final long seconds, final BooleanSupplier condition,
        final EngineRun... running)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean())
        {
            for (final EngineRun e : running)
            {
                if (!e.alive())
                {
                    fail(e.name + " exited while waiting until " + what + "; log " + e.logFile() + ":\n" + e.tail(40));
                }
            }
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + seconds + " s waiting until " + what);
            }
            Faults.sleep(50);
        }
    }

    /**
     * Produces {@code {"id":i,"kind":"k<(i/4)%4>"}} for i = 0.. to partition i % 4, at {@link #RATE} records a
     * second, never past the limit the test allows, on a thread of its own; keeps the last offset per (kind,
     * partition). The producer is idempotent, so record i lands at offset i / 4 of its partition.
     */
    private static final class Feed implements AutoCloseable
    {
        private final String topic;
        private final int total;
        private final Thread thread;
        private final AtomicInteger produced = new AtomicInteger();
        private final long[][] last = new long[KINDS][PARTITIONS];
        private volatile int allowed;
        private volatile Exception failure;

        Feed(final String topic, final int total)
        {
            this.topic = topic;
            this.total = total;
            for (final long[] l : last)
            {
                Arrays.fill(l, -1);
            }
            thread = new Thread(this::loop, "feed-" + topic);
            thread.setDaemon(true);
            thread.start();
        }

        void allow(final int n)
        {
            allowed = Math.max(allowed, n);
        }

        int produced()
        {
            if (failure != null)
            {
                throw new AssertionError("producing to " + topic + " failed", failure);
            }
            return produced.get();
        }

        synchronized long last(final int kind, final int partition)
        {
            return last[kind][partition];
        }

        private void loop()
        {
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Faults.bootstrap());
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props))
            {
                final long t0 = System.nanoTime();
                int paused = 0;
                for (int i = 0; i < total && failure == null; i++)
                {
                    while (i >= allowed)
                    {
                        if (Thread.currentThread().isInterrupted())
                        {
                            return;
                        }
                        producer.flush();
                        Faults.sleep(20);
                        paused += 20;
                    }
                    // the pace: record i is due at i / RATE seconds after the start, not counting gated time
                    final long due = t0 + TimeUnit.MILLISECONDS.toNanos(paused + 1000L * i / RATE);
                    final long ahead = due - System.nanoTime();
                    if (ahead > 1_000_000)
                    {
                        Faults.sleep(TimeUnit.NANOSECONDS.toMillis(ahead));
                    }
                    final int id = i;
                    final int kind = id / PARTITIONS % KINDS;
                    producer.send(new ProducerRecord<>(topic, id % PARTITIONS, null,
                        ("{\"id\":" + id + ",\"kind\":\"k" + kind + "\"}").getBytes(StandardCharsets.UTF_8)),
                        (md, e) ->
                        {
                            if (e != null)
                            {
                                failure = e;
                                return;
                            }
                            synchronized (this)
                            {
                                last[kind][md.partition()] = Math.max(last[kind][md.partition()], md.offset());
                            }
                            produced.incrementAndGet();
                        });
                }
                producer.flush();
            }
            catch (final RuntimeException e)
            {
                if (!(e.getCause() instanceof InterruptedException))
                {
                    failure = e;
                }
            }
        }

        @Override
        public void close() throws InterruptedException
        {
            if (produced.get() < total)
            {
                thread.interrupt();
            }
            thread.join(10_000);
        }
    }
}
