package io.sluice.sinks.postgres;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Map;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import io.sluice.core.config.Secrets;
import io.sluice.core.gather.sink.SinkException;

/**
 * The explicit table of what a PostgreSQL failure means for Sluice, by SQLSTATE (PostgreSQL manual, Appendix A
 * "PostgreSQL Error Codes"; a class is the first two characters):
 *
 * <table>
 * <caption>SQLSTATE to kind</caption>
 * <tr><th>SQLSTATE</th><th>kind</th></tr>
 * <tr><td>class 08 (connection exception), class 53 (insufficient resources), 57P01 admin_shutdown,
 *     57P02 crash_shutdown, 57P03 cannot_connect_now, 57014 query_canceled (statement_timeout),
 *     55P03 lock_not_available (lock_timeout), 40001 serialization_failure, 40P01 deadlock_detected,
 *     25P03 idle_in_transaction_session_timeout and 57P05 idle_session_timeout (the server ended the session; a new
 *     one can write)</td>
 *     <td>{@link Kind#RETRIABLE}</td></tr>
 * <tr><td>class 28 (invalid authorization), 3D000 invalid_catalog_name (the database does not exist)</td>
 *     <td>{@link Kind#FATAL}</td></tr>
 * <tr><td>42P01 undefined_table, 3F000 invalid_schema_name</td><td>{@link Kind#TABLE_GONE}</td></tr>
 * <tr><td>class 22 (data exception), class 23 (integrity constraint violation)</td>
 *     <td>{@link Kind#RECORD_CAUSED}</td></tr>
 * <tr><td>anything else (42501 insufficient_privilege, 42703 undefined_column, 42601 syntax_error, ...)</td>
 *     <td>{@link Kind#PERMANENT}</td></tr>
 * </table>
 *
 * <p>25P02 in_failed_sql_transaction ("current transaction is aborted, commands ignored until end of transaction
 * block") is never the cause: it only says that an earlier statement of the transaction failed.
 * {@link #firstReal} keeps the first other failure of a chain, and a caller that saw an earlier failure passes it
 * first. A failure without SQLSTATE whose cause is an {@link IOException} is retriable.
 *
 * <p>Onto core's {@link SinkException}: RETRIABLE is {@code retriable}; RECORD_CAUSED is {@code recordCaused} (what
 * {@code on_error = "dead_letter"} sends to the dead-letter topic); FATAL, TABLE_GONE and PERMANENT are neither (the
 * batch fails and its partitions stop, the message saying why). The code is the SQLSTATE packed as PostgreSQL packs it
 * ({@link #code(String)}). Thread-safe (stateless).
 */
public final class PostgresErrors
{
    /** What a failure means for the batch or table that met it. */
    public enum Kind
    {
        /** The same request may succeed later: the connection, the server's resources, a lock conflict. */
        RETRIABLE,
        /** Nothing will succeed until the configuration or the server changes: credentials, the database. */
        FATAL,
        /** The table (or its schema) no longer exists. */
        TABLE_GONE,
        /** The server refused the data itself: a value it cannot store, a constraint. */
        RECORD_CAUSED,
        /** Any other refusal: retrying the same request fails the same way. */
        PERMANENT
    }

    /** SQLSTATEs and classes that are retriable, with PostgreSQL's condition names. */
    public static final Map<String, String> RETRIABLE = Map.ofEntries(
        Map.entry("08", "connection_exception (class)"),
        Map.entry("53", "insufficient_resources (class)"),
        Map.entry("57P01", "admin_shutdown"),
        Map.entry("57P02", "crash_shutdown"),
        Map.entry("57P03", "cannot_connect_now"),
        Map.entry("57014", "query_canceled"),
        Map.entry("55P03", "lock_not_available"),
        Map.entry("40001", "serialization_failure"),
        Map.entry("40P01", "deadlock_detected"),
        Map.entry("25P03", "idle_in_transaction_session_timeout"),
        Map.entry("57P05", "idle_session_timeout"));

