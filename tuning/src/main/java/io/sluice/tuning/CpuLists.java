package io.sluice.tuning;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Reads and writes Linux cpu lists, the {@code Cpus_allowed_list} format of {@code /proc/<pid>/status} and of
 * {@code taskset -c}: comma-separated cpu numbers and inclusive ranges, for example {@code 0-3,8,10-11}.
 * Stateless; thread-safe.
 */
final class CpuLists
{
    private CpuLists()
    {
    }

    /**
     * Parses a cpu list.
     *
     * @param list for example {@code "0-3,8"}; surrounding white space is ignored.
     * @return the cpus, ascending, without duplicates.
     * @throws IllegalArgumentException if {@code list} is empty or malformed.
     */
    static int[] parse(final String list)
    {
        final String trimmed = list.trim();
        if (trimmed.isEmpty())
        {
            throw new IllegalArgumentException("empty cpu list");
        }

        final BitSet cpus = new BitSet();
        for (final String part : trimmed.split(","))
        {
            final String p = part.trim();
            final int dash = p.indexOf('-');
            try
            {
                if (dash < 0)
                {
                    cpus.set(Integer.parseInt(p));
                }
                else
                {
                    final int from = Integer.parseInt(p.substring(0, dash));
                    final int to = Integer.parseInt(p.substring(dash + 1));
                    if (from > to)
                    {
                        throw new IllegalArgumentException("bad cpu range \"" + p + "\" in \"" + list + '"');
                    }
                    cpus.set(from, to + 1);
                }
            }
            catch (final NumberFormatException | IndexOutOfBoundsException e)
            {
                throw new IllegalArgumentException("bad cpu list \"" + list + '"', e);
            }
        }

        return cpus.stream().toArray();
    }

    /**
     * Formats cpus as a cpu list, collapsing runs into ranges.
     *
     * @param cpus cpu numbers in any order, duplicates allowed.
     * @return for example {@code "0-3,8"}; {@code ""} for no cpus.
     */
    static String format(final int[] cpus)
    {
        final int[] sorted = Arrays.stream(cpus).distinct().sorted().toArray();
        final StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < sorted.length)
        {
            int j = i;
            while (j + 1 < sorted.length && sorted[j + 1] == sorted[j] + 1)
            {
                j++;
            }
            if (sb.length() > 0)
            {
                sb.append(',');
            }
            sb.append(sorted[i]);
            if (j > i)
            {
                sb.append('-').append(sorted[j]);
            }
            i = j + 1;
        }
        return sb.toString();
    }

    /**
     * Whether {@code cpu} is in {@code cpus}.
     *
     * @param cpus ascending cpu numbers, as {@link #parse} returns them.
     * @param cpu  the cpu to look for.
     * @return true if present.
     */
    static boolean contains(final int[] cpus, final int cpu)
    {
        return Arrays.binarySearch(cpus, cpu) >= 0;
    }
}
