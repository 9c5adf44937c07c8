package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.tuning.JvmProfile;

/**
 * One list of the JVM flags Agrona and Chronicle need: the parent pom's {@code sluice.jvm.flags}, as the build filled
 * it into {@link JvmProfile#requiredFlags()}. Everything else that starts a JVM must grant exactly those: the test
 * runner (this JVM got them through surefire/failsafe's argLine), {@code engine.jar}'s manifest ({@code Add-Exports},
 * {@code Add-Opens}; Main sets the {@code -D} flag itself), the scripts ({@code scripts/lib/jvm-flags.sh}) and the
 * release's launcher (bin/sluice, filtered from the same property; DistributionIT runs it).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
final class JvmFlagsIT
{
    private static final Pattern SCRIPT_FLAGS = Pattern.compile("SLUICE_JVM_FLAGS=\"([^\"]*)\"", Pattern.DOTALL);

    @Test
    void shouldGiveTheManifestExactlyTheRequiredExportsAndOpens() throws IOException
    {
        final List<String> required = JvmProfile.requiredFlags();
        try (JarFile jar = new JarFile(TestServices.projectRoot().resolve("engine/target/engine.jar").toFile()))
        {
            final Attributes main = jar.getManifest().getMainAttributes();
            assertEquals(packages(required, "--add-exports="), words(main.getValue("Add-Exports")),
                "engine.jar's Add-Exports against sluice.jvm.flags");
            assertEquals(packages(required, "--add-opens="), words(main.getValue("Add-Opens")),
                "engine.jar's Add-Opens against sluice.jvm.flags");
        }
        final List<String> properties = required.stream().filter(f -> f.startsWith("-D")).toList();
        assertEquals(List.of("-Dchronicle.analytics.disable=true"), properties,
            "Main sets the system properties of the list itself; a new one must be set there too");
        final String mainSource = Files.readString(
            TestServices.projectRoot().resolve("engine/src/main/java/io/sluice/engine/Main.java"));
        assertTrue(mainSource.contains("System.setProperty(\"chronicle.analytics.disable\", \"true\")"), mainSource);
    }

    @Test
    void shouldGiveTheScriptsAndTheTestRunnerTheSameList() throws IOException
    {
        final List<String> required = JvmProfile.requiredFlags();
        final String script = Files.readString(TestServices.projectRoot().resolve("scripts/lib/jvm-flags.sh"));
        final Matcher m = SCRIPT_FLAGS.matcher(script);
        assertTrue(m.find(), "SLUICE_JVM_FLAGS in scripts/lib/jvm-flags.sh");
        assertEquals(required, List.of(m.group(1).replace("\\\n", " ").trim().split("\\s+")),
            "scripts/lib/jvm-flags.sh against sluice.jvm.flags");

        final List<String> mine = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        assertTrue(mine.containsAll(required), "the test runner's JVM lacks some of " + required + ": " + mine);
    }

    @Test
    void shouldGiveTheReleaseLauncherTheSameList() throws IOException
    {
        final Path source = TestServices.projectRoot().resolve("dist/src/main/dist/bin/sluice");
        assertTrue(Files.readString(source).contains("@SLUICE_JVM_FLAGS@"),
            "bin/sluice takes its flags from the build (dist/pom.xml: SLUICE_JVM_FLAGS = ${sluice.jvm.flags})");
        final String pom = Files.readString(TestServices.projectRoot().resolve("dist/pom.xml"));
        assertTrue(pom.contains("<SLUICE_JVM_FLAGS>${sluice.jvm.flags}</SLUICE_JVM_FLAGS>"), pom);
    }

    private static TreeSet<String> packages(final List<String> flags, final String prefix)
    {
        final TreeSet<String> out = new TreeSet<>();
        for (final String f : flags)
        {
            if (f.startsWith(prefix))
            {
                final String target = f.substring(prefix.length());
                assertTrue(target.endsWith("=ALL-UNNAMED"), f);
                out.add(target.substring(0, target.length() - "=ALL-UNNAMED".length()));
            }
        }
        return out;
    }

    private static TreeSet<String> words(final String value)
    {
        return new TreeSet<>(value == null ? List.of() : Arrays.asList(value.trim().split("\\s+")));
    }
}
