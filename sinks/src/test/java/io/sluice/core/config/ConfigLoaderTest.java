package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest
{
    private static final String MINIMAL = """
        [kafka]
        bootstrap_servers = "k:9092"

        [[sinks]]
        name = "s"
        kind = "clickhouse"
        pattern = 'events\\..*'
        group_id = "g"

        [sinks.plugin_config]
        endpoint = "http://ch:8123"
        target_table = "events"
        """;

    private static List<ConfigProblem> problems(final String toml)
    {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(toml)).problems();
    }

    private static ConfigProblem only(final String toml)
    {
        final List<ConfigProblem> p = problems(toml);
        assertEquals(1, p.size(), p.toString());
        return p.get(0);
    }

    /** The start-up Kafka check's wait: 10 s unless engine.kafka_check_timeout_ms says otherwise, within 1 s..10 min. */
    @Test
    void kafkaCheckTimeoutIsReadWithItsDefaultAndRange()
    {
        assertEquals(10_000L, ConfigLoader.parse(MINIMAL).engine().kafkaCheckTimeoutMs());
        assertEquals(60_000L, ConfigLoader.parse("[engine]\nkafka_check_timeout_ms = 60000\n" + MINIMAL).engine()
            .kafkaCheckTimeoutMs());
        final ConfigProblem p = only("[engine]\nkafka_check_timeout_ms = 10\n" + MINIMAL);
        assertEquals("engine.kafka_check_timeout_ms", p.key(), p.toString());
        assertEquals(2, p.line(), p.toString());
    }

    /**
     * What the engine cannot run refuses at load, naming the key (the hostile trial: each passed check, then the run
     * hung or failed with a stack trace).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "overflow_buffers = 0 | engine.overflow_buffers | out of range [1, 65536]",
        "ack_window = 134217728 | engine.ack_window | out of range [64, 67108864]",
        "ring_size = 262144 | engine.ring_size | is over 2 GiB - 1",
        "ring_size = 4096\\nslot_bytes = 67108864 | engine.ring_size | 4096 x 67108864 bytes"})
    void shouldRefuseEngineSettingsTheEngineCannotRun(final String line, final String key, final String message)
    {
        final ConfigProblem p = only("[engine]\n" + line.replace("\\n", "\n") + "\n" + MINIMAL);
        assertEquals(key, p.key(), p.toString());
        assertTrue(p.message().contains(message), p.toString());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "127.0.0.1:9464 | 127.0.0.1 | 9464",
        ":9464 | '' | 9464",
        "localhost:0 | localhost | 0",
        "[::1]:9464 | ::1 | 9464",
        "[fe80::1%eth0]:65535 | fe80::1%eth0 | 65535"})
    void shouldTakeHostAndPortForTheMetricsEndpoint(final String listen, final String host, final int port)
    {
        final SluiceConfig.Metrics m = ConfigLoader.parse("[metrics]\nlisten = \"" + listen + "\"\n" + MINIMAL)
            .metrics();
        assertEquals(host, m.host());
        assertEquals(port, m.port());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"nohost", "127.0.0.1:99999", "127.0.0.1:65536",
        "127.0.0.1:-1", "127.0.0.1:", "::1:9464", "http://127.0.0.1:9464", "127.0.0.1:9464/metrics", " "})
    void shouldRefuseAMetricsListenThatIsNotHostAndPort(final String listen)
    {
        final ConfigProblem p = only("[metrics]\nlisten = \"" + listen + "\"\n" + MINIMAL);
        assertEquals("metrics.listen", p.key());
        assertEquals(2, p.line());
        assertTrue(p.message().startsWith("expected host:port with a port 0..65535"), p.message());
    }

    @Test
    void shouldApplyDefaultsToAMinimalSink()
    {
        final SluiceConfig c = ConfigLoader.parse(MINIMAL);
        final SluiceConfig.Sink s = c.sink("s");
        assertEquals(ErrorPolicy.FAIL, s.unmatched());
        assertEquals(ErrorPolicy.FAIL, s.onError());
        assertEquals("earliest", s.autoOffsetReset());
        assertEquals(2000, s.topicRefreshMs());
        assertEquals(List.of("http://ch:8123"), ((ClickHouseConfig)s.plugin()).endpoints());
        assertEquals("default", s.plugin().database());
        assertEquals(1, s.branches().size(), "a sink without branches writes everything to target_table");
        final SluiceConfig.Branch b = s.branches().get(0);
        assertNull(b.when());
        assertEquals("events", b.targetTable());
        assertEquals(100_000, b.maxRows());
        assertEquals(16 << 20, b.maxBytes());
        assertEquals(1000, b.lingerMs());
        assertEquals(300_000, c.checkpoint().stalledFailAfterMs());
        assertEquals(4096, c.engine().ringSize());
    }

    @Test
    void shouldLetBranchesOverrideBatchingAndInheritTheRest()
    {
        final SluiceConfig c = ConfigLoader.parse(MINIMAL + """
            max_rows = 500
            [[sinks.branches]]
            name = "a"
            when = { path = "type", in = ["x", "y"] }
            linger_ms = 10
            [[sinks.branches]]
            name = "b"
            when = { path = "n", equals = 42 }
            target_table = "b_table"
            database = "other"
            columns = { user_id = "user.id" }
            """);
        final SluiceConfig.Branch a = c.sink("s").branches().get(0);
        final SluiceConfig.Branch b = c.sink("s").branches().get(1);
        assertEquals(500, a.maxRows());
        assertEquals(10, a.lingerMs());
        assertEquals("events", a.targetTable());
        assertEquals(SluiceConfig.Condition.Op.IN, a.when().op());
        assertEquals(List.of("x", "y"), a.when().values());
        assertEquals(List.of("42"), b.when().values(), "a number literal compares with the number's text");
        assertEquals("b_table", b.targetTable());
        assertEquals("other", b.database());
        assertEquals("user.id", b.columns().get("user_id"));
        assertEquals(1000, b.lingerMs());
    }

    @Test
    void shouldNameAnUnknownKeyWithItsLineAndSuggestTheRightOne()
    {
        final ConfigProblem p = only(MINIMAL + "maxrows = 5\n");
        assertEquals("sinks[0].plugin_config.maxrows", p.key());
        assertEquals(13, p.line());
        assertTrue(p.message().contains("did you mean max_rows?"), p.message());
        assertTrue(only(MINIMAL + "linger = 5\n").message().contains("did you mean linger_ms?"));
    }

    @Test
    void shouldReportEveryProblemAtOnce()
    {
        final List<ConfigProblem> p = problems("""
            [kafka]
            bootstrap_servers = 9092
            [engine]
            ring_size = 1000
            [[sinks]]
            name = "s"
            kind = "mysql"
            group_id = "g"
            unmatched = "drop"
            [sinks.plugin_config]
            endpoint = "ch:8123"
            max_rows = 0
            """);
        final String all = p.toString();
        assertTrue(all.contains("kafka.bootstrap_servers (line 2): expected a string, got the integer 9092"), all);
        assertTrue(all.contains("engine.ring_size (line 4): 1000 is not a power of two"), all);
        assertTrue(all.contains("sinks[0].kind (line 7): \"mysql\" is not one of \"clickhouse\", \"postgres\""), all);
        assertTrue(all.contains("sinks[0].unmatched (line 9): \"drop\" is not one of \"fail\", \"skip\""), all);
        assertTrue(all.contains("sinks[0].pattern"), all);
        // an unknown kind's own keys cannot be told from mistakes: only the keys every kind shares are checked
        assertFalse(all.contains("plugin_config.endpoint"), all);
        assertTrue(all.contains("sinks[0].plugin_config.max_rows (line 12): 0 is out of range"), all);
        assertTrue(all.contains("target_table"), all);
    }

    @Test
    void shouldCheckTheKeysOfTheSinksKindWithTheirLines()
    {
        // what shouldReportEveryProblemAtOnce asserted of endpoint while every sink was read as ClickHouse's
        final String all = problems("""
            [kafka]
            bootstrap_servers = 9092
            [engine]
            ring_size = 1000
            [[sinks]]
            name = "s"
            kind = "clickhouse"
            group_id = "g"
            unmatched = "drop"
            [sinks.plugin_config]
            endpoint = "ch:8123"
            max_rows = 0
            """).toString();
        assertTrue(
            all.contains("sinks[0].plugin_config.endpoint (line 11): \"ch:8123\" is not an http(s)://host:port URL"),
            all);
        assertTrue(all.contains("sinks[0].plugin_config.max_rows (line 12): 0 is out of range"), all);
    }

    @Test
    void shouldListTheInstalledKindsForAnUnknownKind()
    {
        final SinkKinds none = SinkKinds.of(List.of());
        final ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(MINIMAL,
            System::getenv, none));
        assertTrue(e.getMessage().contains("sinks[0].kind (line "), e.getMessage());
        assertTrue(e.getMessage().contains("\"clickhouse\": no sink kind is installed"), e.getMessage());
    }

    @Test
    void shouldReportSyntaxErrorsWithTheirLine()
    {
        final ConfigProblem p = only("[kafka]\nbootstrap_servers = \"x\"\n[[sinks]\n");
        assertEquals("(syntax)", p.key());
        assertEquals(3, p.line());
    }

    @Test
    void shouldRequireTheCatchAllBranchToBeLast()
    {
        final ConfigProblem p = only(MINIMAL + """
            [[sinks.branches]]
            name = "all"
            [[sinks.branches]]
            name = "never"
            when = { path = "type", equals = "x" }
            """);
        assertEquals("sinks[0].branches[0].when", p.key());
        assertTrue(p.message().contains("must be the last branch"), p.message());
    }

    @Test
    void shouldRejectARegexThatNeedsBacktrackingNamingTheKeyAndLine()
    {
        final ConfigProblem matches = only(
            MINIMAL + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", matches = '(\\w+)\\1' }\n");
        assertEquals("sinks[0].branches[0].when", matches.key());
        assertEquals(15, matches.line(), matches.toString());
        assertTrue(matches.message().startsWith("matches: not a regular expression Sluice can run"), matches.message());
        assertTrue(matches.message().contains("backreferences are not supported"), matches.message());

        final ConfigProblem pattern = only(MINIMAL.replace("pattern = 'events\\..*'", "pattern = 'events(?=\\.).*'"));
        assertEquals("sinks[0].pattern", pattern.key());
        assertEquals(7, pattern.line(), pattern.toString());
        assertTrue(pattern.message().contains("lookahead is not supported"), pattern.message());
    }

    @Test
    void shouldRejectMalformedConditions()
    {
        assertTrue(only(MINIMAL + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\" }\n").message()
            .contains("give one of equals, in, prefix, matches, exists"));
        assertTrue(only(
            MINIMAL + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", equals = \"x\", prefix = \"y\" }\n")
            .message()
            .contains("only one of"));
        assertTrue(
            only(MINIMAL + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", matches = \"(\" }\n").message()
                .contains("not a regular expression Sluice can run"));
        assertTrue(
            only(MINIMAL + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", equal = \"x\" }\n").message()
                .contains("unknown key"));
    }

    @Test
    void shouldRejectDuplicateNamesAndAmbiguousSubscriptions()
    {
        final String twice = MINIMAL + MINIMAL.substring(MINIMAL.indexOf("[[sinks]]"));
        assertTrue(problems(twice).toString().contains("duplicate sink name \"s\""));
        assertTrue(only(MINIMAL.replace("group_id = \"g\"", "group_id = \"g\"\ntopics = [\"a\"]")).message()
            .contains("either pattern or topics"));
    }

    @Test
    void shouldCheckTableCreationAndTheUnknownFieldsSwitch()
    {
        final ClickHouseConfig plain = (ClickHouseConfig)ConfigLoader.parse(MINIMAL).sink("s").plugin();
        assertEquals("rewrite", plain.identifier());
        assertEquals("ignore", plain.unknownFields());
        assertTrue(!plain.failOnUnknownFields() && !plain.createTable());
        final ClickHouseConfig strict = (ClickHouseConfig)ConfigLoader
            .parse(MINIMAL + "unknown_fields = \"fail\"\ncreate_table = true\n"
                + "create_table_ddl = \"CREATE TABLE {database}.{table} (id UInt8) ENGINE = Memory\"\n")
            .sink("s").plugin();
        assertTrue(strict.failOnUnknownFields() && strict.createTable());
        assertTrue(only(MINIMAL + "unknown_fields = \"skip\"\n").toString().contains("unknown_fields"));
        assertTrue(
            only(MINIMAL + "create_table = true\n").message().contains("needs create_table_ddl or create_table_like"));
        assertTrue(only(MINIMAL + "create_table_ddl = \"CREATE TABLE {database}.events (id UInt8) ENGINE = Memory\"\n")
            .message().contains("has no {table} placeholder"));
        assertTrue(only(MINIMAL + "create_table_ddl = \"CREATE TABLE {table} AS t\"\ncreate_table_like = \"t\"\n")
            .message().contains("not both"));
    }

    @Test
    void shouldSayWhatIsWrongWithTheFileItself(@TempDir final Path dir) throws Exception
    {
        final Path notUtf8 = dir.resolve("latin1.toml");
        Files.write(notUtf8, "# caf\u00e9\n[kafka]\n".getBytes(StandardCharsets.ISO_8859_1));
        final List<ConfigProblem> p = assertThrows(ConfigException.class, () -> ConfigLoader.load(notUtf8))
            .problems();
        assertEquals(1, p.size(), p.toString());
        assertEquals(1, p.get(0).line());
        assertTrue(p.get(0).message().contains("is not UTF-8 text: byte 5 (0xE9)"), p.get(0).message());

        for (final Path bad : List.of(dir, dir.resolve("absent.toml"), Path.of("")))
        {
            final String message = assertThrows(ConfigException.class, () -> ConfigLoader.load(bad)).problems()
                .get(0).message();
            assertTrue(message.matches(".*(a directory, not a file|no such file|the configuration path is empty).*"),
                message);
            assertTrue(!message.contains("Exception"), message);
        }

        final Path bom = dir.resolve("bom.toml");
        Files.writeString(bom, "\uFEFF" + MINIMAL);
        assertEquals("s", ConfigLoader.load(bom).sink("s").name(), "a leading byte order mark is not TOML");
    }

    @Test
    void shouldTakeOnlyTheValuesEqualsTakesInAnInList()
    {
        final List<ConfigProblem> p = problems(MINIMAL + """
            [[sinks.branches]]
            name = "a"
            when = { path = "t", in = ["x", 1, true, 1.5, [1], 1979-05-27] }
            [[sinks.branches]]
            name = "b"
            """);
        assertEquals(3, p.size(), p.toString());
        assertTrue(p.get(0).message().contains("element 3: expected a string, got the float 1.5"), p.toString());
        assertTrue(p.get(1).message().contains("element 4: expected a string, got an array"), p.toString());
        assertTrue(p.get(2).message().contains("element 5: expected a string, got the date/time"), p.toString());
        assertEquals(List.of("x", "1", "true"), ConfigLoader
            .parse(MINIMAL + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", in = [\"x\", 1, true] }\n")
            .sink("s").branches().get(0).when().values());
    }

    @Test
    void shouldNotCallABranchWithAnInvalidWhenACatchAll()
    {
        final ConfigProblem p = only(MINIMAL + """
            [[sinks.branches]]
            name = "a"
            when = { path = "t", equals = 1.5 }
            [[sinks.branches]]
            name = "b"
            when = { path = "t", equals = "x" }
            """);
        assertTrue(p.message().contains("equals: expected a string"), p.toString());
    }

    @Test
    void shouldRefuseIntegersInAListThatDoNotFitWithoutWrappingThem()
    {
        final ConfigProblem p = only("[tuning]\ncpus = [0, 5000000000]\n" + MINIMAL);
        assertEquals("tuning.cpus", p.key());
        assertTrue(p.message().contains("element 1: 5000000000 is out of range"), p.message());
    }

    @Test
    void shouldLoadTheShippedExample() throws Exception
    {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("examples/github-events.toml")))
        {
            dir = dir.getParent();
        }
        final SluiceConfig c = ConfigLoader.load(dir.resolve("examples/github-events.toml"));
        assertEquals(8, c.sink("github").branches().size());
        assertNull(c.sink("github").branches().get(7).when(), "the catch-all is the last branch");
    }
}
