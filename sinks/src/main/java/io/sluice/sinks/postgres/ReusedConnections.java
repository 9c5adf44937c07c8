package io.sluice.sinks.postgres;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A {@link PostgresCatalog.Connector} that keeps the catalog's connections open between its calls: a connection the
 * catalog closes goes back to an idle list (at most {@link #MAX_IDLE}), and the next call takes it instead of opening
 * one. PostgreSQL runs a process per connection, so opening one costs the server a fork and the authentication (and
 * the session settings of {@link PostgresConnections}: two more round trips); a pipeline that sets up a table per new
 * topic asks the catalog three times per table (describe, create, describe), and the schema watch once per period.
 *
 * <p>A connection is given back only in its default state (autocommit on, not closed: pgJDBC closes a connection
 * whose socket failed); one idle for more than {@link #CHECK_AFTER_MS} is checked ({@code isValid}) before it is
 * used again, and dropped when the check fails. {@link #close()} closes the idle ones. Thread-safe.
 */
final class ReusedConnections implements PostgresCatalog.Connector, AutoCloseable
{
    /** The most idle connections kept (the setup threads and the schema watch ask at once). */
    static final int MAX_IDLE = 8;
    /** How long a connection may sit idle before it is checked before use, ms. */
    static final long CHECK_AFTER_MS = 30_000;

    private record Idle(Connection connection, long sinceNanos)
    {
    }

    private final PostgresCatalog.Connector opener;
    private final ArrayDeque<Idle> idle = new ArrayDeque<>();
    private int opened;
    private boolean closed;

    /**
     * @param opener opens a new connection when none is idle
     */
    ReusedConnections(final PostgresCatalog.Connector opener)
    {
        this.opener = opener;
    }

    /** @return connections opened so far (diagnostic) */
    synchronized int opened()
    {
        return opened;
    }

    @Override
    public Connection connect() throws SQLException
    {
        while (true)
        {
            final Idle i;
            synchronized (this)
            {
                i = idle.pollFirst();
                if (i == null)
                {
                    opened++;
                    break;
                }
            }
            final boolean old = System.nanoTime() - i.sinceNanos() > TimeUnit.MILLISECONDS.toNanos(CHECK_AFTER_MS);
            if (!i.connection().isClosed() && (!old || i.connection().isValid(5)))
            {
                return wrap(i.connection());
            }
            quietClose(i.connection());
        }
        return wrap(opener.connect());
    }

    private Connection wrap(final Connection real)
    {
        final InvocationHandler h = new InvocationHandler()
        {
            private boolean given;

            @Override
            public Object invoke(final Object proxy, final Method method, final Object[] args) throws Throwable
            {
                if (method.getName().equals("close") && method.getParameterCount() == 0)
                {
                    if (!given)
                    {
                        given = true;
                        giveBack(real);
                    }
                    return null;
                }
                if (method.getName().equals("isClosed") && method.getParameterCount() == 0 && given)
                {
                    return true;
                }
                if (given)
                {
                    throw new SQLException("connection closed (given back for reuse)", "08003");
                }
                try
                {
                    return method.invoke(real, args);
                }
                catch (final InvocationTargetException e)
                {
                    throw e.getCause();
                }
            }
        };
        return (Connection)Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
            h);
    }

    private void giveBack(final Connection real)
    {
        boolean keep;
        try
        {
            keep = !real.isClosed() && real.getAutoCommit();
        }
        catch (final SQLException e)
        {
            keep = false;
        }
        synchronized (this)
        {
            if (keep && !closed && idle.size() < MAX_IDLE)
            {
                idle.addFirst(new Idle(real, System.nanoTime()));
                return;
            }
        }
        quietClose(real);
    }

    private static void quietClose(final Connection c)
    {
        try
        {
            c.close();
        }
        catch (final SQLException e)
        {
            // gone already
        }
    }

    /** Closes the idle connections; connections in use are closed when given back. */
    @Override
    public void close()
    {
        final Idle[] all;
        synchronized (this)
        {
            closed = true;
            all = idle.toArray(new Idle[0]);
            idle.clear();
        }
        for (final Idle i : all)
        {
            quietClose(i.connection());
        }
    }
}
