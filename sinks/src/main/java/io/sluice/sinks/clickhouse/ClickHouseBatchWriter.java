package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.sink.SinkException;

/**
 * Inserts a sealed batch into one ClickHouse shard with client-v2: {@code INSERT INTO `db`.`table` (`c1`, …) FORMAT
 * RowBinary}, the body streamed straight from the batch's off-heap buffer. The table is always qualified with its
 * database (client-v2 0.10.0 does not apply a default database to inserts). With several endpoints (replicas), a
 * failure moves the next attempt to the next endpoint. One instance per insert worker; not thread-safe.
 */
final class ClickHouseBatchWriter implements BatchWriter
{
    private final List<String> endpoints;
    private final List<Client> clients = new ArrayList<>();
    private final long timeoutMs;
    private final InsertSettings settings;
    private int current;

    ClickHouseBatchWriter(final List<String> endpoints, final SluiceConfig.ClickHouse config)
    {
        this.endpoints = List.copyOf(endpoints);
        for (final String e : endpoints)
        {
            clients.add(ClickHouseConnections.client(e, config));
        }
        this.timeoutMs = config.insertTimeoutMs();
        this.settings = ClickHouseConnections.insertSettings(config);
    }

    @Override
    public void write(final BatchBuffer batch) throws SinkException
    {
        final Client client = clients.get(current);
        final String endpoint = endpoints.get(current);
        // the INSERT returns once the server has written the rows into parts (HTTP 200); older servers (18.16) send no
        // X-ClickHouse-Summary, so the response's row counts are not relied on
        try (InsertResponse ignored = client.insert(batch.destination().sqlTable(), batch.destination().sqlColumns(),
            out -> batch.rows().copyTo(out), ClickHouseFormat.RowBinary, settings)
            .get(timeoutMs, TimeUnit.MILLISECONDS))
        {
        }
        catch (final ExecutionException e)
        {
            rotate();
            throw ClickHouseErrors.classify("insert at " + endpoint, e.getCause());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new SinkException("insert at " + endpoint + " interrupted", true, 0, e);
        }
        catch (final Exception e)
        {
            rotate();
            throw ClickHouseErrors.classify("insert at " + endpoint, e);
        }
    }

    private void rotate()
    {
        current = (current + 1) % clients.size();
    }

    @Override
    public String describe()
    {
        return String.join(",", endpoints);
    }

    @Override
    public void close()
    {
        for (final Client c : clients)
        {
            try
            {
                c.close();
            }
            catch (final RuntimeException e)
            {
                // closing is best effort
            }
        }
    }
}
