package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.core.config.SinkSettings;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * {@link PostgresBatchWriter} on the real PostgreSQL with tuples written here with {@link PgCopy} (columns
 * {@code id integer, s text}): a batch is one transaction; a CHECK refusal is record-caused and names SQLSTATE,
 * table and constraint, never 25P02, and the connection is reused for the next batch; part of a batch is written;
 * a table altered after the rows were encoded is a schema change and nothing is written; upsert keeps the latest row
 * of a key repeated in the batch.
 */
class PostgresBatchWriterIT
{
    private static final String SCHEMA = "pgw_" + Long.toString(System.currentTimeMillis(), 36);
    private static PostgresConfig config;
    private static PostgresConfig upsertConfig;
    private static final BatchPool POOL = new BatchPool(4, 4096, 16);

    @BeforeAll
    static void setUp() throws Exception
    {
        final Path file = Path.of(System.getProperty("sluice.secure.dir", ".sluice/secure")).resolve("secrets.env");
        final Map<String, String> secrets = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(file))
        {
            if (!line.startsWith("#") && line.indexOf('=') > 0)
            {
                secrets.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        final String url = System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
        config = config(url, secrets, "append");
        upsertConfig = config(url, secrets, "upsert");
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA));
    }

    private static PostgresConfig config(final String url, final Map<String, String> secrets, final String mode)
    {
        final SinkSettings s = new SinkSettings("postgres", "sinks[0].plugin_config", List.of(List.of(url)), 1, SCHEMA,
            "t", 1000, 1 << 20, 100, "quote", false, false, false, 100, 1000, 5, 1000, 10_000);
        return new PostgresConfig(s, url, secrets.get("SLUICE_TEST_POSTGRES_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), "disable", null, null, null, null, null, mode, List.of(),
            Map.of(), 30_000);
    }

    @AfterAll
    static void tearDown() throws SQLException
    {
        sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE");
        POOL.close();
    }

    private static void sql(final String... statements) throws SQLException
    {
        try (Connection c = PostgresConnections.connect(config); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }

    private static List<String> rows(final String table) throws SQLException
    {
        final List<String> out = new ArrayList<>();
        try (Connection c = PostgresConnections.connect(config);
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT id, s FROM " + PostgresIdentifiers.qualified(SCHEMA, table)
                + " ORDER BY id, s"))
        {
            while (r.next())
            {
                out.add(r.getString(1) + "|" + r.getString(2));
            }
        }
        return out;
    }

    /** A bound encoder that only names the columns: the rows are written by the test. */
    private record Columns(List<String> columns) implements RowEncoder.Bound<Object>
    {
        @Override
        public String encode(final Object row, final Bytes<?> out)
        {
            throw new UnsupportedOperationException();
        }
    }

    /** A batch for the table as described now, with rows (id, s) as binary COPY tuples. */
    private static BatchBuffer batch(final String table, final Object... idAndText) throws SinkException
    {
        final PostgresCatalog catalog = new PostgresCatalog(() -> PostgresConnections.connect(config), "test", null);
        final TableSchema schema = catalog.describe(SCHEMA, table);
        final Binding binding = new Binding(new Columns(List.of("id", "s")), schema, List.of("\"id\"", "\"s\""), 1);
        final Destination d = new Destination(1, 0, "b", SCHEMA, table, PostgresIdentifiers.qualified(SCHEMA, table),
            "pg", catalog, 10_000, binding);
        final BatchBuffer b = POOL.tryAcquire();
        b.open(d, 0, System.nanoTime());
        for (int i = 0; i < idAndText.length; i += 2)
        {
            final Bytes<Void> out = b.rows();
            PgCopy.beginTuple(out, 2);
            PgCopy.writeInt32(out, 4);
            PgCopy.writeInt32(out, (Integer)idAndText[i]);
            final byte[] text = ((String)idAndText[i + 1]).getBytes(StandardCharsets.UTF_8);
            PgCopy.writeInt32(out, text.length);
            out.write(text);
            b.addRow(0, 0, i / 2, 0);
        }
        return b;
    }

    @Test
    void shouldWriteABatchInOneCopyAndAPartOfOne() throws Exception
    {
        sql("CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, "orders.eu") + " (id integer, s text)");
        try (PostgresBatchWriter w = new PostgresBatchWriter(config))
        {
            final BatchBuffer b = batch("orders.eu", 1, "a", 2, "b", 3, "c");
            w.write(b);
            w.write(b, new int[]{0, 2}, 2);
            b.release();
        }
        assertEquals(List.of("1|a", "1|a", "2|b", "3|c", "3|c"), rows("orders.eu"));
    }

    @Test
    void shouldNameTheConstraintOfARefusedBatchAndWriteTheNextOnTheSameWriter() throws Exception
    {
        sql("CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, "checked") + " (id integer, s text, "
            + "CONSTRAINT not_two CHECK (id <> 2))");
        try (PostgresBatchWriter w = new PostgresBatchWriter(config))
        {
            final BatchBuffer b = batch("checked", 1, "ok", 2, "no", 3, "ok");
            final SinkException e = assertThrows(SinkException.class, () -> w.write(b));
            assertTrue(e.recordCaused(), e.getMessage());
            assertFalse(e.retriable(), e.getMessage());
            assertTrue(e.getMessage().contains("23514"), e.getMessage());
            assertTrue(e.getMessage().contains("\"not_two\""), e.getMessage());
            assertTrue(e.getMessage().contains("\"checked\""), e.getMessage());
            assertFalse(e.getMessage().contains("25P02"), e.getMessage());
            assertFalse(e.getMessage().contains("current transaction is aborted"), e.getMessage());
            assertEquals(List.of(), rows("checked"), "nothing of a refused batch is visible");
            w.write(b, new int[]{0, 2}, 2);
            b.release();
        }
        assertEquals(List.of("1|ok", "3|ok"), rows("checked"));
    }

    @Test
    void shouldRefuseRowsEncodedForColumnsTheTableNoLongerHas() throws Exception
    {
        sql("CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, "altered") + " (id integer, s text)");
        try (PostgresBatchWriter w = new PostgresBatchWriter(config))
        {
            final BatchBuffer b = batch("altered", 1, "a");
            w.write(b);
            // bytes encoded for integer would be read as bigint's 8 bytes: the guard must see the change first
            sql("ALTER TABLE " + PostgresIdentifiers.qualified(SCHEMA, "altered") + " ALTER COLUMN id TYPE bigint");
            final SinkException e = assertThrows(SinkException.class, () -> w.write(b));
            assertTrue(e.schemaChanged(), e.getMessage());
            b.release();
            final BatchBuffer again = batch("altered", 2, "b");
            final SinkException wrongType = assertThrows(SinkException.class, () -> w.write(again),
                "rows encoded as integer, now described as bigint: the server refuses the 4-byte field");
            assertFalse(wrongType.schemaChanged());
            again.release();
        }
        assertEquals(List.of("1|a"), rows("altered"));
    }

    @Test
    void shouldUpsertTheLatestRowOfAKeyRepeatedInTheBatch() throws Exception
    {
        sql("CREATE TABLE " + PostgresIdentifiers.qualified(SCHEMA, "kv") + " (id integer PRIMARY KEY, s text)",
            "INSERT INTO " + PostgresIdentifiers.qualified(SCHEMA, "kv") + " VALUES (3, 'old')");
        try (PostgresBatchWriter w = new PostgresBatchWriter(upsertConfig))
        {
            final BatchBuffer b = batch("kv", 1, "first", 2, "x", 1, "second", 3, "new");
            w.write(b);
            w.write(b);
            b.release();
            final BatchBuffer next = batch("kv", 2, "y");
            w.write(next);
            next.release();
        }
        assertEquals(List.of("1|second", "2|y", "3|new"), rows("kv"));
    }
}
