package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/** The command line refuses what it would otherwise silently reinterpret or ignore. */
class MainTest
{
    private static final String CONFIG = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"
        [[sources]]
        name = "s"
        kind = "stdin"
        [[sources.topics]]
        topic = "t"
        """;

    @TempDir
    Path dir;

    private static int execute(final StringWriter err, final String... args)
    {
        final CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    @Test
    void shouldRefuseTopLevelOptionsBeforeASubcommand() throws IOException
    {
        final Path good = dir.resolve("good.toml");
        Files.writeString(good, CONFIG);
        final StringWriter err = new StringWriter();
        assertEquals(2, execute(err, "--config", dir.resolve("absent.toml").toString(), "check", "--config",
            good.toString()));
        assertTrue(err.toString().contains("--config before the subcommand check"), err.toString());
        assertEquals(2, execute(new StringWriter(), "--until-caught-up", "check", "--config", good.toString()));
        assertEquals(0, execute(new StringWriter(), "check", "--config", good.toString()));
    }

    @Test
    void shouldTakeAnArgumentStartingWithAtLiterally() throws IOException
    {
        final Path good = dir.resolve("good.toml");
        Files.writeString(good, CONFIG);
        final Path names = dir.resolve("names");
        Files.writeString(names, good.toString());
        // with picocli's @file expansion "@names" would become the path written in the file names
        assertEquals(2, execute(new StringWriter(), "check", "--config", "@" + names));
    }
}
