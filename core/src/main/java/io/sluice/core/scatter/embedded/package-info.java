/**
 * The host application's entry point to scatter (seed 000's Java API):
 * {@link io.sluice.core.scatter.embedded.ScatterRouter} opens a source of {@code kind = "embedded"} and offers records
 * from the application's own threads; each one is routed and produced like any other, and its listener hears exactly
 * once whether it is in Kafka. {@code offer} never blocks and allocates nothing; a full ring is a return code.
 */
package io.sluice.core.scatter.embedded;
