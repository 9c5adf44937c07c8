package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's reference section is generated from {@link ConfigSchema}; this test fails when they
 * differ. Regenerate with {@code mvn -o -B -pl sinks -am test -Dtest=ConfigurationDocTest
 * -Dsluice.updateDocs=true -Dsurefire.failIfNoSpecifiedTests=false} (the test lives in sinks, which installs every
 * kind's keys).
 */
class ConfigurationDocTest
{
    static final String BEGIN = "<!-- BEGIN GENERATED: ConfigSchema.markdown() -->\n";
    static final String END = "<!-- END GENERATED -->";

    @Test
    void shouldDocumentEveryKeyExactlyAsTheSchemaDefinesIt() throws IOException
    {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs/configuration.md")))
        {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "docs/configuration.md not found");
        final Path doc = dir.resolve("docs/configuration.md");
        final String text = Files.readString(doc);
        final int b = text.indexOf(BEGIN);
        final int e = text.indexOf(END);
        assertTrue(b >= 0 && e > b, "generated markers missing in " + doc);
        final String generated = ConfigSchema.markdown();
        final String current = text.substring(b + BEGIN.length(), e);
        if (Boolean.getBoolean("sluice.updateDocs") && !current.equals(generated))
        {
            Files.writeString(doc, text.substring(0, b + BEGIN.length()) + generated + text.substring(e));
            return;
        }
        assertEquals(generated, current, "docs/configuration.md is out of date: rerun with -Dsluice.updateDocs=true");
    }
}
