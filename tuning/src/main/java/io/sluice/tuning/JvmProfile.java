package io.sluice.tuning;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * The JVM flags recommended for running the engine with low, steady latency on Java 17, and a description of the
 * running JVM for the start-up banner. The reasons for each flag, and the alternatives, are in
 * {@code docs/tuning.md}. These are recommendations, not requirements: the flags Agrona and Chronicle need
 * ({@code --add-exports}, {@code --add-opens}) are in {@code engine.jar}'s manifest, not here.
 *
 * <p>Stateless; thread-safe.
 */
public final class JvmProfile
{
    /** System property that turns off Agrona's bounds checks on {@code UnsafeBuffer} (Agrona's own name for it). */
    public static final String AGRONA_DISABLE_BOUNDS_CHECKS = "agrona.disable.bounds.checks";

    private static final Path NUMA_NODES = Path.of("/sys/devices/system/node");

    private JvmProfile()
    {
    }

    /**
     * The flags Agrona and Chronicle need on Java 17 ({@code --add-exports}, {@code --add-opens},
     * {@code -Dchronicle.analytics.disable=true}): the parent pom's {@code sluice.jvm.flags}, the one list that also
     * feeds the test runner, {@code engine.jar}'s manifest and the scripts ({@code JvmFlagsIT} checks they agree).
     * For a JVM that this JVM starts (the benchmark's contenders).
     *
     * @return a new list of flags, each a single command-line argument
     * @throws IllegalStateException when the build did not fill in the list (a classpath without tuning's resources)
     */
    public static List<String> requiredFlags()
    {
        try (InputStream in = JvmProfile.class.getResourceAsStream("required-jvm-flags.txt"))
        {
            if (in == null)
            {
                throw new IllegalStateException("required-jvm-flags.txt is not on the classpath");
            }
            final String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            if (text.isEmpty() || text.contains("${"))
            {
                throw new IllegalStateException("required-jvm-flags.txt was not filtered by the build: " + text);
            }
            return new ArrayList<>(List.of(text.split("\\s+")));
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("cannot read required-jvm-flags.txt: " + e, e);
        }
    }

    /**
     * The recommended flags, without heap sizing (see {@link #recommendedFlags(long)}):
     * <ul>
     *   <li>{@code -XX:+UseG1GC}: explicit, because the JVM picks the Serial collector on a machine with fewer than 2
     *       cpus or less than about 1.8 GB of memory; G1's short young pauses suit a record path that does not
     *       allocate, and it costs little cpu on small machines.</li>
     *   <li>{@code -XX:MaxGCPauseMillis=10}: G1's pause target (default 200 ms); young collections of a mostly-dead
     *       young generation stay well under it.</li>
     *   <li>{@code -XX:+AlwaysPreTouch}: touches every heap page at start, so no page fault lands on the record path
     *       later; start-up takes longer, the more the larger {@code -Xms}.</li>
     *   <li>{@code -XX:+PerfDisableSharedMem}: no {@code hsperfdata} file, whose writes can stall a safepoint for as
     *       long as the disk takes; {@code jps} and {@code jstat} then do not see the process
     *       ({@code jcmd} still works).</li>
     *   <li>{@code -XX:+ExitOnOutOfMemoryError}: a JVM out of memory is in an unknown state; ending it is safe because
     *       delivery is at-least-once (what was not committed is read again).</li>
     *   <li>{@code -XX:+UseNUMA}, only where this machine has more than one NUMA node: allocates each thread's young
     *       objects on its own node.</li>
     *   <li>{@code -Dagrona.disable.bounds.checks=true}: removes the index checks in Agrona's {@code UnsafeBuffer}
     *       (a few percent on buffer-heavy paths); an out-of-range index then corrupts memory or crashes the JVM
     *       instead of throwing. Use it only with code whose tests pass with the checks on.</li>
     * </ul>
     * Flags removed or deprecated in Java 17 ({@code -XX:-UseBiasedLocking}, CMS) are not listed.
     *
     * @return a new list of flags, each a single command-line argument.
     */
    public static List<String> recommendedFlags()
    {
        final List<String> flags = new ArrayList<>();
        flags.add("-XX:+UseG1GC");
        flags.add("-XX:MaxGCPauseMillis=10");
        flags.add("-XX:+AlwaysPreTouch");
        flags.add("-XX:+PerfDisableSharedMem");
        flags.add("-XX:+ExitOnOutOfMemoryError");
        if (numaNodes() > 1)
        {
            flags.add("-XX:+UseNUMA");
        }
        flags.add("-D" + AGRONA_DISABLE_BOUNDS_CHECKS + "=true");
        return flags;
    }

