package io.sluice.tuning;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Pinning on the machine the tests run on. Every pin happens on a fresh thread, never on JUnit's, so no later test
 * inherits a mask. Tests that need working affinity are skipped (assumptions) where it is unavailable.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CpuAffinityTest
{
    private static final Path THREAD_SELF_STATUS = Path.of("/proc/thread-self/status");

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private Logger logger;

    @BeforeEach
    void captureLog()
    {
        logger = (Logger)LoggerFactory.getLogger(CpuAffinity.class);
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void releaseLog()
    {
        logger.detachAppender(logged);
    }

    /** Runs {@code task} on a new thread and returns its result, so the pin dies with that thread. */
    private static <T> T onFreshThread(final Callable<T> task) throws InterruptedException
    {
        final AtomicReference<T> result = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread t = new Thread(() ->
        {
            try
            {
                result.set(task.call());
            }
            catch (final Throwable e)
            {
                failure.set(e);
            }
        }, "cpu-affinity-test");
        t.start();
        t.join();
        if (failure.get() != null)
        {
            throw new AssertionError("task failed on its thread", failure.get());
        }
        return result.get();
    }

    /** The calling thread's {@code Cpus_allowed_list}, as the kernel reports it. */
    private static String threadAllowedList()
    {
        try
        {
            return Files.readAllLines(THREAD_SELF_STATUS).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> l.substring("Cpus_allowed_list:".length()).trim())
                .findFirst()
                .orElseThrow();
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static void assumePinningWorksHere()
    {
        assumeTrue(Files.isReadable(THREAD_SELF_STATUS), "no /proc/thread-self/status to verify pinning");
        assumeTrue(CpuAffinity.isPinningAvailable(), "pinning unavailable here: " + CpuAffinity.describe());
    }

    private List<ILoggingEvent> warnings()
    {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).collect(Collectors.toList());
    }

    @Test
    void shouldPinToCpu0AndSeeItInProcThreadSelfStatus() throws InterruptedException
    {
        assumePinningWorksHere();
        assumeTrue(CpuLists.contains(CpuAffinity.allowedCpus(), 0), "cpu 0 is not allowed to this process");

        final String allowedAfterPin = onFreshThread(() -> CpuAffinity.pinCurrentThread(0) ? threadAllowedList() : "");

        assertEquals("0", allowedAfterPin);
        assertTrue(
            logged.list.stream()
                .anyMatch(e -> e.getLevel() == Level.INFO
                    && e.getFormattedMessage().equals("Thread 'cpu-affinity-test' pinned to cpu 0")),
            "no info line saying where the thread was pinned");
    }

    @Test
    void shouldPinToEveryAllowedCpuAndRunThere() throws InterruptedException
    {
        assumePinningWorksHere();
        for (final int cpu : CpuAffinity.allowedCpus())
        {
            final String result = onFreshThread(() ->
            {
                final boolean pinned = CpuAffinity.pinCurrentThread(cpu);
                return pinned + " " + threadAllowedList() + " " + CpuAffinity.currentCpu();
            });
            assertEquals("true " + cpu + " " + cpu, result);
        }
    }

    @Test
    void shouldReturnFalseForOutOfRangeCpusWithoutThrowingOrChangingTheMask() throws InterruptedException
    {
        final String processList = CpuLists.format(CpuAffinity.allowedCpus());
        final int beyond = 1 + IntStream.of(CpuAffinity.allowedCpus()).max().orElse(0);
        for (final int cpu : new int[]{-1, -7, beyond, 4096, Integer.MAX_VALUE})
        {
            final String result = onFreshThread(() -> CpuAffinity.pinCurrentThread(cpu)
                + (Files.isReadable(THREAD_SELF_STATUS) ? " " + threadAllowedList() : ""));
            final String expected = "false" + (Files.isReadable(THREAD_SELF_STATUS) ? " " + processList : "");
            assertEquals(expected, result, "cpu " + cpu);
        }
    }

    @Test
    void shouldLogOneWarnLinePerReason() throws InterruptedException
    {
        // cpus no machine here has, unique to this test: the once-per-reason memory is static
        onFreshThread(() -> CpuAffinity.pinCurrentThread(70_001));
        onFreshThread(() -> CpuAffinity.pinCurrentThread(70_001));
        onFreshThread(() -> CpuAffinity.pinCurrentThread(70_002));
        onFreshThread(() -> CpuAffinity.pinCurrentThread(70_001));

        final List<ILoggingEvent> warnings = warnings();
        assertEquals(2, warnings.size(), warnings.toString());
        final String first = warnings.get(0).getFormattedMessage();
        assertTrue(first.startsWith("CPU pinning unavailable: cpu 70001 is not one this process may run on (allowed: "),
            first);
        assertTrue(first.endsWith("; stage threads run unpinned"), first);
        assertTrue(warnings.get(1).getFormattedMessage().contains("cpu 70002"));
    }

    @Test
    void shouldWarnOnceForTheSameReason()
    {
        assertTrue(CpuAffinity.warnOnce("test reason 1"));
        assertFalse(CpuAffinity.warnOnce("test reason 1"));
        assertEquals(1, warnings().size());
        assertEquals("CPU pinning unavailable: test reason 1; stage threads run unpinned",
            warnings().get(0).getFormattedMessage());
    }

    @Test
    void shouldNameThreadsAndPinThemWhenTheyStart() throws InterruptedException
    {
        assumePinningWorksHere();
        final int cpu = CpuAffinity.allowedCpus()[CpuAffinity.allowedCpus().length - 1];
        final ThreadFactory factory = CpuAffinity.threadFactory("sluice-route", cpu);
        final AtomicReference<String> first = new AtomicReference<>();
        final AtomicReference<String> second = new AtomicReference<>();

        final Thread t1 = factory
            .newThread(() -> first.set(Thread.currentThread().getName() + " " + threadAllowedList()));
        final Thread t2 = factory
            .newThread(() -> second.set(Thread.currentThread().getName() + " " + threadAllowedList()));
        assertFalse(t1.isDaemon());
        assertTrue(CpuAffinity.threadFactory("d", cpu, true).newThread(() ->
        {
        }).isDaemon());
        t1.start();
        t2.start();
        t1.join();
        t2.join();

        assertEquals("sluice-route " + cpu, first.get());
        assertEquals("sluice-route-2 " + cpu, second.get());
    }

    @Test
    void shouldUnpinThreadsOfAnUnpinnedFactoryThatAPinnedThreadStarts() throws InterruptedException
    {
        assumePinningWorksHere();
        final int[] allowed = CpuAffinity.allowedCpus();
        assumeTrue(allowed.length >= 2, "needs two cpus to tell pinned from unpinned");
        final int cpu = allowed[0];

        final String result = onFreshThread(() ->
        {
            assertTrue(CpuAffinity.pinCurrentThread(cpu));
            final AtomicReference<String> inherited = new AtomicReference<>();
            final AtomicReference<String> reset = new AtomicReference<>();
            final Thread plain = new Thread(() -> inherited.set(threadAllowedList()));
            final Thread unpinned = CpuAffinity.threadFactory("helper", CpuAffinity.UNPINNED)
                .newThread(() -> reset.set(threadAllowedList()));
            plain.start();
            unpinned.start();
            plain.join();
            unpinned.join();
            return inherited.get() + " / " + reset.get();
        });

        // Linux: a thread inherits its creator's mask; the unpinned factory undoes that.
        assertEquals(cpu + " / " + CpuLists.format(allowed), result);
    }

    @Test
    void shouldCountAvailableCpus()
    {
        assertTrue(CpuAffinity.availableCpus() >= 1);
        assertTrue(CpuAffinity.availableCpus() <= CpuAffinity.allowedCpus().length);
        assertTrue(CpuAffinity.availableCpus() <= Runtime.getRuntime().availableProcessors());
    }

    @Test
    void shouldDescribeTheCpuLayoutOnOneLine()
    {
        final String line = CpuAffinity.describe();
        assertTrue(line.startsWith("cpus: " + CpuAffinity.availableCpus() + " available (allowed "), line);
        assertTrue(line.contains("pinning: " + (CpuAffinity.isPinningAvailable() ? "available" : "unavailable")), line);
        assertFalse(line.contains("\n"));
    }

    @Test
    void shouldReadAllowedCpusFromAStatusFile(@TempDir final Path dir) throws IOException
    {
        final Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nCpus_allowed:\t17\nCpus_allowed_list:\t0-2,4\nMems_allowed:\t1\n");
        assertArrayEquals(new int[]{0, 1, 2, 4}, CpuAffinity.readAllowedCpus(status));
    }

    @Test
    void shouldFallBackToAvailableProcessorsWithoutAStatusFile(@TempDir final Path dir)
    {
        final int[] expected = IntStream.range(0, Runtime.getRuntime().availableProcessors()).toArray();
        assertArrayEquals(expected, CpuAffinity.readAllowedCpus(dir.resolve("missing")));
    }
}
