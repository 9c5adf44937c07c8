package io.sluice.sinks.clickhouse;

import io.sluice.core.config.Secrets;
import io.sluice.core.config.SinkKeys;

/**
 * {@code [sinks.plugin_config]} of a ClickHouse sink. {@code shards} is always set: the configured shards, or one
 * shard made of {@code endpoints}. {@code unknownFields} is {@code ignore} or {@code fail}; {@code schemaRefreshMs}
 * how often each destination table's version is read (ms). Built by name and concluded once
 * ({@link ClickHouseContext}: defaults from the keys, every value checked naming its key); read-only after. The
 * loader makes it through {@link ClickHouseProvider}; core sees it as a {@code SinkConnection}.
 */
public final class ClickHouseConfig extends ClickHouseContext<ClickHouseConfig>
{
    /** {@code schema_refresh_ms} when not configured. */
    public static final long DEFAULT_SCHEMA_REFRESH_MS = 10_000;
    /** {@code compression = "none"}: INSERT bodies travel as they are. */
    public static final String COMPRESSION_NONE = "none";
    /** {@code compression = "lz4"}: ClickHouse's LZ4 block format, {@code decompress=1}. */
    public static final String COMPRESSION_LZ4 = "lz4";
    /** {@code compression = "gzip"}: HTTP {@code Content-Encoding: gzip}. */
    public static final String COMPRESSION_GZIP = "gzip";

    /** {@code unknown_fields = "ignore"}: a JSON field no column reads is skipped (the default). */
    public static final String UNKNOWN_FIELDS_IGNORE = SinkKeys.UNKNOWN_FIELDS_IGNORE;
    /** {@code unknown_fields = "fail"}: a top-level JSON field no column reads fails the record. */
    public static final String UNKNOWN_FIELDS_FAIL = SinkKeys.UNKNOWN_FIELDS_FAIL;

    @Override
    protected ClickHouseConfig self()
    {
        return this;
    }

    /** @return a description without the password (which prints as {@value Secrets#MASK}) */
    @Override
    public String toString()
    {
        return "ClickHouse[shards=" + Secrets.redact(String.valueOf(shards())) + ", database=" + database()
            + ", targetTable=" + targetTable() + ", username=" + username() + ", password="
            + (password() == null || password().isEmpty() ? "" : Secrets.MASK) + ", ssl_ca_file=" + sslCaFile()
            + ", ssl_certificate_file=" + sslCertificateFile() + ", compression=" + compression() + "]";
    }
}
