package io.sluice.core.scatter;

/**
 * Learns what became of each record offered through the embedded API ({@code ScatterRouter#offer}): called exactly
 * once per accepted offer. Implementations must be thread-safe, quick and must not block: they run on the
 * engine's internal threads (the producer's I/O thread for {@link #onDelivered}, the route or produce stage for a
 * record that could not be routed).
 */
public interface DeliveryListener
{
    /**
     * The record is in Kafka: the broker acknowledged it with {@code acks=all}.
     *
     * @param correlationId the id given to {@code offer}
     * @param topic         the topic it was produced to
     */
    void onDelivered(long correlationId, String topic);

    /**
     * The record is not in Kafka and will not be retried by the engine: its value was missing and the rule has no
     * fallback, its topic does not exist or could not be created, or the producer gave up. Offer it again (after
     * fixing the cause) if it must arrive.
     *
     * @param correlationId the id given to {@code offer}
     * @param reason        what went wrong, naming the rule, path or topic
     */
    void onFailed(long correlationId, String reason);
}
