package io.sluice.engine.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12, item 2 under load: a replay writes each row once. A gather sink splits one topic of 4 partitions into 4
 * tables by a field ({@code kind} = {@code t0} .. {@code t3}, one branch each), and every partition carries records of
 * every table. 32,000 records are produced at a steady 1,000 per second; 6 s in, table {@code t2} is RENAMEd away
 * ({@code t2} → {@code t2_away}) for 20 s and then renamed back, while the producer keeps going.
 *
 * <p>While {@code t2} is away its inserts fail for good (ClickHouse error 60, UNKNOWN_TABLE), so each partition is
 * held at its first unwritten {@code t2} record and re-read from there with backoff, many times (the sink's default
 * {@code retry_backoff_ms} 200 doubling to {@code retry_backoff_max_ms} 5000). Each re-read sends only the offsets
 * not yet durably written: the rows of {@code t0}, {@code t1} and {@code t3} already inserted are acknowledged without
 * being sent again, the new ones are inserted (the three tables keep receiving). Before the fix every re-read inserted
 * all later records of the partition again.
 *
 * <p>Asserted afterwards, by id against what Kafka acknowledged to the producer: each table holds each of its ids
 * exactly once (0 duplicates, 0 missing, none in a wrong table); the committed offsets equal the end offsets; the
 * engine's consumer lag ({@code sluice_consumer_lag_records}) is 0 for every partition; SIGTERM ends the run with
 * exit 0; the stall limit (120 s) never fired. In both thread layouts, with the default {@code linger_ms} (1000) and
 * with 50 (a failed batch is refused again sooner, while a re-read may still walk what was written). The two
 * {@code linger_ms} cases of a layout run side by side in one engine, as two sinks with a topic, a consumer group, a
 * database and a producer each, their tables renamed away and back at the same moments: one 32 s timeline per
 * layout instead of one per case, and each sink is checked on its own (its rows, offsets, lag, re-reads and errors,
 * told apart in the log by its topic and database). Figures: docs/faults.md.
 */
class RenamedTableFaultIT
{
    private static final int PARTITIONS = 4;
    private static final int TABLES = 4;
    private static final int RECORDS = 32_000;
    private static final int RATE_PER_SECOND = 1_000;
    private static final long RENAME_AFTER_MS = 6_000;
    private static final long AWAY_MS = 20_000;
    private static final long STALL_MS = 120_000;
    private static final int AWAY_INDEX = 2;
    private static final String AWAY = "t" + AWAY_INDEX;
    /** The {@code linger_ms} of the two sinks every run has: the default, and a short one. */
    private static final long[] LINGERS_MS = {1000, 50};

    /** One sink of the run, its own topic, group, database and producer, and what was measured of it. */
    private static final class Lane
    {
        final long lingerMs;
        final String name;
        final String topic;
        final String group;
        final String db;
        final long[] healthyAtRename = new long[TABLES];
        final long[] healthyAtReturn = new long[TABLES];
        long[] committedAtReturn;
        long[] end;
        long[] committed;
        long movedMs = -1;
        long catchUpMs = -1;
        SteadyProducer producer;

        Lane(final String layout, final long lingerMs, final String sfx)
        {
            this.lingerMs = lingerMs;
            this.name = "renamed-l" + lingerMs;
            this.topic = "renamed-" + layout + "-l" + lingerMs + "-" + sfx;
            this.group = "renamed-l" + lingerMs + "-" + sfx;
            this.db = "renamed_" + layout + "_l" + lingerMs + "_" + sfx;
        }
    }

