package io.sluice.sinks.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

import io.sluice.core.ack.PositionStore;
import io.sluice.core.gather.SourcePositions;
import io.sluice.core.gather.sink.SinkException;

/**
 * The positions table of an exactly-once PostgreSQL sink ({@code delivery = "exactly_once"}, {@code offsets_table}
 * in the sink's schema, default {@code sluice_offsets}): one row per (consumer group, destination table, topic,
 * partition) holding the next offset of the partition that table has not written. Created when missing:
 *
 * <pre>
 * CREATE TABLE IF NOT EXISTS "schema"."sluice_offsets" (
 *     group_id text NOT NULL, table_name text NOT NULL, topic text NOT NULL, partition integer NOT NULL,
 *     next_offset bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
 *     PRIMARY KEY (group_id, table_name, topic, partition))
 * </pre>
 *
 * {@code table_name} is the destination as SQL names it ({@code "public"."orders"}). The source reads a partition's
 * rows when it is assigned ({@link #read}); each batch's transaction moves them ({@link #move}), each update
 * conditional on the position the batch was built on, so a stale writer (a member that lost the partition, a batch
 * after one that was not written) changes nothing: its transaction rolls back. Thread-safety: {@link #read} on the
 * source thread with its own connection; {@link #move} on the writer's connection and thread.
 */
final class PostgresPositions implements PositionStore
{
    private final PostgresConfig config;
    private final String group;
    private final String table;
    private final String server;
    private final String insert;
    private final String update;
    private final String current;

    /**
     * @param config the sink's settings (schema literal, offsets_table)
     * @param group  the consumer group (null: the writer's side only, which takes the group of each write)
     */
    PostgresPositions(final PostgresConfig config, final String group)
    {
        this.config = config;
        this.group = group;
        this.table = PostgresIdentifiers.qualified(config.database(), config.offsetsTable());
        this.server = PostgresProvider.serverOf(config.jdbcUrl());
        this.insert = "INSERT INTO " + table + " AS o (group_id, table_name, topic, partition, next_offset) VALUES "
            + "(?, ?, ?, ?, ?) ON CONFLICT (group_id, table_name, topic, partition) DO UPDATE SET next_offset = "
            + "EXCLUDED.next_offset, updated_at = now() WHERE o.next_offset BETWEEN ? AND ?";
        this.update = "UPDATE " + table + " SET next_offset = ?, updated_at = now() WHERE group_id = ? AND table_name "
            + "= ? AND topic = ? AND partition = ? AND next_offset BETWEEN ? AND ?";
        this.current = "SELECT next_offset FROM " + table + " WHERE group_id = ? AND table_name = ? AND topic = ? AND "
            + "partition = ?";
    }

    /** @return the statement that creates the table when it is missing */
    String createStatement()
    {
        return "CREATE TABLE IF NOT EXISTS " + table + " (group_id text NOT NULL, table_name text NOT NULL, topic text "
            + "NOT NULL, partition integer NOT NULL, next_offset bigint NOT NULL, updated_at timestamptz NOT NULL "
            + "DEFAULT now(), PRIMARY KEY (group_id, table_name, topic, partition))";
    }

