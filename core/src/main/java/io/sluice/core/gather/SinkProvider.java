package io.sluice.core.gather;

import io.sluice.core.config.SinkKind;

/**
 * A kind of sink as a plug-in: the one contract a sink module implements so that the engine can read, check, name and
 * write to its database without core knowing the database. It is a {@link SinkKind} (the {@code kind} name, the
 * {@code plugin_config} keys and how they are read into a {@code SinkConnection}) plus the driver (catalog and batch
 * writers) and the quoting of names. A sink module registers its provider in
 * {@code META-INF/services/io.sluice.core.config.SinkKind}; {@link SinkProviders} finds it by {@code kind}.
 *
 * <p>When each method is called: {@link #pluginConfigKeys()} and {@link #readPluginConfig} while a configuration
 * is loaded or checked (the loading thread, before anything connects); {@link #qualifiedName} by the dry runs
 * ({@code destination}) on the command thread; {@link #driver()} once per pipeline by the engine's starting thread.
 *
 * <p>Thread-safety: implementations are stateless and thread-safe.
 */
public interface SinkProvider extends SinkKind
{
    /**
     * A new driver of this kind: the catalog of a sink's destinations and one batch writer per shard and insert
     * worker. Connects to nothing until asked ({@link SinkDriver#checkReachable}).
     *
     * @return the driver, owned (and closed) by the caller
     */
    SinkDriver driver();

    /**
     * The text a statement names a table by, quoted as the database requires, without a connection: what the
     * {@code destination} dry run prints. The same as the catalog's {@code qualifiedName}.
     *
     * @param database database (or schema) name, verbatim
     * @param table    table name, verbatim
     * @return e.g. {@code `github`.`push_events`}
     * @throws IllegalArgumentException when the database cannot name an identifier with that text
     */
    String qualifiedName(String database, String table);
}
