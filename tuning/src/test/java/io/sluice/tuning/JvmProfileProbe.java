package io.sluice.tuning;

/**
 * Run in a child JVM by {@link JvmProfileTest}: prints what {@link JvmProfile} sees in that JVM.
 */
final class JvmProfileProbe
{
    private JvmProfileProbe()
    {
    }

    public static void main(final String[] args)
    {
        System.out.println("missing=" + JvmProfile.missingRecommendedFlags());
        System.out.println("runtime=" + JvmProfile.describeRuntime());
    }
}
