package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.databases;
import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.rowsPerTable;
import static io.sluice.engine.DestinationFixtures.tables;
import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.DestinationNames;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.naming.HostileNames;
import io.sluice.core.naming.IdentifierPolicy;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Whatever a destination is called, no statement Sluice sends can be changed by it. Against the real ClickHouse
 * server: every name of {@link HostileNames} (quotes, backquotes, backslashes, semicolons, comments, newlines, NUL,
 * non-ASCII, keywords, dots) goes through the engine's own naming step ({@link DestinationNames}) and catalog
 * (describe, create from {@code create_table_ddl} or {@code create_table_like}) under both identifier policies, and
 * after every single creation the database holds exactly the intended tables: names are read back from
 * {@code system.tables} as hex, never through Sluice's quoting, and bystander tables in this and another database
 * are untouched. Then records flow through a running engine whose table templates carry hostile literal text
 * (Kafka's topic names themselves are limited to {@code [a-zA-Z0-9._-]}).
 */
class DestinationHostileNamesIT
{
    /** Characters a database name here carries on top of its unique part, under the quote policy. */
    private static final String HOSTILE_DATABASE_PART = "`';-- \u00e9";

    private static String backquote(final String name)
    {
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    private static SluiceConfig config(final String policy, final String creation)
    {
        return ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "%s"
            [[sinks]]
            name = "hostile"
            kind = "clickhouse"
            pattern = 'unused'
            group_id = "unused"
            [sinks.plugin_config]
            endpoint = "%s"
            target_table = "unused"
            identifier = "%s"
            create_table = true
            %s
            """.formatted(TestServices.bootstrap(), TestServices.clickhouse(), policy, creation));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"quote, ddl", "quote, like", "rewrite, ddl", "rewrite, like"})
    void shouldCreateExactlyTheIntendedTableForEveryHostileName(final String policyName, final String mode)
        throws Exception
    {
        final IdentifierPolicy policy = IdentifierPolicy.parse(policyName);
        final String plain = unique("dest_hostile_" + policyName + "_" + mode + "_");
        final String written = policy == IdentifierPolicy.QUOTE ? plain + HOSTILE_DATABASE_PART : plain;
        final String database = policy.apply(written);
        final String bystander = plain + "_bystander";
        final String template = "tmpl'`\\;--\u00e9";
        TestServices.sql("CREATE DATABASE " + backquote(database));
        TestServices.sql("CREATE DATABASE " + backquote(bystander));
        for (final String t : List.of(backquote(database) + ".t", backquote(bystander) + ".t",
            backquote(bystander) + ".x"))
        {
            TestServices.sql("CREATE TABLE " + t + " (id UInt64) ENGINE = MergeTree() ORDER BY id");
            TestServices.sql("INSERT INTO " + t + " VALUES (1)");
        }
        final TreeSet<String> expected = new TreeSet<>(Set.of("t"));
        final String creation;
        if ("like".equals(mode))
        {
            TestServices.sql("CREATE TABLE " + backquote(database) + "." + backquote(template)
                + " (id UInt64, s String) ENGINE = ReplacingMergeTree() ORDER BY id");
            expected.add(template);
            creation = "create_table_like = " + DestinationCommandTest.toml(template);
        }
        else
        {
            creation = "create_table_ddl = \"CREATE TABLE {database}.{table} (id UInt64, s String) ENGINE = MergeTree() ORDER BY id\"";
        }
        final Set<String> databasesBefore = databases();
        assertEquals(expected, tables(database));

        try (ClickHouseDriver driver = new ClickHouseDriver())
        {
            final DestinationCatalog catalog = driver
                .catalog(DestinationFixtures.spec(config(policyName, creation), written,
                    "unused"));
            final List<String> failures = new ArrayList<>();
            for (final String name : HostileNames.NAMES)
            {
                final DestinationNames.Name n = new DestinationNames(DestinationCommandTest.literal(written),
                    DestinationCommandTest.literal(name), policyName, ClickHouseIdentifiers::qualified)
                    .resolve("any.topic");
                assertTrue(n.ok(), n.toString());
                assertEquals(database, n.database());
                if (policy == IdentifierPolicy.QUOTE)
                {
                    assertEquals(name, n.table());
                }
                else
                {
                    assertTrue(n.table().matches("[A-Za-z_][A-Za-z0-9_]*"), n.table());
                }
                final boolean fresh = expected.add(n.table());
                final TableSchema before = catalog.describe(n.database(), n.table());
                assertEquals(fresh, before == null, "describe of " + n.sql());
                if (fresh)
                {
                    catalog.create(n.database(), n.table());
                }
                final TableSchema after = catalog.describe(n.database(), n.table());
                assertNotNull(after, n.sql());
                assertEquals(List.of("id", "s"), after.columns().stream().map(ColumnSpec::name).toList());
                final TreeSet<String> now = tables(database);
                if (!now.equals(expected))
                {
                    failures.add(name + " (" + n.sql() + "): tables now " + now);
                    expected.clear();
                    expected.addAll(now);
                }
            }
            assertEquals(List.of(), failures, "each creation made exactly its table");
        }
        if ("like".equals(mode))
        {
            final String engines = TestServices.sql("SELECT DISTINCT engine FROM system.tables WHERE database = "
                + DestinationFixtures.literal(database) + " AND name != 't' FORMAT TabSeparated");
            assertEquals("ReplacingMergeTree\n", engines, "copies of the template, engine included");
        }
        assertEquals(Set.of("t", "x"), tables(bystander), "the other database is untouched");
        assertEquals(Map.of("t", 1L, "x", 1L), rowsPerTable(bystander));
        assertEquals(1L, rowsPerTable(database).get("t"), "the sentinel in the same database keeps its row");
        final TreeSet<String> databasesAfter = databases();
        assertTrue(databasesAfter.containsAll(Set.of(database, bystander, "default", "system")),
            databasesAfter.toString());
        assertTrue(databasesAfter.stream().noneMatch(d -> !databasesBefore.contains(d) && d.contains(plain)),
            "no database was created: " + databasesAfter);
        System.out.printf("hostile names IT (%s, %s): %d names -> %d distinct tables, each created alone%n", policyName,
            mode,
            HostileNames.NAMES.size(), expected.size() - ("like".equals(mode) ? 2 : 1));
        dropDatabase(database);
        dropDatabase(bystander);
    }

    /**
     * Records through a running engine: one sink quotes table names whose template has hostile literal text around
     * the topic's last segment, another rewrites the whole topic; Kafka's legal {@code -}, {@code .} and
     * {@code _} and a leading digit come from the topics.
     */
    @Test
    void shouldWriteRecordsIntoTablesWithHostileNamesAndNothingElse() throws Exception
    {
        final String s = unique("");
        final String prefix = "hostile-" + s;
        final String database = "dest_hostile_pipe_" + s;
        TestServices.sql("CREATE DATABASE " + database);
        TestServices.sql("CREATE TABLE " + database + ".t (id UInt64) ENGINE = MergeTree() ORDER BY id");
        TestServices.sql("INSERT INTO " + database + ".t VALUES (1)");
        final String hostile = "x`; DROP TABLE t; --\n'\"\\ /* \u65e5\u672c\ud83d\ude00 */ {topic} \u0000";
        final List<String> topics = List.of(prefix + ".a-b", prefix + ".c_d.e", prefix + ".1x");
        for (final String topic : topics)
        {
            TestServices.createTopic(topic, 1);
            final List<byte[]> values = new ArrayList<>();
            for (int i = 0; i < 10; i++)
            {
                values.add(("{\"id\":" + i + ",\"user\":\"" + topic + "\"}").getBytes(StandardCharsets.UTF_8));
            }
            TestServices.produce(topic, values);
        }
        final String sink = """
            [[sinks]]
            name = "%s"
            kind = "clickhouse"
            pattern = '%s\\..*'
            group_id = "%s"
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            target_table = %s
            identifier = "%s"
            create_table = true
            create_table_ddl = "CREATE TABLE {database}.{table} (id UInt64, user String, ts DateTime DEFAULT now()) ENGINE = MergeTree() ORDER BY id"
            linger_ms = 100
            """;
        final String toml = "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap()
            + "\"\n[checkpoint]\ncommit_interval_ms = 200\n"
            + "stalled_fail_after_ms = 30000\n"
            + sink.formatted("quoted", prefix.replace("-", "\\-"), "g-q-" + s, TestServices.clickhouse(), database,
                DestinationCommandTest.toml(DestinationCommandTest.literal(hostile) + "{topic_segment[-1]}"), "quote")
            + sink.formatted("rewritten", prefix.replace("-", "\\-"), "g-r-" + s, TestServices.clickhouse(), database,
                "\"{topic}\"", "rewrite");
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        assertEquals(SluiceEngine.EXIT_OK, engine.run());

        final Map<String, Long> expected = new TreeMap<>(Map.of("t", 1L));
        for (final String topic : topics)
        {
            final String last = topic.substring(topic.lastIndexOf('.') + 1);
            expected.put(hostile + last, 10L);
            expected.put(topic.replaceAll("[^A-Za-z0-9_]", "_"), 10L);
        }
        assertEquals(expected.keySet(), tables(database), "exactly the intended tables");
        assertEquals(expected, rowsPerTable(database), "every record in its table, the sentinel untouched");
        System.out.printf("hostile names pipeline IT: %d tables created and written, e.g. %s%n", expected.size() - 1,
            expected.keySet().iterator().next().replace("\n", "\\n"));
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(topics));
        dropDatabase(database);
    }
}
