package io.sluice.tuning;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JvmProfileTest
{
    private static final long SMALL_HEAP = 64L << 20;

    /** Runs this JVM's java launcher with {@code args}; returns exit code and merged output. */
    private static String[] runJava(final List<String> args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(args);
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "child JVM did not end");
        return new String[]{Integer.toString(process.exitValue()), output};
    }

    @Test
    void shouldNotListRemovedOrDeprecatedFlags()
    {
        for (final String flag : JvmProfile.recommendedFlags())
        {
            assertFalse(flag.contains("BiasedLocking"), flag);
            assertFalse(flag.contains("ConcMarkSweep"), flag);
            assertFalse(flag.contains("AggressiveOpts"), flag);
            assertFalse(flag.contains("UseParNewGC"), flag);
        }
    }

    @Test
    void shouldRecommendALowPauseCollectorAndPreTouch()
    {
        final List<String> flags = JvmProfile.recommendedFlags();
        assertTrue(flags.contains("-XX:+UseG1GC"));
        assertTrue(flags.contains("-XX:MaxGCPauseMillis=10"));
        assertTrue(flags.contains("-XX:+AlwaysPreTouch"));
        assertTrue(flags.contains("-Dagrona.disable.bounds.checks=true"));
    }

    @Test
    void shouldBeAcceptedByThisJvmWithoutWarnings() throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(JvmProfile.recommendedFlags(SMALL_HEAP));
        args.add("-version");
        final String[] result = runJava(args);
        assertEquals("0", result[0], result[1]);
        assertFalse(result[1].toLowerCase(Locale.ROOT).contains("warning"), result[1]);
        assertFalse(result[1].contains("Unrecognized"), result[1]);
    }

    @Test
    void shouldFindNothingMissingInAJvmStartedWithTheFlags() throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(JvmProfile.recommendedFlags(SMALL_HEAP));
        args.add("-cp");
        args.add(System.getProperty("java.class.path"));
        args.add(JvmProfileProbe.class.getName());
        final String[] result = runJava(args);
        assertEquals("0", result[0], result[1]);
        assertTrue(result[1].contains("missing=[]"), result[1]);
        assertTrue(result[1].contains("GC: G1 Young Generation"), result[1]);
        assertTrue(result[1].contains("heap: 64 MiB initial, 64 MiB max"), result[1]);
        assertTrue(result[1].contains("agrona bounds checks: off"), result[1]);
    }

    @Test
    void shouldReportFlagsThisJvmIsMissing()
    {
        // the test JVM runs without pre-touch and without the agrona property
        final List<String> missing = JvmProfile.missingRecommendedFlags();
        assertTrue(missing.contains("-XX:+AlwaysPreTouch"), missing.toString());
        assertTrue(missing.contains("-Dagrona.disable.bounds.checks=true"), missing.toString());
    }

    @Test
    void shouldSizeTheHeapWithEqualMinimumAndMaximum()
    {
        final List<String> flags = JvmProfile.recommendedFlags(4L << 30);
        assertEquals("-Xms4g", flags.get(0));
        assertEquals("-Xmx4g", flags.get(1));
        assertTrue(flags.containsAll(JvmProfile.recommendedFlags()));
        assertEquals("-Xms1536m", JvmProfile.recommendedFlags(1536L << 20).get(0));
        assertEquals("-Xms1000", JvmProfile.recommendedFlags(1000).get(0));
        assertThrows(IllegalArgumentException.class, () -> JvmProfile.recommendedFlags(0));
    }

    @Test
    void shouldDescribeTheRuntimeOnOneLine()
    {
        final String line = JvmProfile.describeRuntime();
        assertTrue(line.startsWith("Java " + System.getProperty("java.version") + " ("), line);
        assertTrue(line.contains("; GC: "), line);
        assertTrue(line.contains(" max; agrona bounds checks: on"), line);
        assertFalse(line.contains("\n"), line);
    }
}
