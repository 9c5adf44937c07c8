package io.sluice.core.ack;

import static io.sluice.core.ack.AckTracker.ACKED;
import static io.sluice.core.ack.AckTracker.ACK_DUPLICATE;
import static io.sluice.core.ack.AckTracker.ACK_OUT_OF_WINDOW;
import static io.sluice.core.ack.AckTracker.ACK_STALE_GENERATION;
import static io.sluice.core.ack.AckTracker.FAIL_RECORDED;
import static io.sluice.core.ack.AckTracker.FAIL_STALE_GENERATION;
import static io.sluice.core.ack.AckTracker.FAIL_SUPERSEDED;
import static io.sluice.core.ack.AckTracker.REGISTERED;
import static io.sluice.core.ack.AckTracker.WINDOW_FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Drives a tracker with random single-threaded sequences of every operation and compares each result with a plain
 * reference model built from sorted sets.
 */
class AckTrackerModelTest
{
    private static final int SEEDS = 400;
    private static final int OPERATIONS = 3_000;

    private final Map<String, Integer> seen = new TreeMap<>();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchTheReferenceModelForRandomOperationSequences()
    {
        for (int seed = 0; seed < SEEDS; seed++)
        {
            try
            {
                run(seed);
            }
            catch (final AssertionError ex)
            {
                throw new AssertionError("seed " + seed + ": " + ex.getMessage(), ex);
            }
        }

        for (final String outcome : new String[]{
            "register", "window full", "jump", "ack", "ack batch", "duplicate", "out of window", "stale ack",
            "stale fail",
            "fail recorded", "fail superseded", "skip", "reset"})
        {
            assertTrue(seen.getOrDefault(outcome, 0) > 10, "the random runs must exercise " + outcome + ": " + seen);
        }
    }

    private void see(final String outcome)
    {
        seen.merge(outcome, 1, Integer::sum);
    }

    private void run(final long seed)
    {
        final Random random = new Random(seed);
        final int capacity = 64 << random.nextInt(3);
        final long start = random.nextInt(3) == 0 ? 0 : random.nextInt(1_000);
        final AckTracker tracker = new AckTracker("model", 3, start, capacity, () -> 0L);
        final Model model = new Model(capacity, start, tracker.generation());
        long candidate = start;

        for (int op = 0; op < OPERATIONS; op++)
        {
            final int dice = random.nextInt(100);
            final String step = "op " + op + " " + model;
            if (dice < 35)
            {
                if (candidate < model.end)
                {
                    candidate = model.end + gap(random, capacity);
                }
                final boolean jump = model.jumps;
                final int expected = model.register(candidate);
                see(WINDOW_FULL == expected ? "window full" : model.jumps != jump ? "jump" : "register");
                assertEquals(expected, tracker.tryRegister(candidate), step + " register " + candidate);
                if (REGISTERED == expected)
                {
                    candidate = model.end + gap(random, capacity);
                }
            }
            else if (dice < 70)
            {
                final Long offset = pick(random, model.pending);
                if (null != offset)
                {
                    model.pending.remove(offset);
                    model.done.add(offset);
                    assertEquals(ACKED, tracker.ack(offset, model.generation), step + " ack " + offset);
                    see("ack");
                }
            }
            else if (dice < 76)
            {
                final int size = 1 + random.nextInt(24);
                final long[] batch = new long[size + 1];
                int count = 0;
                for (int i = 0; i < size; i++)
                {
                    final Long offset = pick(random, model.pending);
                    if (null == offset)
                    {
                        break;
                    }
                    model.pending.remove(offset);
                    model.done.add(offset);
                    batch[count++] = offset;
                }
                final int fresh = count;
                if (count > 0 && random.nextInt(4) == 0)
                {
                    batch[count] = batch[random.nextInt(count)];
                    count++;
                    model.invalidAcks++;
                }
                if (random.nextBoolean())
                {
                    Arrays.sort(batch, 0, count);
                }
                assertEquals(fresh, tracker.ackAll(batch, 0, count, model.generation), step + " ackAll");
                see("ack batch");
            }
            else if (dice < 85)
            {
                assertEquals(model.advance(), tracker.watermark(), step + " watermark");
                assertEquals(model.end, tracker.registeredEnd(), step + " registeredEnd");
                assertEquals(model.end - model.lastWatermark, tracker.inFlight(), step + " inFlight");
            }
            else if (dice < 89)
            {
                final Long offset = pick(random, model.done);
                if (null != offset)
                {
                    final int expected = (offset >>> 4) < (model.lastWatermark >>> 4)
                        ? ACK_OUT_OF_WINDOW
                        : ACK_DUPLICATE;
                    assertEquals(expected, tracker.ack(offset, model.generation), step + " duplicate ack " + offset);
                    model.invalidAcks++;
                    see(ACK_DUPLICATE == expected ? "duplicate" : "out of window");
                }
            }
            else if (dice < 92)
            {
                if (!model.stale.isEmpty())
                {
                    final long[] stale = model.stale.get(random.nextInt(model.stale.size()));
                    if (random.nextBoolean())
                    {
                        assertEquals(ACK_STALE_GENERATION, tracker.ack(stale[0], (int)stale[1]), step + " stale ack");
                        see("stale ack");
                    }
                    else
                    {
                        assertEquals(FAIL_STALE_GENERATION, tracker.fail(stale[0], (int)stale[1], 1, "stale"),
                            step + " stale fail");
                        see("stale fail");
                    }
                }
            }
            else if (dice < 94)
            {
                final Long offset = pick(random, model.pending);
                if (null != offset)
                {
                    final int expected = model.fail(offset);
                    assertEquals(expected, tracker.fail(offset, model.generation, (int)(long)offset, "r" + offset),
                        step + " fail " + offset);
                    assertEquals(model.lowestFailure, tracker.failedOffset(), step + " failedOffset");
                    assertEquals("r" + model.lowestFailure, tracker.failureReason(), step + " failureReason");
                    see(FAIL_RECORDED == expected ? "fail recorded" : "fail superseded");
                }
            }
            else if (dice < 97)
            {
                final long next = model.end
                    + (random.nextInt(4) == 0 ? random.nextInt(3 * capacity) : random.nextInt(5));
                assertEquals(model.skipTo(next), tracker.trySkipTo(next), step + " skipTo " + next);
                see("skip");
            }
            else if (dice < 98)
            {
                final long to = Math.max(0, model.lastWatermark + random.nextInt(41) - 20);
                tracker.reset(to);
                model.reset(to);
                assertEquals(model.generation, tracker.generation(), step + " generation");
                candidate = to;
                see("reset");
            }
        }

        assertEquals(0, tracker.invalidAcks() - model.invalidAcks, "invalid acks");
    }

