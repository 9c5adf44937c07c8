package io.sluice.core.gather.batch;

import java.nio.ByteOrder;

import net.openhft.chronicle.bytes.Bytes;

/**
 * The omission mask a row starts with when its encoder leaves columns to the server
 * ({@link io.sluice.core.gather.split.RowEncoder.Bound#omittableColumns()}, {@link Binding#rowsCarryMask()}): 64
 * bits, little endian, {@value #BYTES} bytes before the row's values; bit {@code i} set means the {@code i}-th
 * omittable column is not in the row. The layout is the same for every kind: the encoder reserves the bytes, writes
 * the values, then writes the mask over them; the kind's batch writer reads it to group rows by the columns they
 * carry. Stateless; any thread.
 */
public final class OmissionMask
{
    /** Bytes a mask takes at the start of a row. */
    public static final int BYTES = 8;

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private OmissionMask()
    {
    }

    /**
     * Reads a row's omission mask.
     *
     * @param rows the rows
     * @param at   the row's first byte; {@value #BYTES} bytes must follow
     * @return the mask
     */
    public static long read(final Bytes<?> rows, final long at)
    {
        final long v = rows.readLong(at);
        return LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }

    /**
     * Writes a row's omission mask over the {@value #BYTES} bytes reserved for it.
     *
     * @param rows the rows
     * @param at   the row's first byte
     * @param mask bit {@code i}: the {@code i}-th omittable column is not in the row
     */
    public static void write(final Bytes<?> rows, final long at, final long mask)
    {
        rows.writeLong(at, LITTLE_ENDIAN ? mask : Long.reverseBytes(mask));
    }
}
