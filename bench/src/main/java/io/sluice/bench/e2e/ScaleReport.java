package io.sluice.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The text of the cost curve ({@link ScaleRun}): one line per step while it runs, the table and the comparison
 * against the goals at the end. Every figure comes from a step's map as {@link ScaleRun} fills it; a figure
 * a step lacks prints as {@code -}. Stateless and thread-safe.
 */
final class ScaleReport
{
    /** Issue 24's goals: records/s kept against the smallest step, at 1,000 and at 10,000 topics. */
    static final Map<Integer, Double> KEEP_GOALS = Map.of(1_000, 0.7, 10_000, 0.4);
    /** Issue 24's goal: memory per extra topic under 64 KiB. */
    static final double BYTES_PER_TOPIC_GOAL = 64 * 1024;

    private static final double MIB = 1024.0 * 1024.0;

    private ScaleReport()
    {
    }

    /** @return a step in one line */
    static String line(final Map<String, Object> r)
    {
        final String verified = r.get("verified") instanceof Map<?, ?> v
            ? Boolean.TRUE.equals(v.get("ok"))
                ? "every row verified once"
                : v.get("error") != null
                    ? "not verified: " + v.get("error")
                    : "verification FAILED: " + v.get("rows") + " rows, " + v.get("lost") + " lost, "
                        + v.get("duplicates")
                        + " duplicated, " + v.get("wrong") + " wrong"
            : "not verified";
        final String failure = r.get("failure") != null ? "; DID NOT FINISH: " + r.get("failure") : "";
        return String.format(Locale.ROOT,
            "%,d topics: %s records/s, Sluice %s us CPU per record; warm pass %s records/s, %s us; heap max %s MiB, "
                + "RSS max %s MiB, pick-up p50/max %s/%s ms, %s rows per insert, %s parts per table, %s reads per "
                + "record; %s%s",
            ((Number)r.get("topics")).intValue(), fmt(num(r, "records_per_s"), "%,.0f"),
            fmt(num(r, "engine_cpu_us_per_record"), "%.1f"), fmt(num(r, "warm_records_per_s"), "%,.0f"),
            fmt(num(r, "warm_engine_cpu_us_per_record"), "%.1f"), fmt(num(r, "heap_max_bytes") / MIB, "%,.0f"),
            fmt(num(r, "rss_max_bytes") / MIB, "%,.0f"), fmt(pick(r, "p50"), "%,.0f"), fmt(pick(r, "max"), "%,.0f"),
            fmt(stat(r, "rows_per_insert_mean"), "%,.1f"), fmt(stat(r, "parts_per_table_mean"), "%.1f"),
            fmt(num(r, "sink_reads_per_record"), "%.2f"), verified, failure);
    }

