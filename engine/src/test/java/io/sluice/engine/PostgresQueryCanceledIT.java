package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.PostgresSinkIT.rows;
import static io.sluice.engine.PostgresSinkIT.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.sluice.core.engine.SluiceEngine;

/**
 * SQLSTATE 57014 (query_canceled) on the sink's COPY, forced on the real PostgreSQL (issue 22, item 7): another
 * session inserts, and keeps uncommitted, a row with the key of one of the batch's records, so the sink's COPY into
 * the keyed table waits on that transaction (PostgreSQL's unique check waits for the other inserter). Then either the
 * test cancels the COPY with {@code pg_cancel_backend} (the sink's backend found in {@code pg_stat_activity} by its
 * {@code application_name} and its query), or the sink's own {@code insert_timeout_ms} (its session's
 * {@code statement_timeout}) ends it. Both are retriable: the warning names the SQLSTATE, the condition and the table,
 * the batch is retried with backoff, and once the other transaction rolls back every record lands exactly once (append
 * mode into a table with a primary key: a second copy of any record would be a 23505 record error, and the count says
 * there is none), committed offsets reach the end.
 */
class PostgresQueryCanceledIT
{
    @RegisterExtension
    static final PostgresFixtures.Schema DB = new PostgresFixtures.Schema("pgcancel_");

    /** The key the other session holds uncommitted: a record of the second batch. */
    private static final int HELD = 75;

    @Test
    void shouldRetryACopyCanceledOnTheServerAndLandEachRecordOnce() throws Exception
    {
        run("cancel", "", "canceling statement due to user request");
    }

    @Test
    void shouldRetryACopyEndedByInsertTimeoutAndLandEachRecordOnce() throws Exception
    {
        run("timeout", "insert_timeout_ms = 500\n", "canceling statement due to statement timeout");
    }

    private static void run(final String how, final String plugin, final String serverText) throws Exception
    {
        final String s = unique("");
        final String group = "g-pgcancel-" + s;
        final String topic = "pg-cancel-" + how + "-" + s;
        DB.topic(topic);
        final String t = DB.table(topic);
        sql("CREATE TABLE " + t + " (id bigint PRIMARY KEY, v text)");
        final Logger logger = (Logger)LoggerFactory.getLogger("io.sluice.core.gather.InsertWorker");
        final ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        final DestinationFixtures.Running running = new DestinationFixtures.Running(PostgresFixtures.engine(
            PostgresFixtures.config(DB.name, group, List.of(topic), "",
                "target_table = \"{topic}\"\nlinger_ms = 50\nretry_backoff_ms = 200\nretry_backoff_max_ms = 1000\n"
                    + plugin,
                ""),
            false));
        try (Connection other = PostgresSinkIT.open())
        {
            produce(topic, 0, 50);
            await(() -> count("SELECT count(*) FROM " + t) == 50, "the first 50 rows");

            other.setAutoCommit(false);
            try (Statement st = other.createStatement())
            {
                st.execute("INSERT INTO " + t + " VALUES (" + HELD + ", 'held by another transaction')");
            }
            produce(topic, 50, 100);
            final int backend = awaitWaitingCopy(topic);
            if ("cancel".equals(how))
            {
                assertEquals(List.of("t"), rows("SELECT pg_cancel_backend(" + backend + ")"));
            }
            await(() -> warnings(appender).stream().anyMatch(m -> m.contains("57014")),
                "a retriable 57014 warning from the insert worker");
            // the batch is retried while the other transaction still holds the key: it waits (or times out) again
            awaitWaitingCopy(topic);
            other.rollback();
        }
        await(() -> count("SELECT count(*) FROM " + t) == 100, "all 100 rows after the other transaction rolled back");
        assertEquals(SluiceEngine.EXIT_OK, running.stop(), running.engine.failure());
        logger.detachAppender(appender);

        assertEquals(List.of("100|100|0|99"), rows("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM " + t),
            "every record once");
        assertEquals(List.of("v" + HELD), rows("SELECT v FROM " + t + " WHERE id = " + HELD),
            "the held key has the record's value, not the rolled-back one");
        assertEquals(Map.of(new TopicPartition(topic, 0), 100L), TestServices.committed(group));
        final List<String> warnings = warnings(appender);
        final String first = warnings.stream().filter(m -> m.contains("57014")).findFirst().orElseThrow();
        assertTrue(first.contains("PostgreSQL error 57014 (query_canceled)"), first);
        assertTrue(first.contains(serverText), first);
        assertTrue(first.contains("into " + t + " at "), "names the table: " + first);
        assertTrue(first.contains("(retriable, attempt 1, retrying in 200 ms"), first);
        for (final String w : warnings)
        {
            assertTrue(!w.contains("23505") && !w.contains("not retriable"), "no record error, no stop: " + w);
        }
    }

    /**
     * Waits at most 60 s until the sink's backend ({@code application_name} sluice) runs a COPY into the topic's
     * table and waits on a lock; returns its pid.
     */
    private static int awaitWaitingCopy(final String topic) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        final String like = "COPY %" + topic.replace("%", "\\%").replace("_", "\\_") + "%";
        try (Connection c = PostgresSinkIT.open();
            PreparedStatement ps = c.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'sluice' AND state = 'active'"
                    + " AND wait_event_type = 'Lock' AND query LIKE ?"))
        {
            ps.setString(1, like);
            while (true)
            {
                try (ResultSet r = ps.executeQuery())
                {
                    if (r.next())
                    {
                        return r.getInt(1);
                    }
                }
                assertTrue(System.nanoTime() < deadline,
                    "timed out waiting for the sink's COPY into " + topic + " to wait on the held key; sessions: "
                        + rows("SELECT pid, application_name, state, wait_event_type, left(query, 120) "
                            + "FROM pg_stat_activity WHERE application_name = 'sluice'"));
                Thread.sleep(50);
            }
        }
    }

    private static List<String> warnings(final ListAppender<ILoggingEvent> appender)
    {
        synchronized (appender.list)
        {
            final List<String> out = new ArrayList<>();
            for (final ILoggingEvent e : appender.list)
            {
                out.add(e.getFormattedMessage());
            }
            return out;
        }
    }

    private static void produce(final String topic, final int from, final int to) throws Exception
    {
        final List<byte[]> values = new ArrayList<>();
        for (int i = from; i < to; i++)
        {
            values.add(("{\"id\":" + i + ",\"v\":\"v" + i + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, values);
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(50);
        }
    }

    private static long count(final String query)
    {
        try
        {
            return Long.parseLong(rows(query).get(0));
        }
        catch (final SQLException e)
        {
            return -1;
        }
    }
}