    /** SQLSTATEs and classes that end the run whatever the table or record. */
    public static final Map<String, String> FATAL = Map.of(
        "28", "invalid_authorization_specification (class)",
        "3D000", "invalid_catalog_name");

    /** SQLSTATEs that say the table is gone. */
    public static final Map<String, String> TABLE_GONE = Map.of(
        "42P01", "undefined_table",
        "3F000", "invalid_schema_name");

    /** Classes with which the server refuses the records' data. */
    public static final Map<String, String> RECORD_CAUSED = Map.of(
        "22", "data_exception (class)",
        "23", "integrity_constraint_violation (class)");

    /**
     * Condition names of the SQLSTATEs a sink meets most, from PostgreSQL's manual, Appendix A "PostgreSQL Error
     * Codes"; looked up before the classes above, so a message names the condition rather than only its class.
     */
    public static final Map<String, String> CONDITIONS = Map.ofEntries(
        Map.entry("08001", "sqlclient_unable_to_establish_sqlconnection"),
        Map.entry("08006", "connection_failure"),
        Map.entry("21000", "cardinality_violation"),
        Map.entry("22001", "string_data_right_truncation"),
        Map.entry("22003", "numeric_value_out_of_range"),
        Map.entry("22004", "null_value_not_allowed"),
        Map.entry("22007", "invalid_datetime_format"),
        Map.entry("22008", "datetime_field_overflow"),
        Map.entry("22012", "division_by_zero"),
        Map.entry("22021", "character_not_in_repertoire"),
        Map.entry("22023", "invalid_parameter_value"),
        Map.entry("22P02", "invalid_text_representation"),
        Map.entry("22P03", "invalid_binary_representation"),
        Map.entry("22P05", "untranslatable_character"),
        Map.entry("23001", "restrict_violation"),
        Map.entry("23502", "not_null_violation"),
        Map.entry("23503", "foreign_key_violation"),
        Map.entry("23505", "unique_violation"),
        Map.entry("23514", "check_violation"),
        Map.entry("23P01", "exclusion_violation"),
        Map.entry("25P02", "in_failed_sql_transaction"),
        Map.entry("28P01", "invalid_password"),
        Map.entry("42501", "insufficient_privilege"),
        Map.entry("42703", "undefined_column"),
        Map.entry("42804", "datatype_mismatch"),
        Map.entry("42P10", "invalid_column_reference"),
        Map.entry("53100", "disk_full"),
        Map.entry("53200", "out_of_memory"),
        Map.entry("53300", "too_many_connections"));

    /** 25P02: an earlier statement of the transaction failed; never reported as a cause. */
    public static final String IN_FAILED_TRANSACTION = "25P02";

    private PostgresErrors()
    {
    }

    /**
     * @param sqlstate a five-character SQLSTATE, or {@code null}
     * @return its kind by the table above; {@link Kind#PERMANENT} for {@code null} or anything not listed
     */
    public static Kind kind(final String sqlstate)
    {
        if (sqlstate == null || sqlstate.length() != 5)
        {
            return Kind.PERMANENT;
        }
        final String cls = sqlstate.substring(0, 2);
        if (RETRIABLE.containsKey(sqlstate) || RETRIABLE.containsKey(cls))
        {
            return Kind.RETRIABLE;
        }
        if (FATAL.containsKey(sqlstate) || FATAL.containsKey(cls))
        {
            return Kind.FATAL;
        }
        if (TABLE_GONE.containsKey(sqlstate))
        {
            return Kind.TABLE_GONE;
        }
        if (RECORD_CAUSED.containsKey(cls))
        {
            return Kind.RECORD_CAUSED;
        }
        return Kind.PERMANENT;
    }

    /**
     * The SQLSTATE as one int, the way PostgreSQL packs it ({@code MAKE_SQLSTATE} in {@code src/include/utils/elog.h}:
     * six bits per character, the first character lowest), so that {@link SinkException#code()} carries it.
     *
     * @param sqlstate five characters of {@code 0-9A-Z}
     * @return the packed code, or 0 for {@code null} or a string of another length
     */
    public static int code(final String sqlstate)
    {
        if (sqlstate == null || sqlstate.length() != 5)
        {
            return 0;
        }
        int code = 0;
        for (int i = 0; i < 5; i++)
        {
            code |= ((sqlstate.charAt(i) - '0') & 0x3F) << (6 * i);
        }
        return code;
    }

