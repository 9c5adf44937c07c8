package io.sluice.core.stage;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A latency histogram the record path can write to without allocating: an HdrHistogram {@link Recorder} (wait-free
 * for writers) with a fixed range, values clamped into it. A Recorder that auto-resizes allocates a larger array the
 * first time a value exceeds its range, which is exactly when the engine is under stress; this one never does.
 *
 * <p>Thread-safety: {@link #record(long)} from any number of threads; {@link #interval()} from one reader thread
 * at a time.
 */
public final class LatencyRecorder
{
    private final Recorder recorder;
    private final long highest;
    /** The interval histogram the reader got last; handed back to the recorder for reuse. */
    private Histogram interval;

    /**
     * @param highest largest value kept (larger values are recorded as this), in the recorder's unit
     */
    public LatencyRecorder(final long highest)
    {
        this.highest = highest;
        this.recorder = new Recorder(highest, 3);
    }

    /**
     * @param value a latency in the recorder's unit; negative values count as 0, values above the range as its top
     */
    public void record(final long value)
    {
        recorder.recordValue(value < 0 ? 0 : value > highest ? highest : value);
    }

    /**
     * The values recorded since the previous call, in a histogram this recorder reuses from call to call (HdrHistogram's
     * interval recycling), so that reading allocates nothing after the first call.
     *
     * @return the interval's values, valid until the next call (one reader thread at a time)
     */
    public Histogram interval()
    {
        interval = recorder.getIntervalHistogram(interval);
        return interval;
    }

    /** @return the largest value kept */
    public long highest()
    {
        return highest;
    }
}
