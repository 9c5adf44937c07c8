package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.SinkKeys;
import io.sluice.core.config.SinkSettings;
import io.sluice.core.gather.SourcePositions;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * Exactly-once fencing on the real PostgreSQL: two writers of one partition (a member that lost it and still has a
 * batch in flight, and its new owner), each with the batches it built from the position it read. The stale one is
 * rolled back whole, before and while the new owner writes, and the table holds each record once; the positions
 * table says how far. Also: the positions table is created in the sink's schema, and a batch's positions commit with
 * its rows (a refused batch moves nothing).
 */
class PostgresFencingIT
{
    private static final String SCHEMA = "pgfence_" + Long.toString(System.currentTimeMillis(), 36);
    private static final String GROUP = "g-fence";
    private static final BatchPool POOL = new BatchPool(8, 4096, 16);
    private static PostgresConfig config;
    private static final PartitionTrackers TRACKERS = new PartitionTrackers(1024);
    private static final TopicPartition TP = new TopicPartition("orders.fence", 2);
    private static int trackerId;

    @BeforeAll
    static void setUp() throws Exception
    {
        final Path file = Path.of(System.getProperty("sluice.secure.dir", ".sluice/secure")).resolve("secrets.env");
        final Map<String, String> secrets = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(file))
        {
            if (!line.startsWith("#") && line.indexOf('=') > 0)
            {
                secrets.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        user = secrets.get("SLUICE_TEST_POSTGRES_USER");
        password = secrets.get("SLUICE_TEST_POSTGRES_PASSWORD");
        config = config(30_000);
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA), "CREATE TABLE " + table() + " (id integer CHECK (id "
            + "<> 666), o bigint)",
            "CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, "frozen") + " (id integer, "
                + "o bigint)",
            "CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, "keyed") + " (id integer PRIMARY "
                + "KEY, o bigint)");
        TRACKERS.trackerFor(TP, 0);
        trackerId = TRACKERS.idOf(TP);
    }

    private static String user;
    private static String password;

    /** The sink's settings on the shared server, exactly-once into the positions table {@code positions}. */
    private static PostgresConfig config(final long insertTimeoutMs)
    {
        final String url = System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
        final SinkSettings s = new SinkSettings("postgres", "sinks[0].plugin_config", List.of(List.of(url)), 1, SCHEMA,
            "t", 1000, 1 << 20, 100, "quote", false, false, false, 100, 1000, 5, 1000, 10_000);
        return new PostgresConfig(s, url, user, password, "disable", null, null, null, null, null, "append", List.of(),
            Map.of(), insertTimeoutMs, SinkKeys.EXACTLY_ONCE, "positions");
    }

    @AfterAll
    static void tearDown() throws SQLException
    {
        sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE");
        POOL.close();
    }

    private static String table()
    {
        return PostgresIdentifiers.qualified(SCHEMA, "orders");
    }

    private static void sql(final String... statements) throws SQLException
    {
        try (Connection c = PostgresConnections.connect(config); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }

    private static List<String> rows(final String query) throws SQLException
    {
        final List<String> out = new ArrayList<>();
        try (Connection c = PostgresConnections.connect(config);
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery(query))
        {
            while (r.next())
            {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    private record Columns(List<String> columns) implements RowEncoder.Bound<Object>
    {
        @Override
        public String encode(final Object row, final Bytes<?> out)
        {
            throw new UnsupportedOperationException();
        }
    }

    /** A batch of offsets [from, to) of the partition (id = offset), built on the position {@code expected}. */
    private static BatchBuffer batch(final long from, final long to, final long expected, final int refused)
        throws SinkException
    {
        return batch("orders", trackerId, from, to, expected, refused);
    }

    /** As {@link #batch(long, long, long, int)}, into table {@code name} of the schema, for partition {@code id}. */
    private static BatchBuffer batch(final String name, final int tracker, final long from, final long to,
        final long expected, final int refused) throws SinkException
    {
        final PostgresCatalog catalog = new PostgresCatalog(() -> PostgresConnections.connect(config), "test", null);
        final TableSchema schema = catalog.describe(SCHEMA, name);
        final Binding binding = new Binding(new Columns(List.of("id", "o")), schema, List.of("\"id\"", "\"o\""), 1);
        final Destination d = new Destination(1, 0, "b", SCHEMA, name, PostgresIdentifiers.qualified(SCHEMA, name),
            "pg", catalog, 10_000, binding);
        final BatchBuffer b = POOL.tryAcquire();
        b.open(d, 0, System.nanoTime());
        for (long o = from; o < to; o++)
        {
            final Bytes<Void> out = b.rows();
            PgCopy.beginTuple(out, 2);
            PgCopy.writeInt32(out, 4);
            PgCopy.writeInt32(out, o == refused ? 666 : (int)o);
            PgCopy.writeInt32(out, 8);
            PgCopy.writeInt64(out, o);
            b.addRow(tracker, TRACKERS.get(tracker).generation(), o, 0);
        }
        b.expectPosition(tracker, expected);
        return b;
    }

    private static SourcePositions positions(final BatchBuffer b)
    {
        final SourcePositions p = new SourcePositions(GROUP);
        p.fill(b, TRACKERS);
        return p;
    }

    private static List<String> stored() throws SQLException
    {
        return rows("SELECT group_id || '|' || table_name || '|' || topic || '|' || partition || '|' || next_offset "
            + "FROM " + PostgresIdentifiers.qualified(SCHEMA, "positions") + " WHERE topic = '" + TP.topic()
            + "' ORDER BY 1");
    }

    @Test
    void shouldRollBackTheStaleWriterBeforeAndWhileTheNewOwnerWrites() throws Exception
    {
        final PostgresPositions store = new PostgresPositions(config, GROUP);
        assertEquals(Map.of(), store.read(List.of(TP)), "created, empty");
        final String position = GROUP + "|" + table() + "|orders.fence|2|";

        try (PostgresBatchWriter zombie = new PostgresBatchWriter(config);
            PostgresBatchWriter owner = new PostgresBatchWriter(config))
        {
            assertTrue(zombie.storesPositions());
            // both read position 0; the zombie froze with [0, 5) built, the new owner wrote [0, 4) and [4, 9)
            final BatchBuffer stale = batch(0, 5, 0, -1);
            final BatchBuffer first = batch(0, 4, 0, -1);
            owner.write(first, positions(first));
            final BatchBuffer second = batch(4, 9, 4, -1);
            owner.write(second, positions(second));
            assertEquals(List.of(position + "9"), stored());

            final SinkException e = assertThrows(SinkException.class, () -> zombie.write(stale, positions(stale)));
            assertTrue(e.positionMismatch() && !e.retriable(), e.getMessage());
            assertTrue(e.getMessage().contains("holds partition 2 of topic orders.fence up to offset 9 (next offset)")
                && e.getMessage().contains("expects 0"), e.getMessage());
            assertEquals(List.of("9"), rows("SELECT count(*) FROM " + table()));

            // a gap: the owner's batch built on 12 while the table holds 9 (the batch [9, 12) was not written)
            final BatchBuffer gap = batch(12, 15, 12, -1);
            assertTrue(assertThrows(SinkException.class, () -> owner.write(gap, positions(gap))).positionMismatch());

            // while the owner's next transaction holds the position, the zombie's update waits, then finds it moved
            final BatchBuffer racing = batch(9, 12, 9, -1);
            try (Connection c = PostgresConnections.connect(config); Statement s = c.createStatement())
            {
                c.setAutoCommit(false);
                s.execute("UPDATE " + PostgresIdentifiers.qualified(SCHEMA, "positions") + " SET next_offset = 11 "
                    + "WHERE group_id = '" + GROUP + "' AND next_offset = 9");
                s.execute("INSERT INTO " + table() + " VALUES (9, 9), (10, 10)");
                final CompletableFuture<SinkException> blocked = CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        zombie.write(racing, positions(racing));
                        return null;
                    }
                    catch (final SinkException x)
                    {
                        return x;
                    }
                });
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (rows("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE "
                    + "'UPDATE %" + SCHEMA + "%positions%'").get(0).equals("0"))
                {
                    assertTrue(System.nanoTime() < deadline, "the zombie's update never waited for the lock");
                    Thread.onSpinWait();
                }
                c.commit();
                final SinkException x = blocked.get(20, TimeUnit.SECONDS);
                assertTrue(x != null && x.positionMismatch(), String.valueOf(x));
                assertTrue(x.getMessage().contains("up to offset 11 (next offset)"), x.getMessage());
            }
            assertEquals(List.of(position + "11"), stored());
            assertEquals(List.of("11|11|0|10"),
                rows("SELECT count(*) || '|' || count(DISTINCT id) || '|' || min(id) || "
                    + "'|' || max(id) FROM " + table()));

            // a batch the table refuses (CHECK) moves nothing: rows and positions commit together or not at all
            final BatchBuffer refused = batch(11, 14, 11, 12);
            final SinkException r = assertThrows(SinkException.class, () -> owner.write(refused, positions(refused)));
            assertTrue(r.recordCaused(), r.getMessage());
            assertEquals(List.of(position + "11"), stored());
            // its parts, in row order: [11] goes in, [12] is refused, [13] is written on the range 11..13
            final SourcePositions part = new SourcePositions(GROUP);
            part.fill(refused, new int[]{0}, 1, TRACKERS);
            owner.write(refused, new int[]{0}, 1, part);
            part.fill(refused, new int[]{2}, 1, TRACKERS);
            owner.write(refused, new int[]{2}, 1, part);
            assertEquals(List.of(position + "14"), stored());
            assertEquals(List.of("13|13"), rows("SELECT count(*) || '|' || count(DISTINCT id) FROM " + table()));
            assertEquals(Map.of(TP, Map.of(table(), 14L)), store.read(List.of(TP, new TopicPartition("other", 0))));
            for (final BatchBuffer b : List.of(stale, first, second, gap, racing, refused))
            {
                b.release();
            }
        }
    }

    /**
     * A member frozen (SIGSTOP) right after its batch's conditional update holds that position's row lock in a
     * transaction that waits for its client; here that session is one of the sink's, with the statements of a batch
     * run and nothing more sent. The new owner's write of the partition waits for the lock only until the server ends
     * the frozen session ({@code idle_in_transaction_session_timeout} = {@code insert_timeout_ms}, 3 s here), then
     * writes; the frozen member's transaction is rolled back, and when it resumes its connection fails retriably (its
     * retry is then fenced).
     */
    @Test
    void shouldLetTheNewOwnerWriteOnceTheServerEndsAFrozenWritersTransaction() throws Exception
    {
        final TopicPartition tp = new TopicPartition("orders.frozen", 0);
        new PostgresPositions(config, GROUP).read(List.of(tp)); // creates the positions table
        TRACKERS.trackerFor(tp, 0);
        final int tracker = TRACKERS.idOf(tp);
        final String frozen = PostgresIdentifiers.qualified(SCHEMA, "frozen");
        final PostgresConfig quick = config(3_000);
        try (PostgresBatchWriter owner = new PostgresBatchWriter(config);
            Connection zombie = PostgresConnections.connect(quick))
        {
            final BatchBuffer first = batch("frozen", tracker, 0, 4, 0, -1);
            owner.write(first, positions(first));
            // the zombie's batch [4, 8), built on 4: rows and position update sent, then its client stops
            final BatchBuffer stale = batch("frozen", tracker, 4, 8, 4, -1);
            zombie.setAutoCommit(false);
            try (Statement s = zombie.createStatement())
            {
                s.execute("INSERT INTO " + frozen + " VALUES (4, 4), (5, 5), (6, 6), (7, 7)");
            }
            new PostgresPositions(quick, null).move(zombie, frozen, positions(stale), "the frozen member's batch");
            final long frozenAt = System.nanoTime();
            final BatchBuffer next = batch("frozen", tracker, 4, 9, 4, -1);
            owner.write(next, positions(next));
            final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
            assertTrue(waitedMs >= 2_000 && waitedMs < 13_000, "the new owner waited for the frozen transaction's lock "
                + "until the server ended it (3 s), not longer: " + waitedMs + " ms");
            assertEquals(List.of(GROUP + "|" + frozen + "|orders.frozen|0|9"), rows("SELECT group_id || '|' || "
                + "table_name || '|' || topic || '|' || partition || '|' || next_offset FROM " + PostgresIdentifiers
                    .qualified(SCHEMA, "positions")
                + " WHERE topic = 'orders.frozen'"));
            assertEquals(List.of("9|9|0|8"), rows("SELECT count(*) || '|' || count(DISTINCT id) || '|' || min(id) || "
                + "'|' || max(id) FROM " + frozen));
            // the frozen member resumes: its COMMIT finds the session ended, a retriable failure
            final SQLException ended = assertThrows(SQLException.class, zombie::commit);
            final SinkException classified = PostgresErrors.classify("the frozen member's COMMIT", ended);
            assertTrue(classified.retriable(), classified.getMessage());
            for (final BatchBuffer b : List.of(first, stale, next))
            {
                b.release();
            }
        }
    }

    /**
     * A stale batch into a table with a unique key meets the new owner's rows (23505) before its conditional update:
     * it is a position mismatch (dropped as stale), not records refused for their data; a real duplicate of a batch
     * on the stored position stays refused.
     */
    @Test
    void shouldTellAStaleBatchFromRefusedRecordsInAKeyedTable() throws Exception
    {
        final TopicPartition tp = new TopicPartition("orders.keyed", 0);
        new PostgresPositions(config, GROUP).read(List.of(tp)); // creates the positions table
        TRACKERS.trackerFor(tp, 0);
        final int tracker = TRACKERS.idOf(tp);
        final String keyed = PostgresIdentifiers.qualified(SCHEMA, "keyed");
        try (PostgresBatchWriter zombie = new PostgresBatchWriter(config);
            PostgresBatchWriter owner = new PostgresBatchWriter(config))
        {
            final BatchBuffer stale = batch("keyed", tracker, 0, 5, 0, -1);
            final BatchBuffer first = batch("keyed", tracker, 0, 5, 0, -1);
            owner.write(first, positions(first));
            final SinkException e = assertThrows(SinkException.class, () -> zombie.write(stale, positions(stale)));
            assertTrue(e.positionMismatch() && !e.recordCaused() && !e.retriable(), e.getMessage());
            assertTrue(e.getMessage().contains("up to offset 5 (next offset)") && e.getMessage().contains("23505"),
                e.getMessage());
            sql("INSERT INTO " + keyed + " VALUES (6, -1)");
            final BatchBuffer dup = batch("keyed", tracker, 5, 8, 5, -1);
            final SinkException r = assertThrows(SinkException.class, () -> owner.write(dup, positions(dup)));
            assertTrue(r.recordCaused() && !r.positionMismatch(), r.getMessage());
            assertEquals(List.of("6|6"), rows("SELECT count(*) || '|' || count(DISTINCT id) FROM " + keyed));
            for (final BatchBuffer b : List.of(stale, first, dup))
            {
                b.release();
            }
        }
    }
}
