package io.sluice.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What the benchmark reads from Linux's {@code /proc} (proc(5)): which process listens on a TCP port, and the CPU
 * time of a process and of each of its threads. Everything returns "unknown" (-1, NaN, an empty map) instead of
 * failing when {@code /proc} is missing or a process is not ours to read.
 *
 * <p>CPU times are {@code utime + stime} of {@code /proc/PID/stat} and {@code /proc/PID/task/TID/stat} (fields 14
 * and 15), in clock ticks of {@link #TICKS_PER_SECOND} (USER_HZ, 100 on Linux, so a resolution of 10 ms). A thread's
 * name is its {@code comm} (field 2, at most 15 bytes: the JVM and ClickHouse name their threads, truncated there).
 * Thread-safe: no state.
 */
final class ProcFs
{
    /** USER_HZ: the unit of the CPU times in /proc/PID/stat (sysconf(_SC_CLK_TCK), 100 on every Linux ABI). */
    static final double TICKS_PER_SECOND = 100.0;

    private static final Path PROC = Path.of("/proc");
    private static final String LISTEN = "0A"; // TCP_LISTEN in /proc/net/tcp's st column
    /** A thread's number: digits after a separator, or at the end ("C2 CompilerThre" keeps its 2). */
    private static final Pattern NUMBER = Pattern.compile("(?<=[#:_.-])[0-9]+|[0-9]+$");

    private ProcFs()
    {
    }

    /**
     * @param port a TCP port
     * @return the pid of the process that holds a socket listening on {@code port} (IPv4 or IPv6, any local address),
     *     the lowest if several do; -1 if none is found (no such listener, or its process is not readable)
     */
    static long pidListeningOn(final int port)
    {
        final Set<String> inodes = new HashSet<>();
        for (final String table : List.of("net/tcp", "net/tcp6"))
        {
            try
            {
                inodes.addAll(listeningInodes(Files.readAllLines(PROC.resolve(table)), port));
            }
            catch (final IOException e)
            {
                // no IPv6, or not Linux
            }
        }
        if (inodes.isEmpty())
        {
            return -1;
        }
        long found = -1;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC, p -> isNumber(p.getFileName().toString())))
        {
            for (final Path proc : procs)
            {
                final long pid = Long.parseLong(proc.getFileName().toString());
                if (found >= 0 && pid > found)
                {
                    continue;
                }
                if (holdsAny(proc, inodes))
                {
                    found = pid;
                }
            }
        }
        catch (final IOException e)
        {
            return -1;
        }
        return found;
    }

    /**
     * @param lines the lines of /proc/net/tcp or /proc/net/tcp6 (with the header line)
     * @param port the port
     * @return the inodes of the sockets listening on {@code port}
     */
    static Set<String> listeningInodes(final List<String> lines, final int port)
    {
        final Set<String> inodes = new HashSet<>();
        final String hexPort = String.format(Locale.ROOT, ":%04X", port);
        for (final String line : lines)
        {
            final String[] f = line.trim().split("\\s+");
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals(LISTEN) && !f[9].equals("0"))
            {
                inodes.add(f[9]);
            }
        }
        return inodes;
    }

    private static boolean holdsAny(final Path proc, final Set<String> inodes)
    {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd")))
        {
            for (final Path fd : fds)
            {
                try
                {
                    final String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")
                        && inodes.contains(target.substring(8, target.length() - 1)))
                    {
                        return true;
                    }
                }
                catch (final IOException | UnsupportedOperationException e)
                {
                    // closed meanwhile
                }
            }
        }
        catch (final IOException | SecurityException e)
        {
            // ended, or another user's process
        }
        return false;
    }

    /**
     * @param pid a process id
     * @return the CPU seconds (user + system) the process has used so far, its ended threads included; NaN if unknown
     */
    static double cpuSeconds(final long pid)
    {
        if (pid < 0)
        {
            return Double.NaN;
        }
        try
        {
            return statCpuSeconds(Files.readString(PROC.resolve(pid + "/stat")));
        }
        catch (final IOException | RuntimeException e)
        {
            return Double.NaN;
        }
    }

    /**
     * The CPU of a server made of processes, as PostgreSQL's postmaster and its backends: the process's own, its ended
     * children's that it waited for (cutime + cstime: a backend that exits and is reaped moves its time there) and its
     * live children's.
     *
     * @param pid a process id
     * @return CPU seconds (user + system) of the process and its children so far; NaN if unknown
     */
    static double treeCpuSeconds(final long pid)
    {
        if (pid < 0)
        {
            return Double.NaN;
        }
        double sum;
        try
        {
            final String stat = Files.readString(PROC.resolve(pid + "/stat"));
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            sum = (Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]))
                / TICKS_PER_SECOND; // fields 14-17: utime, stime, cutime, cstime
        }
        catch (final IOException | RuntimeException e)
        {
            return Double.NaN;
        }
        final String parent = Long.toString(pid);
        final Map<Long, String[]> all = allStats();
        if (all == null)
        {
            return Double.NaN;
        }
        for (final String[] f : all.values())
        {
            if (f[1].equals(parent)) // field 4: ppid
            {
                sum += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
            }
        }
        return sum;
    }

    /**
     * @return for every process readable now, its pid and the fields of its {@code /proc/PID/stat} after the
     *     command (index 0 is field 3, the state; index 1 field 4, the ppid); null if {@code /proc} cannot be listed
     */
    private static Map<Long, String[]> allStats()
    {
        final Map<Long, String[]> out = new HashMap<>();
        try (java.util.stream.Stream<Path> all = Files.list(PROC))
        {
            for (final Path p : (Iterable<Path>)all::iterator)
            {
                if (!isNumber(p.getFileName().toString()))
                {
                    continue;
                }
                try
                {
                    final String stat = Files.readString(p.resolve("stat"));
                    out.put(Long.parseLong(p.getFileName().toString()),
                        stat.substring(stat.lastIndexOf(')') + 2).split(" "));
                }
                catch (final IOException | RuntimeException e)
                {
                    // ended meanwhile
                }
            }
        }
        catch (final IOException e)
        {
            return null;
        }
        return out;
    }

    /**
     * @param pid a process id
     * @param field a field of /proc/PID/status given in kB, e.g. {@code VmRSS} (resident set size now) or
     *     {@code VmHWM} (its peak so far)
     * @return the field's value in bytes; NaN if unknown (no such process or field)
     */
    static double statusBytes(final long pid, final String field)
    {
        if (pid < 0)
        {
            return Double.NaN;
        }
        try
        {
            for (final String line : Files.readAllLines(PROC.resolve(pid + "/status"), StandardCharsets.UTF_8))
            {
                if (line.startsWith(field + ":"))
                {
                    final String[] f = line.substring(field.length() + 1).trim().split("\\s+");
                    return Long.parseLong(f[0]) * 1024.0; // "kB": KiB, as proc(5) says
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // ended meanwhile
        }
        return Double.NaN;
    }

    /**
     * A field of /proc/PID/status summed over a process and every live descendant (its children, theirs, ...): the
     * memory of a server made of processes, as PostgreSQL's postmaster and a backend per connection. Pages shared
     * between them (PostgreSQL's shared buffers) count once per process that touched them, as each RSS counts them.
     *
     * @param pid   a process id
     * @param field a field given in kB, e.g. {@code VmRSS}
     * @return the sum in bytes; NaN if the process itself is unknown
     */
    static double treeStatusBytes(final long pid, final String field)
    {
        final double own = statusBytes(pid, field);
        if (Double.isNaN(own))
        {
            return own;
        }
        final Map<Long, String[]> all = allStats();
        if (all == null)
        {
            return own;
        }
        final Map<Long, List<Long>> children = new HashMap<>();
        for (final Map.Entry<Long, String[]> e : all.entrySet())
        {
            children.computeIfAbsent(Long.parseLong(e.getValue()[1]), k -> new ArrayList<>()).add(e.getKey()); // ppid
        }
        double sum = own;
        final java.util.ArrayDeque<Long> todo = new java.util.ArrayDeque<>(children.getOrDefault(pid, List.of()));
        while (!todo.isEmpty())
        {
            final long child = todo.pop();
            final double b = statusBytes(child, field);
            sum += Double.isNaN(b) ? 0 : b;
            todo.addAll(children.getOrDefault(child, List.of()));
        }
        return sum;
    }

    /**
     * @param pid a process id
     * @return the CPU seconds each live thread of the process has used so far, by {@link #threadKey key} (its
     *     {@link #threadGroup name group} and thread id: threads of one name come and go, as in ClickHouse's pools,
     *     so a window's CPU is taken per thread, then summed per group); empty if unknown
     */
    static Map<String, Double> threadCpuSeconds(final long pid)
    {
        final Map<String, Double> byThread = new TreeMap<>();
        if (pid < 0)
        {
            return byThread;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(PROC.resolve(pid + "/task")))
        {
            for (final Path task : tasks)
            {
                try
                {
                    final String stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
                    byThread.put(threadKey(threadGroup(statName(stat)), task.getFileName().toString()),
                        statCpuSeconds(stat));
                }
                catch (final IOException | RuntimeException e)
                {
                    // the thread ended meanwhile
                }
            }
        }
        catch (final IOException e)
        {
            byThread.clear();
        }
        return byThread;
    }

    /** @return the key of thread {@code tid} of name group {@code group}: {@code group/tid} */
    static String threadKey(final String group, final String tid)
    {
        return group + "/" + tid;
    }

    /** @return the name group of a {@link #threadKey key} */
    static String groupOf(final String key)
    {
        return key.substring(0, key.lastIndexOf('/'));
    }

    /** @return the values of a per-thread map summed per name group, in name order */
    static Map<String, Double> byGroup(final Map<String, Double> byThread)
    {
        final Map<String, Double> out = new TreeMap<>();
        byThread.forEach((k, v) -> out.merge(groupOf(k), v, Double::sum));
        return out;
    }

    /**
     * @param stat the text of a /proc/PID/stat or /proc/PID/task/TID/stat file
     * @return utime + stime in seconds
     * @throws RuntimeException if the text is not such a file
     */
    static double statCpuSeconds(final String stat)
    {
        // the name (field 2) is in parentheses and may hold spaces and parentheses: count from the last ')'
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND; // fields 14 and 15
    }

    /** @return the thread or process name (comm) of a stat file's text */
    static String statName(final String stat)
    {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /**
     * @param comm a thread name
     * @return the name with its numbers (digits after {@code # : _ . -} or at the end) replaced by {@code N}, so that
     *     numbered threads of one kind ("GC Thread#0", "GC Thread#1"; "github-shard-0-1") add up to one entry
     */
    static String threadGroup(final String comm)
    {
        return NUMBER.matcher(comm).replaceAll("N");
    }

    /**
     * @param s a field of a text table
     * @return whether it is a non-empty run of ASCII digits
     */
    static boolean isNumber(final String s)
    {
        if (s.isEmpty())
        {
            return false;
        }
        for (int i = 0; i < s.length(); i++)
        {
            if (s.charAt(i) < '0' || s.charAt(i) > '9')
            {
                return false;
            }
        }
        return true;
    }
}
