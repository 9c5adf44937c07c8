package io.sluice.core.stage;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Failpoints for fault-injection tests (the practice of ClickHouse's {@code SYSTEM ENABLE FAILPOINT} and of
 * fail-rs): a named place in a stage that throws a {@link FailpointException} on the first record that reaches a
 * given offset, so a test can prove what the engine does when that stage fails unexpectedly. They are set for the
 * whole process when it starts, {@code -Dsluice.failpoints=<name>[@<offset>][=<kind>][,...]} (without an offset: on
 * the first record), and fire once each. The kind says what is thrown: {@code exception} (the default, a
 * {@link FailpointException}), {@code oom} (an {@link OutOfMemoryError}) or {@code stackoverflow} (a
 * {@link StackOverflowError}): an Error must end the run as surely as an exception. Never set in production: without the property {@link #ENABLED} is a constant
 * {@code false} and every check compiles away.
 *
 * <p>The names: {@link #SOURCE} (a Kafka, file or stdin source publishing a record; for lines the offset is the
 * 0-based line index), {@link #GATHER_ROUTE}, {@link #GATHER_INSERT} (a batch whose last row reaches the offset),
 * {@link #SCATTER_ROUTE}, {@link #SCATTER_PRODUCE}, {@link #SCATTER_ADMIN} (an admin call; no offset),
 * {@link #ENGINE} (the engine's control loop on the main thread; no offset).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Failpoints
{
    /** The system property that sets failpoints. */
    public static final String PROPERTY = "sluice.failpoints";
    /** A source publishing a record. */
    public static final String SOURCE = "source";
    /** The gather route stage, before it decodes a record. */
    public static final String GATHER_ROUTE = "gather.route";
    /** An insert worker, before it writes a batch. */
    public static final String GATHER_INSERT = "gather.insert";
    /** The scatter route stage, before it routes a record. */
    public static final String SCATTER_ROUTE = "scatter.route";
    /** The scatter produce stage, before it sends a record. */
    public static final String SCATTER_PRODUCE = "scatter.produce";
    /** The topic provisioner, before an admin call. */
    public static final String SCATTER_ADMIN = "scatter.admin";

    /** The engine's control loop (the main thread), once it runs. */
    public static final String ENGINE = "engine";

    /** Whether any failpoint is set; a constant for the life of the process. */
    public static final boolean ENABLED;

    private static final Map<String, Long> POINTS;
    private static final Map<String, String> KINDS = new HashMap<>();
    private static final Set<String> FIRED = ConcurrentHashMap.newKeySet();

    static
    {
        final Map<String, Long> points = parse(System.getProperty(PROPERTY, ""));
        POINTS = Collections.unmodifiableMap(points);
        ENABLED = !points.isEmpty();
    }

    /** Thrown by a failpoint: an unexpected failure of the stage, made on purpose. */
    public static final class FailpointException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        FailpointException(final String message)
        {
            super(message);
        }
    }

    private Failpoints()
    {
    }

    /**
     * Fires the failpoint if it is set and this is the first record reaching its offset. Call only under
     * {@code if (Failpoints.ENABLED)}.
     *
     * @param name   the failpoint
     * @param offset the record's offset (a line index for lines; 0 where there is none)
     * @throws FailpointException when it fires
     */
    public static void check(final String name, final long offset)
    {
        final Long at = POINTS.get(name);
        if (at != null && offset >= at && FIRED.add(name))
        {
            final String message = "failpoint " + name + " fired at offset " + offset + " (-D" + PROPERTY + ")";
            switch (KINDS.getOrDefault(name, "exception"))
            {
                case "oom" -> throw new OutOfMemoryError(message);
                case "stackoverflow" -> throw new StackOverflowError(message);
                default -> throw new FailpointException(message);
            }
        }
    }

    static Map<String, Long> parse(final String spec)
    {
        final Map<String, Long> points = new HashMap<>();
        for (final String item : spec.split(","))
        {
            final String p = item.strip();
            if (p.isEmpty())
            {
                continue;
            }
            final int eq = p.indexOf('=');
            final String point = eq < 0 ? p : p.substring(0, eq);
            final int at = point.indexOf('@');
            final String name = at < 0 ? point : point.substring(0, at);
            points.put(name, at < 0 ? 0L : Long.parseLong(point.substring(at + 1)));
            if (eq >= 0)
            {
                KINDS.put(name, p.substring(eq + 1).strip());
            }
        }
        return points;
    }
}
