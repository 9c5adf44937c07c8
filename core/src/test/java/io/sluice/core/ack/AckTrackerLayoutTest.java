package io.sluice.core.ack;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fields that different threads write sit at least 128 bytes apart (two cache lines, so the adjacent-line
 * prefetcher does not couple them either), and at least 128 bytes from the neighbouring heap objects.
 */
class AckTrackerLayoutTest
{
    private static final long SEPARATION = 128;

    @Test
    void shouldKeepFieldsWrittenByDifferentThreadsOnSeparateCacheLines() throws Exception
    {
        final long[] readMostly = offsets("generation", "failure", "slots", "nanoClock");
        final long[] source = offsets(
            "watermark", "registeredEnd", "lastProgressNanos", "progressStampPending");
        final long[] counters = offsets("staleAcks", "invalidAcks");

        assertApart(readMostly, source, "read-mostly vs source fields");
        assertApart(source, counters, "source fields vs counters");
        assertApart(readMostly, counters, "read-mostly vs counters");

        assertTrue(min(readMostly) >= SEPARATION, "left padding: first field at " + min(readMostly));
        final long lastPad = max(allOffsets(AckTracker.class));
        assertTrue(lastPad - max(counters) >= SEPARATION - 1, "right padding ends at " + lastPad);
    }

    private static void assertApart(final long[] a, final long[] b, final String what)
    {
        for (final long x : a)
        {
            for (final long y : b)
            {
                assertTrue(Math.abs(x - y) >= SEPARATION, what + ": fields at " + x + " and " + y);
            }
        }
    }

    /**
     * Offsets of instance fields declared anywhere in the tracker's padding-by-inheritance chain.
     */
    private static long[] offsets(final String... names) throws Exception
    {
        final long[] offsets = new long[names.length];
        for (int i = 0; i < names.length; i++)
        {
            offsets[i] = fieldOffset(field(names[i]));
        }
        return offsets;
    }

    private static Field field(final String name) throws NoSuchFieldException
    {
        for (Class<?> type = AckTracker.class; null != type; type = type.getSuperclass())
        {
            for (final Field field : type.getDeclaredFields())
            {
                if (field.getName().equals(name))
                {
                    return field;
                }
            }
        }
        throw new NoSuchFieldException(name);
    }

    private static long[] allOffsets(final Class<?> type) throws Exception
    {
        final Field[] fields = type.getDeclaredFields();
        final long[] offsets = new long[fields.length];
        int count = 0;
        for (final Field field : fields)
        {
            if (!Modifier.isStatic(field.getModifiers()))
            {
                offsets[count++] = fieldOffset(field);
            }
        }
        return Arrays.copyOf(offsets, count);
    }

    private static long fieldOffset(final Field field) throws Exception
    {
        final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        final Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        final Method objectFieldOffset = unsafeClass.getMethod("objectFieldOffset", Field.class);
        return (long)objectFieldOffset.invoke(theUnsafe.get(null), field);
    }

    private static long min(final long[] values)
    {
        long min = Long.MAX_VALUE;
        for (final long value : values)
        {
            min = Math.min(min, value);
        }
        return min;
    }

    private static long max(final long[] values)
    {
        long max = Long.MIN_VALUE;
        for (final long value : values)
        {
            max = Math.max(max, value);
        }
        return max;
    }
}
