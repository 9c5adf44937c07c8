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
 * rule refuses an upward import, naming it. Core knows no database (issue 21): the same rule refuses an import of a
 * sink module or a database client, and no ClickHouse-named type appears in core's code
 * ({@link #CLICKHOUSE_NAMES_ALLOWED} is empty).
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
    /** Comments and literals, as {@link #NON_CODE}, but imports are kept (an import names a type too). */
    private static final Pattern CODE_ONLY = Pattern.compile(
        "\"\"\"(?s:.*?)\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\])'|/\\*(?s:.*?)\\*/|//[^\\n]*|^package\\s[^;]*;",
        Pattern.MULTILINE);

    /** A type, class or function named after ClickHouse: {@code ClickHouseType}, {@code clickHouseClient}. */
    private static final Pattern CLICKHOUSE_NAME = Pattern
        .compile("\\b(?:[cC]lick[hH]ouse\\w*|com\\.clickhouse\\b[\\w.]*)");

    /**
     * The files of core whose code may name ClickHouse's types: none (issue 21). The gather JSON encoder that wrote
     * ClickHouse types (its Nested checks, the typed half of the metadata columns, the Native batch) is the ClickHouse
     * sink's, in sinks/ ({@code io.sluice.sinks.clickhouse.json}); nothing is to be added here.
     */
    static final Set<String> CLICKHOUSE_NAMES_ALLOWED = Set.of();

    @Test
    void shouldNameNoClickHouseTypeInCoresCode() throws IOException
    {
        final List<String> offenders = new ArrayList<>();
        final Set<String> stillNaming = new TreeSet<>();
        for (final Path file : mainSources())
        {
            final String relative = ProjectCheckstyle.root().relativize(file).toString().replace('\\', '/');
            final List<String> names = clickHouseNames(Files.readString(file, StandardCharsets.UTF_8));
            if (names.isEmpty())
            {
                continue;
            }
            if (CLICKHOUSE_NAMES_ALLOWED.contains(relative))
            {
                stillNaming.add(relative);
            }
            else
            {
                offenders.add(relative + ": " + names);
            }
        }
        assertEquals(List.of(), offenders, "ClickHouse names in core's code: a kind's own types belong in sinks/");
        // an allow-listed file must exist (a moved file leaves the list); the list is empty since issue 21
        for (final String allowed : CLICKHOUSE_NAMES_ALLOWED)
        {
            assertTrue(Files.isRegularFile(ProjectCheckstyle.root().resolve(allowed)),
                "allow-listed but gone: " + allowed);
        }
        assertTrue(stillNaming.size() <= CLICKHOUSE_NAMES_ALLOWED.size(), stillNaming.toString());
        assertEquals(Set.of(), CLICKHOUSE_NAMES_ALLOWED, "core names no ClickHouse type (issue 21)");
    }

    @Test
    void shouldFindAPlantedClickHouseNameInCodeButNotInCommentsOrStrings()
    {
        final String planted = """
            package io.sluice.core.gather;

            /** Writes rows, as {@link ClickHouseDriver} did. */
            final class Planted
            {
                // ClickHouseType in a comment is fine
                final String text = "ClickHouse's own words, ClickHouseType in a message";
                io.sluice.codecs.rowbinary.ClickHouseType type;
                Object client = com.clickhouse.client.api.Client.class;
            }
            """;
        assertEquals(List.of("ClickHouseType", "com.clickhouse.client.api.Client.class"), clickHouseNames(planted));
        assertEquals(List.of(), clickHouseNames("""
            package io.sluice.core.gather;

            /** The ClickHouse sink's ClickHouseCatalog answers this. */
            final class Clean
            {
                final String s = "com.clickhouse";
            }
            """));
    }

    @Test
    void shouldRefuseASinkModuleOrDatabaseClientImportInCore(@TempDir final Path dir) throws Exception
    {
        final Path driver = dir.resolve("src/main/java/io/sluice/core/gather/Driver.java");
        Files.createDirectories(driver.getParent());
        Files.writeString(driver, """
            package io.sluice.core.gather;

            import io.sluice.sinks.clickhouse.ClickHouseDriver;

            final class Driver
            {
                ClickHouseDriver driver;
            }
            """);
        final Path client = dir.resolve("src/main/java/io/sluice/core/config/Connection.java");
        Files.createDirectories(client.getParent());
        Files.writeString(client, """
            package io.sluice.core.config;

            import com.clickhouse.client.api.Client;

            final class Connection
            {
                Client client;
            }
            """);
        final Path root = dir.resolve("src/main/java/io/sluice/core/Root.java");
        Files.writeString(root, """
            package io.sluice.core;

            import io.sluice.sinks.kafka.KafkaTopicAdmin;

            final class Root
            {
                KafkaTopicAdmin admin;
            }
            """);

        final List<String> violations = ProjectCheckstyle
            .violations(List.of(driver.toFile(), client.toFile(), root.toFile()));
        assertEquals(3, violations.size(), violations.toString());
        assertTrue(violations.stream()
            .anyMatch(v -> v.contains("Disallowed import - io.sluice.sinks.clickhouse.ClickHouseDriver")),
            violations.toString());
        assertTrue(
            violations.stream().anyMatch(v -> v.contains("Disallowed import - com.clickhouse.client.api.Client")),
            violations.toString());
        assertTrue(violations.stream()
            .anyMatch(v -> v.contains("Disallowed import - io.sluice.sinks.kafka.KafkaTopicAdmin")),
            violations.toString());
    }

    /** @return the ClickHouse names in a source's code (imports included; comments and string literals not) */
    static List<String> clickHouseNames(final String source)
    {
        final String code = CODE_ONLY.matcher(source).replaceAll(" ");
        final List<String> names = new ArrayList<>();
        final Matcher m = CLICKHOUSE_NAME.matcher(code);
        while (m.find())
        {
            names.add(m.group());
        }
        return names;
    }

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
