package io.sluice.core.config;

/**
 * What a pipeline does with a record that reaches no branch (the unmatched policy) or that cannot be written
 * (the record error policy), as seed 001 ("Multi-sink split") defines it.
 */
public enum ErrorPolicy
{
    /** The pipeline stops with the reason; nothing is committed past the record. The operator default. */
    FAIL,
    /** The record is dropped, its ack share released as success, and counted in records_dropped_total. */
    SKIP;

    /**
     * @param configValue {@code "fail"} or {@code "skip"}
     * @return the policy
     * @throws IllegalArgumentException for any other value
     */
    public static ErrorPolicy parse(final String configValue)
    {
        return switch (configValue)
        {
            case "fail" -> FAIL;
            case "skip" -> SKIP;
            default -> throw new IllegalArgumentException("expected \"fail\" or \"skip\", got \"" + configValue + "\"");
        };
    }
}
