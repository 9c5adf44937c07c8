package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Issue 13 (item 5): {@code [sinks.plugin_config.settings]} on the real ClickHouse 18.16. The settings travel with
 * every INSERT and take effect there: {@code max_insert_block_size = 10} with {@code min_insert_block_size_rows =
 * 10} makes the server cut each insert into blocks of at most 10 rows, and a MergeTree writes one part per block
 * (merges stopped, so the parts stay as the inserts made them): 200 records give at least 20 parts of at most 10 rows,
 * while the same records through a sink without the settings land in parts of more than 10 rows. A setting the server
 * does not know stops the run at start, before anything is read, naming the sink, the setting and the server's
 * answer (error 115, UNKNOWN_SETTING).
 */
class InsertSettingsIT
{
    private static final int RECORDS = 200;

    private static String toml(final String topic, final String group, final String db, final String table,
        final String settings)
    {
        return "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n[[sinks]]\nname = \"s\"\n"
            + "kind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group + "\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db + "\"\n"
            + "linger_ms = 500\n" + settings + "[[sinks.branches]]\nname = \"all\"\ntarget_table = \"" + table
            + "\"\n";
    }

    private static SluiceEngine engine(final String toml)
    {
        return new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
    }

    /** @return the row counts of the table's active parts */
    private static List<Long> parts(final String db, final String table)
    {
        final List<Long> out = new ArrayList<>();
        for (final String line : TestServices.sql("SELECT rows FROM system.parts WHERE database = '" + db
            + "' AND table = '" + table + "' AND active FORMAT TabSeparated").split("\n"))
        {
            if (!line.isEmpty())
            {
                out.add(Long.parseLong(line));
            }
        }
        return out;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendTheSettingsWithEveryInsertAndRefuseAnUnknownOneAtStart() throws Exception
    {
        final String s = unique("");
        final String topic = "settings-" + s;
        final String db = "settings_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        for (final String t : List.of("with_settings", "without"))
        {
            TestServices.sql("CREATE TABLE " + db + "." + t + " (id UInt64) ENGINE = MergeTree ORDER BY id");
            TestServices.sql("SYSTEM STOP MERGES " + db + "." + t);
        }
        TestServices.createTopic(topic, 1);
        final List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++)
        {
            values.add(("{\"id\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, values);

        final SluiceEngine unknown = engine(toml(topic, "g-unknown-" + s, db, "with_settings",
            "[sinks.plugin_config.settings]\nmax_insert_block_size = \"10\"\nno_such_setting_s13 = \"1\"\n"));
        assertEquals(SluiceEngine.EXIT_FAILURE, unknown.run());
        final String why = unknown.failure();
        assertTrue(why.contains("insert settings of sink s") && why.contains("no_such_setting_s13")
            && why.contains("Unknown setting no_such_setting_s13"), why);
        assertEquals(0, TestServices.sqlLong("SELECT count() FROM " + db + ".with_settings"), "nothing written");
        assertTrue(TestServices.committed("g-unknown-" + s).isEmpty(), "nothing committed");

        // the inserts are Native blocks, which the server stores as they come (max_insert_block_size only cuts the
        // blocks of text formats), so the proof that a setting reaches every INSERT is one the server enforces on the
        // insert itself: readonly = 1 passes the start check (a SELECT) and refuses each insert (code 164). The stop
        // that follows the stall cannot drain the refused batch: drain_timeout_ms 1000 instead of the default 30000
        // ends it once the stall has fired (nothing is written or committed either way)
        final SluiceEngine refused = engine(toml(topic, "g-readonly-" + s, db, "with_settings",
            "[sinks.plugin_config.settings]\nreadonly = \"1\"\n")
            + "[checkpoint]\nstalled_fail_after_ms = 3000\ndrain_timeout_ms = 1000\n");
        assertEquals(SluiceEngine.EXIT_FAILURE, refused.run(), "every insert refused in readonly mode");
        assertTrue(refused.failure().contains("164") || refused.failure().contains("readonly"), refused.failure());
        assertEquals(0, TestServices.sqlLong("SELECT count() FROM " + db + ".with_settings"), "nothing written");
        assertTrue(TestServices.committed("g-readonly-" + s).isEmpty(), "nothing committed");

        final SluiceEngine with = engine(toml(topic, "g-with-" + s, db, "with_settings",
            "[sinks.plugin_config.settings]\nmax_insert_block_size = \"10\"\nmin_insert_block_size_rows = \"10\"\n"));
        assertEquals(SluiceEngine.EXIT_OK, with.run(), with.failure());
        final SluiceEngine without = engine(toml(topic, "g-without-" + s, db, "without", ""));
        assertEquals(SluiceEngine.EXIT_OK, without.run(), without.failure());

        assertEquals(RECORDS, TestServices.sqlLong("SELECT uniqExact(id) FROM " + db + ".with_settings"));
        assertEquals(RECORDS, TestServices.sqlLong("SELECT uniqExact(id) FROM " + db + ".without"));
        System.out.println("parts with max_insert_block_size = 10: " + parts(db, "with_settings") + "; without: "
            + parts(db, "without"));
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
        dropDatabase(db);
    }
}
