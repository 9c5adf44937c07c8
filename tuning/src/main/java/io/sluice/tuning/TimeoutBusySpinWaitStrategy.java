package io.sluice.tuning;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

/**
 * The Disruptor's busy spin with a deadline: spins on the dependent sequence and throws {@link TimeoutException}
 * when {@code timeoutNs} have passed without the wanted sequence, so the event processor calls {@code onTimeout}.
 * The clock is read once every {@link #SPINS_PER_CLOCK_READ} spins, not on the fast path. Stateless; shareable.
 */
final class TimeoutBusySpinWaitStrategy implements WaitStrategy
{
    static final int SPINS_PER_CLOCK_READ = 64;

    private final long timeoutNs;

    TimeoutBusySpinWaitStrategy(final long timeoutNs)
    {
        if (timeoutNs <= 0)
        {
            throw new IllegalArgumentException("timeoutNs must be > 0: " + timeoutNs);
        }
        this.timeoutNs = timeoutNs;
    }

    @Override
    public long waitFor(
        final long sequence, final Sequence cursor, final Sequence dependentSequence, final SequenceBarrier barrier)
        throws AlertException, TimeoutException
    {
        long availableSequence = dependentSequence.get();
        if (availableSequence >= sequence)
        {
            return availableSequence;
        }

        final long deadlineNs = System.nanoTime() + timeoutNs;
        int spins = SPINS_PER_CLOCK_READ;
        while ((availableSequence = dependentSequence.get()) < sequence)
        {
            barrier.checkAlert();
            if (--spins == 0)
            {
                if (System.nanoTime() - deadlineNs >= 0)
                {
                    throw TimeoutException.INSTANCE;
                }
                spins = SPINS_PER_CLOCK_READ;
            }
            Thread.onSpinWait();
        }

        return availableSequence;
    }

    @Override
    public void signalAllWhenBlocking()
    {
    }

    @Override
    public String toString()
    {
        return "TimeoutBusySpinWaitStrategy{timeoutNs=" + timeoutNs + '}';
    }
}
