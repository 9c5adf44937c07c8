package io.sluice.tuning;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

/**
 * The Disruptor's yielding wait with a deadline: spins {@link #SPIN_TRIES} times, then calls {@link Thread#yield()}
 * between polls, reading the clock at each yield, and throws {@link TimeoutException} when {@code timeoutNs} have
 * passed without the wanted sequence. Stateless; shareable.
 */
final class TimeoutYieldingWaitStrategy implements WaitStrategy
{
    static final int SPIN_TRIES = 100;

    private final long timeoutNs;

    TimeoutYieldingWaitStrategy(final long timeoutNs)
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
        int counter = SPIN_TRIES;
        while ((availableSequence = dependentSequence.get()) < sequence)
        {
            barrier.checkAlert();
            if (counter == 0)
            {
                if (System.nanoTime() - deadlineNs >= 0)
                {
                    throw TimeoutException.INSTANCE;
                }
                Thread.yield();
            }
            else
            {
                --counter;
                Thread.onSpinWait();
            }
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
        return "TimeoutYieldingWaitStrategy{timeoutNs=" + timeoutNs + '}';
    }
}
