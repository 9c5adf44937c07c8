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
import org.junit.jupiter.params.provider.CsvSource;

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
 * with 50 (a failed batch is refused again sooner, while a re-read may still walk what was written). Figures:
 * docs/faults.md.
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

    @ParameterizedTest(name = "{0} layout, linger_ms {1}")
    @CsvSource({"fused, 1000", "split, 1000", "fused, 50", "split, 50"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void oneTableAwayFor20sLeavesEveryIdOnceInItsTable(final String layout, final long lingerMs) throws Exception
    {
        final String sfx = Faults.suffix();
        final String topic = "renamed-" + layout + "-" + sfx;
        final String group = "renamed-" + sfx;
        final String db = "renamed_" + layout + "_" + sfx;
        final Faults.ClickHouse ch = new Faults.ClickHouse(Faults.sharedClickHouse());
        ch.sql("CREATE DATABASE " + db);
        for (int t = 0; t < TABLES; t++)
        {
            ch.sql("CREATE TABLE " + db + ".t" + t + " (id UInt64, kind String) ENGINE = MergeTree() ORDER BY id");
        }
        final Path dir = Faults.workDir("renamed-table-" + layout + "-" + sfx);
        final int metricsPort = Faults.freePort();
        final Path cfg = Faults.writeConfig(dir, "run.toml",
            toml(topic, group, db, ch.url, layout, lingerMs, metricsPort));
        final long[] healthyAtRename = new long[TABLES];
        final long[] healthyAtReturn = new long[TABLES];
        final long[] committedAtReturn;
        final long[] end;
        final long[] committed;
        final long movedMs;
        final long catchUpMs;
        final long lagZeroMs;
        final int rc;
        final String log;
        try (Admin admin = Faults.admin())
        {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short)1))).all().get();
            try (EngineRun e = EngineRun.start(dir, "engine", "--config", cfg.toString());
                SteadyProducer producer = new SteadyProducer(topic))
            {
                awaitLog(e, "assigned " + topic, 60);
                producer.start();
                Thread.sleep(RENAME_AFTER_MS);
                assertTrue(e.alive(), "the engine exited before the RENAME:\n" + e.tail(40));
                ch.sql("RENAME TABLE " + db + "." + AWAY + " TO " + db + "." + AWAY + "_away");
                rows(ch, db, healthyAtRename);
                Thread.sleep(AWAY_MS);
                rows(ch, db, healthyAtReturn);
                ch.sql("RENAME TABLE " + db + "." + AWAY + "_away TO " + db + "." + AWAY);
                final long returnedAt = System.nanoTime();
                committedAtReturn = Faults.committed(admin, group, topic, PARTITIONS);
                awaitCommittedPast(admin, group, topic, committedAtReturn, e);
                movedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - returnedAt);
                producer.await(120);
                final long producedAt = System.nanoTime();
                end = Faults.endOffsets(admin, topic, PARTITIONS);
                assertEquals(RECORDS, Faults.sum(end), "records in " + topic);
                awaitCommitted(admin, group, topic, end, e);
                catchUpMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - producedAt);
                awaitLagZero(metricsPort, e);
                lagZeroMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - producedAt);
                e.terminate();
                rc = e.waitFor(60);
                log = e.output();
            }
            committed = Faults.committed(admin, group, topic, PARTITIONS);
        }

        // what ClickHouse holds, table by table, id by id
        final long[] rows = new long[TABLES];
        long duplicates = 0;
        long missing = 0;
        long misplaced = 0;
        final StringBuilder detail = new StringBuilder();
        for (int t = 0; t < TABLES; t++)
        {
            final long[] got = ids(ch, db, "t" + t);
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
        final long rereads = log.lines().filter(l -> l.contains("are written already and are not sent again")).count();
        final long notSentAgain = sumMatches(log, "re-reading from offset \\d+: (\\d+) of the");
        final long away = healthyAtReturn[AWAY_INDEX] - healthyAtRename[AWAY_INDEX];
        long healthyGrowth = 0;
        for (int t = 0; t < TABLES; t++)
        {
            if (t != AWAY_INDEX)
            {
                healthyGrowth += healthyAtReturn[t] - healthyAtRename[t];
            }
        }
        Faults.report(String.format(
            "FAULT(12.2) %s layout, linger_ms %d: %s.%s renamed away %d ms while %d records were produced at "
                + "%d/s over %d partitions into %d tables; duplicates=%d missing=%d misplaced=%d; rows per table %s; the "
                + "other three tables received %d rows while it was away (%s -> %s); %d re-reads left out %d offsets "
                + "written already; committed %s at the rename back (every partition committed past it %d ms later), %s at "
                + "the end = end offsets %s %d ms after the last record was produced (consumer lag 0 after %d ms); exit %d",
            layout, lingerMs, db, AWAY, AWAY_MS, RECORDS, RATE_PER_SECOND, PARTITIONS, TABLES, duplicates, missing,
            misplaced,
            Arrays.toString(rows), healthyGrowth, Arrays.toString(healthyAtRename), Arrays.toString(healthyAtReturn),
            rereads, notSentAgain, Arrays.toString(committedAtReturn),
            movedMs, Arrays.toString(committed), Arrays.toString(end), catchUpMs, lagZeroMs, rc));

        assertEquals(0, duplicates + missing + misplaced, "each id once, in its table: " + detail);
        assertArrayEquals(end, committed, "committed offsets = end offsets");
        assertEquals(0, rc, "exit code after SIGTERM; log " + dir.resolve("engine.log"));
        assertFalse(log.contains("made no progress for"), "the stall limit fired");
        assertTrue(log.contains("UNKNOWN_TABLE") || log.contains("doesn't exist"),
            "the inserts into " + AWAY + " failed while it was away; log " + dir.resolve("engine.log"));
        assertTrue(rereads >= 1 && notSentAgain > 0, "the partitions were re-read with written rows left out");
        assertEquals(0, away, "nothing was inserted into " + AWAY + " while it was away");
        assertTrue(healthyGrowth > 0, "the other tables kept receiving while " + AWAY + " was away");
        ch.sql("DROP DATABASE " + db);
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

    private static String toml(final String topic, final String group, final String db, final String clickhouse,
        final String layout, final long lingerMs, final int metricsPort)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("[kafka]\nbootstrap_servers = \"").append(Faults.bootstrap()).append("\"\n")
            .append("[checkpoint]\nstalled_fail_after_ms = ").append(STALL_MS).append('\n')
            .append("[engine]\nkafka_check_timeout_ms = 60000\nstatus_interval_ms = 1000\n")
            .append("[metrics]\nlisten = \"127.0.0.1:").append(metricsPort).append("\"\n")
            .append("[tuning]\nlayout = \"").append(layout).append("\"\n")
            .append("[[sinks]]\nname = \"renamed\"\nkind = \"clickhouse\"\ntopics = [\"").append(topic)
            .append("\"]\ngroup_id = \"").append(group).append("\"\n")
            .append("[sinks.plugin_config]\nendpoint = \"").append(clickhouse).append("\"\ndatabase = \"").append(db)
            .append("\"\nlinger_ms = ").append(lingerMs).append('\n');
        for (int t = 0; t < TABLES; t++)
        {
            sb.append("[[sinks.branches]]\nname = \"t").append(t).append("\"\nwhen = { path = \"kind\", equals = \"t")
                .append(t).append("\" }\ntarget_table = \"t").append(t).append("\"\n");
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

    private static void awaitCommittedPast(final Admin admin, final String group, final String topic,
        final long[] stuck, final EngineRun e) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            final long[] c = Faults.committed(admin, group, topic, PARTITIONS);
            boolean all = true;
            for (int p = 0; p < PARTITIONS; p++)
            {
                all &= c[p] > stuck[p];
            }
            if (all)
            {
                return;
            }
            if (!e.alive() || System.nanoTime() > deadline)
            {
                fail("no partition moved past " + Arrays.toString(stuck) + " within 60 s of the rename back (committed "
                    + Arrays.toString(c) + "); log " + e.logFile() + ":\n" + e.tail(40));
            }
            Thread.sleep(100);
        }
    }

    private static void awaitCommitted(final Admin admin, final String group, final String topic, final long[] end,
        final EngineRun e) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        long[] c = Faults.committed(admin, group, topic, PARTITIONS);
        while (!Arrays.equals(c, end))
        {
            if (!e.alive() || System.nanoTime() > deadline)
            {
                fail("committed " + Arrays.toString(c) + ", end offsets " + Arrays.toString(end) + "; log "
                    + e.logFile() + ":\n" + e.tail(40));
            }
            Thread.sleep(200);
            c = Faults.committed(admin, group, topic, PARTITIONS);
        }
    }

    /** Waits until the engine's endpoint reports {@code sluice_consumer_lag_records} 0 for every partition. */
    private static void awaitLagZero(final int port, final EngineRun e) throws Exception
    {
        final Pattern line = Pattern.compile("^sluice_consumer_lag_records\\{[^}]*\\} ([0-9.eE+-]+)$",
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
            final Matcher m = line.matcher(last);
            int zero = 0;
            int all = 0;
            while (m.find())
            {
                all++;
                zero += Double.parseDouble(m.group(1)) == 0 ? 1 : 0;
            }
            if (all == PARTITIONS && zero == PARTITIONS)
            {
                return;
            }
            Thread.sleep(200);
        }
        final StringBuilder lag = new StringBuilder();
        last.lines().filter(l -> l.startsWith("sluice_consumer_lag_records")).forEach(l -> lag.append(l).append('\n'));
        fail("the consumer lag did not reach 0 for the " + PARTITIONS + " partitions within 30 s:\n" + lag);
    }

    /**
     * Produces ids 0 .. 49,999 on its own thread, {@code RATE_PER_SECOND} per second in steps of 50 ms, id to
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
