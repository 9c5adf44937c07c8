package io.sluice.sinks.clickhouse;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.enums.SSLMode;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;

import io.sluice.core.gather.sink.SinkException;

/**
 * Builds client-v2 clients for a sink's endpoints and runs the few statements the sink needs. Queries read
 * TabSeparated text (every server version speaks it; client-v2's default RowBinaryWithNamesAndTypes does not exist
 * on 18.16). Thread-safe (stateless; clients are thread-safe).
 */
final class ClickHouseConnections
{
    private ClickHouseConnections()
    {
    }

    /**
     * @param endpoint an http(s) URL
     * @param config   the sink's plugin_config
     * @return a new client owned by the caller
     */
    static Client client(final String endpoint, final ClickHouseConfig config)
    {
        final Client.Builder b = new Client.Builder()
            .addEndpoint(endpoint)
            .setUsername(config.username())
            .setPassword(config.password())
            .setConnectTimeout(5, ChronoUnit.SECONDS)
            .setSocketTimeout(config.insertTimeoutMs(), ChronoUnit.MILLIS)
            .setExecutionTimeout(config.insertTimeoutMs(), ChronoUnit.MILLIS)
            .setMaxRetries(0)
            // client-v2's default LZ4-framed response compression comes back empty from 18.16 servers; responses
            // here are small metadata, so they travel uncompressed
            .compressServerResponse(false)
            // request bodies are compressed per insert (insertSettings), never the SQL of a query
            .compressClientRequest(false)
            .setClientName("sluice");
        if (endpoint.startsWith("https:"))
        {
            // STRICT: a trusted CA signed the certificate and it names the host; VERIFY_CA: only the former
            b.setSSLMode(config.sslVerifyHostname() ? SSLMode.STRICT : SSLMode.VERIFY_CA);
            if (config.sslCaFile() != null)
            {
                b.setRootCertificate(config.sslCaFile());
            }
            if (config.sslCertificateFile() != null)
            {
                b.setClientCertificate(config.sslCertificateFile());
                b.setClientKey(config.sslKeyFile());
            }
        }
        return b.build();
    }

    /**
     * The settings of every INSERT of a sink: the request compression it configures ({@code lz4}: ClickHouse's LZ4
     * block format with {@code decompress=1}, which client-v2 writes when asked to compress a request without HTTP
     * compression; {@code gzip}: {@code Content-Encoding: gzip}, which client-v2 writes through commons-compress when
     * the request carries that header; {@code none}: as it is). Both forms are older than ClickHouse 18.16.
     *
     * @param config the sink's plugin_config
     * @return new settings, owned by the caller (one per writer: not thread-safe)
     */
    static InsertSettings insertSettings(final ClickHouseConfig config)
    {
        final InsertSettings s = new InsertSettings();
        switch (config.compression() == null ? ClickHouseConfig.COMPRESSION_NONE : config.compression())
        {
            case ClickHouseConfig.COMPRESSION_LZ4 -> s.compressClientRequest(true).useHttpCompression(false);
            case ClickHouseConfig.COMPRESSION_GZIP -> s.compressClientRequest(false)
                .httpHeader("Content-Encoding", "gzip");
            default -> s.compressClientRequest(false);
        }
        config.settings().forEach(s::serverSetting);
        return s;
    }

    /**
     * Asks a server whether it takes a sink's insert settings ({@code [sinks.plugin_config.settings]}): a
     * {@code SELECT 1} with the same settings as URL parameters, which ClickHouse applies (and checks) before it
     * runs the query, as it does for an INSERT. An unknown setting is ClickHouse's error 115 (UNKNOWN_SETTING); a
     * value it cannot parse, a setting a read-only user may not change, the same.
     *
     * @param client  the client
     * @param config  the sink's plugin_config
     * @param endpoint the endpoint, for messages
     * @throws SinkException naming the settings and the server's answer
     */
    static void checkSettings(final Client client, final ClickHouseConfig config, final String endpoint)
        throws SinkException
    {
        if (config.settings().isEmpty())
        {
            return;
        }
        final QuerySettings settings = new QuerySettings().setFormat(ClickHouseFormat.TabSeparated);
        config.settings().forEach(settings::serverSetting);
        call("plugin_config.settings " + config.settings() + " at " + endpoint, () ->
        {
            try (QueryResponse r = client.query("SELECT 1", settings).get(10_000, TimeUnit.MILLISECONDS);
                InputStream in = r.getInputStream())
            {
                return in.readAllBytes();
            }
        });
    }

    /** A client call that may throw anything; {@link #call} classifies what it throws. */
    @FunctionalInterface
    private interface Call<T>
    {
        T run() throws Exception;
    }

    private static <T> T call(final String what, final Call<T> call) throws SinkException
    {
        try
        {
            return call.run();
        }
        catch (final ExecutionException e)
        {
            throw ClickHouseErrors.classify(what, e.getCause());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new SinkException(what + ": interrupted", true, 0, e);
        }
        catch (final Exception e)
        {
            throw ClickHouseErrors.classify(what, e);
        }
    }

    /**
     * Runs a query and returns its TabSeparated body.
     *
     * @param client  the client
     * @param sql     the statement, without a FORMAT clause
     * @param what    what is being done, for messages
     * @param timeoutMs timeout
     * @return the body as UTF-8 text
     * @throws SinkException classified by {@link ClickHouseErrors}
     */
    static String query(final Client client, final String sql, final String what, final long timeoutMs)
        throws SinkException
    {
        final QuerySettings settings = new QuerySettings().setFormat(ClickHouseFormat.TabSeparated);
        return call(what, () ->
        {
            try (QueryResponse r = client.query(sql, settings).get(timeoutMs, TimeUnit.MILLISECONDS);
                InputStream in = r.getInputStream())
            {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        });
    }

    /**
     * Runs a statement that returns nothing (DDL).
     *
     * @throws SinkException classified by {@link ClickHouseErrors}
     */
    static void execute(final Client client, final String sql, final String what, final long timeoutMs)
        throws SinkException
    {
        call(what, () ->
        {
            client.execute(sql).get(timeoutMs, TimeUnit.MILLISECONDS).close();
            return null;
        });
    }
}