    /**
     * @param results the steps, smallest first
     * @return records/s of each step against the smallest finished one, memory per extra topic against it, the
     *     share of topics picked up within topic_refresh_ms, and the goals with whether each is met
     */
    static Map<String, Object> comparison(final List<Map<String, Object>> results)
    {
        final Map<String, Object> c = new LinkedHashMap<>();
        Map<String, Object> base = null;
        for (final Map<String, Object> r : results)
        {
            if (!Double.isNaN(num(r, "records_per_s")) && Boolean.TRUE.equals(r.get("ok")))
            {
                base = r;
                break;
            }
        }
        if (base == null)
        {
            c.put("note", "no step finished: nothing to compare");
            return c;
        }
        final int baseTopics = ((Number)base.get("topics")).intValue();
        c.put("base_topics", baseTopics);
        final List<Map<String, Object>> per = new ArrayList<>();
        for (final Map<String, Object> r : results)
        {
            final int k = ((Number)r.get("topics")).intValue();
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("topics", k);
            m.put("finished_and_verified", r.get("ok"));
            m.put("records_per_s_vs_base", num(r, "records_per_s") / num(base, "records_per_s"));
            m.put("cpu_per_record_vs_base", num(r, "engine_cpu_us_per_record") / num(base, "engine_cpu_us_per_record"));
            m.put("warm_records_per_s_vs_base", num(r, "warm_records_per_s") / num(base, "warm_records_per_s"));
            m.put("warm_cpu_per_record_vs_base", num(r, "warm_engine_cpu_us_per_record")
                / num(base, "warm_engine_cpu_us_per_record"));
            if (k != baseTopics)
            {
                m.put("rss_bytes_per_extra_topic", (num(r, "rss_after_gc_bytes") - num(base, "rss_after_gc_bytes"))
                    / (k - baseTopics));
                m.put("heap_bytes_per_extra_topic", (num(r, "heap_live_after_gc_bytes")
                    - num(base, "heap_live_after_gc_bytes")) / (k - baseTopics));
                m.put("server_rss_bytes_per_extra_table", (serverRssMax(r)
                    - num(r, "server_rss_before_bytes")) / k);
            }
            final double measured = num(r, "pick_up_measured_topics");
            m.put("topics_picked_up_within_topic_refresh_ms", measured > 0
                ? num(r, "pick_up_within_topic_refresh_ms") / k
                : Double.NaN);
            // a goal compares a step with a smaller one: a run of one step has nothing to keep
            if (KEEP_GOALS.containsKey(k) && k != baseTopics)
            {
                m.put("goal_records_per_s_vs_base", KEEP_GOALS.get(k));
                m.put("goal_records_per_s_met", (double)m.get("records_per_s_vs_base") >= KEEP_GOALS.get(k));
                final double warm = (double)m.get("warm_records_per_s_vs_base");
                if (!Double.isNaN(warm))
                {
                    m.put("goal_warm_records_per_s_met", warm >= KEEP_GOALS.get(k));
                }
            }
            if (m.get("heap_bytes_per_extra_topic") instanceof Double d && !d.isNaN())
            {
                m.put("goal_memory_per_topic_met", d < BYTES_PER_TOPIC_GOAL);
            }
            per.add(m);
        }
        c.put("steps", per);
        return c;
    }