    private static long gap(final Random random, final int capacity)
    {
        final int dice = random.nextInt(100);
        if (dice < 70)
        {
            return 0;
        }
        if (dice < 90)
        {
            return 1 + random.nextInt(5);
        }
        if (dice < 98)
        {
            return random.nextInt(capacity);
        }
        return capacity + random.nextInt(4 * capacity);
    }

    private static Long pick(final Random random, final TreeSet<Long> set)
    {
        if (set.isEmpty())
        {
            return null;
        }
        final long low = set.first();
        final long high = set.last();
        final Long chosen = set.ceiling(low + (long)(random.nextDouble() * (high - low + 1)));
        return null == chosen ? set.first() : chosen;
    }

    /**
     * The tracker's specification as sets: pending offsets, done offsets, failures.
     */
    private static final class Model
    {
        final int capacity;
        int generation;
        long lastWatermark;
        long end;
        long lowestFailure = -1;
        long invalidAcks;
        boolean jumps;
        final TreeSet<Long> pending = new TreeSet<>();
        final TreeSet<Long> done = new TreeSet<>();
        final Set<Long> failed = new HashSet<>();
        final List<long[]> stale = new ArrayList<>();

        Model(final int capacity, final long start, final int generation)
        {
            this.capacity = capacity;
            this.generation = generation;
            this.lastWatermark = start;
            this.end = start;
        }

        long advance()
        {
            long limit = end;
            if (lowestFailure >= 0 && lowestFailure < limit)
            {
                limit = lowestFailure;
            }
            long position = lastWatermark;
            while (position < limit && !pending.contains(position) && !failed.contains(position))
            {
                position++;
            }
            lastWatermark = position;
            return position;
        }

        int register(final long offset)
        {
            final int room = room(offset, offset, offset + 1);
            if (REGISTERED != room)
            {
                return room;
            }
            if (lastWatermark == offset && end == offset + 1)
            {
                pending.add(offset);
                return REGISTERED;
            }
            for (long gap = end; gap < offset; gap++)
            {
                done.add(gap);
            }
            pending.add(offset);
            end = offset + 1;
            return REGISTERED;
        }

        int skipTo(final long next)
        {
            if (next <= end)
            {
                return REGISTERED;
            }
            final int room = room(next - 1, next, next);
            if (REGISTERED != room)
            {
                return room;
            }
            if (lastWatermark == next && end == next)
            {
                return REGISTERED;
            }
            for (long gap = end; gap < next; gap++)
            {
                done.add(gap);
            }
            end = next;
            return REGISTERED;
        }

        private int room(final long last, final long jumpWatermark, final long jumpEnd)
        {
            if (last < (lastWatermark & ~15L) + capacity)
            {
                return REGISTERED;
            }
            advance();
            if (last < (lastWatermark & ~15L) + capacity)
            {
                return REGISTERED;
            }
            if (lastWatermark == end && lowestFailure < 0)
            {
                // everything before is done: the whole window moves; offsets jumped over are not acked again
                jumps = !jumps;
                lastWatermark = jumpWatermark;
                end = jumpEnd;
                return REGISTERED;
            }
            return WINDOW_FULL;
        }

        int fail(final long offset)
        {
            pending.remove(offset);
            failed.add(offset);
            if (lowestFailure < 0 || offset < lowestFailure)
            {
                lowestFailure = offset;
                return FAIL_RECORDED;
            }
            return FAIL_SUPERSEDED;
        }

        void reset(final long start)
        {
            for (final long offset : pending)
            {
                stale.add(new long[]{offset, generation});
            }
            for (final long offset : failed)
            {
                stale.add(new long[]{offset, generation});
            }
            generation++;
            lastWatermark = start;
            end = start;
            lowestFailure = -1;
            pending.clear();
            done.clear();
            failed.clear();
        }

        @Override
        public String toString()
        {
            return "model{gen=" + generation + ", w=" + lastWatermark + ", end=" + end + ", fail=" + lowestFailure +
                ", pending=" + pending.size() + "}";
        }
    }
}
