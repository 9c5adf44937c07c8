package io.sluice.sinks.clickhouse;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLException;

import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.ServerException;

import io.sluice.core.config.Secrets;
import io.sluice.core.gather.sink.SinkException;

/**
 * The explicit table of which ClickHouse failures are worth retrying. Codes and names are ClickHouse's own
 * ({@code src/Common/ErrorCodes.cpp} in the ClickHouse repository); the list of transient conditions follows the
 * ones ClickHouse's Kafka connector retries, extended with memory pressure, read-only replicas and inserts of
 * unknown status. Every code not listed is permanent: retrying the same bytes would fail the same way (a missing
 * table, a type mismatch, bad data, a denied permission).
 *
 * <p>I/O failures (connection refused, reset, timeouts, unknown host) are retriable: the server may come back.
 * Thread-safe (stateless).
 */
public final class ClickHouseErrors
{
    /** Retriable ClickHouse error codes, with their names as ClickHouse spells them. */
    public static final Map<Integer, String> RETRIABLE = Map.ofEntries(
        Map.entry(3, "UNEXPECTED_END_OF_FILE"),
        Map.entry(159, "TIMEOUT_EXCEEDED"),
        Map.entry(164, "READONLY"),
        Map.entry(202, "TOO_MANY_SIMULTANEOUS_QUERIES"),
        Map.entry(203, "NO_FREE_CONNECTION"),
        Map.entry(209, "SOCKET_TIMEOUT"),
        Map.entry(210, "NETWORK_ERROR"),
        Map.entry(241, "MEMORY_LIMIT_EXCEEDED"),
        Map.entry(242, "TABLE_IS_READ_ONLY"),
        Map.entry(252, "TOO_MANY_PARTS"),
        Map.entry(285, "TOO_FEW_LIVE_REPLICAS"),
        Map.entry(319, "UNKNOWN_STATUS_OF_INSERT"),
        Map.entry(425, "SYSTEM_ERROR"),
        Map.entry(999, "KEEPER_EXCEPTION"),
        Map.entry(1002, "UNKNOWN_EXCEPTION"));

    /**
     * Codes with which ClickHouse refuses a user: the credentials or the user's rights (permanent: the same request
     * fails the same way until the configuration or the server's users change). Names as ClickHouse spells them.
     */
    public static final Map<Integer, String> REFUSED = Map.ofEntries(
        Map.entry(192, "UNKNOWN_USER"),
        Map.entry(193, "WRONG_PASSWORD"),
        Map.entry(194, "REQUIRED_PASSWORD"),
        Map.entry(195, "IP_ADDRESS_NOT_ALLOWED"),
        Map.entry(291, "DATABASE_ACCESS_DENIED"),
        Map.entry(497, "ACCESS_DENIED"),
        Map.entry(516, "AUTHENTICATION_FAILED"));

