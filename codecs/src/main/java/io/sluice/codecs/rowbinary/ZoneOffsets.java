package io.sluice.codecs.rowbinary;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;

/**
 * A time zone's UTC offsets flattened into arrays at construction (from {@code java.time}'s rules, 1900 to 2300), so
 * that converting a local date-time to an instant allocates nothing.
 *
 * <p>Local times that do not exist (in a forward gap) and that exist twice (in a backward overlap) resolve as
 * {@code java.time.LocalDateTime.atZone} does: both use the offset from before the transition. Immutable and
 * thread-safe.
 */
final class ZoneOffsets
{
    static final ZoneOffsets UTC = new ZoneOffsets(ZoneOffset.UTC);

    private static final long FROM = -2208988800L; // 1900-01-01T00:00:00Z
    private static final long UNTIL = 10413792000L; // 2300-01-01T00:00:00Z

    private final int initialOffset;
    /** Local seconds where each transition's ambiguous or missing window starts. */
    private final long[] windowStart;
    /** Local seconds where each transition's window ends; from there on the offset after applies. */
    private final long[] windowEnd;
    private final int[] offsetBefore;
    private final int[] offsetAfter;

    ZoneOffsets(final ZoneId zone)
    {
        final ZoneRules rules = zone.getRules();
        initialOffset = rules.getOffset(Instant.ofEpochSecond(FROM)).getTotalSeconds();
        final List<ZoneOffsetTransition> transitions = new ArrayList<>();
        ZoneOffsetTransition next = rules.nextTransition(Instant.ofEpochSecond(FROM));
        while (next != null && next.getInstant().getEpochSecond() < UNTIL)
        {
            transitions.add(next);
            next = rules.nextTransition(next.getInstant());
        }
        final int n = transitions.size();
        windowStart = new long[n];
        windowEnd = new long[n];
        offsetBefore = new int[n];
        offsetAfter = new int[n];
        for (int i = 0; i < n; i++)
        {
            final ZoneOffsetTransition t = transitions.get(i);
            final long instant = t.getInstant().getEpochSecond();
            offsetBefore[i] = t.getOffsetBefore().getTotalSeconds();
            offsetAfter[i] = t.getOffsetAfter().getTotalSeconds();
            windowStart[i] = instant + Math.min(offsetBefore[i], offsetAfter[i]);
            windowEnd[i] = instant + Math.max(offsetBefore[i], offsetAfter[i]);
        }
    }

    /**
     * The UTC epoch second of a local date-time given as seconds since 1970-01-01T00:00 local.
     *
     * @param localSeconds local seconds.
     * @return UTC epoch seconds.
     */
    long toEpochSecond(final long localSeconds)
    {
        // last transition whose window starts at or before the local time
        int lo = 0;
        int hi = windowStart.length - 1;
        int found = -1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (windowStart[mid] <= localSeconds)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }
        if (found < 0)
        {
            return localSeconds - initialOffset;
        }
        final int offset = localSeconds < windowEnd[found] ? offsetBefore[found] : offsetAfter[found];
        return localSeconds - offset;
    }
}
