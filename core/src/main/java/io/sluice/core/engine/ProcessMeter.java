package io.sluice.core.engine;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;

/**
 * Measures the process it runs in, without an agent: CPU time ({@code OperatingSystemMXBean}), bytes allocated by
 * live threads ({@code ThreadMXBean.getThreadAllocatedBytes}), every garbage collection (GC notifications: count,
 * pause total, heap used before and after, hence peak heap and bytes allocated between collections) and peak RSS
 * ({@code VmHWM} of {@code /proc/self/status}).
 *
 * <p>A <em>window</em> is the part of the run that moves records: {@link #windowStart()} at the first record,
 * {@link #windowEnd()} at the last acknowledgement. Window allocation counts the threads alive at the window's end
 * from their value at its start (threads started inside count from zero; threads that ended inside are not
 * counted), and excludes the thread that takes the snapshots. Process totals come from GC accounting:
 * {@code sum(used before GC - used after previous GC) + (used now - used after last GC)}, precise to a G1 region.
 *
 * <p>Used by {@code engine.jar bench} and by the benchmark contenders in {@code bench/}. Thread-safe: GC notifications arrive on a JMX thread; snapshots are synchronised.
 */
public final class ProcessMeter
{
    /** One snapshot: wall time, process CPU, allocated bytes per live thread. */
    public record Snapshot(long nanos, long cpuNanos, Map<Long, Long> threadAllocated, long gcAllocated, long jitMs,
        Map<String, Long> threadCpuNanos)
    {
    }