    @ParameterizedTest(name = "{0} layout, linger_ms 1000 and 50 side by side")
    @ValueSource(strings = {"fused", "split"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void oneTableAwayFor20sLeavesEveryIdOnceInItsTable(final String layout) throws Exception
    {
        final String sfx = Faults.suffix();
        final List<Lane> lanes = new ArrayList<>();
        for (final long lingerMs : LINGERS_MS)
        {
            lanes.add(new Lane(layout, lingerMs, sfx));
        }
        final Faults.ClickHouse ch = new Faults.ClickHouse(Faults.sharedClickHouse());
        for (final Lane l : lanes)
        {
            ch.sql("CREATE DATABASE " + l.db);
            for (int t = 0; t < TABLES; t++)
            {
                ch.sql(
                    "CREATE TABLE " + l.db + ".t" + t + " (id UInt64, kind String) ENGINE = MergeTree() ORDER BY id");
            }
        }
        final Path dir = Faults.workDir("renamed-table-" + layout + "-" + sfx);
        final int metricsPort = Faults.freePort();
        final Path cfg = Faults.writeConfig(dir, "run.toml", toml(lanes, ch.url, layout, metricsPort));
        final long lagZeroMs;
        final int rc;
        final String log;
        try (Admin admin = Faults.admin())
        {
            for (final Lane l : lanes)
            {
                admin.createTopics(List.of(new NewTopic(l.topic, PARTITIONS, (short)1))).all().get();
            }
            try (EngineRun e = EngineRun.start(dir, "engine", "--config", cfg.toString()))
            {
                try
                {
                    for (final Lane l : lanes)
                    {
                        awaitLog(e, "assigned " + l.topic, 60);
                        l.producer = new SteadyProducer(l.topic);
                    }
                    for (final Lane l : lanes)
                    {
                        l.producer.start();
                    }
                    Thread.sleep(RENAME_AFTER_MS);
                    assertTrue(e.alive(), "the engine exited before the RENAME:\n" + e.tail(40));
                    for (final Lane l : lanes)
                    {
                        ch.sql("RENAME TABLE " + l.db + "." + AWAY + " TO " + l.db + "." + AWAY + "_away");
                    }
                    for (final Lane l : lanes)
                    {
                        rows(ch, l.db, l.healthyAtRename);
                    }
                    Thread.sleep(AWAY_MS);
                    for (final Lane l : lanes)
                    {
                        rows(ch, l.db, l.healthyAtReturn);
                    }
                    for (final Lane l : lanes)
                    {
                        ch.sql("RENAME TABLE " + l.db + "." + AWAY + "_away TO " + l.db + "." + AWAY);
                    }
                    final long returnedAt = System.nanoTime();
                    for (final Lane l : lanes)
                    {
                        l.committedAtReturn = Faults.committed(admin, l.group, l.topic, PARTITIONS);
                    }
                    awaitCommittedPast(admin, lanes, returnedAt, e);
                    for (final Lane l : lanes)
                    {
                        l.producer.await(120);
                    }
                    final long producedAt = System.nanoTime();
                    for (final Lane l : lanes)
                    {
                        l.end = Faults.endOffsets(admin, l.topic, PARTITIONS);
                        assertEquals(RECORDS, Faults.sum(l.end), "records in " + l.topic);
                    }
                    awaitCommitted(admin, lanes, producedAt, e);
                    awaitLagZero(metricsPort, lanes, e);
                    lagZeroMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - producedAt);
                }
                finally
                {
                    for (final Lane l : lanes)
                    {
                        if (l.producer != null)
                        {
                            l.producer.close();
                        }
                    }
                }
                e.terminate();
                rc = e.waitFor(60);
                log = e.output();
            }
            for (final Lane l : lanes)
            {
                l.committed = Faults.committed(admin, l.group, l.topic, PARTITIONS);
            }
        }

        assertEquals(0, rc, "exit code after SIGTERM; log " + dir.resolve("engine.log"));
        assertFalse(log.contains("made no progress for"), "the stall limit fired");
        for (final Lane l : lanes)
        {
            check(ch, layout, l, log, lagZeroMs, rc, dir);
        }
    }

    /** What one sink of the run must show: every id once in its table, offsets, re-reads, the failed inserts. */
    private static void check(final Faults.ClickHouse ch, final String layout, final Lane l, final String log,
        final long lagZeroMs, final int rc, final Path dir)
    {
        // what ClickHouse holds, table by table, id by id
        final long[] rows = new long[TABLES];
        long duplicates = 0;
        long missing = 0;
        long misplaced = 0;
        final StringBuilder detail = new StringBuilder();
        for (int t = 0; t < TABLES; t++)
        {
            final long[] got = ids(ch, l.db, "t" + t);
            rows[t] = got.length;
            final long[] want = expectedIds(t);
            final long[] counts = compare(want, got);
            duplicates += counts[0];
            missing += counts[1];
            misplaced += counts[2];
            if (counts[0] + counts[1] + counts[2] > 0)
            {
                detail.append(String.format("t%d: %d rows, %d duplicates, %d missing, %d not of this table%s; ", t,
                    got.length, counts[0], counts[1], counts[2], firstDuplicates(got)));
            }
        }
        // this sink's lines: its partitions are named "<topic>-<p>", its tables "`<db>`.`<table>`"
        final String partition = l.topic + "-";
        final long rereads = log.lines()
            .filter(x -> x.contains(partition) && x.contains("are written already and are not sent again")).count();
        final long notSentAgain = sumMatches(log,
            Pattern.quote(partition) + "\\d+ re-reading from offset \\d+: (\\d+) of the");
        final boolean refused = log.lines().anyMatch(x -> x.contains(l.db)
            && (x.contains("UNKNOWN_TABLE") || x.contains("doesn't exist")));
        final long away = l.healthyAtReturn[AWAY_INDEX] - l.healthyAtRename[AWAY_INDEX];
        long healthyGrowth = 0;
        for (int t = 0; t < TABLES; t++)
        {
            if (t != AWAY_INDEX)
            {
                healthyGrowth += l.healthyAtReturn[t] - l.healthyAtRename[t];
            }
        }
        Faults.report(String.format(
            "FAULT(12.2) %s layout, linger_ms %d: %s.%s renamed away %d ms while %d records were produced at "
                + "%d/s over %d partitions into %d tables; duplicates=%d missing=%d misplaced=%d; rows per table %s; the "
                + "other three tables received %d rows while it was away (%s -> %s); %d re-reads left out %d offsets "
                + "written already; committed %s at the rename back (every partition committed past it %d ms later), %s at "
                + "the end = end offsets %s %d ms after the last record was produced (consumer lag 0 after %d ms); exit %d"
                + " (sink %s beside the other linger_ms in one engine)",
            layout, l.lingerMs, l.db, AWAY, AWAY_MS, RECORDS, RATE_PER_SECOND, PARTITIONS, TABLES, duplicates, missing,
            misplaced,
            Arrays.toString(rows), healthyGrowth, Arrays.toString(l.healthyAtRename),
            Arrays.toString(l.healthyAtReturn),
            rereads, notSentAgain, Arrays.toString(l.committedAtReturn),
            l.movedMs, Arrays.toString(l.committed), Arrays.toString(l.end), l.catchUpMs, lagZeroMs, rc, l.name));

        final String which = " (sink " + l.name + ", linger_ms " + l.lingerMs + ")";
        assertEquals(0, duplicates + missing + misplaced, "each id once, in its table" + which + ": " + detail);
        assertArrayEquals(l.end, l.committed, "committed offsets = end offsets" + which);
        assertTrue(refused,
            "the inserts into " + l.db + "." + AWAY + " failed while it was away; log " + dir.resolve("engine.log"));
        assertTrue(rereads >= 1 && notSentAgain > 0, "the partitions were re-read with written rows left out" + which);
        assertEquals(0, away, "nothing was inserted into " + AWAY + " while it was away" + which);
        assertTrue(healthyGrowth > 0, "the other tables kept receiving while " + AWAY + " was away" + which);
        ch.sql("DROP DATABASE " + l.db);
    }

    /** Record {@code id} goes to partition {@code id % 4} and table {@code t((id / 4) % 4)}: every partition feeds every table. */
    private static int tableOf(final long id)
    {
        return (int)((id / PARTITIONS) % TABLES);
    }

    private static long[] expectedIds(final int table)
    {
        final long[] out = new long[RECORDS / TABLES];
        int n = 0;
        for (long id = 0; id < RECORDS; id++)
        {
            if (tableOf(id) == table)
            {
                out[n++] = id;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** @return {duplicates, missing, not of this table} of the sorted {@code got} against the sorted {@code want} */
    private static long[] compare(final long[] want, final long[] got)
    {
        long duplicates = 0;
        long misplaced = 0;
        for (int i = 0; i < got.length; i++)
        {
            if (i > 0 && got[i] == got[i - 1])
            {
                duplicates++;
            }
            else if (Arrays.binarySearch(want, got[i]) < 0)
            {
                misplaced++;
            }
        }
        long missing = 0;
        for (final long id : want)
        {
            if (Arrays.binarySearch(got, id) < 0)
            {
                missing++;
            }
        }
        return new long[]{duplicates, missing, misplaced};
    }

    private static String firstDuplicates(final long[] got)
    {
        final StringBuilder sb = new StringBuilder();
        int n = 0;
        for (int i = 1; i < got.length && n < 5; i++)
        {
            if (got[i] == got[i - 1] && (i < 2 || got[i - 2] != got[i]))
            {
                sb.append(n == 0 ? " (first duplicated ids: " : ", ").append(got[i]);
                n++;
            }
        }
        return n == 0 ? "" : sb.append(')').toString();
    }

    /** @return the table's ids, one per row, sorted */
    private static long[] ids(final Faults.ClickHouse ch, final String db, final String table)
    {
        final String body = ch.sql("SELECT id FROM " + db + "." + table + " ORDER BY id FORMAT TabSeparated");
        if (body.isBlank())
        {
            return new long[0];
        }
        return body.lines().mapToLong(Long::parseLong).toArray();
    }

    /** Row counts of the tables while {@link #AWAY} is away (it is counted under its other name). */
    private static void rows(final Faults.ClickHouse ch, final String db, final long[] out)
    {
        for (int t = 0; t < TABLES; t++)
        {
            out[t] = ch.sqlLong("SELECT count() FROM " + db + (t == AWAY_INDEX ? "." + AWAY + "_away" : ".t" + t));
        }
    }

    private static long sumMatches(final String log, final String regex)
    {
        final Matcher m = Pattern.compile(regex).matcher(log);
        long s = 0;
        while (m.find())
        {
            s += Long.parseLong(m.group(1));
        }
        return s;
    }

    private static String toml(final List<Lane> lanes, final String clickhouse, final String layout,
        final int metricsPort)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("[kafka]\nbootstrap_servers = \"").append(Faults.bootstrap()).append("\"\n")
            .append("[checkpoint]\nstalled_fail_after_ms = ").append(STALL_MS).append('\n')
            .append("[engine]\nkafka_check_timeout_ms = 60000\nstatus_interval_ms = 1000\n")
            .append("[metrics]\nlisten = \"127.0.0.1:").append(metricsPort).append("\"\n")
            .append("[tuning]\nlayout = \"").append(layout).append("\"\n");
        for (final Lane l : lanes)
        {
            sb.append("[[sinks]]\nname = \"").append(l.name).append("\"\nkind = \"clickhouse\"\ntopics = [\"")
                .append(l.topic).append("\"]\ngroup_id = \"").append(l.group).append("\"\n")
                .append("[sinks.plugin_config]\nendpoint = \"").append(clickhouse).append("\"\ndatabase = \"")
                .append(l.db).append("\"\nlinger_ms = ").append(l.lingerMs).append('\n');
            for (int t = 0; t < TABLES; t++)
            {
                sb.append("[[sinks.branches]]\nname = \"t").append(t)
                    .append("\"\nwhen = { path = \"kind\", equals = \"t")
                    .append(t).append("\" }\ntarget_table = \"t").append(t).append("\"\n");
            }
        }
        return sb.toString();
    }

    private static void awaitLog(final EngineRun e, final String text, final long seconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!e.output().contains(text))
        {
            if (!e.alive() || System.nanoTime() > deadline)
            {
                fail("no line with '" + text + "' within " + seconds + " s; log " + e.logFile() + ":\n" + e.tail(40));
            }
            Thread.sleep(50);
        }
    }

    /**
     * Waits until every partition of every sink has committed past where it was stuck at the rename back, and notes
     * for each sink how long after {@code returnedAt} it got there.
     */
    private static void awaitCommittedPast(final Admin admin, final List<Lane> lanes, final long returnedAt,
        final EngineRun e) throws Exception
    {
        final long deadline = returnedAt + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            boolean every = true;
            final StringBuilder where = new StringBuilder();
            for (final Lane l : lanes)
            {
                if (l.movedMs >= 0)
                {
                    continue;
                }
                final long[] c = Faults.committed(admin, l.group, l.topic, PARTITIONS);
                boolean all = true;
                for (int p = 0; p < PARTITIONS; p++)
                {
                    all &= c[p] > l.committedAtReturn[p];
                }
                if (all)
                {
                    l.movedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - returnedAt);
                }
                else
                {
                    every = false;
                    where.append(l.topic).append(" stuck at ").append(Arrays.toString(l.committedAtReturn))
                        .append(", committed ").append(Arrays.toString(c)).append("; ");
                }
            }
            if (every)
            {
                return;
            }
            if (!e.alive() || System.nanoTime() > deadline)
            {
                fail("not every partition moved past where it was stuck within 60 s of the rename back: " + where
                    + "log " + e.logFile() + ":\n" + e.tail(40));
            }
            Thread.sleep(100);
        }
    }