    /** @return the report's text: settings, one row per step, the comparison, and why steps did not finish */
    @SuppressWarnings("unchecked")
    static String text(final Map<String, Object> summary)
    {
        final StringBuilder b = new StringBuilder();
        final Map<String, Object> machine = (Map<String, Object>)summary.get("machine");
        b.append(String.format(Locale.ROOT,
            "Sluice cost curve %s (%s): the three-line design, %,d records per step, sink %s%n"
                + "machine: %s; load average %s at start, %s at end%ncommand: %s%n%n",
            summary.get("run"), "scale", ((Number)summary.get("records_per_step")).longValue(), summary.get("sink"),
            machine.get("summary"), summary.get("load_average_at_start"), summary.get("load_average_at_end"),
            summary.get("command")));
        b.append(String.format(Locale.ROOT, "| %7s | %9s | %8s | %8s | %8s | %9s | %9s | %8s | %8s | %8s | %8s |"
            + " %15s | %8s | %8s | %9s | %7s | %8s | %s |%n", "topics", "records/s", "CPU us/r", "+start", "DB us/r",
            "warm r/s", "warm us/r", "heap MiB",
            "live MiB", "RSS MiB", "DB RSS+", "pick-up p50/max", "rows/ins", "parts/t", "lag max", "reads/r",
            "CREATE s", "verified"));
        b.append(
            "|---------|-----------|----------|----------|----------|-----------|-----------|----------|----------|"
                + "----------|----------|"
                + "-----------------|----------|----------|-----------|---------|----------|----------|\n");
        final List<Map<String, Object>> steps = (List<Map<String, Object>>)summary.get("steps");
        for (final Map<String, Object> r : steps)
        {
            final String verified = r.get("verified") instanceof Map<?, ?> v
                ? Boolean.TRUE.equals(v.get("ok")) ? "exact" : v.get("error") != null ? "unchecked" : "FAILED"
                : "-";
            b.append(String.format(Locale.ROOT,
                "| %,7d | %9s | %8s | %8s | %8s | %9s | %9s | %8s | %8s | %8s | %8s | %15s | %8s | %8s | %9s | %7s | %8s "
                    + "| %s%s |%n",
                ((Number)r.get("topics")).intValue(), fmt(num(r, "records_per_s"), "%,.0f"),
                fmt(num(r, "engine_cpu_us_per_record"), "%.1f"),
                fmt(num(r, "engine_cpu_us_per_record_with_start"), "%.1f"),
                fmt(num(r, "server_cpu_us_per_record"), "%.1f"), fmt(num(r, "warm_records_per_s"), "%,.0f"),
                fmt(num(r, "warm_engine_cpu_us_per_record"), "%.1f"), fmt(num(r, "heap_max_bytes") / MIB, "%,.0f"),
                fmt(num(r, "heap_live_after_gc_bytes") / MIB, "%,.1f"), fmt(num(r, "rss_max_bytes") / MIB, "%,.0f"),
                fmt((serverRssMax(r) - num(r, "server_rss_before_bytes")) / MIB, "%,.0f"),
                fmt(pick(r, "p50"), "%,.0f") + "/" + fmt(pick(r, "max"), "%,.0f"),
                fmt(stat(r, "rows_per_insert_mean"), "%,.1f"), fmt(stat(r, "parts_per_table_mean"), "%.2f"),
                fmt(num(r, "sink_lag_records_max"), "%,.0f"), fmt(num(r, "sink_reads_per_record"), "%.2f"),
                fmt(num(r, "create_table_s_median"), "%.3f"), verified,
                r.get("failure") != null ? ", unfinished" : ""));
        }
        b.append(String.format(Locale.ROOT, "%nCPU us/r: Sluice's process per record from the first topic listed to "
            + "the last row seen; +start: its whole CPU from launch (JVM start, JIT) per record; DB us/r: the "
            + "database server's; warm r/s, warm us/r: the warm pass (the same records sent again once every topic "
            + "and table exists: from the bench's first send to the last row) and Sluice's CPU per record over it; "
            + "heap MiB: the most in use sampled (garbage included); live MiB: in use after a "
            + "full GC at the end; DB RSS+: the server's RSS (its processes' summed) at its most during the step minus before; lag max: records routed "
            + "but not yet committed by the sink, the most sampled; reads/r: records the sink read (its "
            + "sluice_records_in_total, re-reads included) per record; CREATE s: the database's own time per CREATE "
            + "TABLE of the step's DDL, measured before the step (median of 5); pick-up p50/max: ms from a topic's "
            + "first listing by the broker to its table's first row; rows/ins: rows per INSERT (PostgreSQL: per COPY); "
            + "parts/t: active parts per table (ClickHouse); verified: exact = every record of both passes once, in "
            + "its user's table, unchecked = the verification query failed. Memory per extra topic below is the live "
            + "heap's growth (jvm_memory_used_bytes after a full GC); the class histogram's sum, a second reading of "
            + "the same heap, differs from it by a few MiB from run to run.%n"));
        for (final Map<String, Object> r : steps)
        {
            if (r.get("probes") instanceof Map<?, ?> probes)
            {
                b.append(probes(((Number)r.get("topics")).intValue(), (Map<String, Object>)probes));
            }
        }
        final Map<String, Object> c = (Map<String, Object>)summary.get("comparison");
        if (c.get("steps") instanceof List<?> per)
        {
            b.append(String.format(Locale.ROOT, "%nAgainst the %,d-topic step:%n",
                ((Number)c.get("base_topics")).intValue()));
            for (final Object o : per)
            {
                final Map<String, Object> m = (Map<String, Object>)o;
                b.append(String.format(Locale.ROOT,
                    "  %,6d topics: records/s x%s%s, CPU per record x%s, warm pass records/s x%s%s, CPU per record x%s,"
                        + " memory per extra topic (after a full GC): live heap %s "
                        + "KiB (goal < 64)%s, RSS %s KiB, DB server RSS per table %s KiB, picked up within topic_refresh_ms: %s%n",
                    ((Number)m.get("topics")).intValue(), fmt(num(m, "records_per_s_vs_base"), "%.2f"),
                    m.containsKey("goal_records_per_s_vs_base")
                        ? String.format(Locale.ROOT, " (goal >= %.1f: %s)", num(m, "goal_records_per_s_vs_base"),
                            Boolean.TRUE.equals(m.get("goal_records_per_s_met")) ? "met" : "NOT met")
                        : "",
                    fmt(num(m, "cpu_per_record_vs_base"), "%.2f"), fmt(num(m, "warm_records_per_s_vs_base"), "%.2f"),
                    m.containsKey("goal_warm_records_per_s_met")
                        ? Boolean.TRUE.equals(m.get("goal_warm_records_per_s_met")) ? " (met)" : " (NOT met)"
                        : "",
                    fmt(num(m, "warm_cpu_per_record_vs_base"), "%.2f"),
                    fmt(num(m, "heap_bytes_per_extra_topic") / 1024, "%,.1f"),
                    m.containsKey("goal_memory_per_topic_met")
                        ? Boolean.TRUE.equals(m.get("goal_memory_per_topic_met")) ? " met" : " NOT met"
                        : "",
                    fmt(num(m, "rss_bytes_per_extra_topic") / 1024, "%,.1f"),
                    fmt(num(m, "server_rss_bytes_per_extra_table") / 1024, "%,.1f"),
                    fmt(100 * num(m, "topics_picked_up_within_topic_refresh_ms"), "%.0f%%")));
            }
        }
        if (summary.get("heap_growth_by_class") instanceof Map<?, ?> g && g.get("base_topics") != null)
        {
            for (final Map.Entry<?, ?> e : g.entrySet())
            {
                if (!(e.getValue() instanceof Map<?, ?> step))
                {
                    continue;
                }
                b.append(String.format(Locale.ROOT,
                    "%nLive heap by class, %s topics against %s (jcmd GC.class_histogram"
                        + " after the full GC; step-K-heap-histogram.txt): %s bytes per extra topic in all; the classes"
                        + " that grew most:%n",
                    e.getKey(), g.get("base_topics"),
                    fmt(num((Map<String, Object>)step, "total_bytes_per_extra_topic"), "%,.0f")));
                int n = 0;
                for (final Object o : (List<?>)step.get("top_classes"))
                {
                    final Map<String, Object> row = (Map<String, Object>)o;
                    if (n++ == 10)
                    {
                        break;
                    }
                    b.append(String.format(Locale.ROOT, "  %10s B/topic %10s instances/topic  %s%n",
                        fmt(num(row, "bytes_per_extra_topic"), "%,.0f"),
                        fmt(num(row, "instances_per_extra_topic"), "%,.1f"), row.get("class")));
                }
            }
        }
        for (final Map<String, Object> r : steps)
        {
            if (r.get("failure") != null)
            {
                b.append(String.format(Locale.ROOT, "%n%,d topics did not finish: %s%n",
                    ((Number)r.get("topics")).intValue(), r.get("failure")));
            }
        }
        return b.toString();
    }