    private final long startNanos = System.nanoTime();
    private final com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)ManagementFactory
        .getOperatingSystemMXBean();
    private final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
        .getThreadMXBean();
    private final Set<String> heapPools = new HashSet<>();
    private long gcCount;
    private double gcPauseMs;
    private long gcAllocated;
    private long lastAfterUsed;
    private long peakHeapUsed;
    private volatile Snapshot windowStart;
    private volatile Snapshot windowEnd;
    private long excludedThread = -1;

    /** Starts listening to GC notifications; the allocation count starts now. */
    public ProcessMeter()
    {
        for (final MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans())
        {
            if (p.getType() == MemoryType.HEAP)
            {
                heapPools.add(p.getName());
            }
        }
        lastAfterUsed = heapUsed();
        peakHeapUsed = lastAfterUsed;
        threads.setThreadAllocatedMemoryEnabled(true);
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            if (gc instanceof NotificationEmitter emitter)
            {
                emitter.addNotificationListener(this::onNotification, null, null);
            }
        }
    }

    /**
     * Excludes a thread (the one taking snapshots) from window allocation.
     *
     * @param t the thread whose allocation is not counted
     */
    public void excludeThread(final Thread t)
    {
        excludedThread = t.getId();
    }

    private void onNotification(final Notification n, final Object handback)
    {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()))
        {
            return;
        }
        final GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo
            .from((CompositeData)n.getUserData());
        final GcInfo gc = info.getGcInfo();
        final long before = sum(gc.getMemoryUsageBeforeGc());
        final long after = sum(gc.getMemoryUsageAfterGc());
        synchronized (this)
        {
            gcCount++;
            gcPauseMs += gc.getDuration();
            gcAllocated += Math.max(0, before - lastAfterUsed);
            lastAfterUsed = after;
            peakHeapUsed = Math.max(peakHeapUsed, before);
        }
    }

    private long sum(final Map<String, MemoryUsage> usage)
    {
        long s = 0;
        for (final Map.Entry<String, MemoryUsage> e : usage.entrySet())
        {
            if (heapPools.contains(e.getKey()))
            {
                s += e.getValue().getUsed();
            }
        }
        return s;
    }

    private static long heapUsed()
    {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** @return bytes allocated since construction, by GC accounting */
    public synchronized long allocatedBytes()
    {
        final long used = heapUsed();
        peakHeapUsed = Math.max(peakHeapUsed, used);
        return gcAllocated + Math.max(0, used - lastAfterUsed);
    }

    /** @return a snapshot now */
    public Snapshot snapshot()
    {
        final long[] ids = threads.getAllThreadIds();
        final long[] bytes = threads.getThreadAllocatedBytes(ids);
        final Map<Long, Long> m = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++)
        {
            if (bytes[i] >= 0 && ids[i] != excludedThread)
            {
                m.put(ids[i], bytes[i]);
            }
        }
        final Map<String, Long> cpu = new HashMap<>();
        for (final java.lang.management.ThreadInfo ti : threads.getThreadInfo(ids))
        {
            if (ti != null)
            {
                cpu.merge(ti.getThreadName().replaceAll("[0-9]+", "N"),
                    Math.max(0, threads.getThreadCpuTime(ti.getThreadId())), Long::sum);
            }
        }
        return new Snapshot(System.nanoTime(), os.getProcessCpuTime(), m, allocatedBytes(),
            ManagementFactory.getCompilationMXBean().getTotalCompilationTime(), cpu);
    }

    /** Marks the window's start (the first record). */
    public void windowStart()
    {
        windowStart = snapshot();
    }

    /** Marks (or moves) the window's end (the last acknowledgement so far). */
    public void windowEnd()
    {
        windowEnd = snapshot();
    }

    /**
     * Sets the window's end to a snapshot taken earlier.
     *
     * @param s a snapshot from {@link #snapshot()}
     */
    public void windowEnd(final Snapshot s)
    {
        windowEnd = s;
    }

    /** @return whether the window has started */
    public boolean windowStarted()
    {
        return windowStart != null;
    }

    /** @return peak resident set size from {@code /proc/self/status} (VmHWM), bytes; -1 when unavailable */
    public static long peakRssBytes()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("VmHWM:"))
                {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return -1;
        }
        return -1;
    }

    /**
     * The measurements as a flat map (keys as documented in docs/benchmarks.md).
     *
     * @return ordered map of numbers
     */
    public synchronized Map<String, Object> results()
    {
        final Map<String, Object> r = new LinkedHashMap<>();
        final long alloc = allocatedBytes();
        r.put("process_wall_s", (System.nanoTime() - startNanos) / 1e9);
        r.put("process_cpu_s", os.getProcessCpuTime() / 1e9);
        r.put("peak_rss_bytes", peakRssBytes());
        r.put("peak_heap_bytes", peakHeapUsed);
        r.put("heap_committed_bytes", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted());
        r.put("gc_count", gcCount);
        r.put("gc_pause_ms", gcPauseMs);
        r.put("alloc_process_bytes", alloc);
        if (windowStart != null && windowEnd != null)
        {
            long windowAlloc = 0;
            for (final Map.Entry<Long, Long> e : windowEnd.threadAllocated().entrySet())
            {
                windowAlloc += Math.max(0, e.getValue() - windowStart.threadAllocated().getOrDefault(e.getKey(), 0L));
            }
            r.put("window_s", (windowEnd.nanos() - windowStart.nanos()) / 1e9);
            r.put("window_cpu_s", (windowEnd.cpuNanos() - windowStart.cpuNanos()) / 1e9);
            r.put("alloc_window_bytes", windowAlloc);
            r.put("alloc_window_gc_bytes", windowEnd.gcAllocated() - windowStart.gcAllocated());
            r.put("window_jit_s", (windowEnd.jitMs() - windowStart.jitMs()) / 1e3);
            windowEnd.threadCpuNanos().entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(8)
                .forEach(t -> r.put("thread_cpu_s." + t.getKey(), t.getValue() / 1e9));
        }
        return r;
    }

    /**
     * Writes a flat map of numbers and strings as one JSON object.
     *
     * @param m the values
     * @return JSON text
     */
    public static String toJson(final Map<String, Object> m)
    {
        final StringBuilder sb = new StringBuilder("{");
        for (final Map.Entry<String, Object> e : m.entrySet())
        {
            if (sb.length() > 1)
            {
                sb.append(',');
            }
            sb.append('"').append(e.getKey()).append("\":");
            final Object v = e.getValue();
            if (v instanceof Number num)
            {
                final double d = num.doubleValue();
                sb.append(Double.isFinite(d) ? String.valueOf(v) : "null");
            }
            else if (v == null)
            {
                sb.append("null");
            }
            else
            {
                sb.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
        }
        return sb.append('}').toString();
    }
}
