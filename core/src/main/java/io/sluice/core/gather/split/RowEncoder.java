package io.sluice.core.gather.split;

import java.util.List;

import org.agrona.DirectBuffer;

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

        /**
         * The columns a row may leave out so that the destination evaluates their DEFAULT (ClickHouse: an expression
         * only the server can evaluate, such as {@code cityHash64(id)}), as indexes into {@link #columns()}, at most
         * 64. When there are any, every row {@link #encode} writes starts with a 64-bit little-endian mask whose bit
         * {@code i} says that the {@code i}-th of these columns is not in the row (its value is not written), and the
         * row's values follow. The insert then groups rows by mask, one block per group without those columns.
         *
         * @return the indexes, in column order; empty (the default) when every row holds every column
         */
        default int[] omittableColumns()
        {
            return new int[0];
        }

        /**
         * Whether this binding can append a row that deletes ({@link #encodeDelete}); a kind's encoder says so where
         * its table has a key and its writer deletes rows (PostgreSQL in upsert mode).
         *
         * @return false unless the binding deletes
         */
        default boolean deletes()
        {
            return false;
        }

        /**
         * Appends one row that deletes the table's row whose key the record's Kafka key names
         * ({@code tombstones = "delete"}): how a delete is told from a row in the batch is the kind's encoding, read
         * by the kind's writer alone, which applies rows and deletes in their order in the batch. Called only when
         * {@link #deletes()} is true. On failure the caller rewinds the buffer to where the row started.
         *
         * @param key       the record's key bytes, positions {@code 0..keyLength-1}
         * @param keyLength the key's length in bytes, or negative for a record without a key
         * @param out       the batch buffer
         * @return {@code null} on success, else why the key names no row (not JSON, a key column missing or of the
         *     wrong type), naming the column — computed only on failure
         */
        default String encodeDelete(final DirectBuffer key, final int keyLength, final Bytes<?> out)
        {
            return "this table's rows cannot be deleted";
        }
    }
}