    @Override
    public Map<TopicPartition, Map<String, Long>> read(final Collection<TopicPartition> partitions)
        throws SQLException
    {
        final Set<String> topics = new LinkedHashSet<>();
        partitions.forEach(tp -> topics.add(tp.topic()));
        final Map<TopicPartition, Map<String, Long>> out = new HashMap<>();
        try (Connection c = PostgresConnections.connect(config))
        {
            create(c);
            try (PreparedStatement s = c.prepareStatement("SELECT table_name, topic, partition, next_offset FROM "
                + table + " WHERE group_id = ? AND topic = ANY (?)"))
            {
                final Array names = c.createArrayOf("text", topics.toArray());
                s.setString(1, group);
                s.setArray(2, names);
                try (ResultSet r = s.executeQuery())
                {
                    while (r.next())
                    {
                        final TopicPartition tp = new TopicPartition(r.getString(2), r.getInt(3));
                        if (partitions.contains(tp))
                        {
                            out.computeIfAbsent(tp, k -> new HashMap<>()).put(r.getString(1), r.getLong(4));
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * Creates the table when it is missing; a concurrent creator's win is no failure. Looks first
     * ({@code to_regclass}): PostgreSQL checks the CREATE right on the schema before it honours {@code IF NOT EXISTS},
     * so a role with only the rights to read and write a positions table made by someone else must not be asked to
     * create it.
     */
    private void create(final Connection c) throws SQLException
    {
        try (PreparedStatement look = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL"))
        {
            look.setString(1, table);
            try (ResultSet r = look.executeQuery())
            {
                if (r.next() && r.getBoolean(1))
                {
                    return;
                }
            }
        }
        final boolean auto = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement())
        {
            s.execute(createStatement());
        }
        catch (final SQLException e)
        {
            // two sessions creating it at once: the loser sees 23505 on the catalog or 42P07; it exists now
            if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState()))
            {
                throw e;
            }
        }
        finally
        {
            c.setAutoCommit(auto);
        }
    }

    @Override
    public String describe()
    {
        return "positions table " + table + " at " + server + ", group " + group;
    }

    /**
     * Moves the positions a write carries, in the caller's transaction, after its rows and right before COMMIT: each
     * row locked and updated only when it holds a position in the write's expected range (none stored counts as 0).
     *
     * @param c         the writer's connection, in a transaction
     * @param sqlTable  the destination, as SQL names it
     * @param positions what the write moves
     * @param what      the write, for messages
     * @throws SQLException       as the server refuses a statement
     * @throws SinkException      {@link SinkException#positionMismatch} when a stored position is not the expected one
     */
    void move(final Connection c, final String sqlTable, final SourcePositions positions, final String what)
        throws SQLException, SinkException
    {
        for (int k = 0; k < positions.count(); k++)
        {
            final long low = positions.expectedLow(k);
            final long high = positions.expectedHigh(k);
            final int n;
            if (low == 0)
            {
                try (PreparedStatement s = c.prepareStatement(insert))
                {
                    s.setString(1, positions.group());
                    s.setString(2, sqlTable);
                    s.setString(3, positions.topic(k));
                    s.setInt(4, positions.partition(k));
                    s.setLong(5, positions.next(k));
                    s.setLong(6, low);
                    s.setLong(7, high);
                    n = s.executeUpdate();
                }
            }
            else
            {
                try (PreparedStatement s = c.prepareStatement(update))
                {
                    s.setLong(1, positions.next(k));
                    s.setString(2, positions.group());
                    s.setString(3, sqlTable);
                    s.setString(4, positions.topic(k));
                    s.setInt(5, positions.partition(k));
                    s.setLong(6, low);
                    s.setLong(7, high);
                    n = s.executeUpdate();
                }
            }
            if (n != 1)
            {
                throw mismatch(what, sqlTable, positions, k, stored(c, sqlTable, positions, k), "");
            }
        }
    }

    /**
     * After a write the server refused for its data (a class 22 or 23 failure, rolled back): whether the write was
     * stale instead. A member that lost a partition and writes a batch of it into a table with a unique key meets the
     * rows the new owner wrote (23505) before the conditional update that would have fenced it; such a batch must be
     * dropped as stale, never handed to {@code on_error} as refused records. Reads each stored position without a lock
     * (what is committed now: the rows that collided were committed with their positions).
     *
     * @param c         the writer's connection, in a new transaction (the caller ends it)
     * @param sqlTable  the destination, as SQL names it
     * @param positions what the write would have moved
     * @param what      the write, for messages
     * @param refusal   the server's refusal, for the message
     * @throws SQLException  as the server refuses the query
     * @throws SinkException {@link SinkException#positionMismatch} when a stored position is outside the write's
     *                       expected range; nothing when all still are
     */
    void verify(final Connection c, final String sqlTable, final SourcePositions positions, final String what,
        final String refusal) throws SQLException, SinkException
    {
        for (int k = 0; k < positions.count(); k++)
        {
            final String stored = stored(c, sqlTable, positions, k);
            final long at = "nothing stored".equals(stored) ? 0 : Long.parseLong(stored);
            if (at < positions.expectedLow(k) || at > positions.expectedHigh(k))
            {
                throw mismatch(what, sqlTable, positions, k, stored, " (the server had refused the batch first: "
                    + refusal + ")");
            }
        }
    }

    private SinkException mismatch(final String what, final String sqlTable, final SourcePositions positions,
        final int k, final String stored, final String more)
    {
        return SinkException.positionMismatch(mismatchText(what, sqlTable, table, positions.group(),
            positions.topic(k), positions.partition(k), stored, positions.expectedLow(k), positions.expectedHigh(k),
            more));
    }

    /**
     * @param what       the write
     * @param sqlTable   the destination as SQL names it
     * @param positions  the positions table as SQL names it
     * @param group      the consumer group
     * @param topic      the partition's topic
     * @param partition  the partition
     * @param stored     the stored next offset, or {@code nothing stored}
     * @param low        lowest expected stored position
     * @param high       highest expected stored position
     * @param more       what to add at the end (may be empty)
     * @return the message of a write whose expected position is not the stored one, in words
     */
    static String mismatchText(final String what, final String sqlTable, final String positions, final String group,
        final String topic, final int partition, final String stored, final long low, final long high,
        final String more)
    {
        final String holds = "nothing stored".equals(stored)
            ? " holds no position for partition " + partition + " of topic " + topic
            : " holds partition " + partition + " of topic " + topic + " up to offset " + stored + " (next offset)";
        return what + ": table " + sqlTable + holds + " in positions table " + positions + " (group " + group
            + "), where this batch expects " + (low == high ? Long.toString(low) : low + ".." + high)
            + (high == 0 ? " (no position stored yet)" : "") + ": another member wrote the partition since (it was "
            + "reassigned), or a batch of it before this one was not written" + more;
    }

    private String stored(final Connection c, final String sqlTable, final SourcePositions positions, final int k)
        throws SQLException
    {
        try (PreparedStatement s = c.prepareStatement(current))
        {
            s.setString(1, positions.group());
            s.setString(2, sqlTable);
            s.setString(3, positions.topic(k));
            s.setInt(4, positions.partition(k));
            try (ResultSet r = s.executeQuery())
            {
                return r.next() ? Long.toString(r.getLong(1)) : "nothing stored";
            }
        }
    }
}
