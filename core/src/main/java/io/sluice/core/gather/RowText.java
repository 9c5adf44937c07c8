package io.sluice.core.gather;

/**
 * The values of one row a kind's encoder wrote, read back and printed as the kind's database prints them: what
 * {@code engine.jar explain} shows per column ({@link SinkProvider#rowText}). Reading the bytes the encoder wrote,
 * rather than computing the value a second time, is what keeps explain from disagreeing with a run.
 *
 * <p>Not thread-safe: one reader per row, on the command thread.
 */
public interface RowText
{
    /**
     * Reads the next written value.
     *
     * @param type the column's type, as the kind's catalog describes it ({@code ColumnSpec.type()})
     * @return the value as the database prints it
     * @throws IllegalArgumentException when the bytes end inside the value, or the kind does not know the type
     */
    String next(String type);

    /** @return bytes of the row not read yet (0 once every written value was read) */
    int remaining();
}
