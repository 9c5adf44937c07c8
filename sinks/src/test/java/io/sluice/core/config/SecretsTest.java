package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SecretsTest
{
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "http://user:pass@host:8123 | http://user:***@host:8123",
        "https://alice:p%40ss@ch.example:8443/?database=x | https://alice:***@ch.example:8443/?database=x",
        "http://token@host | http://***@host",
        "http://host:8123 | http://host:8123",
        "http://host:8123/?user=u&password=pw&database=d | http://host:8123/?user=u&password=***&database=d",
        "http://host/?PASSWORD=pw | http://host/?PASSWORD=***",
        "not a url | not a url"})
    void shouldRedactCredentialsOfAUrl(final String url, final String redacted)
    {
        assertEquals(redacted, Secrets.redactUrl(url));
    }

    @Test
    void shouldRedactEveryUrlInsideText()
    {
        assertEquals("insert at http://u:***@a:8123 failed, then https://***@b:8443 and http://c:8123",
            Secrets.redact("insert at http://u:pw1@a:8123 failed, then https://tok@b:8443 and http://c:8123"));
        assertEquals("sluice_watermark_holder{holder=\"http://u:***@ch:8123\"}",
            Secrets.redact("sluice_watermark_holder{holder=\"http://u:p@ch:8123\"}"));
        assertEquals("mailto-like user@host stays", Secrets.redact("mailto-like user@host stays"));
    }

    @Test
    void shouldReplaceRegisteredSecretsLongestFirst()
    {
        Secrets.register("abc-secret-1");
        Secrets.register("abc-secret-1-longer");
        Secrets.register("ab");
        assertEquals("a *** and a *** but ab stays", Secrets.redact(
            "a abc-secret-1-longer and a abc-secret-1 but ab stays"));
    }

    @Test
    void shouldKnowKafkasPasswordProperties()
    {
        for (final String k : List.of("sasl.jaas.config", "ssl.key.password", "ssl.keystore.password",
            "ssl.truststore.password", "ssl.keystore.key", "ssl.keystore.certificate.chain",
            "sasl.oauthbearer.client.credentials.client.secret"))
        {
            assertTrue(Secrets.isSecretKafkaProperty(k), k);
        }
        for (final String k : List.of("bootstrap.servers", "sasl.mechanism", "ssl.truststore.location",
            "sasl.oauthbearer.token.endpoint.url", "ssl.keystore.type"))
        {
            assertFalse(Secrets.isSecretKafkaProperty(k), k);
        }
        final Map<String, String> p = new LinkedHashMap<>();
        p.put("sasl.jaas.config", "x required password=\"y\";");
        p.put("client.id", "c");
        assertEquals("{sasl.jaas.config=***, client.id=c}", Secrets.redactProperties(p).toString());
    }

    @Test
    void shouldEscapeControlCharacters()
    {
        assertEquals("a\\nb\\r\\tc\\u001b[31m\\u0000\\u2028\\u202e\\u007f", Printable.escape(
            "a\nb\r\tc\u001b[31m\u0000\u2028\u202e\u007f"));
        final String plain = "users.42 ünï";
        assertTrue(plain == Printable.escape(plain));
        assertEquals("null", Printable.escape(null));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sasl_password = \"pa\"ss-w0rd\" | sasl_password",
        "sasl_password = 'hunter2 secret' junk | sasl_password",
        "  password = unquoted-s3cret | password",
        "\"ssl.key.password\" = \"a\"b-s3cret\" | ssl.key.password"})
    void shouldNotQuoteASecretLineInASyntaxError(final String line, final String key)
    {
        final ConfigException e = assertThrows(ConfigException.class,
            () -> ConfigLoader.parse("[kafka]\nbootstrap_servers = \"k:1\"\n" + line + "\n"));
        assertEquals(1, e.problems().size(), e.getMessage());
        final String m = e.problems().get(0).message();
        assertTrue(m.contains("(in the value of the secret " + key + ")"), m);
        for (final String part : List.of("ss-w0rd", "junk", "secret'", "unquoted", "b-s3cret", "s3cret"))
        {
            assertFalse(m.contains(part), m);
        }
    }

    @Test
    void shouldTakeCredentialsOffClickHouseEndpoints()
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
            endpoint = ["https://writer:p%40ss:w0rd@ch-1:8443", "https://writer:p%40ss:w0rd@ch-2:8443/"]
            target_table = "events"
            """);
        final ClickHouseConfig ch = (ClickHouseConfig)c.sinks().get(0).plugin();
        assertEquals(List.of("https://ch-1:8443", "https://ch-2:8443/"), ch.endpoints());
        assertEquals(List.of(ch.endpoints()), ch.shards());
        assertEquals("writer", ch.username());
        assertEquals("p@ss:w0rd", ch.password());
        assertFalse(ch.toString().contains("w0rd"), ch.toString());
        assertFalse(c.toString().contains("w0rd"), c.toString());
        assertEquals("***", Secrets.redact("p@ss:w0rd"));
    }

    @Test
    void shouldRefuseCredentialsGivenTwiceWithoutPrintingThem()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"
            [[sinks]]
            name = "s"
            kind = "clickhouse"
            topics = ["t"]
            group_id = "g"
            [sinks.plugin_config]
            shards = [["http://u:twice-given-pw@a:8123"], ["http://b:8123"], ["http://c\\n:8123"]]
            password = "x"
            target_table = "events"
            """));
        assertFalse(e.getMessage().contains("twice-given-pw"), e.getMessage());
        assertTrue(e.getMessage().contains("give the credentials once"), e.getMessage());
        assertTrue(e.getMessage().contains("different credentials"), e.getMessage());
        assertTrue(e.getMessage().contains("\"http://c\\n:8123\" is not a URL"), e.getMessage());
        assertFalse(e.getMessage().contains("c\n"), e.getMessage());
    }
}
