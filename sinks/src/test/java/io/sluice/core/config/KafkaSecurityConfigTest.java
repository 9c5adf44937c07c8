package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javax.security.auth.login.AppConfigurationEntry;

import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaSecurityConfigTest
{
    private static final String PIPELINE = """

        [[sinks]]
        name = "s"
        kind = "clickhouse"
        topics = ["t"]
        group_id = "g"

        [sinks.plugin_config]
        endpoint = "http://ch:8123"
        target_table = "events"
        """;

    @TempDir
    static Path dir;
    static Path ca;
    static Path cert;
    static Path key;
    static Path rsaKey;

    @BeforeAll
    static void pemFiles() throws IOException
    {
        // the loader checks the PEM block markers; the crypto is Kafka's and is exercised by the secured ITs
        ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        cert = Files.writeString(dir.resolve("client.pem"),
            "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
        key = Files.writeString(dir.resolve("client.key"),
            "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
        rsaKey = Files.writeString(dir.resolve("rsa.key"),
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n");
    }

    private static SluiceConfig parse(final String kafka)
    {
        return ConfigLoader.parse("[kafka]\nbootstrap_servers = \"k:9093\"\n" + kafka + PIPELINE, Map.of(
            "KAFKA_PASSWORD", "pw-of-the-env")::get);
    }

    private static List<ConfigProblem> problems(final String kafka)
    {
        return assertThrows(ConfigException.class, () -> parse(kafka)).problems();
    }

    private static ConfigProblem only(final String kafka)
    {
        final List<ConfigProblem> p = problems(kafka);
        assertEquals(1, p.size(), p.toString());
        return p.get(0);
    }

    @Test
    void shouldWriteScramOverTlsForEveryClientAlike()
    {
        final SluiceConfig c = parse("""
            security_protocol = "SASL_SSL"
            sasl_mechanism = "SCRAM-SHA-512"
            sasl_username = "sluice"
            sasl_password = "${KAFKA_PASSWORD}"
            ssl_ca_file = "%s"
            consumer = { "fetch.max.bytes" = "1048576" }
            """.formatted(ca));
        final SluiceConfig.Kafka k = c.kafka();
        for (final Map<String, String> p : List.of(k.consumerProperties(), k.producerProperties(),
            k.adminProperties()))
        {
            assertEquals("SASL_SSL", p.get("security.protocol"));
            assertEquals("SCRAM-SHA-512", p.get("sasl.mechanism"));
            assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"sluice\" "
                + "password=\"pw-of-the-env\";", p.get("sasl.jaas.config"));
            assertEquals("PEM", p.get("ssl.truststore.type"));
            assertEquals(ca.toString(), p.get("ssl.truststore.location"));
        }
        assertEquals("1048576", k.consumerProperties().get("fetch.max.bytes"));
        assertNull(k.producerProperties().get("fetch.max.bytes"));
        assertFalse(k.toString().contains("pw-of-the-env"), k.toString());
        assertEquals("k:9093 (SASL_SSL SCRAM-SHA-512 as sluice)", k.describe());
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "with \"quotes\"", "back\\slash\\", "semi;colon=equals", "ünï cödé", "\\\"", ""})
    void shouldQuoteUserAndPasswordSoThatKafkasJaasParserReadsThemBack(final String password)
    {
        final KafkaSecurity s = new KafkaSecurity("SASL_SSL", "SCRAM-SHA-256", "us\"er", password, null, null, null,
            null, null, null, null, null, null, null, null, null, null, true);
        // Kafka's own parser of sasl.jaas.config, as every client uses it
        final List<AppConfigurationEntry> entries = JaasContext
            .loadClientContext(Map.of("sasl.jaas.config", new Password(s.jaasConfig()))).configurationEntries();
        assertEquals(1, entries.size());
        assertEquals(KafkaSecurity.SCRAM_LOGIN_MODULE, entries.get(0).getLoginModuleName());
        assertEquals("us\"er", entries.get(0).getOptions().get("username"));
        assertEquals(password, entries.get(0).getOptions().get("password"));
    }

    @Test
    void shouldWritePlainAndOauthLoginModules()
    {
        final SluiceConfig.Kafka plain = parse("""
            security_protocol = "SASL_PLAINTEXT"
            sasl_mechanism = "PLAIN"
            sasl_username = "u"
            sasl_password = "p"
            """).kafka();
        assertTrue(plain.adminProperties().get("sasl.jaas.config").startsWith(KafkaSecurity.PLAIN_LOGIN_MODULE),
            plain.adminProperties().toString());
        final SluiceConfig.Kafka oauth = parse("""
            security_protocol = "SASL_SSL"
            sasl_mechanism = "OAUTHBEARER"
            sasl_username = "client-1"
            sasl_password = "secret-1"
            sasl_oauthbearer_token_endpoint_url = "https://idp.example/oauth2/token"
            sasl_oauthbearer_scope = "kafka"
            """).kafka();
        final Map<String, String> p = oauth.producerProperties();
        assertEquals(KafkaSecurity.OAUTH_LOGIN_MODULE + " required clientId=\"client-1\" clientSecret=\"secret-1\" "
            + "scope=\"kafka\";", p.get("sasl.jaas.config"));
        assertEquals("https://idp.example/oauth2/token", p.get("sasl.oauthbearer.token.endpoint.url"));
        assertEquals(KafkaSecurity.OAUTH_CALLBACK_HANDLER, p.get("sasl.login.callback.handler.class"));
        assertTrue(System.getProperty(KafkaSecurity.OAUTH_ALLOWED_URLS_PROPERTY)
            .contains("https://idp.example/oauth2/token"));
    }

    @Test
    void shouldPassPemClientCertificatesAndKeyStoresAsKafkaReadsThem() throws IOException
    {
        final Map<String, String> pem = parse("""
            security_protocol = "SSL"
            ssl_ca_file = "%s"
            ssl_certificate_file = "%s"
            ssl_key_file = "%s"
            ssl_endpoint_identification = false
            """.formatted(ca, cert, key)).kafka().consumerProperties();
        assertEquals("SSL", pem.get("security.protocol"));
        assertEquals("PEM", pem.get("ssl.keystore.type"));
        assertEquals(Files.readString(cert), pem.get("ssl.keystore.certificate.chain"));
        assertEquals(Files.readString(key), pem.get("ssl.keystore.key"));
        assertEquals("", pem.get("ssl.endpoint.identification.algorithm"));
        assertNull(pem.get("sasl.mechanism"));

        final Path store = Files.write(dir.resolve("client.p12"), new byte[]{1, 2, 3});
        final Path trust = Files.write(dir.resolve("trust.jks"), new byte[]{1, 2, 3});
        final Map<String, String> stores = parse("""
            security_protocol = "SSL"
            ssl_truststore_file = "%s"
            ssl_truststore_password = "tpw"
            ssl_keystore_file = "%s"
            ssl_keystore_password = "kpw"
            ssl_key_password = "keypw"
            """.formatted(trust, store)).kafka().adminProperties();
        assertEquals("JKS", stores.get("ssl.truststore.type"));
        assertEquals("PKCS12", stores.get("ssl.keystore.type"));
        assertEquals(store.toString(), stores.get("ssl.keystore.location"));
        assertEquals("tpw", stores.get("ssl.truststore.password"));
        assertEquals("kpw", stores.get("ssl.keystore.password"));
        assertEquals("keypw", stores.get("ssl.key.password"));
        assertFalse(stores.containsKey("ssl.endpoint.identification.algorithm"));
    }

    @Test
    void shouldWriteNothingWithoutASecurityBlock()
    {
        final SluiceConfig.Kafka k = parse("consumer = { \"security.protocol\" = \"SSL\" }\n").kafka();
        assertEquals(Map.of("security.protocol", "SSL"), k.consumerProperties());
        assertEquals(Map.of(), k.producerProperties());
    }

    @Test
    void shouldRefuseCombinationsThatCannotWork()
    {
        final ConfigProblem noMechanism = only("security_protocol = \"SASL_SSL\"\n");
        assertEquals("kafka.sasl_mechanism", noMechanism.key());
        assertTrue(noMechanism.message().startsWith("missing: security_protocol SASL_SSL needs a sasl_mechanism"),
            noMechanism.message());
        assertEquals("kafka.sasl_password", only("""
            security_protocol = "SASL_PLAINTEXT"
            sasl_mechanism = "PLAIN"
            sasl_username = "u"
            """).key());
        assertEquals("kafka.sasl_jaas_config", only("""
            security_protocol = "SASL_SSL"
            sasl_mechanism = "SCRAM-SHA-256"
            sasl_username = "u"
            sasl_password = "p"
            sasl_jaas_config = "x required;"
            """).key());
        final ConfigProblem saslWithoutSasl = only("sasl_username = \"u\"\n");
        assertEquals("kafka.sasl_username", saslWithoutSasl.key());
        assertTrue(saslWithoutSasl.message().contains("SASL_PLAINTEXT or SASL_SSL"), saslWithoutSasl.message());
        final ConfigProblem tlsWithoutTls = only("security_protocol = \"SASL_PLAINTEXT\"\nsasl_mechanism = \"PLAIN\"\n"
            + "sasl_username = \"u\"\nsasl_password = \"p\"\nssl_ca_file = \"" + ca + "\"\n");
        assertEquals("kafka.ssl_ca_file", tlsWithoutTls.key());
        assertEquals("kafka.ssl_key_file", only("security_protocol = \"SSL\"\nssl_key_file = \"" + key + "\"\n")
            .key());
        assertEquals("kafka.ssl_ca_file", only("security_protocol = \"SSL\"\nssl_ca_file = \"" + ca + "\"\n"
            + "ssl_truststore_file = \"" + ca + "\"\n").key());
        assertEquals("kafka.sasl_oauthbearer_token_endpoint_url", only("""
            security_protocol = "SASL_SSL"
            sasl_mechanism = "OAUTHBEARER"
            sasl_username = "u"
            sasl_password = "p"
            """).key());
        assertEquals("kafka.sasl_jaas_config", only("security_protocol = \"SASL_SSL\"\nsasl_mechanism = \"GSSAPI\"\n")
            .key());
        assertEquals("kafka.security_protocol", only("security_protocol = \"TLS\"\n").key());
        final ConfigProblem jaas = only("security_protocol = \"SASL_SSL\"\nsasl_mechanism = \"SCRAM-SHA-256\"\n"
            + "sasl_jaas_config = 'x.Module required password=\"jaas-pw-never-printed\"'\n");
        assertEquals("kafka.sasl_jaas_config", jaas.key());
        assertTrue(jaas.message().contains("not terminated by semi-colon"), jaas.message());
        assertFalse(jaas.message().contains("jaas-pw-never-printed"), jaas.message());
    }

    @Test
    void shouldCheckTheFilesItNames()
    {
        final ConfigProblem missing = only("security_protocol = \"SSL\"\nssl_ca_file = \"/nonexistent/ca.pem\"\n");
        assertEquals("kafka.ssl_ca_file", missing.key());
        assertTrue(missing.message().contains("/nonexistent/ca.pem: no such file"), missing.message());
        final ConfigProblem notPem = only("security_protocol = \"SSL\"\nssl_ca_file = \"" + key + "\"\n");
        assertTrue(notPem.message().contains("holds no PEM CERTIFICATE block"), notPem.message());
        final ConfigProblem pkcs1 = only("security_protocol = \"SSL\"\nssl_certificate_file = \"" + cert
            + "\"\nssl_key_file = \"" + rsaKey + "\"\n");
        assertEquals("kafka.ssl_key_file", pkcs1.key());
        assertTrue(pkcs1.message().contains("openssl pkcs8 -topk8"), pkcs1.message());
    }

    @Test
    void shouldCheckRawKeysAgainstKafkasOwnConfigDef()
    {
        final ConfigProblem typo = only("consumer = { \"fetch.max.byte\" = \"1\" }\n");
        assertEquals("kafka.consumer.\"fetch.max.byte\"", typo.key());
        assertTrue(typo.message().contains("is not a consumer property of kafka-clients; did you mean "
            + "\"fetch.max.bytes\"?"), typo.message());
        final ConfigProblem producerKeyInConsumer = only("consumer = { \"linger.ms\" = \"5\" }\n");
        assertTrue(producerKeyInConsumer.message().contains("ConsumerConfig"), producerKeyInConsumer.message());
        assertEquals("kafka.producer.\"lingerms\"", only("producer = { \"lingerms\" = \"5\" }\n").key());
        assertEquals("kafka.admin.\"fetch.max.bytes\"", only("admin = { \"fetch.max.bytes\" = \"5\" }\n").key());
        final ConfigProblem badValue = only("producer = { \"linger.ms\" = \"soon\" }\n");
        assertTrue(badValue.message().contains("linger.ms"), badValue.message());
        final ConfigProblem badEnum = only("producer = { \"compression.type\" = \"brotli\" }\n");
        assertTrue(badEnum.message().contains("compression.type"), badEnum.message());
        assertEquals(3, problems("""
            producer = { "linger.ms" = "10", "batch.size" = "65536", "compression.type" = "zstd" }
            consumer = { "max.poll.records" = "500", "fetch.min.bytes" = "1" }
            admin = { "request.timeout.ms" = "20000", "ftch" = "1", "retries" = "x", "client.id" = "y" }
            [metrics]
            listen = "nonsense"
            """).size());
    }

    @Test
    void shouldRefuseRawKeysThatSluiceOrTheBlockOwns()
    {
        final ConfigProblem group = only("consumer = { \"group.id\" = \"other\" }\n");
        assertTrue(group.message().contains("is set by Sluice (the pipeline's group_id)"), group.message());
        assertEquals("kafka.producer.\"acks\"", only("producer = { \"acks\" = \"1\" }\n").key());
        final ConfigProblem isolation = only("consumer = { \"isolation.level\" = \"read_uncommitted\" }\n");
        assertTrue(isolation.message().contains("the pipeline's isolation_level"), isolation.message());
        final ConfigProblem twice = only("""
            security_protocol = "SASL_SSL"
            sasl_mechanism = "PLAIN"
            sasl_username = "u"
            sasl_password = "p"
            admin = { "sasl.mechanism" = "SCRAM-SHA-256" }
            """);
        assertEquals("kafka.admin.\"sasl.mechanism\"", twice.key());
        assertTrue(twice.message().contains("also set by the security block"), twice.message());
    }

    @Test
    void shouldNeverPrintASecretRawValue()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> parse("""
            consumer = { "ssl.key.password" = "raw-secret-value", "fetch.max.wait.ms" = "x" }
            """));
        assertFalse(e.getMessage().contains("raw-secret-value"), e.getMessage());
        assertEquals("***", Secrets.redact("raw-secret-value"));
    }

    @Test
    void shouldOverrideKeyByKeyPerSinkAndSource()
    {
        final SluiceConfig c = ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "main:9093"
            security_protocol = "SASL_SSL"
            sasl_mechanism = "SCRAM-SHA-512"
            sasl_username = "main-user"
            sasl_password = "main-pw"
            consumer = { "fetch.max.bytes" = "1000", "max.poll.records" = "10" }

            [[sinks]]
            name = "other-cluster"
            kind = "clickhouse"
            topics = ["t"]
            group_id = "g"
            [sinks.kafka]
            bootstrap_servers = "other:9093"
            sasl_username = "other-user"
            sasl_password = "other-pw"
            consumer = { "max.poll.records" = "20" }
            [sinks.plugin_config]
            endpoint = "http://ch:8123"
            target_table = "events"

            [[sinks]]
            name = "main"
            kind = "clickhouse"
            topics = ["t"]
            group_id = "g2"
            [sinks.plugin_config]
            endpoint = "http://ch:8123"
            target_table = "events"

            [[sources]]
            name = "plain"
            kind = "file"
            path = "in.jsonl"
            [sources.kafka]
            security_protocol = "PLAINTEXT"
            bootstrap_servers = "local:9092"
            [[sources.topics]]
            topic = "out"
            """);
        final SluiceConfig.Kafka other = c.kafkaForSink("other-cluster");
        assertEquals("other:9093", other.bootstrapServers());
        assertEquals("SCRAM-SHA-512", other.consumerProperties().get("sasl.mechanism"));
        assertTrue(other.consumerProperties().get("sasl.jaas.config").contains("\"other-user\""));
        assertEquals(Map.of("fetch.max.bytes", "1000", "max.poll.records", "20"), other.consumer());
        assertEquals(c.kafka(), c.kafkaForSink("main"));
        assertEquals(c.kafka(), c.kafkaForSink("an embedded pipeline"));
        final SluiceConfig.Kafka plain = c.kafkaFor(c.source("plain"));
        assertEquals("local:9092", plain.bootstrapServers());
        assertFalse(plain.producerProperties().containsKey("sasl.jaas.config"), plain.producerProperties().toString());
        assertFalse(plain.producerProperties().containsKey("security.protocol"));
        assertEquals(3, c.kafkaConnections().size());
    }

    @Test
    void shouldCheckOverridesWithTheirOwnKeyPath()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "main:9093"

            [[sinks]]
            name = "s"
            kind = "clickhouse"
            topics = ["t"]
            group_id = "g"
            [sinks.kafka]
            security_protocol = "SASL_SSL"
            bootstrap = "x"
            consumer = { "fetch.max.bytez" = "1" }
            [sinks.plugin_config]
            endpoint = "http://ch:8123"
            target_table = "events"
            """));
        final List<String> keys = e.problems().stream().map(ConfigProblem::key).toList();
        assertEquals(List.of("sinks[0].kafka.sasl_mechanism", "sinks[0].kafka.consumer.\"fetch.max.bytez\"",
            "sinks[0].kafka.bootstrap"), keys, e.getMessage());
    }
}
