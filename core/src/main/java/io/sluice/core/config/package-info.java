/**
 * Configuration: {@link io.sluice.core.config.ConfigSchema} lists every key with its type, default, unit and doc
 * (docs/configuration.md is generated from it); {@link io.sluice.core.config.ConfigLoader} reads a TOML file into an
 * immutable {@link io.sluice.core.config.SluiceConfig}, reporting every problem with its key and line;
 * {@link io.sluice.core.config.EnvInterpolation} expands {@code ${NAME}} in values; the Kafka security block and the
 * raw client properties ({@link io.sluice.core.config.KafkaConfigs}, checked against kafka-clients' own ConfigDef);
 * {@link io.sluice.core.config.Secrets} and {@link io.sluice.core.config.Printable} keep secrets and control
 * characters out of anything printed.
 *
 * <p>The lowest layer but {@code naming}: nothing here knows a stage. Loaded objects are immutable and safe to
 * share.
 */
package io.sluice.core.config;