    /**
     * @param topics the step's topics
     * @param probes the step's {@code probes} map ({@link ScaleRun}: per probe its period, calls and time per call;
     *     the sampling thread's time in them per second; the bench's CPU; the engine's CPU per scrape)
     * @return one line: what the bench's own probes cost in the step
     */
    @SuppressWarnings("unchecked")
    static String probes(final int topics, final Map<String, Object> probes)
    {
        final StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%nThe bench's own cost, %,d topics: "
            + "probes %s ms of every second (the sampling thread), the bench's process %s ms CPU per second, the "
            + "engine %s ms CPU per /metrics scrape; per probe (period ms: calls x ms per call, most):",
            topics, fmt(num(probes, "probes_ms_per_s"), "%,.1f"), fmt(num(probes, "bench_cpu_ms_per_s"), "%,.1f"),
            fmt(num(probes, "engine_cpu_ms_per_metrics_scrape"), "%,.1f")));
        for (final Map.Entry<String, Object> e : probes.entrySet())
        {
            if (e.getValue() instanceof Map<?, ?> m)
            {
                final Map<String, Object> p = (Map<String, Object>)m;
                b.append(String.format(Locale.ROOT, " %s (%s: %s x %s, %s)", e.getKey(), fmt(num(p, "period_ms"),
                    "%.0f"), fmt(num(p, "calls"), "%,.0f"), fmt(num(p, "ms_per_call"), "%,.1f"),
                    fmt(num(p, "ms_max"), "%,.0f")));
            }
        }
        return b.append(String.format(Locale.ROOT, "%n")).toString();
    }

    /** @return min, p50, p90, max and mean of the values, and how many (an empty map when there are none) */
    static Map<String, Object> distribution(final Collection<Long> values)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        if (values.isEmpty())
        {
            return m;
        }
        final long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
        m.put("n", v.length);
        m.put("min", v[0]);
        m.put("p50", v[(int)Math.min(v.length - 1, Math.floor(0.5 * v.length))]);
        m.put("p90", v[(int)Math.min(v.length - 1, Math.floor(0.9 * v.length))]);
        m.put("max", v[v.length - 1]);
        m.put("mean", Arrays.stream(v).average().orElse(Double.NaN));
        return m;
    }

    /** @return the engine log's last ERROR or WARN line, as "; the engine's log: ...", or "" */
    static String lastProblem(final Path log) throws IOException
    {
        if (!Files.isRegularFile(log))
        {
            return "";
        }
        final List<String> lines = Files.readAllLines(log);
        String last = "";
        for (int i = lines.size() - 1; i >= 0; i--)
        {
            final String l = lines.get(i);
            if (l.contains(" ERROR ") || l.contains(" WARN "))
            {
                return "; the engine's log: " + (l.length() > 400 ? l.substring(0, 400) + "..." : l.strip());
            }
            if (last.isEmpty() && !l.isBlank())
            {
                last = l.strip();
            }
        }
        return last.isEmpty() ? "" : "; the engine's last line: " + last;
    }

    /**
     * @param logged a line of the engine's log ({@link #lastProblem})
     * @return the service the line blames: {@code "database"} (ClickHouse or PostgreSQL named, or a server's refusal
     *     such as {@code Too many parts}), {@code "broker"} (Kafka or the broker named, a topic creation or a Kafka
     *     client timeout), or null when it names neither
     */
    static String sideOf(final String logged)
    {
        final String lower = logged.toLowerCase(Locale.ROOT);
        if (lower.contains("clickhouse") || lower.contains("too many parts") || lower.contains("postgres"))
        {
            return "database";
        }
        if (lower.contains("kafka") || lower.contains("broker") || lower.contains("createtopics")
            || lower.contains("timeoutexception"))
        {
            return "broker";
        }
        return null;
    }

    /**
     * @param r a step's result
     * @return the database server's RSS (its processes summed) at its most during the step, bytes; the RSS after the
     *     step when no sample has it (results written before the most was kept)
     */
    static double serverRssMax(final Map<String, Object> r)
    {
        final double max = num(r, "server_rss_max_bytes");
        return Double.isNaN(max) ? num(r, "server_rss_after_bytes") : max;
    }

    /** Prints the last {@code n} lines of a log. */
    static void tail(final Path log, final int n) throws IOException
    {
        if (Files.isRegularFile(log))
        {
            final List<String> lines = Files.readAllLines(log);
            for (final String l : lines.subList(Math.max(0, lines.size() - n), lines.size()))
            {
                System.out.println("     | " + l);
            }
        }
    }

    static double num(final Map<String, Object> r, final String key)
    {
        return BenchReport.num(r, key);
    }

    @SuppressWarnings("unchecked")
    private static double pick(final Map<String, Object> r, final String key)
    {
        return r.get("pick_up_ms") instanceof Map<?, ?> m ? num((Map<String, Object>)m, key) : Double.NaN;
    }

    @SuppressWarnings("unchecked")
    private static double stat(final Map<String, Object> r, final String key)
    {
        return r.get("insert_stats") instanceof Map<?, ?> m ? num((Map<String, Object>)m, key) : Double.NaN;
    }

    private static String fmt(final double v, final String format)
    {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, format, v);
    }
}
