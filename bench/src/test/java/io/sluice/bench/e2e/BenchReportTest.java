package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The printed report of a run that left contenders out ({@code --contenders}). */
class BenchReportTest
{
    private static Map<String, Object> drain(final String contender, final double windowS)
    {
        final Map<String, Object> run = new HashMap<>();
        run.put("contender", contender);
        run.put("phase", "drain");
        run.put("round", 1);
        run.put("exited_ok", true);
        run.put("records", 1_000_000L);
        run.put("rows", 1_000_000L);
        run.put("verified_rows", 1_000_000L);
        run.put("window_s", windowS);
        for (final String k : List.of("verified_lost", "verified_duplicates", "verified_wrong", "verified_misplaced",
            "verified_unknown"))
        {
            run.put(k, 0L);
        }
        return run;
    }

    @Test
    void shouldPrintNotAvailableForTheRatiosOfContendersThatDidNotRun()
    {
        final List<Map<String, Object>> runs = new ArrayList<>();
        runs.add(drain("copy-limit", 10.0));
        runs.add(drain("sluice", 20.0));
        final BenchReport report = new BenchReport(
            new BenchReport.Settings(1_000_000L, 1, Double.NaN, 2_000, 5, 3, 200), runs, List.of())
            .server("PostgreSQL");
        report.build("test machine", "scripts/bench.sh --sink postgres --contenders copy-limit,sluice");
        final String text = report.text();

        assertFalse(text.contains("NaN"), text);
        assertTrue(Pattern.compile("Sluice / copy-limit records/s +0\\.50 +\\(goal >= 0\\.6\\)").matcher(text).find(),
            text);
        assertTrue(Pattern.compile("Sluice / baseline records/s +n/a +\\(goal >= 2x\\)").matcher(text).find(), text);
        assertTrue(text.contains("records of unknown (kafka-limit did not run) bytes on average"), text);
    }
}
