package io.sluice.core.gather.split;

import io.sluice.ringbuffers.RecordEvent;

/**
 * Turns a record in its ring slot into the view a {@link SplitClassifier} reads, once per record, on the route stage
 * thread. Must not allocate per record.
 *
 * @param <T> the view type
 */
public interface RecordDecoder<T>
{
    /**
     * @param event the record (value, key, headers, coordinates)
     * @return the view, or {@code null} when the record cannot be decoded; {@link #error()} then says why
     */
    T decode(RecordEvent event);

    /** @return why the last {@link #decode} returned null (may be computed on demand) */
    String error();
}
