/**
 * Dead letters, for both directions: a record whose fate a {@code dead_letter} policy decides goes, key, value and
 * headers byte for byte, to the pipeline's dead-letter topic with headers that say why ({@link DeadLetterHeaders}),
 * through one idempotent producer per pipeline ({@link DeadLetters}); its offset is acknowledged only once the broker
 * acknowledged the dead letter. A layer below the sources, gather and scatter (config/checkstyle/import-control.xml).
 */
package io.sluice.core.deadletter;