    /**
     * @param code a code made by {@link #code(String)}
     * @return the five-character SQLSTATE
     */
    public static String sqlstate(final int code)
    {
        final char[] c = new char[5];
        for (int i = 0; i < 5; i++)
        {
            c[i] = (char)(((code >>> (6 * i)) & 0x3F) + '0');
        }
        return new String(c);
    }

    /**
     * The failure to report among a statement's failures: the first, in order, whose SQLSTATE is not 25P02, looking
     * through each one's {@link SQLException#getNextException() next exceptions} (a batch's failures). A failure seen
     * earlier in the same transaction goes first.
     *
     * @param failures failures in the order they happened; {@code null} entries are skipped
     * @return the first real failure, or the first failure when all are 25P02, or {@code null} when none is given
     */
    public static SQLException firstReal(final SQLException... failures)
    {
        SQLException first = null;
        for (final SQLException f : failures)
        {
            for (SQLException e = f; e != null; e = e.getNextException() == e ? null : e.getNextException())
            {
                if (first == null)
                {
                    first = e;
                }
                if (!IN_FAILED_TRANSACTION.equals(e.getSQLState()))
                {
                    return e;
                }
            }
        }
        return first;
    }

    /**
     * Classifies a failure of a statement.
     *
     * @param what     what was being done, naming the table and server (e.g. "create "public"."orders" at
     *                 jdbc:postgresql://host:5432/db")
     * @param failures the failure, after any earlier failure of the same transaction ({@link #firstReal})
     * @return a classified exception with a message naming the SQLSTATE, its kind and what the server said
     */
    public static SinkException classify(final String what, final SQLException... failures)
    {
        final SQLException e = firstReal(failures);
        if (e == null)
        {
            return new SinkException(what + ": failed without a reason", false, 0, null);
        }
        final String state = e.getSQLState();
        Kind kind = kind(state);
        if (state == null && ioCause(e))
        {
            kind = Kind.RETRIABLE;
        }
        final String message = what + ": PostgreSQL error " + (state == null ? "(no SQLSTATE)" : state)
            + conditionName(state) + ": " + Secrets.redact(serverText(e)) + advice(kind, state);
        return new SinkException(message, kind == Kind.RETRIABLE, code(state), kind == Kind.RECORD_CAUSED, e);
    }

    private static String conditionName(final String state)
    {
        if (state == null || state.length() != 5)
        {
            return "";
        }
        if (CONDITIONS.containsKey(state))
        {
            return " (" + CONDITIONS.get(state) + ")";
        }
        for (final Map<String, String> m : java.util.List.of(RETRIABLE, FATAL, TABLE_GONE, RECORD_CAUSED))
        {
            final String name = m.containsKey(state) ? m.get(state) : m.get(state.substring(0, 2));
            if (name != null)
            {
                return " (" + name + ")";
            }
        }
        return "";
    }

    private static String advice(final Kind kind, final String state)
    {
        if (kind == Kind.FATAL)
        {
            return state.startsWith("28")
                ? " (check the sink's user, password or client certificate and the server's pg_hba.conf)"
                : " (the database named in the sink's URL does not exist)";
        }
        if (kind == Kind.TABLE_GONE)
        {
            return " (the table or its schema is gone)";
        }
        return "";
    }

    /** The server's message with its detail and hint when it sent them, else the exception's message. */
    private static String serverText(final SQLException e)
    {
        final ServerErrorMessage m = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        if (m != null)
        {
            return m.getMessage() + (m.getDetail() == null ? "" : "; DETAIL: " + m.getDetail())
                + (m.getHint() == null ? "" : "; HINT: " + m.getHint());
        }
        final String text = String.valueOf(e.getMessage());
        final int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    private static boolean ioCause(final Throwable t)
    {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (c instanceof IOException)
            {
                return true;
            }
        }
        return false;
    }
}
