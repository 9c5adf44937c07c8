package io.sluice.bench.e2e;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table and the ratios {@code scripts/bench.sh} prints, from the runs of {@link BenchRun}: per contender the
 * medians over the rounds (records/s, CPU per record of the contender, the ClickHouse server and the broker, memory,
 * GC, allocation, latency, parts created and rows per part per table, checkpoint lag, CPU per thread), the outcome of
 * every row verification, ClickHouse CPU per row against rows per insert, and the ratios per round, then their
 * median. A run is a map of the keys {@link BenchRun} and the contenders write (see docs/benchmarks.md). Not
 * thread-safe; {@link #build} once.
 */
final class BenchReport
{
    /** What the report says about the run as a whole. */
    record Settings(long records, int rounds, double bytesPerRecord, double liveRate, double liveSeconds,
        double liveWarmupSeconds, long sampleMillis)
    {
    }

    static final List<String> CONTENDERS = List.of("kafka-limit", "clickhouse-limit", "baseline", "sluice",
        "kafka-engine");
    /**
     * The contenders of {@code --sink postgres}, in their order ({@code sluice-exactly-once}: Sluice with
     * {@code delivery = "exactly_once"}, issue 23). To add one: name it here, launch it in BenchRun#command (a JVM that writes the JSON the others write) and, for a goal, add
     * its ratio in {@link #postgresRatios}.
     */
    static final List<String> POSTGRES_CONTENDERS = List.of("kafka-limit", "copy-limit", "baseline", "sluice",
        "sluice-exactly-once", "kafka-connect");
    /** Every contender the report knows, in the order of its rows. */
    static final List<String> ALL_CONTENDERS = List.of("kafka-limit", "clickhouse-limit", "copy-limit", "baseline",
        "kafka-connect", "sluice", "sluice-exactly-once", "kafka-engine");
    static final List<String> TABLES = List.of("push_events", "watch_events", "create_events", "issues_events",
        "pull_request_events", "issue_comment_events", "fork_events", "other_events");

    private final List<Map<String, Object>> runs;
    private final List<Map<String, Object>> sweep;
    private final long records;
    private final int rounds;
    private final double bytesPerRecord;
    private final double liveRate;
    private final double liveSeconds;
    private final double liveWarmupSeconds;
    private final long sampleMillis;
    private String server = "ClickHouse";
    private String text;
    private List<Map<String, Object>> rows;
    private Map<String, Object> ratios;

    /**
     * @param settings the run's settings
     * @param runs every run, in order
     * @param sweep the batch sweep's runs (may be empty)
     */
    BenchReport(final Settings settings, final List<Map<String, Object>> runs, final List<Map<String, Object>> sweep)
    {
        this.runs = runs;
        this.sweep = sweep;
        this.records = settings.records();
        this.rounds = settings.rounds();
        this.bytesPerRecord = settings.bytesPerRecord();
        this.liveRate = settings.liveRate();
        this.liveSeconds = settings.liveSeconds();
        this.liveWarmupSeconds = settings.liveWarmupSeconds();
        this.sampleMillis = settings.sampleMillis();
    }

    /**
     * @param name the database server the run wrote into, as the table names it ("ClickHouse" by default)
     * @return this
     */
    BenchReport server(final String name)
    {
        this.server = name;
        return this;
    }

    /** @return the printed table (after {@link #build}) */
    String text()
    {
        return text;
    }

    /** @return per contender, its medians (after {@link #build}) */
    List<Map<String, Object>> rows()
    {
        return rows;
    }

    /** @return the ratios, by name (after {@link #build}) */
    Map<String, Object> ratios()
    {
        return ratios;
    }

    static double num(final Map<String, Object> run, final String key)
    {
        return run.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** @return records/s of a drain run (rows/s for clickhouse-limit, which counts what it inserted) */
    static double recordsPerSecond(final Map<String, Object> run)
    {
        if (run.get("contender").equals("clickhouse-limit") || run.get("contender").equals("copy-limit"))
        {
            return num(run, "rows") / num(run, "window_s");
        }
        return num(run, "records") / num(run, "window_s");
    }

    /**
     * Computes the medians and ratios and writes the table.
     *
     * @param machineSummary one line on the machine
     * @param command the command that ran
     */
    void build(final String machineSummary, final String command)
    {
        final List<Map<String, Object>> rows = new ArrayList<>();
        final StringBuilder t = new StringBuilder();
        t.append(String.format(Locale.ROOT,
            "%n== results: median of %d round(s); %,d records of %s bytes on average (JSON values)%n%n",
            rounds, records, Double.isNaN(bytesPerRecord)
                ? "unknown (kafka-limit did not run)"
                : String.format(Locale.ROOT, "%.0f", bytesPerRecord)));
        final String head = String.format(Locale.ROOT,
            "| %-16s | %10s | %6s | %9s | %8s | %8s | %4s | %8s | %9s | %7s | %7s | %7s |%n",
            "contender", "records/s", "MB/s", "CPU s/M", "RSS MiB", "heap MiB", "GCs", "GC ms", "alloc B/r", "p50 ms",
            "p99 ms", "p999 ms");
        t.append(head);
        t.append(head.replaceAll("[^|\n]", "-"));
        for (final String c : ALL_CONTENDERS)
        {
            if (runsOf(c, "drain").isEmpty())
            {
                continue;
            }
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("contender", c);
            row.put("records_per_s", med(c, "drain", BenchReport::recordsPerSecond));
            row.put("mb_per_s", med(c, "drain", r -> recordsPerSecond(r) * bytesPerRecord / 1e6));
            row.put("cpu_s_per_m_records", med(c, "drain", r -> num(r, "window_cpu_s") / num(r, "records") * 1e6));
            row.put("process_cpu_s_per_m_records",
                med(c, "drain", r -> num(r, "process_cpu_s") / num(r, "records") * 1e6));
            row.put("clickhouse_cpu_us_per_record", med(c, "drain", r -> perRecordUs(r, "clickhouse_cpu_window_s")));
            row.put("broker_cpu_us_per_record", med(c, "drain", r -> perRecordUs(r, "broker_cpu_window_s")));
            row.put("contender_cpu_us_per_record", med(c, "drain", r -> perRecordUs(r, "window_cpu_s")));
            row.put("total_cpu_us_per_record", med(c, "drain", this::totalCpuUs));
            row.put("steady_contender_cpu_us_per_row", med(c, "drain", r -> num(r, "steady_contender_cpu_us_per_row")));
            row.put("steady_clickhouse_cpu_us_per_row",
                med(c, "drain", r -> num(r, "steady_clickhouse_cpu_us_per_row")));
            row.put("steady_broker_cpu_us_per_row", med(c, "drain", r -> num(r, "steady_broker_cpu_us_per_row")));
            row.put("clickhouse_server_cpu_s_per_m_records",
                med(c, "drain", r -> num(r, "clickhouse_server_cpu_s") / num(r, "records") * 1e6));
            row.put("kafka_broker_cpu_s_per_m_records",
                med(c, "drain", r -> num(r, "kafka_broker_cpu_s") / num(r, "records") * 1e6));
            row.put("parts_created", med(c, "drain", r -> num(r, "parts_created")));
            row.put("rows_per_part_mean", med(c, "drain", r -> num(r, "rows_per_part_mean")));
            row.put("uncommitted_rows_mean", med(c, "drain", r -> num(r, "uncommitted_rows_mean")));
            row.put("uncommitted_rows_max", med(c, "drain", r -> num(r, "uncommitted_rows_max")));
            row.put("uncommitted_rows_min", med(c, "drain", r -> num(r, "uncommitted_rows_min")));
            row.put("engine_checkpoint_lag_offsets_mean",
                med(c, "drain", r -> num(r, "engine_checkpoint_lag_offsets_mean")));
            row.put("engine_checkpoint_lag_offsets_max",
                med(c, "drain", r -> num(r, "engine_checkpoint_lag_offsets_max")));
            row.put("engine_checkpoint_lag_ms_max", med(c, "drain", r -> num(r, "engine_checkpoint_lag_ms_max")));
            row.put("peak_rss_mib", med(c, "drain", r -> num(r, "peak_rss_bytes") / 1048576));
            row.put("peak_heap_mib", med(c, "drain", r -> num(r, "peak_heap_bytes") / 1048576));
            row.put("gc_count", med(c, "drain", r -> num(r, "gc_count")));
            row.put("gc_pause_ms", med(c, "drain", r -> num(r, "gc_pause_ms")));
            row.put("alloc_bytes_per_record", med(c, "drain", r -> num(r, "alloc_window_bytes") / num(r, "records")));
            row.put("process_wall_s", med(c, "drain", r -> num(r, "process_wall_s")));
            row.put("latency_p50_ms", med(c, "live", r -> num(r, "latency_p50_us") / 1e3));
            row.put("latency_p99_ms", med(c, "live", r -> num(r, "latency_p99_us") / 1e3));
            row.put("latency_p999_ms", med(c, "live", r -> num(r, "latency_p999_us") / 1e3));
            row.put("contender_threads_cpu_us_per_record", threadMedians(c, "contender_threads_cpu_window_s"));
            row.put("clickhouse_threads_cpu_us_per_record", threadMedians(c, "clickhouse_threads_cpu_window_s"));
            row.put("parts_per_table", partsMedians(c));
            rows.add(row);
            final boolean jvm = !c.endsWith("limit") && !c.equals("kafka-engine");
            t.append(String.format(Locale.ROOT,
                "| %-16s | %10s | %6s | %9s | %8s | %8s | %4s | %8s | %9s | %7s | %7s | %7s |%n",
                c, f0(row.get("records_per_s")), f1(row.get("mb_per_s")),
                c.equals("clickhouse-limit") ? "-" : f2(row.get("cpu_s_per_m_records")),
                jvm ? f0(row.get("peak_rss_mib")) : "-", jvm ? f0(row.get("peak_heap_mib")) : "-",
                jvm ? f0(row.get("gc_count")) : "-", jvm ? f0(row.get("gc_pause_ms")) : "-",
                jvm || c.equals("kafka-limit") ? f0(row.get("alloc_bytes_per_record")) : "-",
                f0(row.get("latency_p50_ms")), f0(row.get("latency_p99_ms")), f0(row.get("latency_p999_ms"))));
        }
        if (!runsOf("kafka-engine", "drain").isEmpty())
        {
            t.append("  (kafka-engine: CPU s/M is the ClickHouse server's; it has no process, heap or latency of its "
                + "own)\n");
        }

        t.append(String.format(Locale.ROOT, "%nCPU per record over each contender's window, us (medians):%n"));
        t.append(String.format(Locale.ROOT, "  %-16s %10s %11s %8s %8s%n", "", "contender", "ClickHouse", "broker",
            "total"));
        for (final Map<String, Object> row : rows)
        {
            final boolean server = row.get("contender").equals("kafka-engine");
            t.append(String.format(Locale.ROOT, "  %-16s %10s %11s %8s %8s%n", row.get("contender"),
                server ? "(server)" : f1(row.get("contender_cpu_us_per_record")),
                f1(row.get("clickhouse_cpu_us_per_record")), f1(row.get("broker_cpu_us_per_record")),
                f1(row.get("total_cpu_us_per_record"))));
        }
        t.append("  (ClickHouse and the broker: their processes, found by listening port, sampled every "
            + sampleMillis + " ms and\n   interpolated over the window; kafka-engine's contender is the ClickHouse "
            + "server itself)\n");

        t.append(
            String.format(Locale.ROOT, "%nCPU per row in the steady state (from 20 %% to 80 %% of the rows written: no "
                + "start-up, JIT warm-up or last batch), us (medians):%n"));
        t.append(String.format(Locale.ROOT, "  %-16s %10s %11s %8s %8s%n", "", "contender", "ClickHouse", "broker",
            "total"));
        for (final Map<String, Object> row : rows)
        {
            final double c = num(row, "steady_contender_cpu_us_per_row");
            if (Double.isNaN(c) && Double.isNaN(num(row, "steady_clickhouse_cpu_us_per_row")))
            {
                if (!row.get("contender").equals("kafka-limit"))
                {
                    // a short run whose rows arrive in one or two inserts has no sample inside the window
                    t.append(String.format(Locale.ROOT, "  %-16s n/a: its rows passed 20 %% and 80 %% of the run "
                        + "between the same two samples (too few inserts; a longer run has a steady state)%n",
                        row.get("contender")));
                }
                continue;
            }
            final boolean server = row.get("contender").equals("kafka-engine");
            final double ch = num(row, "steady_clickhouse_cpu_us_per_row");
            final double broker = num(row, "steady_broker_cpu_us_per_row");
            t.append(String.format(Locale.ROOT, "  %-16s %10s %11s %8s %8s%n", row.get("contender"),
                server ? "(server)" : f1(c), f1(ch), f1(broker), f1((server ? 0 : c) + ch + broker)));
        }

        if (this.server.equals("ClickHouse"))
        {
            appendParts(t, rows); // PostgreSQL has no parts: its WAL per row and rows per COPY follow the ratios
        }
        appendLag(t, rows);
        if (this.server.equals("ClickHouse"))
        {
            appendThreads(t, rows); // a PostgreSQL server is processes, not threads of one
        }
        appendVerification(t);
        if (!sweep.isEmpty())
        {
            t.append(String.format(Locale.ROOT,
                "%nClickHouse CPU per row against rows per insert (the limit contender, "
                    + "one run each):%n  %14s %10s %14s %14s %10s%n",
                "rows/insert", "rows/s", "ClickHouse us/row",
                "parts created", "rows/part"));
            for (final Map<String, Object> r : sweep)
            {
                t.append(String.format(Locale.ROOT, "  %14s %10s %14s %14s %10s%n", f0(r.get("rows_per_insert")),
                    f0(num(r, "rows") / num(r, "window_s")),
                    f2(num(r, "clickhouse_cpu_window_s") / num(r, "rows") * 1e6),
                    f0(num(r, "parts_created")), f0(num(r, "rows_per_part_mean"))));
            }
        }

        final Map<String, Object> ratios = new LinkedHashMap<>();
        ratios.put("sluice_over_baseline_records_per_s",
            ratio("sluice", "baseline", "drain", BenchReport::recordsPerSecond));
        ratios.put("sluice_over_baseline_cpu_per_record", ratio("sluice", "baseline", "drain",
            r -> num(r, "window_cpu_s") / num(r, "records")));
        ratios.put("sluice_over_baseline_cpu_per_record_with_services", ratio("sluice", "baseline", "drain",
            this::totalCpuUs));
        ratios.put("sluice_over_baseline_alloc_per_record", ratio("sluice", "baseline", "drain",
            r -> num(r, "alloc_window_bytes") / num(r, "records")));
        ratios.put("sluice_over_baseline_p99", ratio("sluice", "baseline", "live", r -> num(r, "latency_p99_us")));
        ratios.put("sluice_over_min_limits_records_per_s", ratioToLimits(BenchReport::recordsPerSecond));
        ratios.put("sluice_over_kafka_engine_records_per_s",
            ratio("sluice", "kafka-engine", "drain", BenchReport::recordsPerSecond));
        ratios.put("sluice_over_kafka_engine_clickhouse_cpu_per_record",
            ratio("sluice", "kafka-engine", "drain", r -> perRecordUs(r, "clickhouse_cpu_window_s")));
        ratios.put("sluice_over_kafka_engine_total_cpu_per_record",
            ratio("sluice", "kafka-engine", "drain", this::totalCpuUs));
        ratios.put("sluice_over_kafka_engine_parts_created",
            ratio("sluice", "kafka-engine", "drain", r -> num(r, "parts_created")));
        if (!server.equals("ClickHouse"))
        {
            postgresRatios(t, ratios);
            t.append(String.format(Locale.ROOT, "%nmachine: %s%ndate: %s%ncommand: %s%n", machineSummary,
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), command));
            this.text = t.toString().replace("ClickHouse", server);
            this.rows = rows;
            this.ratios = ratios;
            return;
        }
        t.append(String.format(Locale.ROOT, "%nratios (per round, then the median):%n"));
        ratioLine(t, "Sluice / baseline records/s", ratios.get("sluice_over_baseline_records_per_s"), true,
            "goal >= 3x");
        ratioLine(t, "Sluice / min(limits) records/s", ratios.get("sluice_over_min_limits_records_per_s"), false,
            "goal >= 0.80");
        ratioLine(t, "Sluice / baseline CPU per record", ratios.get("sluice_over_baseline_cpu_per_record"), false,
            "goal: a fraction");
        ratioLine(t, "... with ClickHouse + Kafka CPU", ratios.get("sluice_over_baseline_cpu_per_record_with_services"),
            false, "");
        ratioLine(t, "Sluice / baseline alloc per record", ratios.get("sluice_over_baseline_alloc_per_record"), false,
            "");
        ratioLine(t, "Sluice / baseline p99 latency", ratios.get("sluice_over_baseline_p99"), false,
            String.format(Locale.ROOT, "goal < 1; live phase at %,.0f records/s, %.0f s after %.0f s warm-up", liveRate,
                liveSeconds, liveWarmupSeconds));
        ratioLine(t, "Sluice / kafka-engine records/s", ratios.get("sluice_over_kafka_engine_records_per_s"), true,
            "goal >= 2.5x");
        ratioLine(t, "Sluice / kafka-engine ClickHouse CPU per record",
            ratios.get("sluice_over_kafka_engine_clickhouse_cpu_per_record"), false, "goal <= 0.5");
        ratioLine(t, "Sluice / kafka-engine CPU per record, all processes",
            ratios.get("sluice_over_kafka_engine_total_cpu_per_record"), false, "");
        ratioLine(t, "Sluice / kafka-engine parts created", ratios.get("sluice_over_kafka_engine_parts_created"), false,
            "");
        t.append(String.format(Locale.ROOT, "%nmachine: %s%ndate: %s%ncommand: %s%n", machineSummary,
            ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), command));
        this.text = t.toString();
        this.rows = rows;
        this.ratios = ratios;
    }

    /** The ratios of issue 24's goals for the PostgreSQL run (in place of the kafka-engine ones). */
    private void postgresRatios(final StringBuilder t, final Map<String, Object> ratios)
    {
        ratios.keySet().removeIf(k -> k.contains("kafka_engine") || k.contains("min_limits"));
        ratios.put("sluice_over_kafka_connect_records_per_s",
            ratio("sluice", "kafka-connect", "drain", BenchReport::recordsPerSecond));
        ratios.put("sluice_over_copy_limit_records_per_s",
            ratio("sluice", "copy-limit", "drain", BenchReport::recordsPerSecond));
        ratios.put("sluice_over_baseline_postgres_cpu_per_record",
            ratio("sluice", "baseline", "drain", r -> perRecordUs(r, "clickhouse_cpu_window_s")));
        ratios.put("sluice_over_kafka_connect_postgres_cpu_per_record",
            ratio("sluice", "kafka-connect", "drain", r -> perRecordUs(r, "clickhouse_cpu_window_s")));
        ratios.put("sluice_over_kafka_connect_total_cpu_per_record",
            ratio("sluice", "kafka-connect", "drain", this::totalCpuUs));
        ratios.put("sluice_exactly_once_over_sluice_records_per_s",
            ratio("sluice-exactly-once", "sluice", "drain", BenchReport::recordsPerSecond));
        t.append(String.format(Locale.ROOT, "%nratios (per round, then the median):%n"));
        ratioLine(t, "Sluice / baseline records/s", ratios.get("sluice_over_baseline_records_per_s"), true,
            "goal >= 2x");
        ratioLine(t, "Sluice / kafka-connect records/s", ratios.get("sluice_over_kafka_connect_records_per_s"), true,
            "goal >= 3x");
        ratioLine(t, "Sluice / copy-limit records/s", ratios.get("sluice_over_copy_limit_records_per_s"), false,
            "goal >= 0.6");
        ratioLine(t, "exactly-once / at-least-once rec/s", ratios.get("sluice_exactly_once_over_sluice_records_per_s"),
            false, "goal >= 0.9");
        ratioLine(t, "Sluice / baseline PostgreSQL CPU/rec", ratios.get("sluice_over_baseline_postgres_cpu_per_record"),
            false, "goal <= 0.5");
        ratioLine(t, "Sluice / kafka-connect PostgreSQL CPU/rec",
            ratios.get("sluice_over_kafka_connect_postgres_cpu_per_record"), false, "");
        ratioLine(t, "Sluice / baseline CPU per record", ratios.get("sluice_over_baseline_cpu_per_record"), false, "");
        ratioLine(t, "Sluice / kafka-connect CPU per record, all processes",
            ratios.get("sluice_over_kafka_connect_total_cpu_per_record"), false, "");
        ratioLine(t, "Sluice / baseline p99 latency", ratios.get("sluice_over_baseline_p99"), false,
            String.format(Locale.ROOT, "live phase at %,.0f records/s", liveRate));
        t.append(
            String.format(Locale.ROOT, "%nWAL per row (pg_current_wal_lsn() before and after each run, medians):%n"));
        for (final String c : ALL_CONTENDERS)
        {
            final double w = med(c, "drain", r -> num(r, "wal_bytes") / num(r, "verified_rows"));
            final double ins = med(c, "drain", r -> num(r, "verified_rows") / num(r, "inserts"));
            if (!Double.isNaN(w))
            {
                t.append(String.format(Locale.ROOT, "  %-16s %8.0f B/row   %s%n", c, w,
                    Double.isNaN(ins) ? "" : String.format(Locale.ROOT, "%,.0f rows per COPY/INSERT batch", ins)));
            }
        }
    }

    /**
     * One line of the ratios section: the label, the ratio (two decimals, with "x" when {@code times}; "n/a" when a
     * contender it needs did not run) and the goal in parentheses when there is one.
     */
    private static void ratioLine(final StringBuilder t, final String label, final Object value, final boolean times,
        final String goal)
    {
        t.append(String.format(Locale.ROOT, "  %-52s %7s%s%n", label, times ? rx(value) : r2(value),
            goal.isEmpty() ? "" : "   (" + goal + ")"));
    }

    /** A ratio for the report: two decimals and "x", or "n/a" when a contender it needs did not run. */
    private static String rx(final Object v)
    {
        return v instanceof Double d && !d.isNaN() ? String.format(Locale.ROOT, "%.2fx", d) : "n/a";
    }

    /** A ratio for the report: two decimals, or "n/a" when a contender it needs did not run. */
    private static String r2(final Object v)
    {
        return v instanceof Double d && !d.isNaN() ? String.format(Locale.ROOT, "%.2f", d) : "n/a";
    }

    static double median(final List<Double> xs)
    {
        final double[] a = xs.stream().filter(d -> !Double.isNaN(d)).mapToDouble(Double::doubleValue).sorted()
            .toArray();
        if (a.length == 0)
        {
            return Double.NaN;
        }
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private List<Map<String, Object>> runsOf(final String contender, final String phase)
    {
        final List<Map<String, Object>> l = new ArrayList<>();
        for (final Map<String, Object> r : runs)
        {
            if (r.get("contender").equals(contender) && r.get("phase").equals(phase)
                && Boolean.TRUE.equals(r.get("exited_ok")))
            {
                l.add(r);
            }
        }
        return l;
    }

    private double med(final String contender, final String phase,
        final java.util.function.ToDoubleFunction<Map<String, Object>> f)
    {
        final List<Double> xs = new ArrayList<>();
        for (final Map<String, Object> r : runsOf(contender, phase))
        {
            xs.add(f.applyAsDouble(r));
        }
        return median(xs);
    }

    /** Per-round ratio a/b of a metric, then the median over rounds. */
    private double ratio(final String a, final String b, final String phase,
        final java.util.function.ToDoubleFunction<Map<String, Object>> f)
    {
        final List<Double> xs = new ArrayList<>();
        for (int r = 1; r <= rounds; r++)
        {
            final int round = r;
            final var ra = runsOf(a, phase).stream().filter(x -> ((Number)x.get("round")).intValue() == round)
                .findFirst();
            final var rb = runsOf(b, phase).stream().filter(x -> ((Number)x.get("round")).intValue() == round)
                .findFirst();
            if (ra.isPresent() && rb.isPresent())
            {
                xs.add(f.applyAsDouble(ra.get()) / f.applyAsDouble(rb.get()));
            }
        }
        return median(xs);
    }

    private double ratioToLimits(final java.util.function.ToDoubleFunction<Map<String, Object>> f)
    {
        final List<Double> xs = new ArrayList<>();
        for (int r = 1; r <= rounds; r++)
        {
            final int round = r;
            final var s = runsOf("sluice", "drain").stream().filter(x -> ((Number)x.get("round")).intValue() == round)
                .findFirst();
            final var k = runsOf("kafka-limit", "drain").stream()
                .filter(x -> ((Number)x.get("round")).intValue() == round).findFirst();
            final var c = runsOf("clickhouse-limit", "drain").stream()
                .filter(x -> ((Number)x.get("round")).intValue() == round).findFirst();
            if (s.isPresent() && k.isPresent() && c.isPresent())
            {
                xs.add(f.applyAsDouble(s.get()) / Math.min(f.applyAsDouble(k.get()), f.applyAsDouble(c.get())));
            }
        }
        return median(xs);
    }

    private static double perRecordUs(final Map<String, Object> run, final String cpuKey)
    {
        return num(run, cpuKey) / num(run, "records") * 1e6;
    }

    /** @return CPU us per record of every process involved: the contender's (none for kafka-engine), ClickHouse, broker */
    private double totalCpuUs(final Map<String, Object> run)
    {
        final double contender = "kafka-engine".equals(run.get("contender")) ? 0 : num(run, "window_cpu_s");
        return (contender + num(run, "clickhouse_cpu_window_s") + num(run, "broker_cpu_window_s"))
            / num(run, "records") * 1e6;
    }

    /** @return per thread-name group, the median over the rounds of its CPU us per record (0 in a round without it) */
    private Map<String, Double> threadMedians(final String contender, final String key)
    {
        final List<Map<String, Object>> rs = runsOf(contender, "drain");
        final java.util.Set<String> names = new java.util.TreeSet<>();
        for (final Map<String, Object> r : rs)
        {
            if (r.get(key) instanceof Map<?, ?> m)
            {
                for (final Object k : m.keySet())
                {
                    names.add((String)k);
                }
            }
        }
        final Map<String, Double> out = new TreeMap<>();
        for (final String name : names)
        {
            final List<Double> xs = new ArrayList<>();
            for (final Map<String, Object> r : rs)
            {
                final double s = r.get(key) instanceof Map<?, ?> m && m.get(name) instanceof Number n
                    ? n.doubleValue()
                    : 0;
                xs.add(s / num(r, "records") * 1e6);
            }
            out.put(name, median(xs));
        }
        return out;
    }

    /** @return per table, the medians over the rounds of its parts created and rows per part */
    private Map<String, Map<String, Double>> partsMedians(final String contender)
    {
        final Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        for (final String table : TABLES)
        {
            final List<Double> parts = new ArrayList<>();
            final List<Double> perPart = new ArrayList<>();
            for (final Map<String, Object> r : runsOf(contender, "drain"))
            {
                if (r.get("parts") instanceof Map<?, ?> m && m.get(table) instanceof Map<?, ?> p)
                {
                    parts.add(((Number)p.get("parts_created")).doubleValue());
                    perPart.add(((Number)p.get("rows_per_part_mean")).doubleValue());
                }
            }
            if (!parts.isEmpty())
            {
                final Map<String, Double> m = new LinkedHashMap<>();
                m.put("parts_created", median(parts));
                m.put("rows_per_part_mean", median(perPart));
                out.put(table, m);
            }
        }
        return out;
    }

    private static final List<String> WRITERS = List.of("baseline", "sluice", "kafka-engine");

    private static List<Map<String, Object>> writers(final List<Map<String, Object>> rows)
    {
        final List<Map<String, Object>> w = new ArrayList<>();
        for (final String c : WRITERS)
        {
            for (final Map<String, Object> row : rows)
            {
                if (row.get("contender").equals(c))
                {
                    w.add(row);
                }
            }
        }
        return w;
    }

    private void appendParts(final StringBuilder t, final List<Map<String, Object>> rows)
    {
        final List<Map<String, Object>> w = writers(rows);
        if (w.isEmpty())
        {
            return;
        }
        t.append(String.format(Locale.ROOT, "%nParts created per table (one per INSERT and partition; system.parts, "
            + "level 0), medians: parts / rows per part%n  %-22s", ""));
        for (final Map<String, Object> row : w)
        {
            t.append(String.format(Locale.ROOT, " %22s", row.get("contender")));
        }
        t.append('\n');
        for (final String table : TABLES)
        {
            t.append(String.format(Locale.ROOT, "  %-22s", table));
            for (final Map<String, Object> row : w)
            {
                @SuppressWarnings("unchecked")
                final Map<String, Double> p = ((Map<String, Map<String, Double>>)row.get("parts_per_table")).get(table);
                t.append(String.format(Locale.ROOT, " %22s", p == null
                    ? "-"
                    : f0(p.get("parts_created")) + " / " + f0(p.get("rows_per_part_mean"))));
            }
            t.append('\n');
        }
        t.append(String.format(Locale.ROOT, "  %-22s", "all tables"));
        for (final Map<String, Object> row : w)
        {
            t.append(String.format(Locale.ROOT, " %22s", f0(row.get("parts_created")) + " / "
                + f0(row.get("rows_per_part_mean"))));
        }
        t.append('\n');
    }

    private void appendLag(final StringBuilder t, final List<Map<String, Object>> rows)
    {
        final List<Map<String, Object>> w = writers(rows);
        if (w.isEmpty())
        {
            return;
        }
        t.append(String.format(Locale.ROOT, "%nCheckpoint lag over the window, medians (rows written - records "
            + "committed, sampled: > 0 would be written%n  again after a crash, < 0 were committed before they were "
            + "written):%n  %-16s %10s %10s %10s%n", "", "mean", "max", "min"));
        for (final Map<String, Object> row : w)
        {
            t.append(String.format(Locale.ROOT, "  %-16s %10s %10s %10s%n", row.get("contender"),
                f0(row.get("uncommitted_rows_mean")), f0(row.get("uncommitted_rows_max")),
                f0(row.get("uncommitted_rows_min"))));
        }
        for (final Map<String, Object> row : w)
        {
            if (row.get("contender").equals("sluice"))
            {
                t.append(String.format(Locale.ROOT, "  Sluice's own (sluice_checkpoint_lag_offsets, in flight over all "
                    + "partitions): mean %s, max %s; longest watermark stall %s ms%n",
                    f0(row.get("engine_checkpoint_lag_offsets_mean")), f0(row.get("engine_checkpoint_lag_offsets_max")),
                    f0(row.get("engine_checkpoint_lag_ms_max"))));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void appendThreads(final StringBuilder t, final List<Map<String, Object>> rows)
    {
        for (final Map<String, Object> row : rows)
        {
            if (!row.get("contender").equals("sluice"))
            {
                continue;
            }
            final Map<String, Double> th = (Map<String, Double>)row.get("contender_threads_cpu_us_per_record");
            if (th.isEmpty())
            {
                continue;
            }
            t.append(String.format(Locale.ROOT, "%nSluice's process: CPU per thread over the window, us per record "
                + "(/proc/PID/task, by name; medians)%n"));
            appendTop(t, List.of("sluice"), List.of(th), 14);
            t.append(String.format(Locale.ROOT, "  %-24s %8s   (the JVM's own count over its window: %s)%n",
                "process (/proc)", f1(med("sluice", "drain", r -> perRecordUs(r, "contender_proc_cpu_window_s"))),
                f1(row.get("contender_cpu_us_per_record"))));
        }
        final List<String> names = new ArrayList<>();
        final List<Map<String, Double>> maps = new ArrayList<>();
        for (final Map<String, Object> row : writers(rows))
        {
            final Map<String, Double> th = (Map<String, Double>)row.get("clickhouse_threads_cpu_us_per_record");
            if (!th.isEmpty())
            {
                names.add((String)row.get("contender"));
                maps.add(th);
            }
        }
        if (!maps.isEmpty())
        {
            t.append(String.format(Locale.ROOT, "%nThe ClickHouse server: CPU per thread over each window, us per "
                + "record (/proc/PID/task, by name; medians)%n"));
            appendTop(t, names, maps, 12);
        }
    }

    /** Appends the {@code top} thread groups by their largest value over the columns, the rest summed. */
    private static void appendTop(final StringBuilder t, final List<String> columns,
        final List<Map<String, Double>> maps, final int top)
    {
        final java.util.Set<String> all = new java.util.TreeSet<>();
        maps.forEach(m -> all.addAll(m.keySet()));
        final List<String> order = new ArrayList<>(all);
        order.sort(Comparator.comparingDouble((String n) ->
        {
            double max = 0;
            for (final Map<String, Double> m : maps)
            {
                max = Math.max(max, m.getOrDefault(n, 0.0));
            }
            return -max;
        }));
        t.append(String.format(Locale.ROOT, "  %-24s", "thread"));
        for (final String c : columns)
        {
            t.append(String.format(Locale.ROOT, " %12s", c));
        }
        t.append('\n');
        final double[] rest = new double[maps.size()];
        final double[] sum = new double[maps.size()];
        for (int i = 0; i < order.size(); i++)
        {
            if (i < top)
            {
                t.append(String.format(Locale.ROOT, "  %-24s", order.get(i)));
            }
            for (int j = 0; j < maps.size(); j++)
            {
                final double v = maps.get(j).getOrDefault(order.get(i), 0.0);
                sum[j] += v;
                if (i < top)
                {
                    t.append(String.format(Locale.ROOT, " %12s", f1(v)));
                }
                else
                {
                    rest[j] += v;
                }
            }
            if (i < top)
            {
                t.append('\n');
            }
        }
        if (order.size() > top)
        {
            t.append(String.format(Locale.ROOT, "  %-24s", "(" + (order.size() - top) + " others)"));
            for (final double v : rest)
            {
                t.append(String.format(Locale.ROOT, " %12s", f1(v)));
            }
            t.append('\n');
        }
        t.append(String.format(Locale.ROOT, "  %-24s", "threads alive at the end"));
        for (final double v : sum)
        {
            t.append(String.format(Locale.ROOT, " %12s", f1(v)));
        }
        t.append('\n');
    }

    private void appendVerification(final StringBuilder t)
    {
        t.append(String.format(Locale.ROOT, "%nRows verified against the input (all runs): %-4s %12s %8s %10s %7s%n",
            "runs", "rows", "lost", "duplicated", "wrong"));
        for (final String c : ALL_CONTENDERS)
        {
            if (c.equals("kafka-limit"))
            {
                continue;
            }
            long n = 0;
            long rowsSeen = 0;
            long lost = 0;
            long dup = 0;
            long bad = 0;
            for (final Map<String, Object> r : runs)
            {
                if (r.get("contender").equals(c) && r.get("verified_rows") instanceof Number v)
                {
                    n++;
                    rowsSeen += v.longValue();
                    lost += ((Number)r.get("verified_lost")).longValue();
                    dup += ((Number)r.get("verified_duplicates")).longValue();
                    bad += ((Number)r.get("verified_wrong")).longValue()
                        + ((Number)r.get("verified_misplaced")).longValue()
                        + ((Number)r.get("verified_unknown")).longValue();
                }
            }
            if (n > 0)
            {
                t.append(String.format(Locale.ROOT, "  %-40s %6d %12s %8s %10s %7s%n", c, n, f0(rowsSeen), f0(lost),
                    f0(dup), f0(bad)));
            }
        }
    }

    static String f0(final Object v)
    {
        final double d = ((Number)v).doubleValue();
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%,.0f", d);
    }

    static String f1(final Object v)
    {
        final double d = ((Number)v).doubleValue();
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%.1f", d);
    }

    static String f2(final Object v)
    {
        final double d = ((Number)v).doubleValue();
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%.2f", d);
    }
}
