package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.sinks.postgres.PostgresIdentifiers;

/**
 * A new table that takes long to set up does not hold back the tables already set up (issue 24, the cost curve's
 * stall): on the real broker and PostgreSQL, topic {@code slow}'s table is created by a {@code create_table_ddl}
 * that must wait for a lock this test holds ({@code CREATE TABLE ... (LIKE template)} against an ACCESS EXCLUSIVE lock
 * on the template), while topic {@code bound}'s table exists. Every record of {@code bound} is written and committed
 * while the creation waits, and nothing of {@code slow} is committed; once the lock is released, {@code slow}'s
 * records are written, each once, and committed to the end.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DestinationSetupIT
{
    @Test
    void aTableBeingSetUpHoldsOnlyItsOwnRecords(@TempDir final Path dir) throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String schema = "dsetup_" + sfx;
        final String slow = "dsetup-slow-" + sfx;
        final String bound = "dsetup-bound-" + sfx;
        final String group = "dsetup-" + sfx;
        final String template = PostgresIdentifiers.qualified(schema, "template");
        PostgresSinkIT.sql("CREATE SCHEMA " + PostgresIdentifiers.quote(schema), "CREATE TABLE " + template
            + " (n integer NOT NULL)",
            "CREATE TABLE " + PostgresIdentifiers.qualified(schema, bound) + " (LIKE "
                + template + ")");
        TestServices.createTopic(slow, 1);
        TestServices.createTopic(bound, 1);
        TestServices.produce(slow, records(40));
        TestServices.produce(bound, records(40));
        final Map<String, String> secrets = TestServices.secrets();
        final Path cfg = dir.resolve("setup.toml");
        Files.writeString(cfg, "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\n[engine]\nstatus_interval_ms = 1000\n"
            + "[[sinks]]\nname = \"pg\"\nkind = \"postgres\"\ntopics = [\"" + slow + "\", \"" + bound
            + "\"]\ngroup_id = \"" + group + "\"\n[sinks.plugin_config]\nurl = \"" + PostgresSinkIT.url()
            + "\"\nusername = \"" + secrets.get("SLUICE_TEST_POSTGRES_USER") + "\"\npassword = \""
            + secrets.get("SLUICE_TEST_POSTGRES_PASSWORD") + "\"\nschema = \"" + schema
            + "\"\ntarget_table = \"{topic}\"\ncreate_table = true\ncreate_table_ddl = 'CREATE TABLE {schema}.{table} "
            + "(LIKE " + template + ")'\nlinger_ms = 100\nretry_backoff_ms = 100\nretry_backoff_max_ms = 400\n");
        final TopicPartition slowTp = new TopicPartition(slow, 0);
        final TopicPartition boundTp = new TopicPartition(bound, 0);
        try (Connection lock = PostgresSinkIT.open())
        {
            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement())
            {
                s.execute("LOCK TABLE " + template + " IN ACCESS EXCLUSIVE MODE");
            }
            try (EngineProcess e = EngineProcess.start("--config", cfg.toString()))
            {
                SplitAcrossSinksIT.await(() -> SplitAcrossSinksIT.committed(group, boundTp) == 40, 90,
                    "every record of the bound table committed while the other table waits for its lock", e);
                assertEquals("40|0|39", one("SELECT count(DISTINCT n) || '|' || min(n) || '|' || max(n) FROM "
                    + PostgresIdentifiers.qualified(schema, bound)), "the bound table's rows");
                assertTrue(Integer.parseInt(one("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '"
                    + template + "'::regclass")) >= 1, "the slow table's creation waits for the lock");
                assertTrue(SplitAcrossSinksIT.committed(group, slowTp) <= 0, "nothing of the slow topic committed");
                lock.commit();
                SplitAcrossSinksIT.await(() -> SplitAcrossSinksIT.committed(group, slowTp) == 40, 90,
                    "every record of the slow topic committed once its table exists", e);
                assertEquals("40|40|0|39", one("SELECT count(*) || '|' || count(DISTINCT n) || '|' || min(n) || '|' "
                    + "|| max(n) FROM " + PostgresIdentifiers.qualified(schema, slow)), "the slow table's rows");
                e.terminate();
                final int rc = e.waitFor(60);
                assertEquals(0, rc, e.output());
                assertTrue(e.output().contains("waiting for the table of topic " + slow), e.output());
            }
        }
        PostgresSinkIT.sql("DROP SCHEMA " + PostgresIdentifiers.quote(schema) + " CASCADE");
        ScatterEndToEndIT.deleteTopics(Set.of(slow, bound));
    }

    private static List<byte[]> records(final int n)
    {
        final List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            out.add(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String one(final String query) throws SQLException
    {
        return PostgresSinkIT.rows(query).get(0);
    }
}
