package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.DataStreamWriter;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.sink.SinkException;

/**
 * Inserts a sealed batch into one ClickHouse shard with client-v2 as Native blocks typed with the columns the rows
 * were encoded for: {@code INSERT INTO `db`.`table` FORMAT Native}, the body written by {@link NativeBatch} from the
 * batch's off-heap rows (one block per omission mask, so the server evaluates the DEFAULT of every column a row left
 * out). The table is always qualified with its database (client-v2 0.10.0 does not apply a default database to
 * inserts). With several endpoints (replicas), a failure moves the next attempt to the next endpoint.
 *
 * <p>What the server checks, and what this writer adds (docs/schema-changes.md):
 * <ul>
 *   <li>The server's version is read once per endpoint ({@code SELECT version()} and whether the setting
 *       {@code input_format_native_allow_types_conversion} exists). Where it does (23.3 and later) every insert sets
 *       it to 0, so a block whose type differs from the table's column is refused (TYPE_MISMATCH) instead of cast;
 *       18.16 refuses a column of another class in MergeTree tables (BAD_CAST). Either refusal is a
 *       {@link SinkException#schemaChanged()} ({@link ClickHouseErrors#SCHEMA_CHANGED}).</li>
 *   <li>What the server's check cannot see: on 18.16 a change that keeps the column's class (a Decimal's scale, a
 *       FixedString's length, an Enum's values) and any change of a table outside the MergeTree family (Memory,
 *       Buffer, Distributed store the bytes as they come); on current releases an Enum whose values were renumbered.
 *       For a binding that has such a column or engine ({@link VersionGuard}), the table's version is read before and after the
 *       insert: moved before it (against the binding's), the batch is not sent and is a schema change; moved during
 *       it, the rows may have been read with the new types, and the insert fails unexpectedly
 *       ({@link IllegalStateException}, which stops the pipeline at once naming table and offsets) rather than let a
 *       possibly wrong row pass unnoticed.</li>
 * </ul>
 * One instance per insert worker; not thread-safe.
 */
