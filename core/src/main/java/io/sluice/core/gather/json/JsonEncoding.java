package io.sluice.core.gather.json;

import java.util.Map;

import io.sluice.core.gather.split.RowEncoder;

/**
 * A sink kind's row encoders for the TOML form: how a branch's JSON records become rows of the kind's wire format
 * (ClickHouse: Native columns; PostgreSQL: binary COPY tuples). The kind's driver returns a new instance per pipeline
 * ({@code SinkDriver.jsonEncoding()}); {@link TomlGather} asks it for one encoder per branch, so encoders of one
 * pipeline may share scratch space through it.
 *
 * <p>Thread-safety: an instance and its encoders are used by one route stage thread.
 */
@FunctionalInterface
public interface JsonEncoding
{
    /**
     * @param branch what the branch's encoder reads and how it treats absent and unknown values
     * @return a new encoder for the branch's rows, not yet bound to a table
     * @throws IllegalArgumentException naming the branch and what the kind cannot do with it
     */
    RowEncoder<JsonRecord> encoder(Branch branch);

    /**
     * One branch as its encoder sees it.
     *
     * @param name                branch name, for messages
     * @param columnPaths         column name → JSON path or Kafka metadata spec ({@code $offset}), the branch's
     *                            {@code columns} table
     * @param scope               the branch's scope of the route stage's JSON record (its paths are extracted in one
     *                            pass)
     * @param nullAsDefault       {@code null_as_default}: a JSON null takes the column's DEFAULT where NULL cannot be
     *                            stored
     * @param failOnUnknownFields {@code unknown_fields = "fail"}: a top-level key no column reads fails the record
     */
    record Branch(String name, Map<String, String> columnPaths, JsonRecord.Scope scope, boolean nullAsDefault,
        boolean failOnUnknownFields)
    {
        /**
         * Copies the mappings.
         *
         * @param name                branch name
         * @param columnPaths         column → path mappings
         * @param scope               the branch's scope
         * @param nullAsDefault       {@code null_as_default}
         * @param failOnUnknownFields {@code unknown_fields = "fail"}
         */
        public Branch
        {
            columnPaths = Map.copyOf(columnPaths);
        }
    }
}
