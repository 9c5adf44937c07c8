package io.sluice.tuning;

import net.openhft.affinity.Affinity;
import net.openhft.affinity.IAffinity;
import net.openhft.affinity.impl.LinuxJNAAffinity;
import net.openhft.affinity.impl.PosixJNAAffinity;
import net.openhft.affinity.impl.WindowsJNAAffinity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * Pins stage threads to cpus through OpenHFT Java-Thread-Affinity ({@code net.openhft:affinity}, which calls
 * {@code sched_setaffinity} through JNA on Linux).
 *
 * <p>Pinning never fails the engine: when it cannot be done — no native support, a cpu this process may not use, the
 * kernel refusing — {@link #pinCurrentThread(int)} returns false and logs one warn line per distinct reason, starting
 * {@code "CPU pinning unavailable: "}, and the thread runs unpinned. A successful pin logs one info line
 * {@code "Thread '<name>' pinned to cpu <n>"}.
 *
 * <p>It sets the thread's mask to exactly the one cpu asked for. It does not use OpenHFT's {@code AffinityLock}:
 * {@code acquireLock(cpu)} takes a cpu from its own reservable set ({@code affinity.reserved}, all cpus but cpu 0 by
 * default) and silently picks another cpu when the one asked for is not in it — on a 2-cpu machine
 * {@code acquireLock(0)} pins to cpu 1. Keeping other processes off the chosen cpus is the operator's job
 * ({@code isolcpus}, {@code taskset}, cgroup cpusets; see {@code docs/tuning.md}).
 *
 * <p>The cpus this process may use are read once, when this class is loaded, from {@code Cpus_allowed_list} in
 * {@code /proc/self/status} (the main thread's mask: what {@code taskset} or the cgroup cpuset gave the process); a
 * pin outside them is refused, so a pinned thread never escapes a {@code taskset}. On Linux a new thread inherits the
 * mask of the thread that starts it: a thread started by a pinned thread is pinned to the same cpu. Threads made by
 * {@link #threadFactory(String, int)} with {@code cpu < 0} therefore reset themselves to all allowed cpus; start
 * helper threads (a Kafka client's, for example) from an unpinned thread or through such a factory.
 *
 * <p>All methods are thread-safe.
 */
public final class CpuAffinity
{
    /** The {@code cpu} value that means "do not pin". */
    public static final int UNPINNED = -1;

    private static final Logger LOG = LoggerFactory.getLogger(CpuAffinity.class);
    private static final String PROC_SELF_STATUS = "/proc/self/status";
    private static final String CPUS_ALLOWED_LIST = "Cpus_allowed_list:";

    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    private static final int[] ALLOWED_CPUS = readAllowedCpus(Path.of(PROC_SELF_STATUS));
    private static final int AVAILABLE_CPUS = Math.max(
        1, Math.min(ALLOWED_CPUS.length, Runtime.getRuntime().availableProcessors()));

    private CpuAffinity()
    {
    }

    /** Loads OpenHFT affinity (and JNA) on first use only, and remembers why pinning is unavailable, if it is. */
    private static final class Native
    {
        static final String UNAVAILABLE_REASON = probe();
        static final String IMPL_NAME = implName();

        private static String probe()
        {
            final String os = System.getProperty("os.name", "?");
            final String arch = System.getProperty("os.arch", "?");
            try
            {
                final IAffinity impl = Affinity.getAffinityImpl();
                if (impl instanceof LinuxJNAAffinity || impl instanceof PosixJNAAffinity ||
                    impl instanceof WindowsJNAAffinity)
                {
                    return null;
                }
                return "OpenHFT affinity cannot set thread masks on " + os + '/' + arch + " (it chose " +
                    impl.getClass().getSimpleName() + "; JNA may be missing or unable to load its native library)";
            }
            catch (final RuntimeException | LinkageError e)
            {
                return "OpenHFT affinity failed to load on " + os + '/' + arch + " (" + e + ')';
            }
        }

        private static String implName()
        {
            try
            {
                final IAffinity impl = Affinity.getAffinityImpl();
                return impl.getClass().getSimpleName();
            }
            catch (final RuntimeException | LinkageError e)
            {
                return "none";
            }
        }
    }

    /**
     * Pins the calling thread to one cpu: afterwards the scheduler runs it on {@code cpu} only.
     *
     * <p>Never throws. Returns false, and logs one warn line per distinct reason
     * ({@code "CPU pinning unavailable: <why>; stage threads run unpinned"}), when {@code cpu} is negative or not one
     * of {@link #allowedCpus()}, when there is no native affinity support, when the kernel refuses, or when the mask
     * read back is not exactly {@code {cpu}}; the thread's mask is then as it was. On success logs
     * {@code "Thread '<name>' pinned to cpu <n>"} at info.
     *
     * @param cpu the cpu number, as Linux numbers them ({@code /proc/cpuinfo}'s "processor").
     * @return true if the thread is now pinned to {@code cpu}.
     */
    public static boolean pinCurrentThread(final int cpu)
    {
        if (cpu < 0 || !CpuLists.contains(ALLOWED_CPUS, cpu))
        {
            warnOnce("cpu " + cpu + " is not one this process may run on (allowed: " +
                CpuLists.format(ALLOWED_CPUS) + ')');
            return false;
        }

        final String unavailable = Native.UNAVAILABLE_REASON;
        if (unavailable != null)
        {
            warnOnce(unavailable);
            return false;
        }

        final BitSet mask = new BitSet();
        mask.set(cpu);
        try
        {
            Affinity.setAffinity(mask);
            final BitSet now = Affinity.getAffinity();
            if (!mask.equals(now))
            {
                warnOnce("asked for cpu " + cpu + " but the thread's mask is " + now);
                return false;
            }
        }
        catch (final RuntimeException | LinkageError e)
        {
            warnOnce("setting the affinity of a thread to cpu " + cpu + " failed (" + e.getMessage() + ')');
            return false;
        }

        LOG.info("Thread '{}' pinned to cpu {}", Thread.currentThread().getName(), cpu);
        return true;
    }

    /**
     * Lets the calling thread run on every cpu this process may use ({@link #allowedCpus()}), undoing a pin it made
     * or inherited from a pinned parent thread. Quiet: does nothing, and returns false, when pinning is unavailable.
     *
     * @return true if the thread's mask is now {@link #allowedCpus()}.
     */
    public static boolean unpinCurrentThread()
    {
        if (Native.UNAVAILABLE_REASON != null)
        {
            return false;
        }

        final BitSet mask = new BitSet();
        for (final int cpu : ALLOWED_CPUS)
        {
            mask.set(cpu);
        }
        try
        {
            if (!mask.equals(Affinity.getAffinity()))
            {
                Affinity.setAffinity(mask);
            }
            return true;
        }
        catch (final RuntimeException | LinkageError e)
        {
            LOG.debug("Could not reset the cpu mask of thread '{}'", Thread.currentThread().getName(), e);
            return false;
        }
    }

    /**
     * Whether this JVM can pin threads: OpenHFT affinity loaded a native implementation that sets thread masks
     * (Linux, other POSIX systems with {@code sched_setaffinity}, Windows; not macOS, which has no masks). A true
     * here does not promise every {@link #pinCurrentThread(int)} succeeds (the cpu must be allowed, the kernel may
     * refuse), only that pinning is worth asking for.
     *
     * @return true if pinning is available.
     */
    public static boolean isPinningAvailable()
    {
        return Native.UNAVAILABLE_REASON == null;
    }

    /**
     * How many cpus this process may use: the smaller of the allowed cpus ({@link #allowedCpus()}) and
     * {@link Runtime#availableProcessors()} (which also counts a container's cpu quota, or
     * {@code -XX:ActiveProcessorCount}). Read once, when this class is loaded; load it from an unpinned thread (the
     * engine does, for its start-up banner).
     *
     * @return at least 1.
     */
    public static int availableCpus()
    {
        return AVAILABLE_CPUS;
    }

    /**
     * The cpus this process may run on, from {@code Cpus_allowed_list} in {@code /proc/self/status}, read once when
     * this class is loaded; where that file does not exist, {@code 0 .. availableProcessors() - 1}.
     *
     * @return a new array of cpu numbers, ascending.
     */
    public static int[] allowedCpus()
    {
        return ALLOWED_CPUS.clone();
    }

    /**
     * The cpu the calling thread is running on at this instant (it may move unless pinned).
     *
     * @return the cpu number, or -1 if pinning is unavailable.
     */
    public static int currentCpu()
    {
        if (Native.UNAVAILABLE_REASON != null)
        {
            return -1;
        }
        try
        {
            return Affinity.getCpu();
        }
        catch (final RuntimeException | LinkageError e)
        {
            return -1;
        }
    }

    /**
     * A factory of non-daemon stage threads: {@code threadFactory(threadName, cpu, false)}.
     *
     * @param threadName name of the first thread; later ones get {@code -2}, {@code -3}, … appended.
     * @param cpu        cpu to pin each thread to, or negative for unpinned.
     * @return a new thread factory.
     * @throws NullPointerException if {@code threadName} is null.
     */
    public static ThreadFactory threadFactory(final String threadName, final int cpu)
    {
        return threadFactory(threadName, cpu, false);
    }

    /**
     * A factory of named stage threads that pin themselves when they start, before running their task.
     *
     * <p>With {@code cpu >= 0} each thread calls {@link #pinCurrentThread(int)} (so a failure is logged and the
     * thread runs unpinned); with {@code cpu < 0} each thread calls {@link #unpinCurrentThread()}, so it does not
     * inherit the mask of a pinned thread that started it. Several threads from one factory share {@code cpu}: pin
     * spinning threads through one factory each. Usable as the Disruptor's thread factory.
     *
     * @param threadName name of the first thread; later ones get {@code -2}, {@code -3}, … appended.
     * @param cpu        cpu to pin each thread to, or negative for unpinned.
     * @param daemon     whether the threads are daemon threads.
     * @return a new thread factory; thread-safe.
     * @throws NullPointerException if {@code threadName} is null.
     */
    public static ThreadFactory threadFactory(final String threadName, final int cpu, final boolean daemon)
    {
        Objects.requireNonNull(threadName, "threadName");
        final AtomicInteger created = new AtomicInteger();
        return task ->
        {
            final int n = created.incrementAndGet();
            final Runnable pinned = () ->
            {
                if (cpu >= 0)
                {
                    pinCurrentThread(cpu);
                }
                else
                {
                    unpinCurrentThread();
                }
                task.run();
            };
            final Thread thread = new Thread(pinned, n == 1 ? threadName : threadName + '-' + n);
            thread.setDaemon(daemon);
            return thread;
        };
    }

    /**
     * One line about the cpu layout for the start-up banner, for example
     * {@code "cpus: 2 available (allowed 0-1); pinning: available (LinuxJNAAffinity)"} or
     * {@code "cpus: 2 available (allowed 0-1); pinning: unavailable (<why>)"}.
     *
     * @return the line, without a line break.
     */
    public static String describe()
    {
        final String unavailable = Native.UNAVAILABLE_REASON;
        return "cpus: " + AVAILABLE_CPUS + " available (allowed " + CpuLists.format(ALLOWED_CPUS) + "); pinning: " +
            (unavailable == null ? "available (" + Native.IMPL_NAME + ')' : "unavailable (" + unavailable + ')');
    }

    /**
     * Logs {@code "CPU pinning unavailable: <why>; stage threads run unpinned"} at warn, the first time for each
     * distinct {@code why}.
     *
     * @param why the reason, without trailing punctuation.
     * @return true if this call logged it.
     */
    static boolean warnOnce(final String why)
    {
        if (WARNED.add(why))
        {
            LOG.warn("CPU pinning unavailable: {}; stage threads run unpinned", why);
            return true;
        }
        return false;
    }

    /**
     * Reads {@code Cpus_allowed_list} from a {@code /proc/<pid>/status} file.
     *
     * @param status the file.
     * @return its cpus, or {@code 0 .. availableProcessors() - 1} if the file is missing or has no such line.
     */
    static int[] readAllowedCpus(final Path status)
    {
        try
        {
            for (final String line : Files.readAllLines(status))
            {
                if (line.startsWith(CPUS_ALLOWED_LIST))
                {
                    return CpuLists.parse(line.substring(CPUS_ALLOWED_LIST.length()));
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            LOG.debug("Could not read {}; assuming cpus 0..availableProcessors-1", status, e);
        }
        return IntStream.range(0, Runtime.getRuntime().availableProcessors()).toArray();
    }
}