final class ClickHouseBatchWriter implements BatchWriter
{
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseBatchWriter.class);
    private static final String NO_TYPE_CONVERSION = "input_format_native_allow_types_conversion";

    private final List<String> endpoints;
    private final List<Client> clients = new ArrayList<>();
    private final long timeoutMs;
    private final ClickHouseConfig config;
    /** Per endpoint: the settings of its inserts, made once its server's version is known (null before). */
    private final InsertSettings[] settings;
    /** Per endpoint: whether its server predates input_format_native_allow_types_conversion (18.16). */
    private final boolean[] legacy;
    private Binding guardedBinding;
    private VersionGuard guard;
    private final NativeBatch nativeBatch = new NativeBatch();
    private final BodyWriter body = new BodyWriter();
    private int current;

    /** Streams the Native body of the batch being inserted (one instance: no allocation per insert). */
    private static final class BodyWriter implements DataStreamWriter
    {
        Bytes<Void> bytes;

        @Override
        public void onOutput(final java.io.OutputStream out) throws java.io.IOException
        {
            bytes.copyTo(out);
        }
    }

    ClickHouseBatchWriter(final List<String> endpoints, final ClickHouseConfig config)
    {
        this.endpoints = List.copyOf(endpoints);
        for (final String e : endpoints)
        {
            clients.add(ClickHouseConnections.client(e, config));
        }
        this.timeoutMs = config.insertTimeoutMs();
        this.config = config;
        this.settings = new InsertSettings[endpoints.size()];
        this.legacy = new boolean[endpoints.size()];
    }

    @Override
    public void write(final BatchBuffer batch) throws SinkException
    {
        write(batch, null, batch.rowCount());
    }

    /** @return the guard of a binding: the last one's when it is the same binding (batches of a table come in runs) */
    private VersionGuard guardOf(final Binding binding)
    {
        if (binding != guardedBinding)
        {
            guard = VersionGuard.of(binding);
            guardedBinding = binding;
        }
        return guard;
    }

    /** Inserts the rows {@code selected} names (null: all of them), as {@link #write(BatchBuffer)}. */
    @Override
    public void write(final BatchBuffer batch, final int[] selected, final int count) throws SinkException
    {
        final int at = current;
        final Client client = clients.get(at);
        final String endpoint = endpoints.get(at);
        try
        {
            final InsertSettings s = settingsOf(at);
            final VersionGuard g = guardOf(batch.binding());
            final boolean guard = legacy[at] ? !g.mergeTree() || g.sameLayoutTypes() : g.enums();
            // on 18.16 the version is also read before every insert: a block typed for a column's old type sent to a
            // column made Nullable crashes that server (ColumnNullable::checkConsistency), and the retry after its
            // restart would crash it again; the check turns it into a schema change (re-read, re-encoded)
            final String before = guard || legacy[at] ? versionBefore(batch, client, endpoint) : null;
            body.bytes = nativeBatch.write(batch, selected, count);
            // the INSERT returns once the server has written the rows into parts (HTTP 200); older servers (18.16)
            // send no X-ClickHouse-Summary, so the response's row counts are not relied on
            try (InsertResponse ignored = client.insert(batch.destination().sqlTable(), body, ClickHouseFormat.Native,
                s).get(timeoutMs, TimeUnit.MILLISECONDS))
            {
            }
            if (guard)
            {
                versionAfter(batch, client, endpoint, before);
            }
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
        catch (final SinkException e)
        {
            // the version queries around the insert: an unreachable endpoint moves the next attempt on, as an insert
            if (e.retriable())
            {
                rotate();
            }
            throw e;
        }
        catch (final IllegalStateException | IllegalArgumentException e)
        {
            throw e;
        }
        catch (final Exception e)
        {
            rotate();
            throw ClickHouseErrors.classify("insert at " + endpoint, e);
        }
        finally
        {
            body.bytes = null;
        }
    }

    /** The insert settings of an endpoint, reading its server's version on first use. */
    private InsertSettings settingsOf(final int endpoint) throws SinkException
    {
        InsertSettings s = settings[endpoint];
        if (s == null)
        {
            final String answer = ClickHouseConnections.query(clients.get(endpoint),
                "SELECT version(), (SELECT count() FROM system.settings WHERE name = '" + NO_TYPE_CONVERSION + "')",
                "read the server version at " + endpoints.get(endpoint), 30_000).strip();
            final String[] fields = answer.split("\t");
            final boolean hasSetting = fields.length > 1 && !"0".equals(fields[1]);
            s = ClickHouseConnections.insertSettings(config);
            if (hasSetting)
            {
                s.serverSetting(NO_TYPE_CONVERSION, "0");
            }
            legacy[endpoint] = !hasSetting;
            settings[endpoint] = s;
            LOG.info("ClickHouse {} at {}: Native inserts{}", fields[0], endpoints.get(endpoint), hasSetting
                ? " with " + NO_TYPE_CONVERSION
                    + " = 0 (the server refuses a block whose types differ from the table's)"
                : " (the server refuses a column of another class in MergeTree tables; tables with Decimal, "
                    + "FixedString or Enum columns and tables of other engines get a version check around each "
                    + "insert)");
        }
        return s;
    }

    /** The table's version before the insert; a schema change when it is not the one the rows were encoded for. */
    private String versionBefore(final BatchBuffer batch, final Client client, final String endpoint)
        throws SinkException
    {
        final Binding binding = batch.binding();
        final String[] ev = ClickHouseCatalog.engineAndVersion(client, endpoint, batch.destination().database(),
            batch.destination().table());
        final String version = ev == null ? null : ev[1];
        if (version != null && !version.equals(binding.version()))
        {
            throw SinkException.schemaChanged("insert at " + endpoint + ": table " + batch.destination()
                + " changed since its columns were read (version " + binding.version() + ", now " + version
                + "); the batch was not sent", 0, null);
        }
        return version;
    }

    /** Fails the pipeline when the table's version moved during the insert: its rows may have been misread. */
    private void versionAfter(final BatchBuffer batch, final Client client, final String endpoint,
        final String before) throws SinkException
    {
        final String[] ev = ClickHouseCatalog.engineAndVersion(client, endpoint, batch.destination().database(),
            batch.destination().table());
        final String after = ev == null ? null : ev[1];
        if (before != null && !before.equals(after))
        {
            throw new IllegalStateException("table " + batch.destination() + " changed during an insert of "
                + batch.rowCount() + " rows encoded for its earlier columns (version " + before + ", now " + after
                + ", at " + endpoint + "): the server may have read them with the new types, which it does not check "
                + "for " + (legacy[current] ? "this table on ClickHouse 18.16" : "an Enum")
                + "; stopping rather than guess (the rows' offsets are not committed; check them in the table)");
        }
    }

    private void rotate()
    {
        current = (current + 1) % clients.size();
    }

    @Override
    public boolean writesPartOfBatch()
    {
        return true;
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
        nativeBatch.close();
    }
}
