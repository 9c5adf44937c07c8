package io.sluice.core.gather.json;

/**
 * What {@code engine.jar explain} shows of each column of a bound JSON row encoder, without knowing the kind: a kind's
 * bound encoder ({@code RowEncoder.Bound<JsonRecord>}) implements it next to its own. A column is named by its index
 * in the bound encoder's {@code columns()}; "the record encoded last" is the record of the last {@code encode} call.
 *
 * <p>Thread-safety: as the bound encoder (the thread that encodes; explain's command thread).
 */
public interface ExplainableEncoder
{
    /**
     * @param column the column's index
     * @return the JSON path the column is bound to, or the Kafka metadata spec ({@code $offset}) it is filled from
     */
    String path(int column);

    /**
     * @param column the column's index
     * @return the Kafka metadata spec the column is filled from ({@code $offset}, {@code $header.trace}), or null when
     *     it reads a JSON path
     */
    String metadataSpec(int column);

    /**
     * @param column the column's index
     * @return the JSON path its value was read from in the record encoded last: its own, or another form of a
     *     dotted name (docs/codecs.md, "Nested columns"); for a metadata column, its spec
     */
    String pathRead(int column);

    /**
     * @param column the column's index
     * @return whether, in the record encoded last, the column had no value and was filled by the kind's own rule (a
     *     Nested member filled with its element's default to its siblings' length)
     */
    boolean filled(int column);

    /**
     * @param column the column's index
     * @return whether the encoder writes the column's DEFAULT itself for a missing value (a constant the server
     *     evaluated at bind time); a DEFAULT left to the server shows as an omitted column instead
     */
    boolean writesDefault(int column);

    /**
     * @param column the column's index
     * @return whether the column stores NULL (a null or missing value is NULL, not the DEFAULT under
     *     {@code null_as_default})
     */
    boolean storesNull(int column);

    /**
     * The type the kind's reader ({@code SinkProvider.rowText}) reads the column's written value as, when that is
     * not the type text its catalog describes: a type the kind writes as another (a PostgreSQL domain as its base
     * type, an enum as its label text).
     *
     * @param column the column's index
     * @return the type to read the value as, or null for the column's described type (the default)
     */
    default String writtenType(final int column)
    {
        return null;
    }
}
