package io.sluice.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A Flight Recorder profile of a Sluice run ({@code BenchRun --jfr}): the JVM options that record it, and the
 * analysis of one window of the recording, normally the steady state between 20 % and 80 % of the rows written.
 *
 * <ul>
 *   <li><b>Allocation</b> ({@code jdk.ObjectAllocationSample}, throttled to {@value #ALLOCATION_THROTTLE}): each
 *       sample's weight (the bytes its thread allocated since its previous sample) is attributed to the first frame,
 *       from the top of the stack, in Sluice's own packages ({@code io.sluice.}); samples with no such frame are
 *       Kafka's, client-v2's or the JDK's own work on behalf of no Sluice code (a thread of theirs). The result is
 *       bytes per record per class and per thread. Sampling is statistical: one sample stands for the bytes its
 *       thread allocated since the previous one (about a TLAB), so figures below ~1 B/record are at the edge of
 *       what a 30 s window resolves.</li>
 *   <li><b>CPU</b> ({@code jdk.ExecutionSample} every {@value #EXECUTION_PERIOD_MS} ms): samples per thread, and for
 *       the source thread of the fused layout the share of each part of a record's way (Kafka's poll, the route
 *       stage and its scan, encode, seal; the ring publish; commits), by the outermost frame of the stack that names
 *       one.</li>
 *   <li><b>JIT</b> ({@code jdk.Compilation}, every compilation): count and summed duration per tier, the longest
 *       compilations.</li>
 * </ul>
 *
 * <p>Re-analysis of a kept recording: {@code java -cp bench/target/benchmarks.jar io.sluice.bench.e2e.JfrProfile
 * run.jfr [from-s to-s records]} (seconds from the recording's start; without them the whole recording).
 */
public final class JfrProfile
{
    /** Allocation samples per second (JFR's default profile: 300/s). */
    static final String ALLOCATION_THROTTLE = "5000/s";
    /** CPU sampling period, ms (JFR's default profile: 10 ms for Java code). */
    static final int EXECUTION_PERIOD_MS = 10;

    private static final String SLUICE = "io.sluice.";

    /** What a frame of the source thread's stack says about the work of the record path. */
    private static final String[][] SOURCE_PARTS = {
        {"io.sluice.codecs.json.", "route: JSON scan"},
        {"io.sluice.codecs.rowbinary.", "route: RowBinary encode"},
        {"io.sluice.core.gather.json.Classifier", "route: classify"},
        {"io.sluice.core.gather.Sealer", "route: seal and hand-off"},
        {"io.sluice.core.gather.RouteStage", "route: other"},
        {"io.sluice.core.ack.", "ack tracking"},
        {"io.sluice.core.source.RingPublisher", "publish into the ring (slot copy)"},
        {"io.sluice.core.source.PolledRecords", "publish into the ring (slot copy)"},
        {"org.apache.kafka.clients.consumer.KafkaConsumer.commit", "Kafka: commit"},
        {"org.apache.kafka.", "Kafka: poll (fetch, decompress, parse)"},
    };

    private JfrProfile()
    {
    }

    /**
     * Writes the recording's settings (a .jfc file: the three event types above and nothing else) into {@code dir}.
     *
     * @param dir the run's directory
     * @return the settings file
     * @throws IOException if it cannot be written
     */
    static Path settings(final Path dir) throws IOException
    {
        final Path jfc = dir.resolve("sluice-profile.jfc");
        Files.writeString(jfc, """
            <?xml version="1.0" encoding="UTF-8"?>
            <configuration version="2.0" label="sluice-bench" description="BenchRun --jfr: allocation, CPU, JIT">
              <event name="jdk.ObjectAllocationSample">
                <setting name="enabled">true</setting>
                <setting name="throttle">%s</setting>
                <setting name="stackTrace">true</setting>
              </event>
              <event name="jdk.ExecutionSample">
                <setting name="enabled">true</setting>
                <setting name="period">%d ms</setting>
              </event>
              <event name="jdk.Compilation">
                <setting name="enabled">true</setting>
                <setting name="threshold">0 ms</setting>
              </event>
            </configuration>
            """.formatted(ALLOCATION_THROTTLE, EXECUTION_PERIOD_MS));
        return jfc;
    }

    /**
     * @param jfr where the recording goes
     * @param jfc the settings from {@link #settings}
     * @return the JVM options that record it (deep stacks: a record's frames sit under the agent's loop)
     */
    static List<String> jvmOptions(final Path jfr, final Path jfc)
    {
        return List.of("-XX:FlightRecorderOptions:stackdepth=256",
            "-XX:StartFlightRecording=filename=" + jfr + ",settings=" + jfc + ",dumponexit=true");
    }

    /**
     * Analyzes the events of {@code [from, to]}.
     *
     * @param jfr     the recording
     * @param from    start of the window
     * @param to      end of the window
     * @param records the records processed in the window (the denominator)
     * @return the figures, flat where they are single numbers (see the class comment)
     * @throws IOException if the recording cannot be read
     */
    static Map<String, Object> analyze(final Path jfr, final Instant from, final Instant to, final double records)
        throws IOException
    {
        final Map<String, Double> allocByClass = new HashMap<>();
        final Map<String, Double> allocByThread = new HashMap<>();
        final Map<String, Double> sluiceAllocByThread = new HashMap<>();
        final Map<String, Integer> cpuByThread = new HashMap<>();
        final Map<String, Integer> sourceParts = new HashMap<>();
        final Map<String, Integer> sourceTop = new HashMap<>();
        final Map<Integer, double[]> compileByTier = new HashMap<>();
        final List<Object[]> compilations = new ArrayList<>();
        final Map<String, Double> allocByLibrary = new HashMap<>();
        double allocAll = 0;
        double allocSluice = 0;
        double allocBench = 0;
        int sourceSamples = 0;
        for (final RecordedEvent e : RecordingFile.readAllEvents(jfr))
        {
            if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to))
            {
                continue;
            }
            switch (e.getEventType().getName())
            {
                case "jdk.ObjectAllocationSample" -> {
                    final double w = e.getLong("weight");
                    final String thread = threadName(e.getThread("eventThread"));
                    allocAll += w;
                    allocByThread.merge(thread, w, Double::sum);
                    final String owner = owner(e.getStackTrace());
                    if (owner.startsWith(SLUICE))
                    {
                        final String key = owner.substring(SLUICE.length());
                        allocSluice += w;
                        allocByClass.merge(key, w, Double::sum);
                        sluiceAllocByThread.merge(thread, w, Double::sum);
                        if (isBenchInstrument(key))
                        {
                            allocBench += w;
                        }
                    }
                    else
                    {
                        allocByLibrary.merge(owner, w, Double::sum);
                    }
                }
                case "jdk.ExecutionSample" -> {
                    final String thread = threadName(e.getThread("sampledThread"));
                    cpuByThread.merge(thread, 1, Integer::sum);
                    if (thread.endsWith("-source"))
                    {
                        sourceSamples++;
                        sourceParts.merge(sourcePart(e.getStackTrace()), 1, Integer::sum);
                        final RecordedStackTrace st = e.getStackTrace();
                        if (st != null && !st.getFrames().isEmpty())
                        {
                            sourceTop.merge(frameName(st.getFrames().get(0)), 1, Integer::sum);
                        }
                    }
                }
                case "jdk.Compilation" -> {
                    final int tier = e.getInt("compileLevel");
                    final double ms = e.getDuration().toNanos() / 1e6;
                    final double[] t = compileByTier.computeIfAbsent(tier, k -> new double[2]);
                    t[0]++;
                    t[1] += ms;
                    compilations.add(new Object[]{ms, tier, e.getValue("method") instanceof RecordedMethod m
                        ? m.getType().getName() + "." + m.getName()
                        : "?"});
                }
                default -> {
                }
            }
        }
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("jfr_window_s", Duration.between(from, to).toNanos() / 1e9);
        r.put("jfr_records", records);
        r.put("jfr_alloc_all_B_per_record", allocAll / records);
        r.put("jfr_alloc_sluice_B_per_record", allocSluice / records);
        r.put("jfr_alloc_sluice_engine_B_per_record", (allocSluice - allocBench) / records);
        r.put("jfr_alloc_sluice_by_class_B_per_record", perRecord(allocByClass, records, 20));
        r.put("jfr_alloc_libraries_B_per_record", perRecord(allocByLibrary, records, 20));
        r.put("jfr_alloc_by_thread_B_per_record", perRecord(allocByThread, records, 12));
        r.put("jfr_alloc_sluice_by_thread_B_per_record", perRecord(sluiceAllocByThread, records, 12));
        r.put("jfr_cpu_samples_by_thread", top(cpuByThread, 15));
        r.put("jfr_source_samples", sourceSamples);
        r.put("jfr_source_parts_share", share(sourceParts, sourceSamples, 20));
        r.put("jfr_source_top_frames_share", share(sourceTop, sourceSamples, 25));
        final Map<String, Object> tiers = new LinkedHashMap<>();
        compileByTier.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(t -> tiers.put(
            "tier " + t.getKey(), String.format(Locale.ROOT, "%.0f compilations, %.0f ms", t.getValue()[0],
                t.getValue()[1])));
        r.put("jfr_compilations_by_tier", tiers);
        compilations.sort(Comparator.comparingDouble((Object[] c) -> (Double)c[0]).reversed());
        final List<String> longest = new ArrayList<>();
        for (final Object[] c : compilations.subList(0, Math.min(20, compilations.size())))
        {
            longest.add(String.format(Locale.ROOT, "%.0f ms tier %d %s", c[0], c[1], c[2]));
        }
        r.put("jfr_longest_compilations", longest);
        return r;
    }

    /**
     * Who allocated: the first frame, from the top, outside the JDK. A Sluice frame gives its class and method
     * ({@code io.sluice.core.gather.Sealer.batchFor}: Sluice's code allocated, maybe through a JDK collection); a
     * library's gives the library (its first three package names) and the Sluice method that called it
     * ({@code org.apache.kafka.clients <- core.source.KafkaSource.dutyCycle}: Kafka's poll allocated).
     */
    private static String owner(final RecordedStackTrace st)
    {
        if (st == null)
        {
            return "(no stack)";
        }
        String library = null;
        for (final RecordedFrame f : st.getFrames())
        {
            if (f.getMethod() == null)
            {
                continue;
            }
            final String type = f.getMethod().getType().getName();
            if (type.startsWith(SLUICE))
            {
                final String method = type + "." + f.getMethod().getName();
                return library == null ? method : library + " <- " + method.substring(SLUICE.length());
            }
            if (library == null && !isJdk(type))
            {
                library = packagePrefix(type);
            }
        }
        return library == null ? "(JDK only)" : library;
    }

    private static boolean isJdk(final String type)
    {
        return type.startsWith("java.") || type.startsWith("javax.") || type.startsWith("jdk.")
            || type.startsWith("sun.") || type.startsWith("com.sun.");
    }

    private static String packagePrefix(final String type)
    {
        final String[] parts = type.split("\\.");
        return String.join(".", List.of(parts).subList(0, Math.min(3, parts.length - 1)));
    }

    /** The benchmark's own measuring inside the engine process ({@code engine bench}): not the engine's work. */
    private static boolean isBenchInstrument(final String key)
    {
        return key.startsWith("engine.BenchCommand") || key.startsWith("core.engine.ProcessMeter");
    }

    /** The part of the record's way a source-thread sample belongs to: the first frame from the top that names one. */
    private static String sourcePart(final RecordedStackTrace st)
    {
        if (st == null)
        {
            return "(no stack)";
        }
        for (final RecordedFrame f : st.getFrames())
        {
            if (f.getMethod() == null)
            {
                continue;
            }
            final String name = f.getMethod().getType().getName() + "." + f.getMethod().getName();
            for (final String[] part : SOURCE_PARTS)
            {
                if (name.startsWith(part[0]))
                {
                    return part[1];
                }
            }
        }
        return "other";
    }

    private static String frameName(final RecordedFrame f)
    {
        return f.getMethod() == null ? "?" : f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String threadName(final RecordedThread t)
    {
        if (t == null)
        {
            return "?";
        }
        final String name = t.getJavaName() != null ? t.getJavaName() : t.getOSName();
        return name == null ? "?" : name.replaceAll("[0-9]+", "N");
    }

    private static Map<String, Double> perRecord(final Map<String, Double> bytes, final double records, final int n)
    {
        final Map<String, Double> out = new LinkedHashMap<>();
        bytes.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(n)
            .forEach(e -> out.put(e.getKey(), Math.round(e.getValue() / records * 100) / 100.0));
        return out;
    }

    private static Map<String, Integer> top(final Map<String, Integer> counts, final int n)
    {
        final Map<String, Integer> out = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(n)
            .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    private static Map<String, String> share(final Map<String, Integer> counts, final int total, final int n)
    {
        final Map<String, String> out = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(n)
            .forEach(e -> out.put(e.getKey(), String.format(Locale.ROOT, "%.1f%%", 100.0 * e.getValue() / total)));
        return out;
    }

    /**
     * Analyzes a kept recording.
     *
     * @param args the .jfr file, then optionally the window as seconds from the recording's start and the records
     *             in it
     * @throws IOException if the recording cannot be read
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length != 1 && args.length != 4)
        {
            System.err.println("usage: JfrProfile run.jfr [from-s to-s records]");
            System.exit(2);
        }
        final Path jfr = Path.of(args[0]);
        Instant start = Instant.MAX;
        Instant end = Instant.MIN;
        for (final RecordedEvent e : RecordingFile.readAllEvents(jfr))
        {
            start = e.getStartTime().isBefore(start) ? e.getStartTime() : start;
            end = e.getEndTime().isAfter(end) ? e.getEndTime() : end;
        }
        final Instant from = args.length == 4 ? start.plusMillis((long)(Double.parseDouble(args[1]) * 1000)) : start;
        final Instant to = args.length == 4 ? start.plusMillis((long)(Double.parseDouble(args[2]) * 1000)) : end;
        final double records = args.length == 4 ? Double.parseDouble(args[3]) : 1;
        for (final Map.Entry<String, Object> e : analyze(jfr, from, to, records).entrySet())
        {
            System.out.println(e.getKey() + " = " + e.getValue());
        }
    }
}
