package io.sluice.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layers of core/ (config/checkstyle/import-control.xml, drawn in docs/architecture.md): the package graph of
 * core's main sources has no cycle, no code hides an edge behind a fully qualified name, and the build's layering
 * rule refuses an upward import, naming it.
 */
final class LayersTest
{
    private static final Pattern IMPORT = Pattern.compile(
        "^import\\s+(?:static\\s+)?(io\\.sluice\\.core\\.[\\w.]+?)\\.[A-Z]",
        Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])io\\.sluice\\.core(\\.[a-z]\\w*)+\\.[A-Z]");
    private static final Pattern NON_CODE = Pattern.compile(
        "\"\"\"(?s:.*?)\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\])'|/\\*(?s:.*?)\\*/|//[^\\n]*|^(?:import|package)\\s[^;]*;",
        Pattern.MULTILINE);

    @Test
    void shouldHaveNoPackageCycleInCore() throws IOException
    {
        final Map<String, Set<String>> edges = packageGraph();
        assertTrue(edges.size() >= 10, "found the core packages: " + edges.keySet());
        final List<String> cycle = findCycle(edges);
        assertEquals(List.of(), cycle, "an import cycle between core's packages");
    }

    @Test
    void shouldNotHideEdgesBehindQualifiedNames() throws IOException
    {
        final List<String> offenders = new ArrayList<>();
        for (final Path file : mainSources())
        {
            final String code = NON_CODE.matcher(Files.readString(file, StandardCharsets.UTF_8)).replaceAll(" ");
            final Matcher m = QUALIFIED.matcher(code);
            if (m.find())
            {
                offenders.add(ProjectCheckstyle.root().relativize(file) + ": " + m.group());
            }
        }
        assertEquals(List.of(), offenders, "qualified names of core classes in code (import them)");
    }

    @Test
    void shouldRefuseAnUpwardImportNamingIt(@TempDir final Path dir) throws Exception
    {
        final Path upward = dir.resolve("src/main/java/io/sluice/core/naming/Upward.java");
        Files.createDirectories(upward.getParent());
        Files.writeString(upward, """
            package io.sluice.core.naming;

            import io.sluice.core.engine.SluiceEngine;

            final class Upward
            {
                SluiceEngine engine;
            }
            """);
        final Path sideways = dir.resolve("src/main/java/io/sluice/core/gather/Sideways.java");
        Files.createDirectories(sideways.getParent());
        Files.writeString(sideways, """
            package io.sluice.core.gather;

            import io.sluice.core.scatter.ScatterStats;

            final class Sideways
            {
                ScatterStats stats;
            }
            """);
        final Path allowed = dir.resolve("src/main/java/io/sluice/core/gather/Downward.java");
        Files.writeString(allowed, """
            package io.sluice.core.gather;

            import io.sluice.core.ack.AckTracker;

            final class Downward
            {
                AckTracker tracker;
            }
            """);

        final List<String> violations = ProjectCheckstyle
            .violations(List.of(upward.toFile(), sideways.toFile(), allowed.toFile()));
        assertEquals(2, violations.size(), violations.toString());
        assertTrue(violations.get(0).contains("Disallowed import - io.sluice.core.engine.SluiceEngine")
            || violations.get(1).contains("Disallowed import - io.sluice.core.engine.SluiceEngine"),
            violations.toString());
        assertTrue(
            violations.stream().anyMatch(v -> v.contains("Disallowed import - io.sluice.core.scatter.ScatterStats")),
            violations.toString());
        assertTrue(violations.stream().noneMatch(v -> v.contains("AckTracker")), violations.toString());
    }

    private static Map<String, Set<String>> packageGraph() throws IOException
    {
        final Map<String, Set<String>> edges = new TreeMap<>();
        for (final Path file : mainSources())
        {
            final String src = Files.readString(file, StandardCharsets.UTF_8);
            final Matcher p = PACKAGE.matcher(src);
            assertTrue(p.find(), "package of " + file);
            final String from = p.group(1);
            final Set<String> to = edges.computeIfAbsent(from, k -> new TreeSet<>());
            final Matcher m = IMPORT.matcher(src);
            while (m.find())
            {
                if (!m.group(1).equals(from))
                {
                    to.add(m.group(1));
                }
            }
        }
        return edges;
    }

    /** @return one cycle as a list of packages (first = last), or empty */
    private static List<String> findCycle(final Map<String, Set<String>> edges)
    {
        final Map<String, Integer> state = new HashMap<>();
        for (final String start : edges.keySet())
        {
            final Deque<String> path = new ArrayDeque<>();
            final List<String> cycle = visit(start, edges, state, path);
            if (!cycle.isEmpty())
            {
                return cycle;
            }
        }
        return List.of();
    }

    private static List<String> visit(final String node, final Map<String, Set<String>> edges,
        final Map<String, Integer> state, final Deque<String> path)
    {
        final Integer s = state.get(node);
        if (s != null && s == 2)
        {
            return List.of();
        }
        if (s != null && s == 1)
        {
            final List<String> cycle = new ArrayList<>();
            boolean on = false;
            for (final Iterator<String> it = path.descendingIterator(); it.hasNext();)
            {
                final String p = it.next();
                on |= p.equals(node);
                if (on)
                {
                    cycle.add(p);
                }
            }
            cycle.add(node);
            return cycle;
        }
        state.put(node, 1);
        path.push(node);
        for (final String next : edges.getOrDefault(node, Set.of()))
        {
            final List<String> cycle = visit(next, edges, state, path);
            if (!cycle.isEmpty())
            {
                return cycle;
            }
        }
        path.pop();
        state.put(node, 2);
        return List.of();
    }

    private static List<Path> mainSources() throws IOException
    {
        try (Stream<Path> files = Files.walk(ProjectCheckstyle.root().resolve("core/src/main/java/io/sluice/core")))
        {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

}
