package io.sluice.core.deadletter;

/**
 * Why a record became a dead letter: the {@code reason} label of {@code sluice_dead_letters_total} and the value of
 * the {@value DeadLetterHeaders#REASON} header. The gather reasons are the ones {@code records_dropped_total} uses
 * for the same records under {@code skip}.
 */
public enum DeadLetterReason
{
    /** Gather, {@code on_error}: malformed JSON, a value that does not convert, a record above max_record_bytes. */
    INVALID("invalid"),
    /** Gather, {@code unmatched}: no branch takes the record. */
    UNROUTED("unrouted"),
    /** Gather, {@code tombstones}: a record with a null value. */
    TOMBSTONE("tombstone"),
    /** Gather, {@code on_error}: ClickHouse refused the batch for its data (a permanent, record-caused error). */
    INSERT("insert"),
    /** Scatter, {@code on_error}: the routing rule found no value (or no topic) and has no fallback. */
    ROUTING("routing"),
    /** Scatter, {@code on_error}: the broker refused the record for good. */
    PRODUCE("produce");

    private final String label;

    DeadLetterReason(final String label)
    {
        this.label = label;
    }

    /** @return the label value, e.g. {@code invalid} */
    public String label()
    {
        return label;
    }
}
