package io.sluice.core;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import com.puppycrawl.tools.checkstyle.Checker;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader;
import com.puppycrawl.tools.checkstyle.PropertiesExpander;
import com.puppycrawl.tools.checkstyle.api.AuditEvent;
import com.puppycrawl.tools.checkstyle.api.AuditListener;
import com.puppycrawl.tools.checkstyle.api.CheckstyleException;

/**
 * The build's own checkstyle run for tests of the build checks: config/checkstyle/checkstyle.xml with the project's
 * import-control and suppressions files, over files a test chooses, and the project root those files live under.
 */
final class ProjectCheckstyle
{
    private ProjectCheckstyle()
    {
    }

    /**
     * @param files the files to check
     * @return one line per violation, {@code file:line: message}, or per file the checker could not read
     * @throws CheckstyleException when the configuration cannot be loaded
     */
    static List<String> violations(final List<File> files) throws CheckstyleException
    {
        final Properties props = new Properties();
        props.setProperty("checkstyle.importcontrol.file",
            root().resolve("config/checkstyle/import-control.xml").toString());
        props.setProperty("checkstyle.suppressions.file",
            root().resolve("config/checkstyle/suppressions.xml").toString());
        final Checker checker = new Checker();
        checker.setModuleClassLoader(Checker.class.getClassLoader());
        checker.configure(ConfigurationLoader.loadConfiguration(
            root().resolve("config/checkstyle/checkstyle.xml").toString(), new PropertiesExpander(props)));
        final List<String> violations = new ArrayList<>();
        checker.addListener(new AuditListener()
        {
            @Override
            public void auditStarted(final AuditEvent event)
            {
            }

            @Override
            public void auditFinished(final AuditEvent event)
            {
            }

            @Override
            public void fileStarted(final AuditEvent event)
            {
            }

            @Override
            public void fileFinished(final AuditEvent event)
            {
            }

            @Override
            public void addError(final AuditEvent event)
            {
                violations.add(event.getFileName() + ":" + event.getLine() + ": " + event.getMessage());
            }

            @Override
            public void addException(final AuditEvent event, final Throwable throwable)
            {
                violations.add(event.getFileName() + ": " + throwable);
            }
        });
        try
        {
            checker.process(files);
        }
        finally
        {
            checker.destroy();
        }
        return violations;
    }

    /** @return the project root: the first directory up from here that holds config/checkstyle/checkstyle.xml */
    static Path root()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("config/checkstyle/checkstyle.xml")))
        {
            dir = dir.getParent();
            if (dir == null)
            {
                throw new IllegalStateException("project root (config/checkstyle/checkstyle.xml) not found");
            }
        }
        return dir;
    }
}
