package io.sluice.engine;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.jar.Manifest;

import picocli.CommandLine.IVersionProvider;

/**
 * {@code --version}: the version from the pom and the git commit engine.jar was built from, as the build wrote them
 * into the jar's manifest ({@code Implementation-Version}, {@code Sluice-Git-Commit}; the commit ends in
 * {@code -dirty} when tracked files had uncommitted changes), and the Java that runs it. Outside a packaged jar (tests
 * run from classes) it says so.
 */
public final class Version implements IVersionProvider
{
    /** Manifest attribute holding the git commit (empty when not built from a git checkout). */
    static final String COMMIT_ATTRIBUTE = "Sluice-Git-Commit";

    @Override
    public String[] getVersion()
    {
        return new String[]{line(manifest())};
    }

    /**
     * @param manifest the engine jar's manifest, or null when not running from one
     * @return e.g. {@code Sluice 0.1.0 (git 3690bfc1a2b3) on Java 17.0.15}
     */
    static String line(final Manifest manifest)
    {
        final String version = manifest == null
            ? null
            : manifest.getMainAttributes().getValue("Implementation-Version");
        final String commit = manifest == null ? null : manifest.getMainAttributes().getValue(COMMIT_ATTRIBUTE);
        return "Sluice " + (version == null ? "(development build, not packaged)" : version)
            + (version == null
                ? ""
                : commit == null || commit.isBlank()
                    ? " (git commit unknown: not built from a git checkout)"
                    : " (git " + commit + ")")
            + " on Java " + System.getProperty("java.version");
    }

    /** @return the manifest of the jar this class was loaded from, or null */
    static Manifest manifest()
    {
        final URL self = Version.class.getResource(Version.class.getSimpleName() + ".class");
        if (self == null || !"jar".equals(self.getProtocol()))
        {
            return null;
        }
        final String s = self.toString();
        try (InputStream in = new URL(s.substring(0, s.indexOf("!/") + 2) + "META-INF/MANIFEST.MF").openStream())
        {
            return new Manifest(in);
        }
        catch (final IOException e)
        {
            return null;
        }
    }
}
