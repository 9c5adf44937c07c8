package io.sluice.core.scatter.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.sluice.core.stage.PaddedAtomicLong;

/**
 * One routed topic name and what is known about it on the broker. Created once per distinct name by
 * {@link TopicTable#intern}; the name never changes, the state moves as the admin thread learns about the topic:
 *
 * <pre>
 *   UNKNOWN --(route stage asks)--> PENDING --(admin thread)--> EXISTS | ABSENT | FAILED | REFUSED
 *   ABSENT | FAILED | REFUSED --(re-check after a while)--> PENDING
 *   EXISTS --(producer: unknown topic, create_topics)--> PENDING;  EXISTS --(producer: refused for good)--> REFUSED
 * </pre>
 *
 * <p>Thread-safety: the state, its error and its time are one immutable status swapped with compare-and-set by the
 * route stage, the produce stage, the admin thread and the producer's callback thread; reading it is one volatile
 * read.
 */
public final class TopicEntry
{
    /** Never looked at yet. */
    public static final int UNKNOWN = 0;
    /** The admin thread is creating or looking up the topic; records for it wait in the produce stage. */
    public static final int PENDING = 1;
    /** The topic exists on the broker: records for it are produced. */
    public static final int EXISTS = 2;
    /** The topic does not exist and may not be created ({@code create_topics = false}): permanent, as REFUSED. */
    public static final int ABSENT = 3;
    /** Creating or looking up the topic failed, for now (a timeout, a broker away): its records fail with
     * {@link #error()} and are read again. */
    public static final int FAILED = 4;
    /** The broker refuses the topic for good (an invalid, internal or colliding name, a missing ACL; ProduceErrors'
     * TOPIC_REFUSED): its records go to the rule's fallback, else the pipeline stops. */
    public static final int REFUSED = 5;

    private static final VarHandle STATUS;

    static
    {
        try
        {
            STATUS = MethodHandles.lookup().findVarHandle(TopicEntry.class, "status", Status.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** An immutable state with its error and time, swapped as one (a transition allocates one; a few per topic). */
    private record Status(int state, String error, long changedNanos)
    {
    }

    private final int id;
    private final String name;
    private final byte[] bytes;
    private final int hash;
    private volatile Status status = new Status(UNKNOWN, null, 0L);
    /** Records the broker acknowledged for this topic (producer I/O thread; a separate, padded object). */
    public final PaddedAtomicLong produced = new PaddedAtomicLong();

    TopicEntry(final int id, final String name, final byte[] bytes, final int hash)
    {
        this.id = id;
        this.name = name;
        this.bytes = bytes;
        this.hash = hash;
    }

    /** @return the dense id, an index into the {@link TopicTable} */
    public int id()
    {
        return id;
    }

    /** @return the topic name (sanitised, ASCII) */
    public String name()
    {
        return name;
    }

    byte[] bytes()
    {
        return bytes;
    }

    int hash()
    {
        return hash;
    }

    /** @return {@link #UNKNOWN}, {@link #PENDING}, {@link #EXISTS}, {@link #ABSENT}, {@link #FAILED} or
     *     {@link #REFUSED} (any thread) */
    public int state()
    {
        return status.state();
    }

    /** @return why the topic is ABSENT, FAILED or REFUSED, else null (any thread) */
    public String error()
    {
        return status.error();
    }

    /** @return {@link System#nanoTime()} of the last state change (any thread) */
    public long changedNanos()
    {
        return status.changedNanos();
    }

    /**
     * Moves the state from {@code expected} to {@code next}, with the error and time, atomically (any thread).
     *
     * @param expected the state the caller saw
     * @param next     the new state
     * @param why      the error for ABSENT, FAILED and REFUSED, else null
     * @param nowNanos {@link System#nanoTime()}
     * @return true if the state was {@code expected} and is now {@code next}
     */
    public boolean transition(final int expected, final int next, final String why, final long nowNanos)
    {
        Status current = status;
        final Status replacement = new Status(next, why, nowNanos);
        while (current.state() == expected)
        {
            final Status witness = (Status)STATUS.compareAndExchange(this, current, replacement);
            if (witness == current)
            {
                return true;
            }
            current = witness;
        }
        return false;
    }

    /** @return a name for logs, e.g. {@code users.42 (EXISTS)} */
    @Override
    public String toString()
    {
        return name + " (" + stateName(state()) + ")";
    }

    /**
     * @param state a state constant
     * @return its name
     */
    public static String stateName(final int state)
    {
        return switch (state)
        {
            case UNKNOWN -> "UNKNOWN";
            case PENDING -> "PENDING";
            case EXISTS -> "EXISTS";
            case ABSENT -> "ABSENT";
            case FAILED -> "FAILED";
            case REFUSED -> "REFUSED";
            default -> "state " + state;
        };
    }
}
