package io.sluice.bench.codecs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The real GitHub events the codec benchmarks run on: {@code examples/data/github-events.jsonl.gz}, found walking up
 * from the working directory.
 * Exactly {@link #RECORDS} records are used, cycling through the files if they hold fewer.
 */
final class BenchData
{
    /** Records per benchmark invocation; a constant so that JMH reports time per record. */
    static final int RECORDS = 8192;

    final byte[][] records = new byte[RECORDS][];
    final UnsafeBuffer slab;
    final int[] offsets = new int[RECORDS];
    final int[] lengths = new int[RECORDS];
    final long totalBytes;

    BenchData()
    {
        final List<byte[]> lines = readAll();
        long total = 0;
        for (int i = 0; i < RECORDS; i++)
        {
            records[i] = lines.get(i % lines.size());
            total += records[i].length;
        }
        totalBytes = total;
        slab = new UnsafeBuffer(ByteBuffer.allocateDirect((int)total));
        int at = 0;
        for (int i = 0; i < RECORDS; i++)
        {
            slab.putBytes(at, records[i]);
            offsets[i] = at;
            lengths[i] = records[i].length;
            at += lengths[i];
        }
    }

    static List<Path> files()
    {
        final Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent())
        {
            final Path example = d.resolve("examples/data/github-events.jsonl.gz");
            if (Files.isRegularFile(example))
            {
                return List.of(example);
            }
        }
        throw new IllegalStateException(
            "no GitHub events: examples/data/github-events.jsonl.gz not found above " + dir);
    }

    static List<byte[]> readAll()
    {
        final List<byte[]> lines = new ArrayList<>();
        for (final Path file : files())
        {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = reader.readLine()) != null)
                {
                    if (!line.isEmpty())
                    {
                        lines.add(line.getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        return lines;
    }
}
