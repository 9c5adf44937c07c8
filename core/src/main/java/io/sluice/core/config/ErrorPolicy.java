package io.sluice.core.config;

/**
 * What a pipeline does with a record whose fate a policy decides: one that reaches no branch (the unmatched policy),
 * one that cannot be written (the record error policy), as seed 001 ("Multi-sink split") defines the first two, and
 * the third choice of Kafka Connect's {@code errors.deadletterqueue.topic.name} and ClickHouse's
 * {@code kafka_handle_error_mode = 'dead_letter_queue'}: keep the pipeline flowing and put the record, untouched
 * and with the reason in its headers, into a dead-letter topic (docs/dead-letters.md).
 */
public enum ErrorPolicy
{
    /** The pipeline stops with the reason; nothing is committed past the record. The operator default. */
    FAIL,
    /** The record is dropped, its ack share released as success, and counted in records_dropped_total. */
    SKIP,
    /**
     * The record's key, value and headers go, byte for byte, to the pipeline's {@code dead_letter_topic} with headers
     * that say why; its offset commits only once the broker acknowledged the dead letter, and a dead letter that
     * cannot be written stops its partition (the stall limit applies). Counted in dead_letters_total.
     */
    DEAD_LETTER,
    /**
     * {@code tombstones} only: a tombstone deletes the row its Kafka key names, in the same transaction and in offset
     * order with the rows around it. Allowed only for a sink whose kind deletes rows
     * ({@link SinkKind#deletesRefused}); never a value of {@code on_error} or {@code unmatched}.
     */
    DELETE;

    /** @return the value as the configuration spells it: {@code fail}, {@code skip}, {@code dead_letter} or {@code delete} */
    public String configName()
    {
        return switch (this)
        {
            case FAIL -> "fail";
            case SKIP -> "skip";
            case DEAD_LETTER -> "dead_letter";
            case DELETE -> "delete";
        };
    }

    /**
     * @param configValue {@code "fail"}, {@code "skip"}, {@code "dead_letter"} or {@code "delete"} (the key's allowed
     *                    values say which a key takes)
     * @return the policy
     * @throws IllegalArgumentException for any other value
     */
    public static ErrorPolicy parse(final String configValue)
    {
        return switch (configValue)
        {
            case "fail" -> FAIL;
            case "skip" -> SKIP;
            case "dead_letter" -> DEAD_LETTER;
            case "delete" -> DELETE;
            default -> throw new IllegalArgumentException(
                "expected \"fail\", \"skip\", \"dead_letter\" or \"delete\", got \"" + configValue + "\"");
        };
    }
}
