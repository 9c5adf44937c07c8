package io.sluice.core.stage;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The process-wide record of a failure that no stage's error handler could take: an exception or {@link Error} that
 * ended a thread (a stage thread whose handler itself failed, the metrics listener's threads, any thread without a
 * handler of its own: {@link #install()} makes this the JVM's default uncaught exception handler). The engine's
 * control loop watches it: the first one stops every pipeline and ends the run with exit 1 and a line naming the
 * thread and the cause. Never exit 0 after a failure.
 *
 * <p>Reporting allocates nothing (it keeps the thread and the throwable, and prints a line prepared in advance only if
 * the message cannot be built), so it works when the heap is exhausted. Thread-safe.
 */
public final class FatalErrors
{
    /** A fatal failure: the thread it ended and the cause. */
    public record Fatal(Thread thread, Throwable cause)
    {
        /** @return e.g. {@code uncaught java.lang.OutOfMemoryError: Java heap space in thread github-source} */
        public String describe()
        {
            return "uncaught " + cause + " in thread " + thread.getName();
        }
    }

    private static final AtomicReference<Fatal> FIRST = new AtomicReference<>();
    private static final Thread.UncaughtExceptionHandler HANDLER = FatalErrors::report;
    private static volatile Thread failedThread;
    private static volatile Throwable failedCause;

    private FatalErrors()
    {
    }

    /** Makes {@link #report} the JVM's default uncaught exception handler (idempotent). */
    public static void install()
    {
        if (Thread.getDefaultUncaughtExceptionHandler() != HANDLER)
        {
            Thread.setDefaultUncaughtExceptionHandler(HANDLER);
        }
    }

    /** @return the handler to set on a thread that must report here whatever its group's default is */
    public static Thread.UncaughtExceptionHandler handler()
    {
        return HANDLER;
    }

    /**
     * Records a failure that ended (or will end) a thread; the first one wins. Prints one line to standard error.
     *
     * @param thread the thread
     * @param cause  what ended it
     */
    public static void report(final Thread thread, final Throwable cause)
    {
        if (failedCause == null)
        {
            failedThread = thread;
            failedCause = cause;
        }
        try
        {
            FIRST.compareAndSet(null, new Fatal(thread, cause));
            System.err.println("sluice: " + new Fatal(thread, cause).describe() + "; the run ends (exit 1)");
            cause.printStackTrace();
        }
        catch (final Throwable ignored)
        {
            // no memory even for the message: first() still answers from the fields set above
        }
    }

    /** @return the first fatal failure, or null */
    public static Fatal first()
    {
        final Fatal f = FIRST.get();
        if (f != null)
        {
            return f;
        }
        final Throwable cause = failedCause;
        return cause == null ? null : new Fatal(failedThread, cause);
    }

    /** Forgets the failure (tests that run engines one after another in one JVM). */
    public static void clear()
    {
        FIRST.set(null);
        failedCause = null;
        failedThread = null;
    }
}
