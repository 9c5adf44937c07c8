package io.sluice.sinks.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLException;

import io.sluice.core.ack.PositionStore;
import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;

/**
 * The PostgreSQL sink ({@code kind = "postgres"}) over pgJDBC: a {@link PostgresCatalog} per connection settings,
 * one {@link PostgresBatchWriter} (one connection) per insert worker of the single shard, connections opened by
 * {@link PostgresConnections} (session time zone UTC, the sink's session settings). Thread-safe.
 */
public final class PostgresDriver implements SinkDriver
{
    private final Map<String, PostgresCatalog> catalogs = new HashMap<>();
    private final List<ReusedConnections> reused = new ArrayList<>();

    /** A driver; connects to nothing until asked. */
    public PostgresDriver()
    {
    }

    /** @return {@link PgJsonRowEncoder#encoding()}: JSON records as binary COPY tuples */
    @Override
    public JsonEncoding jsonEncoding()
    {
        return PgJsonRowEncoder.encoding();
    }

    @Override
    public synchronized DestinationCatalog catalog(final SinkSpec sink)
    {
        final PostgresConfig c = config(sink);
        final String key = c.jdbcUrl() + "\u0000" + c.username() + "\u0000" + c.sslMode() + "\u0000"
            + c.sessionSettings() + "\u0000" + c.creation() + "\u0000" + c.upsert() + "\u0000" + c.keyColumns();
        return catalogs.computeIfAbsent(key, k ->
        {
            // the catalog's connections are kept open between its calls (a connection per call costs the server a
            // process and an authentication: three per new table)
            final ReusedConnections connections = new ReusedConnections(() -> PostgresConnections.connect(c));
            reused.add(connections);
            return new PostgresCatalog(connections, PostgresProvider.serverOf(c.jdbcUrl()), c.creation(),
                c.upsert() ? c.keyColumns() : null);
        });
    }

    @Override
    public BatchWriter writer(final SinkSpec sink, final int shard)
    {
        if (shard != 0)
        {
            throw new IllegalArgumentException("a PostgreSQL sink has one shard, not shard " + shard);
        }
        return new PostgresBatchWriter(config(sink));
    }

    /**
     * @return the positions table of an exactly-once sink ({@code offsets_table} in its schema, created when first
     *     read), or null for an at-least-once one
     */
    @Override
    public PositionStore positionStore(final SinkSpec sink, final String group)
    {
        final PostgresConfig c = config(sink);
        return c.exactlyOnce() ? new PostgresPositions(c, group) : null;
    }

    /**
     * Logs in once with the sink's settings and runs {@code SELECT 1}. The TCP connect and the login are each bounded
     * by {@code connect_timeout_ms} (10 s by default); a refused login or a missing database is answered at once.
     *
     * @throws SinkException not retriable when the server refuses the sink (authentication, a missing database, a
     *                       certificate its CA did not sign, a session setting it does not know), naming the server's
     *                       reason; retriable when no server answers
     */
    @Override
    public void checkReachable(final SinkSpec sink) throws SinkException
    {
        final PostgresConfig c = config(sink);
        final String server = PostgresProvider.serverOf(c.jdbcUrl());
        try (Connection conn = PostgresConnections.connect(c); Statement s = conn.createStatement())
        {
            s.execute("SELECT 1");
        }
        catch (final SQLException e)
        {
            final SinkException classified = PostgresErrors.classify("connect to PostgreSQL at " + server
                + " as " + c.username(), e);
            final SSLException tls = tlsCause(e);
            if (tls != null)
            {
                throw new SinkException("PostgreSQL refused sink " + sink.name() + ": TLS handshake with " + server
                    + " failed (ssl_mode = " + c.sslMode() + "): " + tls.getMessage(), false, classified.code(), e);
            }
            if (classified.retriable())
            {
                throw new SinkException("no PostgreSQL server answers for sink " + sink.name() + ": "
                    + classified.getMessage(), true, classified.code(), e);
            }
            throw new SinkException("PostgreSQL refused sink " + sink.name() + ": " + classified.getMessage(), false,
                classified.code(), e);
        }
    }

    private static SSLException tlsCause(final Throwable t)
    {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (c instanceof SSLException s)
            {
                return s;
            }
        }
        return null;
    }

    /**
     * @param sink a sink of this kind
     * @return its PostgreSQL settings
     * @throws IllegalArgumentException when the sink is of another kind
     */
    static PostgresConfig config(final SinkSpec sink)
    {
        if (sink.connection() instanceof PostgresConfig c)
        {
            return c;
        }
        throw new IllegalArgumentException("sink " + sink.name() + " is of kind " + sink.connection().kind()
            + ", not " + PostgresProvider.KIND + ": the PostgreSQL driver cannot write it");
    }

    @Override
    public synchronized void close()
    {
        catalogs.clear();
        for (final ReusedConnections r : reused)
        {
            r.close();
        }
        reused.clear();
    }
}
