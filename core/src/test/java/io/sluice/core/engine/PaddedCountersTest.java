package io.sluice.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.sluice.core.scatter.ScatterStats;
import io.sluice.core.stage.PaddedAtomicLong;
import io.sluice.core.stage.PipelineStats;

/**
 * The padded counter keeps 128 bytes between its value and whatever follows it on the heap, and every counter of
 * the stats objects that several threads write is one.
 */
class PaddedCountersTest
{
    @Test
    void shouldKeepTheNextObject128BytesFromTheValue() throws Exception
    {
        final long value = offset(AtomicLong.class.getDeclaredField("value"));
        long last = value;
        for (final Field f : PaddedAtomicLong.class.getDeclaredFields())
        {
            if (!Modifier.isStatic(f.getModifiers()))
            {
                last = Math.max(last, offset(f));
            }
        }
        // the next object starts after the last padding long ends
        assertTrue(last + Long.BYTES - (value + Long.BYTES) >= 128, "padding after the value: value at " + value
            + ", last padding long at " + last);
    }

    @Test
    void shouldCountLikeAnAtomicLong()
    {
        final PaddedAtomicLong c = new PaddedAtomicLong();
        assertEquals(1, c.incrementAndGet());
        assertEquals(11, c.addAndGet(10));
        c.lazySet(c.get() + 1);
        assertEquals(12, c.get());
        ScatterStats.increment(c);
        assertEquals(13, c.get());
    }

    @Test
    void shouldPadEveryCounterOfTheStats()
    {
        for (final Class<?> type : new Class<?>[]{PipelineStats.class, ScatterStats.class})
        {
            int counters = 0;
            for (final Field f : type.getFields())
            {
                if (AtomicLong.class.isAssignableFrom(f.getType()))
                {
                    assertEquals(PaddedAtomicLong.class, f.getType(), type.getSimpleName() + "." + f.getName());
                    counters++;
                }
            }
            assertTrue(counters > 5, type.getSimpleName() + " has " + counters + " counters");
        }
    }

    private static long offset(final Field field) throws Exception
    {
        final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        final Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        final Method objectFieldOffset = unsafeClass.getMethod("objectFieldOffset", Field.class);
        return (long)objectFieldOffset.invoke(theUnsafe.get(null), field);
    }
}
