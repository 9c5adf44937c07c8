package io.sluice.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The end-to-end run's charts as SVG text, written next to its result.json: {@code records-per-s.svg} (a bar per
 * contender, the medians over the rounds) and {@code cpu-per-record.svg} (a stacked bar per contender: its own CPU,
 * the database server's and the broker's, in microseconds per record over its window). Stateless and thread-safe.
 */
final class BenchChart
{
    private static final int W = 640;
    private static final int BAR = 26;
    private static final int GAP = 10;
    private static final int LEFT = 130;
    private static final int RIGHT = 90;
    private static final int TOP = 46;
    private static final String[] COLOURS = {"#4477aa", "#ee6677", "#228833"};

    private BenchChart()
    {
    }

    /**
     * Writes both charts into {@code dir}.
     *
     * @param dir the run's directory
     * @param summary the run's summary as {@link BenchRun} writes it (its {@code table} rows and {@code command})
     * @param server the database server's name, for the legend
     * @throws IOException if a file cannot be written
     */
    @SuppressWarnings("unchecked")
    static void write(final Path dir, final Map<String, Object> summary, final String server) throws IOException
    {
        final List<Map<String, Object>> rows = new ArrayList<>();
        for (final Map<String, Object> r : (List<Map<String, Object>>)summary.get("table"))
        {
            if (!Double.isNaN(BenchReport.num(r, "records_per_s")))
            {
                rows.add(r);
            }
        }
        final String note = "records " + summary.get("records") + ", " + summary.get("rounds") + " round(s): "
            + summary.get("command");
        Files.writeString(dir.resolve("records-per-s.svg"), bars(
            "records/s into " + server + " (median)", note, rows, new String[]{"records_per_s"},
            new String[]{"records/s"}, "%,.0f"));
        Files.writeString(dir.resolve("cpu-per-record.svg"), bars(
            "CPU per record over the window, us (median)", note, rows,
            new String[]{"contender_cpu_us_per_record", "clickhouse_cpu_us_per_record", "broker_cpu_us_per_record"},
            new String[]{"contender", server, "Kafka broker"}, "%.1f"));
    }

    /**
     * @param keys the row keys stacked in each bar (NaN counts as 0)
     * @return an SVG document: one horizontal bar per row, its parts' total printed after it
     */
    static String bars(final String title, final String note, final List<Map<String, Object>> rows,
        final String[] keys, final String[] labels, final String format)
    {
        double max = 0;
        for (final Map<String, Object> r : rows)
        {
            max = Math.max(max, total(r, keys));
        }
        if (max <= 0)
        {
            max = 1;
        }
        final int h = TOP + rows.size() * (BAR + GAP) + 50;
        final double scale = (W - LEFT - RIGHT) / max;
        final StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", W, h, W, h));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, h));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
            LEFT, escape(title)));
        int y = TOP;
        for (final Map<String, Object> r : rows)
        {
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LEFT - 8,
                y + BAR / 2 + 4, escape(String.valueOf(r.get("contender")))));
            double x = LEFT;
            for (int k = 0; k < keys.length; k++)
            {
                final double v = BenchReport.num(r, keys[k]);
                if (Double.isNaN(v) || v <= 0)
                {
                    continue;
                }
                b.append(String.format(Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s</title></rect>%n",
                    x, y, v * scale, BAR, COLOURS[k % COLOURS.length], escape(labels[k]),
                    String.format(Locale.ROOT, format, v)));
                x += v * scale;
            }
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", x + 6, y + BAR / 2 + 4,
                String.format(Locale.ROOT, format, total(r, keys))));
            y += BAR + GAP;
        }
        if (keys.length > 1)
        {
            int lx = LEFT;
            for (int k = 0; k < keys.length; k++)
            {
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, y + 4, COLOURS[k % COLOURS.length], lx + 16, y + 14,
                    escape(labels[k])));
                lx += 24 + 8 * labels[k].length();
            }
        }
        b.append(String.format(Locale.ROOT, "<text x=\"8\" y=\"%d\" font-size=\"10\" fill=\"#555\">%s</text>%n",
            h - 10, escape(note)));
        b.append("</svg>\n");
        return b.toString();
    }

    private static double total(final Map<String, Object> r, final String[] keys)
    {
        double t = 0;
        for (final String k : keys)
        {
            final double v = BenchReport.num(r, k);
            t += Double.isNaN(v) ? 0 : v;
        }
        return t;
    }

    static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
