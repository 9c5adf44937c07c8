package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class EnvInterpolationTest
{
    private static final Map<String, String> ENV = Map.of("HOST", "broker-1", "PORT", "29092", "EMPTY", "",
        "PW", "s3cr\"et\\pw", "DOLLAR", "a$b");
    private static final Function<String, String> GET = ENV::get;

    private static final String PIPELINE = """
        [[sinks]]
        name = "s"
        kind = "clickhouse"
        topics = ["t"]
        group_id = "g"

        [sinks.plugin_config]
        endpoint = "http://127.0.0.1:${CH_PORT:-18123}"
        target_table = "events"
        password = "${CH_PASSWORD:-}"
        """;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "plain | plain",
        "${HOST}:${PORT} | broker-1:29092",
        "${MISSING:-fallback} | fallback",
        "${EMPTY:-fallback} | fallback",
        "${HOST:-fallback} | broker-1",
        "${MISSING:-${HOST}:${PORT}} | broker-1:29092",
        "${MISSING:-} | ''",
        "${EMPTY} | ''",
        "$$ | $",
        "$${HOST} | ${HOST}",
        "price in $ | price in $",
        "events\\..*$ | events\\..*$",
        "a$$$$b | a$$b",
        "${DOLLAR} | a$b",
        "${MISSING:-a}b} | ab}",
        "${MISSING:-{x}} | {x}"})
    void shouldResolveReferencesAsAShellDoes(final String value, final String expected) throws Exception
    {
        assertEquals(expected, EnvInterpolation.interpolate(value, GET));
    }

    @Test
    void shouldNotInterpolateWhatAVariableHolds() throws Exception
    {
        assertEquals("x${HOST}", EnvInterpolation.interpolate("${V}", Map.of("V", "x${HOST}")::get));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "${MISSING} | ${MISSING} is not set in the environment",
        "x${MISSING}y | ${MISSING} is not set",
        "${MISSING:?give the broker password} | ${MISSING} is not set: give the broker password",
        "${EMPTY:?must not be empty} | ${EMPTY} is empty: must not be empty",
        "${HOST | unterminated",
        "${1X} | is not a reference to a variable",
        "${} | is not a reference to a variable",
        "${HOST:x} | after the name HOST comes",
        "${HO-ST} | after the name HO comes"})
    void shouldRefuseWhatCannotBeResolvedNamingTheVariable(final String value, final String message)
    {
        final EnvInterpolation.UnresolvedException e = assertThrows(EnvInterpolation.UnresolvedException.class,
            () -> EnvInterpolation.interpolate(value, GET));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void shouldResolveEveryStringValueOfTheFile()
    {
        final SluiceConfig c = ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "${HOST}:${PORT}"
            consumer = { "client.rack" = "${HOST}" }
            """ + PIPELINE.replace("topics = [\"t\"]", "topics = [\"${HOST}.events\", \"plain\"]"),
            Map.of("HOST", "broker-1", "PORT", "29092", "CH_PORT", "28123", "CH_PASSWORD", "pw-from-env")::get);
        assertEquals("broker-1:29092", c.kafka().bootstrapServers());
        assertEquals("broker-1", c.kafka().consumer().get("client.rack"));
        assertEquals(List.of("broker-1.events", "plain"), c.sinks().get(0).topics());
        assertEquals(List.of(List.of("http://127.0.0.1:28123")), c.sinks().get(0).plugin().shards());
        assertEquals("pw-from-env", ((ClickHouseConfig)c.sinks().get(0).plugin()).password());
    }

    @Test
    void shouldTakeDefaultsWhenTheVariablesAreUnset()
    {
        final SluiceConfig c = ConfigLoader.parse("[kafka]\nbootstrap_servers = \"127.0.0.1:${KAFKA_PORT:-19092}\"\n"
            + PIPELINE, Map.<String, String>of()::get);
        assertEquals("127.0.0.1:19092", c.kafka().bootstrapServers());
        assertEquals("http://127.0.0.1:18123", ((ClickHouseConfig)c.sinks().get(0).plugin()).endpoints().get(0));
        assertEquals("", ((ClickHouseConfig)c.sinks().get(0).plugin()).password());
    }

    @Test
    void shouldNameTheKeyTheLineAndTheVariableOfEveryUnsetReference()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "${KAFKA_BROKERS}"
            """ + PIPELINE.replace("${CH_PASSWORD:-}", "${CH_PASSWORD:?set CH_PASSWORD to the sink's password}"),
            Map.<String, String>of()::get));
        final List<ConfigProblem> p = e.problems();
        assertEquals(2, p.size(), p.toString());
        assertEquals("kafka.bootstrap_servers", p.get(0).key());
        assertEquals(2, p.get(0).line());
        assertTrue(p.get(0).message().contains("${KAFKA_BROKERS} is not set"), p.get(0).message());
        assertEquals("sinks[0].plugin_config.password", p.get(1).key());
        assertEquals(12, p.get(1).line());
        assertEquals("${CH_PASSWORD} is not set: set CH_PASSWORD to the sink's password", p.get(1).message());
    }

    @Test
    void shouldResolveInsideArraysOfArraysAndInlineTables()
    {
        final SluiceConfig c = ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "s"
            kind = "clickhouse"
            topics = ["t"]
            group_id = "g"
            [sinks.plugin_config]
            shards = [["http://${A}:8123"], ["http://${B}:8123"]]
            target_table = "t"
            [[sinks.branches]]
            name = "b"
            when = { path = "type", equals = "${KIND}" }
            [[sinks.branches]]
            name = "rest"
            """, Map.of("A", "ch-a", "B", "ch-b", "KIND", "click")::get);
        assertEquals(List.of(List.of("http://ch-a:8123"), List.of("http://ch-b:8123")),
            c.sinks().get(0).plugin().shards());
        assertEquals(List.of("click"), c.sinks().get(0).branches().get(0).when().values());
    }

    @Test
    void shouldLeaveKeysAlone()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("[kafka]\n"
            + "bootstrap_servers = \"k:1\"\nconsumer = { \"${X}\" = \"1\" }\n" + PIPELINE,
            Map.of("X", "client.id")::get));
        assertEquals("kafka.consumer.\"${X}\"", e.problems().get(0).key(), e.getMessage());
    }

    @Test
    void shouldNeverPrintTheValueOfASecretInAProblem()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"
            security_protocol = "SASL_SSL"
            sasl_mechanism = "SCRAM-SHA-512"
            sasl_password = "${PW}"
            """ + PIPELINE, Map.of("PW", "hunter2-from-env")::get));
        assertFalse(e.getMessage().contains("hunter2-from-env"), e.getMessage());
        assertTrue(e.getMessage().contains("kafka.sasl_username"), e.getMessage());
    }
}
