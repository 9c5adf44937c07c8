package io.sluice.codecs.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * The real data the codec tests run on, all inside the project so that a clone needs nothing beside it: the
 * JSONTestSuite vectors bundled as test resources ({@code jsontestsuite/}, see its PROVENANCE.md) and the GitHub
 * events sample shipped with the examples ({@code examples/data/github-events.jsonl.gz}).
 */
public final class TestData
{
    private TestData()
    {
    }

    /**
     * The JSONTestSuite {@code test_parsing} folder, as copied to the test classpath.
     *
     * @return its path.
     * @throws IllegalStateException if the test resources were not copied.
     */
    public static Path jsonTestSuite()
    {
        final URL url = TestData.class.getResource("/jsontestsuite/test_parsing");
        if (url == null)
        {
            throw new IllegalStateException("jsontestsuite/test_parsing is not on the test classpath " +
                "(codecs/src/test/resources/jsontestsuite)");
        }
        try
        {
            return Paths.get(url.toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Every non-empty line of {@code examples/data/github-events.jsonl.gz} (found walking up from {@code user.dir}),
     * as UTF-8 bytes.
     *
     * @return the records, in file order.
     * @throws IllegalStateException if the sample cannot be found or is empty.
     */
    public static List<byte[]> githubEvents()
    {
        Path file = null;
        for (Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); dir != null
            && file == null; dir = dir.getParent())
        {
            final Path candidate = dir.resolve("examples/data/github-events.jsonl.gz");
            if (Files.isRegularFile(candidate))
            {
                file = candidate;
            }
        }
        if (file == null)
        {
            throw new IllegalStateException("examples/data/github-events.jsonl.gz not found above " +
                System.getProperty("user.dir"));
        }
        final List<byte[]> records = new ArrayList<>();
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
        if (records.isEmpty())
        {
            throw new IllegalStateException(file + " holds no records");
        }
        return records;
    }
}
