package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What docs/metrics.md promises, checked against real scrapes: every scrape parses with Prometheus' own text parser
 * ({@code promtool check metrics}, which also lints names against the conventions), and every series the document
 * lists appears with exactly its documented labels. Also the series the Grafana dashboard and the alert rules use.
 *
 * <p>promtool is Debian's ({@code prometheus} package, extracted without installing the server by
 * {@code scripts/test.sh} into {@code .sluice/tools/promtool}); {@code -Dsluice.promtool=PATH} overrides.
 */
final class MetricsContract
{
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern DOC_ROW = Pattern.compile(
        "^\\| `([a-z_:]+)` \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\|.*$");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})? .*$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern SERIES_NAME = Pattern.compile("\\b((?:sluice|jvm|process)_[a-z0-9_]+)\\b");

    /** One documented series: its name as exposed (counters with {@code _total}), type and label names. */
    record Series(String section, String name, String type, Set<String> labels)
    {
    }

    private MetricsContract()
    {
    }

    /** @return the series of docs/metrics.md, by section title ("Gather", "Scatter", "Process") */
    static Map<String, List<Series>> documented() throws IOException
    {
        final Map<String, List<Series>> out = new LinkedHashMap<>();
        String section = "";
        for (final String line : Files.readAllLines(TestServices.projectRoot().resolve("docs/metrics.md")))
        {
            if (line.startsWith("## "))
            {
                section = line.substring(3).split(" ")[0];
                continue;
            }
            final Matcher m = DOC_ROW.matcher(line);
            if (m.matches() && !"series".equals(m.group(1)))
            {
                final Set<String> labels = new TreeSet<>();
                for (final String l : m.group(4).split(","))
                {
                    final String t = l.trim();
                    if (!t.isEmpty() && !"—".equals(t))
                    {
                        labels.add(t);
                    }
                }
                out.computeIfAbsent(section, k -> new ArrayList<>())
                    .add(new Series(section, m.group(1), m.group(2).trim().split(" ")[0], labels));
            }
        }
        assertTrue(out.containsKey("Gather") && out.containsKey("Scatter") && out.containsKey("Process"), "sections "
            + out.keySet());
        return out;
    }

    /**
     * @param port the metrics listener
     * @return the body of {@code /metrics}, or null when the listener does not answer
     */
    static String scrape(final int port)
    {
        try
        {
            final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        }
        catch (final IOException e)
        {
            return null;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Fails unless promtool parses (and lints) the scrape without a problem. */
    static void assertParses(final String scrape) throws Exception
    {
        final Process p = new ProcessBuilder(promtool(), "check", "metrics").redirectErrorStream(true).start();
        try (var in = p.getOutputStream())
        {
            in.write(scrape.getBytes(StandardCharsets.UTF_8));
        }
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, p.exitValue(), "promtool check metrics: " + out + "\n--- scrape:\n" + scrape);
    }

    /** Fails unless promtool accepts the rule file. */
    static void assertRulesParse(final Path rules) throws Exception
    {
        final Process p = new ProcessBuilder(promtool(), "check", "rules", rules.toString()).redirectErrorStream(true)
            .start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, p.exitValue(), "promtool check rules " + rules + ": " + out);
    }

    static String promtool()
    {
        final String given = System.getProperty("sluice.promtool", "");
        if (!given.isEmpty())
        {
            return given;
        }
        final Path local = TestServices.projectRoot().resolve(".sluice/tools/promtool");
        if (Files.isExecutable(local))
        {
            return local.toString();
        }
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(":"))
        {
            if (Files.isExecutable(Path.of(dir, "promtool")))
            {
                return Path.of(dir, "promtool").toString();
            }
        }
        return fail("promtool (Prometheus' own parser) not found: scripts/test.sh extracts it into .sluice/tools; "
            + "or run scripts/lib/promtool.sh, or give -Dsluice.promtool=PATH");
    }

    /** @return sample name to the label-name sets it was seen with, over every scrape ({@code le}, {@code quantile} dropped) */
    static Map<String, Set<Set<String>>> samples(final List<String> scrapes)
    {
        final Map<String, Set<Set<String>>> seen = new TreeMap<>();
        for (final String scrape : scrapes)
        {
            for (final String line : scrape.split("\n"))
            {
                if (line.isEmpty() || line.startsWith("#"))
                {
                    continue;
                }
                final Matcher m = SAMPLE.matcher(line);
                assertTrue(m.matches(), "not a sample line: " + line);
                final Set<String> labels = new TreeSet<>();
                if (m.group(3) != null)
                {
                    final Matcher l = LABEL.matcher(m.group(3));
                    while (l.find())
                    {
                        if (!"le".equals(l.group(1)) && !"quantile".equals(l.group(1)))
                        {
                            labels.add(l.group(1));
                        }
                    }
                }
                seen.computeIfAbsent(m.group(1), k -> new TreeSet<>(java.util.Comparator.comparing(Object::toString)))
                    .add(Collections.unmodifiableSet(labels));
            }
        }
        return seen;
    }

    /**
     * Fails unless every documented series of the sections appears in the scrapes, always with exactly its labels.
     */
    static void assertDocumentedSeries(final List<String> scrapes, final String... sections) throws IOException
    {
        final Map<String, Set<Set<String>>> seen = samples(scrapes);
        final Map<String, List<Series>> doc = documented();
        final List<String> problems = new ArrayList<>();
        for (final String section : sections)
        {
            for (final Series s : doc.get(section))
            {
                final List<String> names = switch (s.type())
                {
                    case "histogram", "summary" -> List.of(s.name() + "_count", s.name() + "_sum");
                    default -> List.of(s.name());
                };
                for (final String n : names)
                {
                    final Set<Set<String>> labelSets = seen.get(n);
                    if (labelSets == null)
                    {
                        problems.add(n + " (" + section + ") is in no scrape");
                    }
                    else if (!labelSets.equals(Set.of(s.labels())))
                    {
                        problems.add(n + " has labels " + labelSets + ", documented " + s.labels());
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems) + "\n--- seen: " + seen.keySet());
    }

    /** @return every series name a PromQL text uses ({@code sluice_*}, {@code jvm_*}, {@code process_*}) */
    static Set<String> seriesIn(final String text)
    {
        final Set<String> names = new TreeSet<>();
        final Matcher m = SERIES_NAME.matcher(text);
        while (m.find())
        {
            names.add(m.group(1));
        }
        return names;
    }
}
