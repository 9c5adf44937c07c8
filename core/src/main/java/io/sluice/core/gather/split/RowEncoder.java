package io.sluice.core.gather.split;

import java.util.List;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;

/**
 * Writes rows of one family into a destination's row format (ClickHouse RowBinary), one row per call, appending at
 * the buffer's write position. Implementations are used by one route stage thread.
 *
 * @param <R> the row type
 */
public interface RowEncoder<R>
{
    /**
     * Binds this encoder to a destination table, once per destination (off the hot path): checks that the table can
     * take the rows and returns the encoder to use for it (often {@code this}).
     *
     * @param schema  the destination's columns
     * @param catalog the destination's catalog (e.g. to evaluate column defaults)
     * @return the bound encoder
     * @throws IllegalArgumentException naming what does not fit (a missing column, a type the encoder cannot write)
     * @throws SinkException when the catalog cannot be asked
     */
    Bound<R> bind(TableSchema schema, DestinationCatalog catalog) throws SinkException;

    /**
     * An encoder bound to one destination.
     *
     * @param <R> the row type
     */
    interface Bound<R>
    {
        /** @return the columns written, in order, verbatim (the INSERT's column list) */
        List<String> columns();

        /**
         * Appends one row. On failure the caller rewinds the buffer to where the row started.
         *
         * @param row the row
         * @param out the batch buffer
         * @return {@code null} on success, else what is wrong, naming the column (and path) — computed only on failure
         */
        String encode(R row, Bytes<?> out);

        /**
         * Whether rows read the record's key or headers (Kafka metadata columns): the source copies them into the
         * ring only while some bound encoder says so, so a pipeline that reads neither pays nothing for them.
         *
         * @return false unless the encoder reads keys or headers
         */
        default boolean readsKeyAndHeaders()
        {
            return false;
        }
    }
}
