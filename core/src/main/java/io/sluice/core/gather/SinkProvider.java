package io.sluice.core.gather;

import java.time.ZoneId;

import io.sluice.core.config.SinkKind;
import io.sluice.core.gather.sink.DestinationCatalog;

/**
 * A kind of sink as a plug-in: the one contract a sink module implements so that the engine can read, check, name and
 * write to its database without core knowing the database. It is a {@link SinkKind} (the {@code kind} name, the
 * {@code plugin_config} keys and how they are read into a {@code SinkConnection}) plus the driver (catalog and batch
 * writers) and the quoting of names. A sink module registers its provider in
 * {@code META-INF/services/io.sluice.core.config.SinkKind}; {@link SinkProviders} finds it by {@code kind}.
 *
 * <p>When each method is called: {@link #pluginConfigKeys()} and {@link #readPluginConfig} while a configuration
 * is loaded or checked (the loading thread, before anything connects); {@link #qualifiedName} by the dry runs
 * ({@code destination}) on the command thread; {@link #driver()} once per pipeline by the engine's starting thread;
 * {@link #rowText} by {@code explain}, once per row shown, and {@link #schemaFile} by {@code explain --schema}, once
 * per file and kind, on the command thread.
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

    /**
     * What {@code engine.jar explain} shows for a value of each of this kind's types: a reader of one row its JSON row
     * encoders wrote ({@link SinkDriver#jsonEncoding()}), without the omission mask, printing each value as the
     * database prints it.
     *
     * @param row        the row's value bytes, in column order (omitted columns absent)
     * @param serverZone the time zone of the server, for date-time types without their own
     * @return a reader over {@code row}
     * @throws UnsupportedOperationException when the kind cannot show its values (the default)
     */
    default RowText rowText(final byte[] row, final ZoneId serverZone)
    {
        throw new UnsupportedOperationException("sink kind " + kind() + " cannot show the values it writes");
    }

    /**
     * What {@code engine.jar explain --schema FILE} reads the destination tables from for a sink of this kind: a
     * catalog of the tables the file declares, in the kind's own DDL, that connects to nothing ({@code create} fails,
     * {@code describe} answers from the file, a missing table is {@code null}).
     *
     * @param text       the file's text
     * @param serverZone the server time zone assumed for date-time types without their own ({@code --time-zone})
     * @return the catalog
     * @throws IllegalArgumentException      naming the line of the file and what cannot be read
     * @throws UnsupportedOperationException when the kind has no reader of its own (the default): {@code explain}
     *                                       then reads the file with the engine's reader of ClickHouse DDL
     */
    default DestinationCatalog schemaFile(final String text, final ZoneId serverZone)
    {
        throw new UnsupportedOperationException("sink kind " + kind() + " has no reader of schema files");
    }
}
