package io.sluice.sinks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;

import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/**
 * Opens pgJDBC connections for a PostgreSQL sink: the URL and properties of its {@link PostgresConfig}, then the
 * session set up with {@code set_config} (bound values, never pasted into SQL): {@code TimeZone} UTC and
 * {@code extra_float_digits} 3 always (whatever the role, the database or the URL's {@code options} set: constant
 * DEFAULTs are read back as text through {@code to_json}, and with fewer digits a {@code real} or
 * {@code double precision} DEFAULT would be written rounded, e.g. 0.1234567890123 as 0.12346), the
 * sink's {@code statement_timeout} and {@code idle_in_transaction_session_timeout} (both {@code insert_timeout_ms},
 * each unless its settings give it), then every entry of {@code [sinks.plugin_config.settings]} in file order.
 *
 * <p>{@code idle_in_transaction_session_timeout} bounds how long a transaction whose client stopped sending (a member
 * frozen by SIGSTOP, a stopped VM, a GC pause) keeps its locks: the server ends such a session (SQLSTATE 25P03), its
 * transaction rolls back, and a writer waiting for its row locks (the new owner of an exactly-once partition, an
 * upsert of the same key) goes on. The client's kernel still acknowledges TCP while the process is stopped, so neither
 * TCP keepalives nor {@code tcp_user_timeout} notice it; {@code statement_timeout} does not run between statements.
 * Stateless; thread-safe.
 */
public final class PostgresConnections
{
    private static final org.postgresql.Driver DRIVER = new org.postgresql.Driver();
    /** The session parameter that ends a session idle inside a transaction longer than it (ms; PostgreSQL 9.6+). */
    static final String IDLE_IN_TRANSACTION = "idle_in_transaction_session_timeout";

    private PostgresConnections()
    {
    }

    /**
     * @param config the sink's settings
     * @return a new connection in autocommit, its session set up
     * @throws SQLException when the server cannot be reached, refuses the login, or refuses a session setting (the
     *                      setting named in the message)
     */
    public static Connection connect(final PostgresConfig config) throws SQLException
    {
        final Connection c = DRIVER.connect(config.jdbcUrl(), config.connectionProperties());
        if (c == null)
        {
            throw new PSQLException("pgJDBC does not take the URL " + config.jdbcUrl(),
                PSQLState.CONNECTION_UNABLE_TO_CONNECT);
        }
        try
        {
            set(c, "TimeZone", "UTC");
            set(c, "extra_float_digits", "3");
            boolean timeout = false;
            boolean idle = false;
            for (final String name : config.sessionSettings().keySet())
            {
                timeout |= "statement_timeout".equals(name.toLowerCase(Locale.ROOT));
                idle |= IDLE_IN_TRANSACTION.equals(name.toLowerCase(Locale.ROOT));
            }
            if (!timeout)
            {
                set(c, "statement_timeout", Long.toString(config.insertTimeoutMs()));
            }
            if (!idle)
            {
                set(c, IDLE_IN_TRANSACTION, Long.toString(config.insertTimeoutMs()));
            }
            for (final Map.Entry<String, String> s : config.sessionSettings().entrySet())
            {
                set(c, s.getKey(), s.getValue());
            }
            return c;
        }
        catch (final SQLException e)
        {
            try
            {
                c.close();
            }
            catch (final SQLException ignored)
            {
                // the failure to report is e
            }
            throw e;
        }
    }

    private static void set(final Connection c, final String name, final String value) throws SQLException
    {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.set_config(?, ?, false)"))
        {
            ps.setString(1, name);
            ps.setString(2, value);
            ps.execute();
        }
        catch (final PSQLException e)
        {
            final org.postgresql.util.ServerErrorMessage server = e.getServerErrorMessage();
            final String m = server != null ? server.getMessage() : String.valueOf(e.getMessage());
            throw new SQLException("the session setting " + name + " = '" + value + "' (settings of the sink, or "
                + "the engine's own) was refused: " + m, e.getSQLState(), e);
        }
    }
}
