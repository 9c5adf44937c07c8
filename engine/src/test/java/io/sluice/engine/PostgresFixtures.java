package io.sluice.engine;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.kafka.KafkaScatterDriver;
import io.sluice.sinks.postgres.PostgresDriver;
import io.sluice.sinks.postgres.PostgresIdentifiers;

/** What the PostgreSQL sink's engine ITs share: a schema and topics of their own, the TOML of a postgres sink. */
final class PostgresFixtures
{
    private PostgresFixtures()
    {
    }

    /**
     * A schema of one test class ({@code <prefix><time>}) and the topics its tests made: registered as a JUnit
     * extension ({@code @RegisterExtension static}), it creates the schema before the class and drops it and the
     * topics after.
     */
    static final class Schema implements BeforeAllCallback, AfterAllCallback
    {
        final String name;
        private final List<String> topics = new ArrayList<>();

        Schema(final String prefix)
        {
            this.name = prefix + Long.toString(System.currentTimeMillis(), 36);
        }

        @Override
        public void beforeAll(final ExtensionContext context) throws SQLException
        {
            PostgresSinkIT.sql("CREATE SCHEMA " + PostgresIdentifiers.quote(name));
        }

        @Override
        public void afterAll(final ExtensionContext context) throws Exception
        {
            PostgresSinkIT.sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(name) + " CASCADE");
            ScatterEndToEndIT.deleteTopics(new TreeSet<>(topics));
        }

        /** @return the table's name quoted and qualified by this schema */
        String table(final String table)
        {
            return PostgresIdentifiers.qualified(name, table);
        }

        /** Creates a topic of one partition, deleted after the class. */
        String topic(final String topic) throws Exception
        {
            TestServices.createTopic(topic, 1);
            topics.add(topic);
            return topic;
        }
    }

    /**
     * The TOML of one postgres sink reading {@code topics} into {@code schema}, commits every 100 ms.
     *
     * @param sink   lines of the sink's table ({@code on_error = "skip"})
     * @param plugin lines of its plugin_config after the connection and schema
     * @param tail   what follows (branches)
     */
    static String config(final String schema, final String group, final List<String> topics, final String sink,
        final String plugin, final String tail)
    {
        final Map<String, String> secrets = TestServices.secrets();
        final StringBuilder list = new StringBuilder();
        for (final String t : topics)
        {
            list.append(list.length() == 0 ? "" : ", ").append('"').append(t).append('"');
        }
        return """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 100
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = [%s]
            group_id = "%s"
            %s
            [sinks.plugin_config]
            url = "%s"
            username = "%s"
            password = "%s"
            schema = "%s"
            %s
            %s
            """.formatted(TestServices.bootstrap(), list, group, sink, PostgresSinkIT.url(),
            secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), schema, plugin,
            tail);
    }

    /** @return an engine of the TOML with the PostgreSQL and Kafka drivers */
    static SluiceEngine engine(final String toml, final boolean untilCaughtUp)
    {
        return new SluiceEngine(ConfigLoader.parse(toml), c -> new PostgresDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(untilCaughtUp));
    }

    /** Produces {key, value} pairs in order; a null value is a tombstone, a null key none. */
    static void produceKeyed(final String topic, final String... keyValues) throws Exception
    {
        final List<byte[][]> records = new ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2)
        {
            records.add(new byte[][]{bytes(keyValues[i]), bytes(keyValues[i + 1])});
        }
        TestServices.produceKeyed(topic, records);
    }

    private static byte[] bytes(final String s)
    {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
