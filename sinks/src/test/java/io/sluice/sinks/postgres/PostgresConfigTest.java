package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.SinkProviders;

/** A postgres sink's plugin_config as the loader reads and checks it: issue 22's keys, problems with their lines. */
class PostgresConfigTest
{
    private static final String HEAD = """
        [kafka]
        bootstrap_servers = "k:9092"

        [[sinks]]
        name = "pg"
        kind = "postgres"
        pattern = 'orders\\..*'
        group_id = "sluice-pg"

        [sinks.plugin_config]
        """;

    private static List<ConfigProblem> problems(final String pluginConfig)
    {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(HEAD + pluginConfig)).problems();
    }

    @Test
    void shouldReadTheIssuesExampleWithItsDefaults()
    {
        final SluiceConfig c = ConfigLoader.parse(HEAD + """
            url = "postgresql://127.0.0.1:15432/analytics"
            username = "sluice"
            password = "s3cret"
            schema = "public"
            target_table = "{topic}"
            create_table = true
            create_table_ddl = "CREATE TABLE {schema}.{table} (id bigint PRIMARY KEY, doc jsonb, at timestamptz)"
            insert_mode = "append"

            [sinks.plugin_config.settings]
            synchronous_commit = "off"
            """);
        final PostgresConfig p = (PostgresConfig)c.sink("pg").plugin();
        assertEquals("postgres", p.kind());
        assertEquals("jdbc:postgresql://127.0.0.1:15432/analytics", p.jdbcUrl());
        assertEquals(List.of(List.of("jdbc:postgresql://127.0.0.1:15432/analytics")), p.shards());
        assertEquals("public", p.database());
        assertEquals("{topic}", p.targetTable());
        assertEquals("quote", p.identifier());
        assertTrue(p.createTable());
        assertFalse(p.upsert());
        assertEquals("disable", p.sslMode());
        assertEquals(Map.of("synchronous_commit", "off"), p.sessionSettings());
        assertEquals(60_000, p.insertTimeoutMs());
        assertEquals(10_000, p.connectTimeoutMs());
        assertEquals("10", p.connectionProperties().getProperty("connectTimeout"));
        assertEquals("10", p.connectionProperties().getProperty("loginTimeout"));
        assertFalse(p.toString().contains("s3cret"), p.toString());
    }

    /**
     * connect_timeout_ms bounds the TCP connect and the login apart, in pgJDBC's whole seconds (rounded up, never
     * down to pgJDBC's 0 = no limit); below 1 s, zero, negative, over 10 min or not a number is refused naming the key
     * and its line; a URL that sets connectTimeout or loginTimeout itself is refused naming the key to use.
     */
    @Test
    void shouldBoundConnectAndLoginByConnectTimeoutMs()
    {
        final String base = "url = \"postgresql://127.0.0.1:15432/analytics\"\nusername = \"u\"\n"
            + "target_table = \"t\"\n";
        for (final long[] c : new long[][]{{60_000, 60}, {1_000, 1}, {1_001, 2}, {1_500, 2}, {2_999, 3},
            {600_000, 600}})
        {
            final PostgresConfig p = (PostgresConfig)ConfigLoader.parse(HEAD + base + "connect_timeout_ms = " + c[0]
                + "\n").sink("pg").plugin();
            assertEquals(c[0], p.connectTimeoutMs());
            assertEquals(c[1], p.connectTimeoutSeconds());
            assertEquals(Long.toString(c[1]), p.connectionProperties().getProperty("connectTimeout"), "" + c[0]);
            assertEquals(Long.toString(c[1]), p.connectionProperties().getProperty("loginTimeout"), "" + c[0]);
            assertEquals("70", p.connectionProperties().getProperty("socketTimeout"), "insert_timeout_ms + 10 s");
        }
        for (final String bad : List.of("0", "-1", "-60000", "999", "600001"))
        {
            final String all = problems(base + "connect_timeout_ms = " + bad + "\n").toString();
            assertTrue(all.contains("sinks[0].plugin_config.connect_timeout_ms (line 14): " + bad
                + " is out of range"), all);
        }
        final String text = problems(base + "connect_timeout_ms = \"60s\"\n").toString();
        assertTrue(text.contains("sinks[0].plugin_config.connect_timeout_ms (line 14)"), text);
        for (final String param : List.of("connectTimeout=5", "loginTimeout=30", "CONNECTTIMEOUT=5"))
        {
            final String all = problems("url = \"postgresql://h:5432/db?tcpKeepAlive=true&" + param + "\"\n"
                + "username = \"u\"\ntarget_table = \"t\"\n").toString();
            assertTrue(all.contains("sets " + param.substring(0, param.indexOf('=')) + " in the URL: use the key "
                + "connect_timeout_ms instead"), all);
        }
        assertThrows(IllegalArgumentException.class, () -> new PostgresConfig(null, "jdbc:postgresql://h/db", "u", "",
            "disable", null, null, null, null, null, "append", List.of(), Map.of(), 60_000, "at_least_once",
            "sluice_offsets", 0));
    }

    @Test
    void shouldTakePgJdbcsUrlAndUpsertWithKeyColumns()
    {
        final PostgresConfig p = (PostgresConfig)ConfigLoader.parse(HEAD + """
            url = "jdbc:postgresql://db1:5432,db2:5433/an.alytics?targetServerType=primary&tcpKeepAlive=true"
            username = "u"
            target_table = "kv"
            insert_mode = "upsert"
            key_columns = ["k"]
            identifier = "rewrite"
            """).sink("pg").plugin();
        assertEquals("jdbc:postgresql://db1:5432,db2:5433/an.alytics?targetServerType=primary&tcpKeepAlive=true",
            p.jdbcUrl());
        assertEquals(List.of(List.of("jdbc:postgresql://db1:5432,db2:5433/an.alytics")), p.shards());
        assertTrue(p.upsert());
        assertEquals(List.of("k"), p.keyColumns());
        assertEquals("rewrite", p.identifier());
    }

    /**
     * tombstones = "delete" is a capability of the kind: postgres in upsert mode takes it; append mode and
     * ClickHouse are refused, naming the key, its line and the kind; on_error never takes "delete".
     */
    @Test
    void shouldAllowDeletingTombstonesOnlyWhereTheKindDeletes()
    {
        final String upsert = HEAD.replace("group_id = \"sluice-pg\"",
            "group_id = \"sluice-pg\"\ntombstones = \"delete\"")
            + """
                url = "postgresql://127.0.0.1:15432/analytics"
                username = "sluice"
                target_table = "kv"
                insert_mode = "upsert"
                """;
        assertEquals(io.sluice.core.config.ErrorPolicy.DELETE, ConfigLoader.parse(upsert).sink("pg").tombstones());
        final String append = String.valueOf(assertThrows(ConfigException.class,
            () -> ConfigLoader.parse(upsert.replace("\"upsert\"", "\"append\""))).problems());
        assertTrue(append.contains("sinks[0].tombstones (line 9): \"delete\" is not possible here: kind "
            + "\"postgres\" deletes rows in insert_mode = \"upsert\" only"), append);
        final String clickhouse = String.valueOf(assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"
            [[sinks]]
            name = "ch"
            kind = "clickhouse"
            topics = ["t"]
            group_id = "g"
            tombstones = "delete"
            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:8123"
            target_table = "t"
            """)).problems());
        assertTrue(clickhouse.contains("sinks[0].tombstones (line 8): \"delete\" is not possible here: kind "
            + "\"clickhouse\" cannot delete rows"), clickhouse);
        final String onError = String.valueOf(assertThrows(ConfigException.class,
            () -> ConfigLoader.parse(upsert.replace("tombstones = \"delete\"", "on_error = \"delete\""))).problems());
        assertTrue(onError.contains("on_error") && onError.contains("\"delete\" is not one of"), onError);
    }

    @Test
    void shouldNameEveryProblemWithItsKeyAndLine()
    {
        final String all = problems("""
            url = "mysql://h/db"
            target_table = "t"
            ssl_mode = "prefer"
            insert_mode = "merge"
            create_table = true
            max_rows = 0
            schemaa = "x"
            """).toString();
        assertTrue(all.contains("sinks[0].plugin_config.url (line 11): \"mysql://h/db\" is not a postgresql://"), all);
        assertTrue(all.contains("sinks[0].plugin_config.username"), all);
        assertTrue(all.contains("sinks[0].plugin_config.ssl_mode (line 13): \"prefer\" is not one of"), all);
        assertTrue(all.contains("sinks[0].plugin_config.insert_mode (line 14): \"merge\" is not one of"), all);
        assertTrue(all.contains("create_table = true needs create_table_ddl or create_table_like"), all);
        assertTrue(all.contains("sinks[0].plugin_config.max_rows (line 16): 0 is out of range"), all);
        assertTrue(all.contains("sinks[0].plugin_config.schemaa (line 17)"), all);
    }

    @Test
    void shouldRefuseCredentialsInTheUrlAndConflictingSettings()
    {
        final String all = problems("""
            url = "postgresql://u:pw@h:5432/db"
            username = "u"
            target_table = "t"
            key_columns = ["k"]
            create_table_ddl = "CREATE TABLE {schema}.x (a int)"
            ssl_mode = "verify-full"

            [sinks.plugin_config.settings]
            TimeZone = "Asia/Shanghai"
            "bad name" = "1"
            """).toString();
        assertTrue(all.contains("url (line 11): holds a user"), all);
        assertFalse(all.contains("pw"), all);
        assertTrue(all.contains("key_columns (line 14): is read only with insert_mode = \"upsert\""), all);
        assertTrue(all.contains("create_table_ddl (line 15): has no {table} placeholder"), all);
        assertTrue(all.contains("ssl_mode (line 16): \"verify-full\" checks the server's certificate against "
            + "ssl_ca_file"), all);
        assertTrue(all.contains("settings.TimeZone"), all);
        assertTrue(all.contains("the session time zone is always UTC"), all);
        assertTrue(all.contains("is not a parameter name"), all);
        assertTrue(problems("url = \"postgresql://h:5432/db?sslmode=require\"\nusername = \"u\"\n"
            + "target_table = \"t\"\n").toString().contains("use the key ssl_mode instead"));
        assertTrue(problems("url = \"postgresql://h:5432\"\nusername = \"u\"\ntarget_table = \"t\"\n").toString()
            .contains("names no database"));
    }

    @Test
    void shouldQuoteDottedNamesVerbatimAndRefuseLongOnes()
    {
        final PostgresProvider p = (PostgresProvider)SinkProviders.installed().provider("postgres");
        assertEquals("\"public\".\"orders.eu\"", p.qualifiedName("public", "orders.eu"));
        assertEquals("\"public\".\"Orders\"", p.qualifiedName("public", "Orders"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> p.qualifiedName("public", "x".repeat(64)));
        assertTrue(e.getMessage().contains("64 bytes"), e.getMessage());
    }

    @Test
    void shouldReadExactlyOnceWithItsPositionsTable()
    {
        final PostgresConfig p = (PostgresConfig)ConfigLoader.parse(HEAD + """
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "{topic}"
            delivery = "exactly_once"
            offsets_table = "positions"
            """).sink("pg").plugin();
        assertTrue(p.exactlyOnce());
        assertEquals("positions", p.offsetsTable());
        final PostgresConfig plain = (PostgresConfig)ConfigLoader.parse(HEAD + """
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "{topic}"
            """).sink("pg").plugin();
        assertFalse(plain.exactlyOnce());
        assertEquals("at_least_once", plain.delivery());
        assertEquals("sluice_offsets", plain.offsetsTable());
    }

    @Test
    void shouldRefuseExactlyOnceWhereItCannotHoldNamingWhyAndTheLine()
    {
        final List<ConfigProblem> several = problems("""
            url = "postgresql://db1:5432,db2:5432/analytics"
            username = "u"
            target_table = "{topic}"
            delivery = "exactly_once"
            """);
        assertEquals(1, several.size(), several.toString());
        assertEquals("sinks[0].plugin_config.delivery", several.get(0).key());
        assertEquals(14, several.get(0).line());
        assertTrue(several.get(0).message().contains("several hosts (db1:5432,db2:5432)")
            && several.get(0).message().contains("targetServerType=primary"), several.get(0).message());
        // replicas of one primary: pgJDBC writes to the primary only
        assertTrue(((PostgresConfig)ConfigLoader.parse(HEAD + """
            url = "postgresql://db1:5432,db2:5432/analytics?targetServerType=primary"
            username = "u"
            target_table = "{topic}"
            delivery = "exactly_once"
            """).sink("pg").plugin()).exactlyOnce());

        final String templated = problems("""
            url = "postgresql://db:5432/analytics"
            username = "u"
            schema = "{topic_segment[0]}"
            target_table = "{topic}"
            delivery = "exactly_once"
            """).toString();
        assertTrue(templated.contains("is a template"), templated);

        final String alone = problems("""
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "{topic}"
            offsets_table = "positions"
            """).toString();
        assertTrue(alone.contains("offsets_table") && alone.contains("only with delivery"), alone);

        final String typo = problems("""
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "{topic}"
            delivery = "exactly-once"
            """).toString();
        assertTrue(typo.contains("delivery"), typo);
    }

    @Test
    void shouldRefuseTwoBranchesWritingOneTableUnderExactlyOnceNamingBothAndTheLine()
    {
        final String plugin = """
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "orders"
            delivery = "%s"

            [[sinks.branches]]
            name = "eu"
            when = { path = "region", equals = "eu" }
            target_table = "orders"

            [[sinks.branches]]
            name = "us"
            when = { path = "region", equals = "us" }
            target_table = "orders_us"

            [[sinks.branches]]
            name = "rest"
            """;
        // line 19: eu's target_table; "rest" takes plugin_config's "orders" (its first key is line 27)
        final List<ConfigProblem> p = problems(plugin.formatted("exactly_once"));
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[0].branches[2].target_table", p.get(0).key());
        assertEquals(27, p.get(0).line());
        assertTrue(p.get(0).message().contains("branches \"eu\" (line 19) and \"rest\" both write table \"orders\"")
            && p.get(0).message().contains("sink \"pg\", which is delivery = \"exactly_once\""), p.get(0).message());
        // at least once, two branches may share a table
        assertEquals(3, ConfigLoader.parse(HEAD + plugin.formatted("at_least_once")).sink("pg").branches().size());
        // one template is one table per topic for both branches: refused too; distinct tables are fine
        final List<ConfigProblem> templated = problems(plugin.formatted("exactly_once").replace("\"orders\"",
            "\"{topic}\""));
        assertEquals(1, templated.size(), templated.toString());
        assertTrue(templated.get(0).message().contains("both write table \"{topic}\""), templated.toString());
        assertEquals(3,
            ConfigLoader.parse(HEAD + plugin.formatted("exactly_once").replace("target_table = \"orders\"\n\n",
                "target_table = \"orders_eu\"\n\n")).sink("pg").branches().size());

        // branches of another sink's split that write to the exactly-once sink (sink key) are one split too
        final List<ConfigProblem> elsewhere = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "src"
            kind = "postgres"
            topics = ["orders"]
            group_id = "g"
            [sinks.plugin_config]
            url = "postgresql://db:5432/a"
            username = "u"
            target_table = "raw"
            [[sinks.branches]]
            name = "a"
            when = { path = "k", equals = "a" }
            sink = "pg"
            target_table = "t"
            [[sinks.branches]]
            name = "b"
            sink = "pg"
            target_table = "t"

            [[sinks]]
            name = "pg"
            kind = "postgres"
            [sinks.plugin_config]
            url = "postgresql://db:5432/b"
            username = "u"
            target_table = "t"
            delivery = "exactly_once"
            """)).problems();
        assertEquals(1, elsewhere.size(), elsewhere.toString());
        assertEquals("sinks[0].branches[1].target_table", elsewhere.get(0).key());
        assertEquals(21, elsewhere.get(0).line());
        assertTrue(elsewhere.get(0).message().contains("branches \"a\" (line 17) and \"b\""), elsewhere.toString());
    }

    /**
     * Two exactly-once sinks that keep their positions in one place (same server, schema and offsets_table) share
     * the positions row of a table; two branches of one split writing that table through them are refused by check,
     * as the run would refuse the second. Positions in another table, or sinks with different groups, are not.
     */
    @Test
    void shouldRefuseBranchesWritingOneTableThroughTwoSinksThatKeepPositionsInOnePlace()
    {
        final String toml = """
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = ["orders"]
            group_id = "g"
            [sinks.plugin_config]
            url = "postgresql://db:5432/a"
            username = "u"
            delivery = "exactly_once"
            [[sinks.branches]]
            name = "x"
            when = { path = "k", equals = "x" }
            target_table = "twin"
            [[sinks.branches]]
            name = "y"
            sink = "pg2"
            target_table = "twin"

            [[sinks]]
            name = "pg2"
            kind = "postgres"
            [sinks.plugin_config]
            url = "postgresql://db:5432/a"
            username = "u2"
            delivery = "exactly_once"
            %s
            """;
        final List<ConfigProblem> p = assertThrows(ConfigException.class,
            () -> ConfigLoader.parse(toml.formatted(""))).problems();
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[0].branches[1].target_table", p.get(0).key());
        assertTrue(p.get(0).message().contains("branches \"x\" (line 16) and \"y\" both write table \"twin\"")
            && p.get(0).message().contains("sinks \"pg\" and \"pg2\"")
            && p.get(0).message().contains("\"public\".\"sluice_offsets\" at jdbc:postgresql://db:5432/a"),
            p.get(0).message());
        // the positions kept in another table (or on another server) are another row: accepted
        assertEquals(2, ConfigLoader.parse(toml.formatted("offsets_table = \"pg2_offsets\"")).sink("pg").branches()
            .size());
        assertEquals(2, ConfigLoader.parse(toml.formatted("").replace("db:5432/a\"\nusername = \"u2\"",
            "other:5432/a\"\nusername = \"u2\"")).sink("pg").branches().size());
    }

    /** offsets_table is a name, not a template, and never a table the sink writes rows into. */
    @Test
    void shouldRefuseAnOffsetsTableThatIsATemplateOrATargetTable()
    {
        final String braces = problems("""
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "{topic}"
            delivery = "exactly_once"
            offsets_table = "{topic}_offsets"
            """).toString();
        assertTrue(braces.contains("sinks[0].plugin_config.offsets_table") && braces.contains("is not a template"),
            braces);

        final String same = problems("""
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "orders"
            delivery = "exactly_once"
            offsets_table = "orders"
            """).toString();
        assertTrue(same.contains("sinks[0].plugin_config.offsets_table") && same.contains("is also this sink's "
            + "target_table"), same);

        final List<ConfigProblem> branch = problems("""
            url = "postgresql://db:5432/analytics"
            username = "u"
            delivery = "exactly_once"
            offsets_table = "positions"

            [[sinks.branches]]
            name = "a"
            target_table = "positions"
            """);
        assertEquals(1, branch.size(), branch.toString());
        assertEquals("sinks[0].branches[0].target_table", branch.get(0).key());
        assertTrue(branch.get(0).message().contains("also offsets_table of sink \"pg\""), branch.toString());
        // at least once there is no positions table: the name is free
        assertEquals(1, ConfigLoader.parse(HEAD + """
            url = "postgresql://db:5432/analytics"
            username = "u"

            [[sinks.branches]]
            name = "a"
            target_table = "sluice_offsets"
            """).sink("pg").branches().size());
    }

    /** A plugin_config key written at the sink level is named with where it goes, for any such key. */
    @Test
    void shouldSayWhereAPluginConfigKeyGoesWhenWrittenAtTheSinkLevel()
    {
        final List<ConfigProblem> p = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = ["orders"]
            group_id = "g"
            delivery = "exactly_once"
            insert_mode = "upsert"

            [sinks.plugin_config]
            url = "postgresql://db:5432/analytics"
            username = "u"
            target_table = "orders"
            """)).problems();
        assertEquals(2, p.size(), p.toString());
        final String all = p.toString();
        assertTrue(all.contains("sinks[0].delivery (line 9): unknown key; did you mean [sinks.plugin_config] "
            + "delivery?"), all);
        assertTrue(all.contains("sinks[0].insert_mode (line 10): unknown key; did you mean [sinks.plugin_config] "
            + "insert_mode?"), all);
    }

    @Test
    void shouldRefuseExactlyOnceOnClickHouseNamingWhy()
    {
        final List<ConfigProblem> p = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "ch"
            kind = "clickhouse"
            pattern = 'orders\\..*'
            group_id = "sluice-ch"

            [sinks.plugin_config]
            endpoint = "http://ch:8123"
            database = "db"
            target_table = "{topic}"
            delivery = "exactly_once"
            """)).problems();
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[0].plugin_config.delivery", p.get(0).key());
        assertEquals(14, p.get(0).line());
        assertTrue(p.get(0).message().contains("ClickHouse has none"), p.get(0).message());
    }

    /**
     * Session parameters that change what Sluice reads back as text (extra_float_digits: constant DEFAULTs through
     * to_json, rounded with fewer digits) or the rows' encoding (client_encoding) are the engine's own, as TimeZone.
     */
    @Test
    void shouldRefuseSettingsThatChangeWhatTheEngineReads()
    {
        final String all = problems("""
            url = "postgresql://h:5432/db"
            username = "u"
            target_table = "t"

            [sinks.plugin_config.settings]
            extra_float_digits = "-10"
            CLIENT_ENCODING = "LATIN1"
            synchronous_commit = "off"
            """).toString();
        assertTrue(
            all.contains("settings.extra_float_digits (line 16)") && all.contains("the session always prints floats"),
            all);
        assertTrue(all.contains("settings.CLIENT_ENCODING (line 17)")
            && all.contains("the session's client encoding is always UTF8"),
            all);
        assertFalse(all.contains("synchronous_commit"), all);
    }

    /**
     * A schema or target_table without a placeholder is the one name of every destination: empty, holding NUL or over
     * 63 bytes in UTF-8 (a multi-byte character crossing the limit) is a problem at check, with its line; a template
     * is checked per topic at run time; key_columns naming a column twice is a problem.
     */
    @Test
    void shouldRefuseConstantNamesPostgresWouldNotKeepAtCheck()
    {
        final String sixtyFour = "\u00e9".repeat(31) + "ab"; // 31 x 2 bytes + 2 = 64 bytes, 33 characters
        final String all = problems("url = \"postgresql://h:5432/db\"\nusername = \"u\"\n"
            + "target_table = \"" + sixtyFour + "\"\nschema = \"\"\n").toString();
        assertTrue(all.contains("target_table (line 13): the table name") && all.contains("is 64 bytes in UTF-8"),
            all);
        assertTrue(all.contains("schema (line 14): the schema name is empty"), all);
        final String sixtyThree = "\u00e9".repeat(31) + "a";
        ConfigLoader.parse(HEAD + "url = \"postgresql://h:5432/db\"\nusername = \"u\"\ntarget_table = \""
            + sixtyThree + "\"\n");
        ConfigLoader.parse(HEAD + "url = \"postgresql://h:5432/db\"\nusername = \"u\"\ntarget_table = \""
            + "x".repeat(70) + "{topic}\"\n");
        final String keys = problems("url = \"postgresql://h:5432/db\"\nusername = \"u\"\ntarget_table = \"t\"\n"
            + "insert_mode = \"upsert\"\nkey_columns = [\"a\", \"b\", \"a\"]\n").toString();
        assertTrue(keys.contains("key_columns (line 15): names a column twice: [a, b, a]"), keys);
    }
}
