package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.clickhouse.client.api.Client;

import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.json.JsonEncoding;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.sinks.clickhouse.json.ClickHouseJsonRowEncoder;

/**
 * The ClickHouse sink ({@code kind = "clickhouse"}) over client-v2's HTTP interface. Works with Debian's 18.16 and
 * current releases: rows go as RowBinary, metadata is read as TabSeparated. Thread-safe.
 */
public final class ClickHouseDriver implements SinkDriver
{
    private final List<Client> metadataClients = new ArrayList<>();
    private final Map<String, ClickHouseCatalog> catalogs = new HashMap<>();

    @Override
    public JsonEncoding jsonEncoding()
    {
        return ClickHouseJsonRowEncoder.encoding();
    }

    @Override
    public synchronized DestinationCatalog catalog(final SinkSpec sink)
    {
        final String key = sink.shards() + "\u0000" + config(sink).username() + "\u0000"
            + config(sink).createTableDdl()
            + "\u0000" + config(sink).createTableLike();
        return catalogs.computeIfAbsent(key, k ->
        {
            final List<Client> perShard = new ArrayList<>();
            final List<String> endpoints = new ArrayList<>();
            for (final List<String> shard : sink.shards())
            {
                final Client c = ClickHouseConnections.client(shard.get(0), config(sink));
                metadataClients.add(c);
                perShard.add(c);
                endpoints.add(shard.get(0));
            }
            return new ClickHouseCatalog(perShard, endpoints, config(sink));
        });
    }

    @Override
    public BatchWriter writer(final SinkSpec sink, final int shard)
    {
        return new ClickHouseBatchWriter(sink.shards().get(shard), config(sink));
    }

    @Override
    public void checkReachable(final SinkSpec sink) throws SinkException
    {
        for (int shard = 0; shard < sink.shards().size(); shard++)
        {
            SinkException last = null;
            boolean ok = false;
            for (final String endpoint : sink.shards().get(shard))
            {
                try (Client c = ClickHouseConnections.client(endpoint, config(sink)))
                {
                    ClickHouseConnections.query(c, "SELECT 1", "connect to ClickHouse at " + endpoint, 10_000);
                    ok = true;
                    checkSettings(sink, c, endpoint);
                    break;
                }
                catch (final SinkException e)
                {
                    if (ok)
                    {
                        throw e;
                    }
                    last = e;
                }
            }
            if (!ok)
            {
                // a refusal (credentials, rights, TLS) is not "no answer": say which
                final boolean certificate = last != null && last.code() == 0 && config(sink)
                    .sslCertificateFile() != null && ClickHouseErrors.closedAfterTls(last);
                final boolean refused = last != null && (ClickHouseErrors.REFUSED.containsKey(last.code())
                    || last.getMessage().contains("TLS handshake failed") || certificate);
                throw new SinkException((refused
                    ? "ClickHouse refused sink " + sink.name() + " (shard " + shard + "): "
                    : "no ClickHouse endpoint of shard " + shard + " answers: ")
                    + (last == null ? "no endpoints" : last.getMessage())
                    + (certificate
                        ? " (TLS handshake failed: the server closed the connection after it received "
                            + "ssl_certificate_file, which is how a server refuses a client certificate that no CA it "
                            + "trusts signed)"
                        : ""),
                    !refused, last == null ? 0 : last.code(), last);
            }
        }
    }

    /**
     * The server answers: whether it takes the sink's insert settings is asked now, at start, rather than found out
     * on the first insert, where a refusal (a permanent error) would stop the partitions until the stall limit.
     */
    private static void checkSettings(final SinkSpec sink, final Client c, final String endpoint)
        throws SinkException
    {
        try
        {
            ClickHouseConnections.checkSettings(c, config(sink), endpoint);
        }
        catch (final SinkException e)
        {
            throw new SinkException("ClickHouse does not take the insert settings of sink " + sink.name() + ": "
                + e.getMessage(), false, e.code(), e);
        }
    }

    /**
     * @param sink a sink of this kind
     * @return its ClickHouse settings
     * @throws IllegalArgumentException when the sink is of another kind (its connection is not ClickHouse's)
     */
    static ClickHouseConfig config(final SinkSpec sink)
    {
        if (sink.connection() instanceof ClickHouseConfig c)
        {
            return c;
        }
        throw new IllegalArgumentException("sink " + sink.name() + " is of kind " + sink.connection().kind()
            + ", not " + ClickHouseProvider.KIND + ": the ClickHouse driver cannot write it");
    }

    @Override
    public synchronized void close()
    {
        for (final Client c : metadataClients)
        {
            try
            {
                c.close();
            }
            catch (final RuntimeException e)
            {
                // best effort
            }
        }
        metadataClients.clear();
        catalogs.clear();
    }
}
