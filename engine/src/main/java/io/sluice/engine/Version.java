package io.sluice.engine;

import picocli.CommandLine.IVersionProvider;

/** Prints the engine version from the jar manifest. */
public final class Version implements IVersionProvider
{
    @Override
    public String[] getVersion()
    {
        final String v = Version.class.getPackage().getImplementationVersion();
        return new String[]{
            "Sluice " + (v == null ? "(development build)" : v) + " on Java " + System.getProperty("java.version")};
    }
}
