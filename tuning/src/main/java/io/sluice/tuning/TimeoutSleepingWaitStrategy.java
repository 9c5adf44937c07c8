package io.sluice.tuning;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * The Disruptor's sleeping wait with a deadline: {@link #RETRIES} polls of which the first hundred spin and the rest
 * yield, then {@code LockSupport.parkNanos(}{@link #PARK_NS}{@code )} between polls (about 60–100 µs on Linux); the
 * clock is read in the yield and park phases and {@link TimeoutException} is thrown when {@code timeoutNs} have
 * passed without the wanted sequence. Never signalled by the producer. Stateless; shareable.
 */
final class TimeoutSleepingWaitStrategy implements WaitStrategy
{
    static final int RETRIES = 200;
    static final int SPIN_TRIES = 100;
    static final long PARK_NS = 100;

    private final long timeoutNs;

    TimeoutSleepingWaitStrategy(final long timeoutNs)
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
        int counter = RETRIES;
        while ((availableSequence = dependentSequence.get()) < sequence)
        {
            barrier.checkAlert();
            if (counter > SPIN_TRIES)
            {
                --counter;
                Thread.onSpinWait();
                continue;
            }

            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw TimeoutException.INSTANCE;
            }

            if (counter > 0)
            {
                --counter;
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(PARK_NS);
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
        return "TimeoutSleepingWaitStrategy{timeoutNs=" + timeoutNs + '}';
    }
}
