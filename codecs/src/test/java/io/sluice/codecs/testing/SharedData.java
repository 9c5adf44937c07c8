package io.sluice.codecs.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Locates the project's read-only {@code shared/} folder: the system property {@code sluice.shared.dir} if set,
 * else the first {@code shared} folder holding {@code data/} found walking up from {@code user.dir} (a worktree at
 * {@code /work/wt/codecs} finds {@code /work/shared}).
 */
public final class SharedData
{
    private SharedData()
    {
    }

    /**
     * The shared folder.
     *
     * @return its path.
     * @throws IllegalStateException if it cannot be found.
     */
    public static Path sharedDir()
    {
        final String property = System.getProperty("sluice.shared.dir");
        if (property != null && !property.isEmpty())
        {
            return Paths.get(property);
        }
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null)
        {
            final Path candidate = dir.resolve("shared");
            if (Files.isDirectory(candidate.resolve("data")))
            {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("cannot find shared/data above " + System.getProperty("user.dir") +
            "; set -Dsluice.shared.dir");
    }

    /**
     * The JSONTestSuite {@code test_parsing} folder.
     *
     * @return its path.
     */
    public static Path jsonTestSuite()
    {
        return sharedDir().resolve("data/JSONTestSuite/test_parsing");
    }

    /**
     * Every line of every GH Archive file, as UTF-8 bytes: the project copy {@code examples/data/github-events.jsonl.gz}
     * if it exists, else the shared {@code data/gharchive/*.jsonl.gz}.
     *
     * @return the records.
     */
    public static List<byte[]> githubEvents()
    {
        final List<Path> files = new ArrayList<>();
        final Path sharedParent = sharedDir().getParent();
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null)
        {
            final Path example = dir.resolve("examples/data/github-events.jsonl.gz");
            if (Files.isRegularFile(example))
            {
                files.add(example);
                break;
            }
            dir = dir.getParent();
        }
        if (files.isEmpty())
        {
            try (var stream = Files.list(sharedDir().resolve("data/gharchive")))
            {
                stream.filter(p -> p.getFileName().toString().endsWith(".jsonl.gz")).sorted().forEach(files::add);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        final List<byte[]> records = new ArrayList<>();
        for (final Path file : files)
        {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = reader.readLine()) != null)
                {
                    if (!line.isEmpty())
                    {
                        records.add(line.getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        if (records.isEmpty())
        {
            throw new IllegalStateException("no GitHub events found under " + sharedParent);
        }
        return records;
    }
}
