package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.PostgresSinkIT.rows;
import static io.sluice.engine.PostgresSinkIT.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

/**
 * A table whose definition cannot work until a person changes it: {@code insert_mode = "upsert"} into a table with
 * no primary key and no {@code key_columns} (real PostgreSQL). The failure is not retriable and its partition stops;
 * the partition is read again on the doubling backoff (retry_backoff_ms up to retry_backoff_max_ms), and every re-read
 * meets the failure again in each of its batches. The insert worker's ERROR is logged once for the streak, not once
 * per batch of every re-read, and no row is written.
 */
class PostgresUnwritableTableIT
{
    @RegisterExtension
    static final PostgresFixtures.Schema DB = new PostgresFixtures.Schema("pgunw_");

    @Test
    void shouldLogAnUnwritableTableOnceWhileItsPartitionIsReadAgain() throws Exception
    {
        final String s = unique("");
        final String topic = "pg-unwritable-" + s;
        DB.topic(topic);
        final String t = DB.table(topic);
        sql("CREATE TABLE " + t + " (id bigint, v text)");
        final Logger worker = (Logger)LoggerFactory.getLogger("io.sluice.core.gather.InsertWorker");
        final Logger reread = (Logger)LoggerFactory.getLogger("io.sluice.core.source.RereadSchedule");
        final ListAppender<ILoggingEvent> errors = new ListAppender<>();
        final ListAppender<ILoggingEvent> rereads = new ListAppender<>();
        errors.start();
        rereads.start();
        worker.addAppender(errors);
        reread.addAppender(rereads);
        final List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            values.add(("{\"id\":" + i + ",\"v\":\"v" + i + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, values);
        // 6 batches of 10 in flight per read; re-read after 100, 200, 400, 400, ... ms
        final DestinationFixtures.Running running = new DestinationFixtures.Running(PostgresFixtures.engine(
            PostgresFixtures.config(DB.name, "g-pgunw-" + s, List.of(topic), "",
                "target_table = \"{topic}\"\ninsert_mode = \"upsert\"\nmax_rows = 10\nlinger_ms = 20\n"
                    + "retry_backoff_ms = 100\nretry_backoff_max_ms = 400\n",
                ""),
            false));
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (messages(rereads, Level.INFO).stream().filter(m -> m.contains("still failing")).count() < 5)
            {
                assertTrue(System.nanoTime() < deadline, "timed out waiting for 5 re-reads of " + topic + ": "
                    + messages(rereads, Level.WARN) + messages(rereads, Level.INFO));
                Thread.sleep(50);
            }
        }
        finally
        {
            running.stop();
            worker.detachAppender(errors);
            reread.detachAppender(rereads);
        }
        final List<String> logged = messages(errors, Level.ERROR).stream()
            .filter(m -> m.contains("has no primary key and key_columns is not set")).toList();
        assertTrue(logged.size() >= 1 && logged.size() <= 2, "the ERROR once per streak (per insert worker), not "
            + "per batch of each of the 5+ re-reads: " + logged.size() + " lines: " + logged);
        assertTrue(logged.get(0).contains("into " + t + " ") && logged.get(0).contains("not retriable")
            && logged.get(0).contains("logged once until a batch into the table is written"), logged.get(0));
        assertEquals(List.of("0"), rows("SELECT count(*) FROM " + t), "no record of the partition is written");
    }

    private static List<String> messages(final ListAppender<ILoggingEvent> appender, final Level level)
    {
        synchronized (appender.list)
        {
            final List<String> out = new ArrayList<>();
            for (final ILoggingEvent e : appender.list)
            {
                if (e.getLevel() == level)
                {
                    out.add(e.getFormattedMessage());
                }
            }
            return out;
        }
    }
}
