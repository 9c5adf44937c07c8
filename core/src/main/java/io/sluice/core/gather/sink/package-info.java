/**
 * What a gather sink is, the lowest room of gather: its configuration ({@link io.sluice.core.gather.sink.SinkSpec}),
 * the catalog it answers ({@link io.sluice.core.gather.sink.DestinationCatalog}: a table's
 * {@link io.sluice.core.gather.sink.TableSchema} of {@link io.sluice.core.gather.sink.ColumnSpec}s, creation) and how it
 * fails ({@link io.sluice.core.gather.sink.SinkException}: retriable or not, with the server's code).
 */
package io.sluice.core.gather.sink;