    /**
     * Permanent codes with which ClickHouse refuses a batch for the data in it rather than for the table or the
     * user: a value it cannot parse or store, an expression of a DEFAULT or MATERIALIZED column that fails for a
     * row (a division by zero, {@code throwIf}), a constraint. Under {@code on_error = "dead_letter"} the batch's
     * records go to the dead-letter topic; every other permanent code (a missing table or column, a denied right, a
     * syntax error) stops the partitions as under {@code fail}. Names as ClickHouse spells them.
     */
    public static final Map<Integer, String> RECORD_CAUSED = Map.ofEntries(
        Map.entry(6, "CANNOT_PARSE_TEXT"),
        Map.entry(26, "CANNOT_PARSE_QUOTED_STRING"),
        Map.entry(27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED"),
        Map.entry(38, "CANNOT_PARSE_DATE"),
        Map.entry(41, "CANNOT_PARSE_DATETIME"),
        Map.entry(69, "ARGUMENT_OUT_OF_BOUND"),
        Map.entry(70, "CANNOT_CONVERT_TYPE"),
        Map.entry(72, "CANNOT_PARSE_NUMBER"),
        Map.entry(117, "INCORRECT_DATA"),
        Map.entry(131, "TOO_LARGE_STRING_SIZE"),
        Map.entry(153, "ILLEGAL_DIVISION"),
        Map.entry(190, "SIZES_OF_ARRAYS_DOESNT_MATCH"),
        Map.entry(321, "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE"),
        Map.entry(349, "CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN"),
        Map.entry(376, "CANNOT_PARSE_UUID"),
        Map.entry(395, "FUNCTION_THROW_IF_VALUE_IS_NON_ZERO"),
        Map.entry(407, "DECIMAL_OVERFLOW"),
        Map.entry(469, "VIOLATED_CONSTRAINT"));

    /**
     * Codes with which ClickHouse refuses a typed (Native) insert because the table is no longer the one the rows
     * were encoded for: a column retyped (18.16's MergeTree writer: BAD_CAST "Bad cast from type
     * DB::ColumnVector&lt;long&gt; to DB::ColumnVector&lt;int&gt;"; current releases with
     * {@code input_format_native_allow_types_conversion = 0}: TYPE_MISMATCH "Cannot convert: Int64 to Int32"), a
     * column dropped that the insert names (NO_SUCH_COLUMN_IN_TABLE), or a conversion the server cannot make
     * (CANNOT_CONVERT_TYPE). INCORRECT_DATA (117) counts only with the texts of a changed table ("Unknown column",
     * "Type of"; {@link #schemaChanged(int, String)}). These are looked at before {@link #RECORD_CAUSED}: a batch
     * refused with one of them is re-read and encoded again, never dead-lettered. Neither retriable as they are nor permanent: the rows must be
     * encoded again for the table's new columns (docs/schema-changes.md). Names as ClickHouse spells them.
     */
    public static final Map<Integer, String> SCHEMA_CHANGED = Map.ofEntries(
        Map.entry(16, "NO_SUCH_COLUMN_IN_TABLE"),
        Map.entry(53, "TYPE_MISMATCH"),
        Map.entry(70, "CANNOT_CONVERT_TYPE"),
        Map.entry(117, "INCORRECT_DATA"),
        Map.entry(368, "BAD_CAST"));

    /** ClickHouse's UNKNOWN_TABLE. */
    public static final int UNKNOWN_TABLE = 60;
    /** ClickHouse's UNKNOWN_DATABASE. */
    public static final int UNKNOWN_DATABASE = 81;
    /** ClickHouse's CANNOT_GET_CREATE_TABLE_QUERY: SHOW CREATE TABLE of a table without metadata (a missing one). */
    public static final int CANNOT_GET_CREATE_TABLE_QUERY = 390;

    private ClickHouseErrors()
    {
    }

    /**
     * @param code a ClickHouse error code
     * @return whether a request that failed with it may succeed when retried
     */
    public static boolean retriable(final int code)
    {
        return RETRIABLE.containsKey(code);
    }

    /**
     * @param code    a ClickHouse error code
     * @param message the server's message
     * @return whether the server refused an insert because the table changed ({@link #SCHEMA_CHANGED})
     */
    public static boolean schemaChanged(final int code, final String message)
    {
        if (code == 117)
        {
            final String m = String.valueOf(message);
            return m.contains("Unknown column") || m.contains("Type of ");
        }
        return SCHEMA_CHANGED.containsKey(code);
    }

    /**
     * Classifies any failure of a client-v2 call.
     *
     * @param what     what was being done, naming the table and endpoint (e.g. "insert into `db`.`t` at http://…")
     * @param failure  the exception thrown (or the cause of an ExecutionException)
     * @return a classified exception with a message a user can act on
     */
    public static SinkException classify(final String what, final Throwable failure)
    {
        final ServerException server = find(failure, ServerException.class);
        if (server != null)
        {
            final int code = server.getCode() > 0 ? server.getCode() : codeIn(server.getMessage());
            if (schemaChanged(code, server.getMessage()))
            {
                return SinkException.schemaChanged(what + ": ClickHouse error " + code + " (" + SCHEMA_CHANGED.get(code)
                    + "): " + Secrets.redact(serverText(server.getMessage())) + " (the table is not the one the rows "
                    + "were encoded for)", code, failure);
            }
            final boolean retry = retriable(code);
            final String refused = REFUSED.get(code);
            final String data = RECORD_CAUSED.get(code);
            return new SinkException(
                what + ": ClickHouse error " + code + (retry ? " (" + RETRIABLE.get(code) + ")" : "")
                    + (refused != null ? " (" + refused + ")" : "") + (data != null ? " (" + data + ")" : "")
                    + ": " + Secrets.redact(serverText(server.getMessage()))
                    + (refused == null
                        ? ""
                        : code == 291 || code == 497
                            ? " (the user lacks the right: grant it, or give plugin_config.username of a user who "
                                + "has it)"
                            : " (check plugin_config.username and password)"),
                retry, code, data != null, failure);
        }
        final Throwable io = ioCause(failure);
        if (io != null)
        {
            return new SinkException(what + ": " + describeIo(io), true, 0, failure);
        }
        if (find(failure, ConnectionInitiationException.class) != null || find(failure, TimeoutException.class) != null)
        {
            return new SinkException(what + ": " + firstLine(failure.getMessage()), true, 0, failure);
        }
        return new SinkException(what + ": " + firstLine(String.valueOf(failure)), false, 0, failure);
    }

    /**
     * @param failure a classified failure
     * @return whether the server closed the connection (broken pipe, reset) or alerted during or right after the TLS
     *         handshake: with TLS 1.3 a server that refuses the client's certificate does so after the client
     *         finished its side of the handshake, so the client sees its first write fail
     */
    public static boolean closedAfterTls(final Throwable failure)
    {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (c instanceof SSLException || c instanceof SocketException && String.valueOf(c.getMessage())
                .matches("(?i).*(broken pipe|connection reset).*"))
            {
                return true;
            }
        }
        return false;
    }

