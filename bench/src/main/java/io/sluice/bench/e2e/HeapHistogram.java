package io.sluice.bench.e2e;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live objects of a JVM by class, as {@code jcmd PID GC.class_histogram} prints them (HotSpot's heap inspection:
 * a full collection, then one line per class, {@code rank: instances bytes class-name (module)}, largest first, and a
 * {@code Total} line), and the comparison of two of them: which classes grow with the topics of a step, in bytes per
 * extra topic ({@link ScaleRun}: where the engine's memory per topic goes). Immutable and thread-safe.
 *
 * @param classes one entry per class, largest first (as printed)
 * @param totalInstances the {@code Total} line's instances, or -1 if the text had none
 * @param totalBytes the {@code Total} line's bytes, or -1 if the text had none
 */
record HeapHistogram(List<Entry> classes, long totalInstances, long totalBytes)
{
    /**
     * One class of the histogram.
     *
     * @param name the class name as the JVM prints it ({@code [B} is {@code byte[]}, {@code [Ljava.lang.Object;} is
     *     {@code Object[]}), without the module
     * @param instances live instances
     * @param bytes their shallow size, bytes
     */
    record Entry(String name, long instances, long bytes)
    {
    }

    /**
     * One class's growth between two histograms.
     *
     * @param name the class name
     * @param bytesPerTopic the bytes it gained per extra topic (negative when it shrank)
     * @param instancesPerTopic the instances it gained per extra topic
     * @param bytesSmall its bytes in the smaller step
     * @param bytesLarge its bytes in the larger step
     */
    record Growth(String name, double bytesPerTopic, double instancesPerTopic, long bytesSmall, long bytesLarge)
    {
    }

    /**
     * Parses the output of {@code jcmd PID GC.class_histogram}; lines that are not a class or the total (the
     * {@code PID:} line, the header, the rule) are skipped.
     *
     * @param text jcmd's output
     * @return the histogram; no classes if the text had none (jcmd failed: its message is not a histogram)
     */
    static HeapHistogram parse(final String text)
    {
        final List<Entry> classes = new ArrayList<>();
        long totalInstances = -1;
        long totalBytes = -1;
        for (final String raw : text.split("\n"))
        {
            final String line = raw.strip();
            final String[] f = line.split("\\s+");
            if (f.length >= 3 && f[0].equals("Total") && ProcFs.isNumber(f[1]) && ProcFs.isNumber(f[2]))
            {
                totalInstances = Long.parseLong(f[1]);
                totalBytes = Long.parseLong(f[2]);
            }
            else if (f.length >= 4 && f[0].endsWith(":") && ProcFs.isNumber(f[0].substring(0, f[0].length() - 1))
                && ProcFs.isNumber(f[1]) && ProcFs.isNumber(f[2]))
            {
                classes.add(new Entry(f[3], Long.parseLong(f[1]), Long.parseLong(f[2])));
            }
        }
        return new HeapHistogram(List.copyOf(classes), totalInstances, totalBytes);
    }

    /**
     * @param n how many
     * @return the {@code n} largest classes as JSON-ready maps ({@code class}, {@code instances}, {@code bytes})
     */
    List<Map<String, Object>> top(final int n)
    {
        final List<Map<String, Object>> out = new ArrayList<>();
        for (final Entry e : classes.subList(0, Math.min(n, classes.size())))
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("class", e.name());
            m.put("instances", e.instances());
            m.put("bytes", e.bytes());
            out.add(m);
        }
        return out;
    }

    /**
     * Which classes grew from a smaller step to a larger one, per extra topic.
     *
     * @param small the histogram of the step with fewer topics
     * @param smallTopics its topics
     * @param large the histogram of the step with more topics
     * @param largeTopics its topics (more than {@code smallTopics})
     * @param n how many classes to return
     * @return the {@code n} classes that gained the most bytes per extra topic, largest first (a class missing from
     *     one histogram counts 0 there)
     * @throws IllegalArgumentException if {@code largeTopics <= smallTopics}
     */
    static List<Growth> growth(final HeapHistogram small, final int smallTopics, final HeapHistogram large,
        final int largeTopics, final int n)
    {
        if (largeTopics <= smallTopics)
        {
            throw new IllegalArgumentException("growth from " + smallTopics + " to " + largeTopics
                + " topics: the second step must have more topics");
        }
        final Map<String, Entry> before = new LinkedHashMap<>();
        small.classes().forEach(e -> before.merge(e.name(), e, HeapHistogram::sum));
        final Map<String, Entry> after = new LinkedHashMap<>();
        large.classes().forEach(e -> after.merge(e.name(), e, HeapHistogram::sum));
        final Map<String, Entry> all = new LinkedHashMap<>(after);
        before.forEach((k, v) -> all.putIfAbsent(k, new Entry(k, 0, 0)));
        final double extra = largeTopics - smallTopics;
        final List<Growth> out = new ArrayList<>();
        for (final String name : all.keySet())
        {
            final Entry a = before.getOrDefault(name, new Entry(name, 0, 0));
            final Entry b = after.getOrDefault(name, new Entry(name, 0, 0));
            out.add(new Growth(name, (b.bytes() - a.bytes()) / extra, (b.instances() - a.instances()) / extra,
                a.bytes(), b.bytes()));
        }
        out.sort(Comparator.comparingDouble(Growth::bytesPerTopic).reversed());
        return List.copyOf(out.subList(0, Math.min(n, out.size())));
    }

    /** Two classes of one name (classes of one name from two class loaders are printed apart). */
    private static Entry sum(final Entry a, final Entry b)
    {
        return new Entry(a.name(), a.instances() + b.instances(), a.bytes() + b.bytes());
    }
}
