/**
 * Names on both sides of the engine: turning a routing template and a record's value into a legal Kafka topic
 * name (scatter), and turning a topic into a ClickHouse database or table identifier (gather).
 *
 * <ul>
 *   <li>{@link io.sluice.core.naming.RoutingTemplate} renders a source's topic template with its {@code {value}}
 *       placeholder; {@link io.sluice.core.naming.TopicNameSanitizer} turns the rendered bytes into a topic name
 *       that Kafka accepts, or reports the name as missing. Both are zero-allocation and meant for the hot path.</li>
 *   <li>{@link io.sluice.core.naming.DestinationTemplate} resolves a sink's {@code target_table} or
 *       {@code database} template ({@code {topic}}, {@code {topic_segment[n]}}) against a topic, once per topic;
 *       {@link io.sluice.core.naming.IdentifierPolicy} rewrites or keeps the result, and
 *       the sink kind (its provider) quotes every identifier that goes into a statement.</li>
 * </ul>
 *
 * <p>All classes here are stateless or immutable and safe to share between threads. The rules and the decisions
 * behind them are written up in {@code docs/naming.md}.
 */
package io.sluice.core.naming;