    /** Waits until every sink has committed its end offsets; notes for each how long after {@code producedAt}. */
    private static void awaitCommitted(final Admin admin, final List<Lane> lanes, final long producedAt,
        final EngineRun e) throws Exception
    {
        final long deadline = producedAt + TimeUnit.SECONDS.toNanos(120);
        while (true)
        {
            boolean every = true;
            final StringBuilder where = new StringBuilder();
            for (final Lane l : lanes)
            {
                if (l.catchUpMs >= 0)
                {
                    continue;
                }
                final long[] c = Faults.committed(admin, l.group, l.topic, PARTITIONS);
                if (Arrays.equals(c, l.end))
                {
                    l.catchUpMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - producedAt);
                }
                else
                {
                    every = false;
                    where.append(l.topic).append(" committed ").append(Arrays.toString(c)).append(", end offsets ")
                        .append(Arrays.toString(l.end)).append("; ");
                }
            }
            if (every)
            {
                return;
            }
            if (!e.alive() || System.nanoTime() > deadline)
            {
                fail(where + "log " + e.logFile() + ":\n" + e.tail(40));
            }
            Thread.sleep(200);
        }
    }

    /**
     * Waits until the engine's endpoint reports {@code sluice_consumer_lag_records} 0 for every partition of every
     * sink's topic.
     */
    private static void awaitLagZero(final int port, final List<Lane> lanes, final EngineRun e) throws Exception
    {
        final Pattern line = Pattern.compile("^sluice_consumer_lag_records\\{([^}]*)\\} ([0-9.eE+-]+)$",
            Pattern.MULTILINE);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = "";
        while (System.nanoTime() < deadline && e.alive())
        {
            final HttpResponse<String> r = Faults.HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            last = r.body();
            boolean every = true;
            for (final Lane l : lanes)
            {
                final Matcher m = line.matcher(last);
                int zero = 0;
                int all = 0;
                while (m.find())
                {
                    if (m.group(1).contains("topic=\"" + l.topic + "\""))
                    {
                        all++;
                        zero += Double.parseDouble(m.group(2)) == 0 ? 1 : 0;
                    }
                }
                every &= all == PARTITIONS && zero == PARTITIONS;
            }
            if (every)
            {
                return;
            }
            Thread.sleep(200);
        }
        final StringBuilder lag = new StringBuilder();
        last.lines().filter(l -> l.startsWith("sluice_consumer_lag_records")).forEach(l -> lag.append(l).append('\n'));
        fail("the consumer lag did not reach 0 for the " + PARTITIONS + " partitions of each of the " + lanes.size()
            + " topics within 30 s:\n" + lag);
    }

    /**
     * Produces ids 0 .. 31,999 ({@code RECORDS}) on its own thread, {@code RATE_PER_SECOND} per second in steps of 50 ms, id to
     * partition {@code id % 4}; every send is checked (idempotent producer, acks=all: no record twice, none lost).
     */
    private static final class SteadyProducer implements AutoCloseable
    {
        private final KafkaProducer<byte[], byte[]> producer;
        private final String topic;
        private final Thread thread;
        private final AtomicLong sent = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        SteadyProducer(final String topic)
        {
            final Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Faults.bootstrap());
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            this.producer = new KafkaProducer<>(p);
            this.topic = topic;
            this.thread = new Thread(this::run, "steady-producer");
            thread.setDaemon(true);
        }

        void start()
        {
            thread.start();
        }

        private void run()
        {
            try
            {
                final int perStep = RATE_PER_SECOND / 20;
                final long start = System.nanoTime();
                final List<Future<RecordMetadata>> pending = new ArrayList<>();
                for (int id = 0; id < RECORDS; id++)
                {
                    if (id % perStep == 0)
                    {
                        final long due = start + TimeUnit.MILLISECONDS.toNanos(50L * (id / perStep));
                        final long wait = due - System.nanoTime();
                        if (wait > 0)
                        {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        for (final Future<RecordMetadata> f : pending)
                        {
                            f.get();
                        }
                        pending.clear();
                    }
                    final String v = "{\"id\":" + id + ",\"kind\":\"t" + tableOf(id) + "\"}";
                    pending.add(producer.send(
                        new ProducerRecord<>(topic, id % PARTITIONS, null, v.getBytes(StandardCharsets.UTF_8))));
                    sent.incrementAndGet();
                }
                for (final Future<RecordMetadata> f : pending)
                {
                    f.get();
                }
            }
            catch (final Throwable t)
            {
                failure.set(t);
            }
        }

        /** Waits until every record is sent and acknowledged; fails on a send the broker did not take. */
        void await(final long seconds) throws Exception
        {
            thread.join(TimeUnit.SECONDS.toMillis(seconds));
            if (thread.isAlive())
            {
                throw new AssertionError(
                    "the producer sent " + sent.get() + " of " + RECORDS + " in " + seconds + " s");
            }
            if (failure.get() != null)
            {
                throw new AssertionError("test setup: a send failed", failure.get());
            }
        }

        @Override
        public void close()
        {
            thread.interrupt();
            producer.close(Duration.ofSeconds(10));
        }
    }
}
