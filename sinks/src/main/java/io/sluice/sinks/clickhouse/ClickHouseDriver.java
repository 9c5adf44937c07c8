package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.clickhouse.client.api.Client;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.sink.BatchWriter;
import io.sluice.core.sink.DestinationCatalog;
import io.sluice.core.sink.SinkDriver;
import io.sluice.core.sink.SinkException;

/**
 * The ClickHouse sink ({@code kind = "clickhouse"}) over client-v2's HTTP interface. Works with Debian's 18.16 and
 * current releases: rows go as RowBinary, metadata is read as TabSeparated. Thread-safe.
 */
public final class ClickHouseDriver implements SinkDriver {
    private final List<Client> metadataClients = new ArrayList<>();
    private final Map<String, ClickHouseCatalog> catalogs = new HashMap<>();

    @Override
    public synchronized DestinationCatalog catalog(final SluiceConfig.Sink sink) {
        return catalogs.computeIfAbsent(sink.name(), n -> {
            final String endpoint = sink.plugin().endpoints().get(0);
            final Client c = ClickHouseConnections.client(endpoint, sink.plugin());
            metadataClients.add(c);
            return new ClickHouseCatalog(c, endpoint, sink.plugin());
        });
    }

    @Override
    public BatchWriter writer(final SluiceConfig.Sink sink, final int shardId, final List<String> endpoints) {
        return new ClickHouseBatchWriter(endpoints, sink.plugin());
    }

    @Override
    public void checkReachable(final SluiceConfig.Sink sink) throws SinkException {
        SinkException last = null;
        for (final String endpoint : sink.plugin().endpoints()) {
            try (Client c = ClickHouseConnections.client(endpoint, sink.plugin())) {
                ClickHouseConnections.query(c, "SELECT 1", "connect to ClickHouse at " + endpoint, 10_000);
                return;
            } catch (final SinkException e) {
                last = e;
            }
        }
        throw new SinkException("no ClickHouse endpoint answers: "
            + (last == null ? "no endpoints" : last.getMessage()), true, last == null ? 0 : last.code(), last);
    }

    @Override
    public synchronized void close() {
        for (final Client c : metadataClients) {
            try {
                c.close();
            } catch (final RuntimeException e) {
                // best effort
            }
        }
        metadataClients.clear();
        catalogs.clear();
    }
}