    /**
     * {@link #recommendedFlags()} plus {@code -Xms} and {@code -Xmx} both set to {@code heapBytes}: a heap that never
     * grows or shrinks, pre-touched in full at start.
     *
     * @param heapBytes heap size in bytes, {@code > 0}; written in the largest whole unit ({@code g}, {@code m},
     *                  {@code k}, or bytes).
     * @return a new list of flags.
     * @throws IllegalArgumentException if {@code heapBytes <= 0}.
     */
    public static List<String> recommendedFlags(final long heapBytes)
    {
        if (heapBytes <= 0)
        {
            throw new IllegalArgumentException("heapBytes must be > 0: " + heapBytes);
        }
        final String size = size(heapBytes);
        final List<String> flags = new ArrayList<>();
        flags.add("-Xms" + size);
        flags.add("-Xmx" + size);
        flags.addAll(recommendedFlags());
        return flags;
    }

    /**
     * The flags of {@link #recommendedFlags()} that this JVM is not running with, checked against the JVM's own
     * values ({@code -XX} options through {@link HotSpotDiagnosticMXBean}, {@code -D} through system properties), so
     * a flag set by other means ({@code JAVA_TOOL_OPTIONS}, a default) counts as set. For the start-up banner.
     *
     * @return a new list, empty when all are set.
     */
    public static List<String> missingRecommendedFlags()
    {
        final HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        final List<String> missing = new ArrayList<>();
        for (final String flag : recommendedFlags())
        {
            if (!isSet(flag, hotSpot))
            {
                missing.add(flag);
            }
        }
        return missing;
    }

    /**
     * One line about the running JVM for the start-up banner, for example
     * {@code "Java 17.0.15 (OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1); GC: G1 Young Generation, G1 Old
     * Generation; heap: 384 MiB initial, 6144 MiB max; agrona bounds checks: on"}.
     *
     * @return the line, without a line break.
     */
    public static String describeRuntime()
    {
        final String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream()
            .map(GarbageCollectorMXBean::getName)
            .collect(Collectors.joining(", "));
        final MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        final String max = heap.getMax() < 0 ? "no" : mebibytes(heap.getMax());
        return "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ' ' +
            System.getProperty("java.vm.version") + "); GC: " + (gcs.isEmpty() ? "unknown" : gcs) + "; heap: " +
            mebibytes(heap.getInit()) + " initial, " + max + " max; agrona bounds checks: " +
            (Boolean.getBoolean(AGRONA_DISABLE_BOUNDS_CHECKS) ? "off" : "on");
    }

    private static boolean isSet(final String flag, final HotSpotDiagnosticMXBean hotSpot)
    {
        if (flag.startsWith("-D"))
        {
            final int eq = flag.indexOf('=');
            final String name = flag.substring(2, eq < 0 ? flag.length() : eq);
            final String expected = eq < 0 ? "" : flag.substring(eq + 1);
            return expected.equals(System.getProperty(name));
        }
        if (flag.startsWith("-XX:") && hotSpot != null)
        {
            final String option = flag.substring(4);
            final String name;
            final String expected;
            if (option.startsWith("+") || option.startsWith("-"))
            {
                name = option.substring(1);
                expected = option.startsWith("+") ? "true" : "false";
            }
            else
            {
                final int eq = option.indexOf('=');
                name = option.substring(0, eq);
                expected = option.substring(eq + 1);
            }
            try
            {
                return expected.equals(hotSpot.getVMOption(name).getValue());
            }
            catch (final IllegalArgumentException e)
            {
                return false;
            }
        }
        return ManagementFactory.getRuntimeMXBean().getInputArguments().contains(flag);
    }

    private static int numaNodes()
    {
        if (!Files.isDirectory(NUMA_NODES))
        {
            return 1;
        }
        try (Stream<Path> nodes = Files.list(NUMA_NODES))
        {
            return (int)Math.max(1, nodes.filter(p -> p.getFileName().toString().matches("node[0-9]+")).count());
        }
        catch (final Exception e)
        {
            return 1;
        }
    }

    private static String size(final long bytes)
    {
        if (bytes % (1L << 30) == 0)
        {
            return (bytes >> 30) + "g";
        }
        if (bytes % (1L << 20) == 0)
        {
            return (bytes >> 20) + "m";
        }
        if (bytes % (1L << 10) == 0)
        {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }

    private static String mebibytes(final long bytes)
    {
        return (bytes >> 20) + " MiB";
    }
}