    private static Throwable ioCause(final Throwable t)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (c instanceof ConnectException || c instanceof SocketTimeoutException
                || c instanceof UnknownHostException
                || c instanceof NoRouteToHostException || c instanceof SocketException || c instanceof IOException)
            {
                return c;
            }
            if (c.getCause() == c)
            {
                break;
            }
        }
        return null;
    }

    private static String describeIo(final Throwable io)
    {
        if (io instanceof SSLException)
        {
            return "TLS handshake failed: " + Secrets.redact(io.getMessage()) + " (does plugin_config.ssl_ca_file hold "
                + "the CA that signed the server's certificate, does the certificate name the endpoint's host, and "
                + "does the server accept ssl_certificate_file?)";
        }
        if (io instanceof ConnectException)
        {
            return "connection refused (" + io.getMessage() + "): is ClickHouse running there?";
        }
        if (io instanceof UnknownHostException)
        {
            return "unknown host " + io.getMessage();
        }
        if (io instanceof SocketTimeoutException)
        {
            return "timed out (" + io.getMessage() + ")";
        }
        return io.getClass().getSimpleName() + ": " + Secrets.redact(io.getMessage());
    }

    private static <T extends Throwable> T find(final Throwable t, final Class<T> type)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (type.isInstance(c))
            {
                return type.cast(c);
            }
            if (c.getCause() == c)
            {
                break;
            }
        }
        return null;
    }

    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");
    private static final Pattern TEXT = Pattern.compile(
        "(?:DB::Exception|e\\.displayText\\(\\) = DB::Exception): (.*?)(?:, e\\.what\\(\\) = .*|\\s*\\(version .*|\\s*\\(transport error.*)?$",
        Pattern.DOTALL);

    /**
     * The error code in a server message, for servers whose responses client-v2 does not parse (18.16 answers
     * {@code Code: 60, e.displayText() = DB::Exception: …} without the header newer servers send).
     *
     * @param message the server's message
     * @return the code, or 0 when there is none
     */
    static int codeIn(final String message)
    {
        if (message == null)
        {
            return 0;
        }
        final Matcher m = CODE.matcher(message);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** @return the human part of a server message (the DB::Exception text), on one line */
    static String serverText(final String message)
    {
        final String line = firstLine(message);
        final Matcher m = TEXT.matcher(line);
        return m.find() ? m.group(1).strip() : line;
    }

    static String firstLine(final String message)
    {
        if (message == null)
        {
            return "";
        }
        final String m = message.strip();
        final int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
