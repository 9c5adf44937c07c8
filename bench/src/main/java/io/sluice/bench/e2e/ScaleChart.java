package io.sluice.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The cost curve as an SVG picture, written as text: two panels side by side, records/s and Sluice's CPU per record
 * against the topic count (a logarithmic axis, one tick per step), a point per finished step with its value, and a
 * cross on the axis with "did not finish" for a step that did not. Stateless and thread-safe.
 */
final class ScaleChart
{
    private static final int PANEL_W = 420;
    private static final int PANEL_H = 300;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 50;
    private static final int BOTTOM = 55;

    private ScaleChart()
    {
    }

    /**
     * @param summary the run's summary as {@link ScaleRun} writes it (its {@code steps})
     * @return an SVG document (UTF-8 text)
     */
    @SuppressWarnings("unchecked")
    static String svg(final Map<String, Object> summary)
    {
        final List<Map<String, Object>> steps = (List<Map<String, Object>>)summary.get("steps");
        final StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n",
            2 * PANEL_W, PANEL_H + 30, 2 * PANEL_W, PANEL_H + 30));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", 2 * PANEL_W,
            PANEL_H + 30));
        b.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
            PANEL_W, escape("Sluice cost curve: the three-line design into " + summary.get("sink") + ", "
                + String.format(Locale.ROOT, "%,d", ((Number)summary.get("records_per_step")).longValue())
                + " records per step (run " + summary.get("run") + ")")));
        panel(b, 0, steps, List.of("records_per_s", "warm_records_per_s"), "records/s (higher is better)",
            List.of("#1f77b4", "#9ecae1"), "%,.0f");
        panel(b, PANEL_W, steps, List.of("engine_cpu_us_per_record", "warm_engine_cpu_us_per_record"),
            "Sluice CPU per record, us (lower is better)", List.of("#d62728", "#fc9272"), "%.1f");
        b.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n", PANEL_W, PANEL_H + 22,
            escape("machine: " + ((Map<String, Object>)summary.get("machine")).get("summary") + "; load average "
                + summary.get("load_average_at_start"))));
        b.append("</svg>\n");
        return b.toString();
    }

    /**
     * One panel: a line per key (the first the step's window with the topics' creation, the second its warm pass),
     * a red cross where a step did not finish.
     */
    private static void panel(final StringBuilder b, final int x0, final List<Map<String, Object>> steps,
        final List<String> keys, final String title, final List<String> colors, final String format)
    {
        final int w = PANEL_W - LEFT - RIGHT;
        final int h = PANEL_H - TOP - BOTTOM;
        final int px = x0 + LEFT;
        final int py = TOP;
        double minK = Double.MAX_VALUE;
        double maxK = 0;
        double maxV = 0;
        for (final Map<String, Object> r : steps)
        {
            final double k = ((Number)r.get("topics")).doubleValue();
            minK = Math.min(minK, k);
            maxK = Math.max(maxK, k);
            for (final String key : keys)
            {
                final double v = BenchReport.num(r, key);
                if (!Double.isNaN(v) && !Double.isInfinite(v))
                {
                    maxV = Math.max(maxV, v);
                }
            }
        }
        final double lo = Math.log10(minK) - 0.3;
        final double hi = Math.log10(Math.max(maxK, minK)) + 0.3;
        final double top = niceCeiling(maxV <= 0 ? 1 : maxV * 1.15);
        b.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>%n", px + w / 2, py - 12,
            escape(title)));
        b.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n", px, py, w, h));
        for (int i = 0; i <= 4; i++)
        {
            final double v = top * i / 4;
            final double y = py + h - h * v / top;
            b.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                px, y, px + w, y, px - 6, y + 4, escape(String.format(Locale.ROOT, format, v))));
        }
        for (final Map<String, Object> r : steps)
        {
            final double k = ((Number)r.get("topics")).doubleValue();
            final double x = px + w * (Math.log10(k) - lo) / (hi - lo);
            b.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                x, py + h, x, py + h + 5, x, py + h + 18, escape(String.format(Locale.ROOT, "%,.0f", k))));
            if (!Boolean.TRUE.equals(r.get("ok")) || Double.isNaN(BenchReport.num(r, keys.get(0))))
            {
                b.append(String.format(Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#d00\" font-size=\"16\">x</text>"
                        + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#d00\" font-size=\"10\">"
                        + "did not finish</text>%n",
                    x, py + h - 4, x, py + h - 20));
            }
        }
        for (int i = 0; i < keys.size(); i++)
        {
            line(b, steps, keys.get(i), colors.get(i), format, px, py, w, h, lo, hi, top);
            b.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
                    + "<text x=\"%d\" y=\"%d\" font-size=\"10\">%s</text>%n",
                px + 8, py + 12 + 14 * i, px + 28, py + 12 + 14 * i, colors.get(i), px + 32, py + 16 + 14 * i,
                i == 0 ? "the step (topics and tables created in it)" : "warm pass (they exist)"));
        }
        b.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">topics (= tables), logarithmic</text>%n", px + w / 2,
            py + h + 38));
    }

    private static void line(final StringBuilder b, final List<Map<String, Object>> steps, final String key,
        final String color, final String format, final int px, final int py, final int w, final int h,
        final double lo, final double hi, final double top)
    {
        final List<double[]> points = new ArrayList<>();
        for (final Map<String, Object> r : steps)
        {
            final double x = px + w * (Math.log10(((Number)r.get("topics")).doubleValue()) - lo) / (hi - lo);
            final double v = BenchReport.num(r, key);
            if (Boolean.TRUE.equals(r.get("ok")) && !Double.isNaN(v) && !Double.isInfinite(v))
            {
                points.add(new double[]{x, py + h - h * v / top, v});
            }
        }
        if (points.size() > 1)
        {
            final StringBuilder d = new StringBuilder();
            for (final double[] p : points)
            {
                d.append(String.format(Locale.ROOT, "%.1f,%.1f ", p[0], p[1]));
            }
            b.append(String.format(Locale.ROOT,
                "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", d.toString().trim(),
                color));
        }
        for (final double[] p : points)
        {
            b.append(String.format(Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>%n",
                p[0], p[1], color, p[0], p[1] - 9, escape(String.format(Locale.ROOT, format, p[2]))));
        }
    }

    /** @return the smallest of 1, 2, 2.5, 5 x a power of ten that is at least {@code v} */
    static double niceCeiling(final double v)
    {
        final double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (final double m : new double[]{1, 2, 2.5, 5, 10})
        {
            if (m * p >= v)
            {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
