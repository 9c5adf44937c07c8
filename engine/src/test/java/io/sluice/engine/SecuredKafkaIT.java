package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gather and scatter through the broker's SASL_SSL listener (SCRAM-SHA-512 over TLS, users and ACLs made by
 * scripts/services.sh), run as users run them: {@code java -jar engine.jar} with the passwords in the environment
 * and {@code ${NAME}} in the TOML. Every TLS form the security block takes is used once: a PEM CA file (gather), a
 * PKCS12 trust store with a PKCS12 client key store (scatter), a PEM CA with a PEM client certificate and key (the
 * produce command). A wrong password, a trust store without the broker's CA, a client certificate no CA of ours
 * signed, and a missing ACL (for a consumer and for a producer) each end the run with exit 1 and an ERROR naming
 * the broker's (or the TLS library's) reason within 10 s. No output holds a password. Verification goes through
 * the plaintext listener and ClickHouse's HTTP interface, never through the engine.
 */
class SecuredKafkaIT
{
    /** The most a refusal may take, from starting the JVM to its exit (issue 14: at ERROR within 10 s). */
    private static final long REFUSAL_LIMIT_MS = 10_000;
    private static final int RECORDS = 300;

    private static Map<String, String> secrets;
    private static Path secure;
    private static String db;
    private static String gatherTopic;

    @BeforeAll
    static void setUp() throws Exception
    {
        secrets = TestServices.secrets();
        secure = TestServices.secureDir();
        final String suffix = Long.toString(System.nanoTime(), 36);
        db = "secured_kafka_" + suffix;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".events (id UInt32, kind String) ENGINE = MergeTree ORDER BY id");
        gatherTopic = "secure.gather." + suffix;
        TestServices.createTopic(gatherTopic, 3);
        TestServices.produce(gatherTopic, records(RECORDS));
    }

    static List<byte[]> records(final int n)
    {
        final List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            out.add(("{\"id\":" + i + ",\"kind\":\"k" + (i % 4) + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The environment an engine run reads its secrets from; the TOML names only the variables. */
    private static Map<String, String> env(final String user, final String password)
    {
        final Map<String, String> env = new HashMap<>();
        env.put("KAFKA_USER", user);
        env.put("KAFKA_PASSWORD", password);
        env.put("TRUSTSTORE_PASSWORD", secrets.get("SLUICE_TEST_TRUSTSTORE_PASSWORD"));
        env.put("KEYSTORE_PASSWORD", secrets.get("SLUICE_TEST_KEYSTORE_PASSWORD"));
        return env;
    }

    private static Map<String, String> fullUser()
    {
        return env(secrets.get("SLUICE_TEST_KAFKA_USER"), secrets.get("SLUICE_TEST_KAFKA_PASSWORD"));
    }

    /** [kafka] over SASL_SSL with SCRAM-SHA-512, the credentials from the environment, and the given TLS keys. */
    private static String kafka(final String tls)
    {
        return kafka(TestServices.saslBootstrap(), tls);
    }

    private static String kafka(final String bootstrap, final String tls)
    {
        return """
            [kafka]
            bootstrap_servers = "%s"
            security_protocol = "SASL_SSL"
            sasl_mechanism = "SCRAM-SHA-512"
            sasl_username = "${KAFKA_USER}"
            sasl_password = "${KAFKA_PASSWORD:?the test passes it}"
            %s
            [checkpoint]
            commit_interval_ms = 200
            """.formatted(bootstrap, tls);
    }

    private String pemCa(final String ca)
    {
        return "ssl_ca_file = \"" + secure.resolve(ca) + "\"";
    }

    private static String gather(final String kafka, final String group)
    {
        return kafka + """

            [[sinks]]
            name = "secured"
            kind = "clickhouse"
            topics = ["%s"]
            group_id = "%s"
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            target_table = "events"
            linger_ms = 200
            """.formatted(gatherTopic, group, TestServices.clickhouse(), db);
    }

    private static String passwordsIn(final String output)
    {
        for (final Map.Entry<String, String> e : secrets.entrySet())
        {
            if (e.getKey().contains("PASSWORD") && output.contains(e.getValue()))
            {
                return e.getKey();
            }
        }
        return null;
    }

    /** Runs the engine to its end; asserts no password (of the services, or the given wrong one) in its output. */
    private static Run run(final Map<String, String> env, final String toml, final String... extraArgs)
        throws IOException, InterruptedException
    {
        final Path config = EngineProcess.writeConfig(toml);
        final List<String> args = new ArrayList<>(List.of("--config", config.toString()));
        args.addAll(List.of(extraArgs));
        final long start = System.nanoTime();
        try (EngineProcess p = EngineProcess.start(env, args.toArray(String[]::new)))
        {
            final int code = p.waitFor(120);
            final long ms = (System.nanoTime() - start) / 1_000_000;
            final String out = p.output();
            assertEquals(null, passwordsIn(out), "a password is in the engine's output:\n" + out);
            env.forEach((k, v) -> assertFalse(k.contains("PASSWORD") && out.contains(v),
                "the password " + k + " of the environment is in the output:\n" + out));
            return new Run(code, ms, out);
        }
    }

    record Run(int code, long ms, String output)
    {
        /** @return Sluice's own last ERROR line (the reason the run ended) */
        String reason()
        {
            return output.lines().filter(l -> l.contains(" ERROR [main] SluiceEngine - ")).reduce((a, b) -> b)
                .orElse("(no ERROR line of SluiceEngine)");
        }
    }

    private static void assertRefused(final Run r, final String reason)
    {
        assertEquals(1, r.code(), r.output());
        assertTrue(r.ms() < REFUSAL_LIMIT_MS, "took " + r.ms() + " ms:\n" + r.output());
        assertTrue(r.reason().contains(reason), "no ERROR with \"" + reason + "\":\n" + r.output());
    }

    @Test
    void shouldGatherThroughScramOverTlsWithAPemCa() throws Exception
    {
        final String group = "secure-gather-" + Long.toString(System.nanoTime(), 36);
        final Run r = run(fullUser(), gather(kafka(pemCa("ca.pem")), group), "--until-caught-up");
        assertEquals(0, r.code(), r.output());
        assertEquals(RECORDS, TestServices.sqlLong("SELECT count() FROM " + db + ".events"));
        assertEquals(RECORDS, TestServices.sqlLong("SELECT uniqExact(id) FROM " + db + ".events"));
        // every partition that has records is committed to its end (one without records has no commit)
        final Map<TopicPartition, Long> committed = TestServices.committed(group);
        TestServices.endOffsets(gatherTopic, 3).forEach((tp, end) -> assertEquals(end == 0 ? null : end,
            committed.get(tp), tp.toString()));
        assertTrue(r.output().contains("Kafka at " + TestServices.saslBootstrap() + " (SASL_SSL SCRAM-SHA-512 as "
            + secrets.get("SLUICE_TEST_KAFKA_USER") + ")"), r.output());
    }

    @Test
    void shouldScatterThroughScramOverTlsWithKeyStoresAndCreateTheTopic() throws Exception
    {
        final String suffix = Long.toString(System.nanoTime(), 36);
        final Path input = Files.createTempFile("secured-scatter-", ".jsonl");
        Files.write(input, records(RECORDS).stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        final String prefix = "secure.scatter." + suffix + ".";
        final String toml = kafka(TestServices.mtlsBootstrap(), """
            ssl_truststore_file = "%s"
            ssl_truststore_password = "${TRUSTSTORE_PASSWORD}"
            ssl_keystore_file = "%s"
            ssl_keystore_password = "${KEYSTORE_PASSWORD}"
            """.formatted(secure.resolve("truststore.p12"), secure.resolve("client.p12"))) + """

            [[sources]]
            name = "secured-file"
            kind = "file"
            path = "%s"
            create_topics = true
            partitions = 2
            [[sources.topics]]
            topic = { strategy = "field", path = "kind", template = "%s{value}" }
            """.formatted(input, prefix);
        final Run r = run(fullUser(), toml);
        assertEquals(0, r.code(), r.output());
        long total = 0;
        for (int k = 0; k < 4; k++)
        {
            final long n = TestServices.endOffsets(prefix + "k" + k, 2).values().stream().mapToLong(Long::longValue)
                .sum();
            assertEquals(RECORDS / 4, n, "topic " + prefix + "k" + k);
            total += n;
        }
        assertEquals(RECORDS, total);
    }

    @Test
    void shouldProduceThroughScramOverTlsWithAPemClientCertificate() throws Exception
    {
        final String topic = "secure.produce." + Long.toString(System.nanoTime(), 36);
        final Path input = Files.createTempFile("secured-produce-", ".jsonl");
        Files.write(input, records(50).stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        final String toml = gather(kafka(TestServices.mtlsBootstrap(), pemCa("ca.pem") + "\nssl_certificate_file = \""
            + secure.resolve("client.pem")
            + "\"\nssl_key_file = \"" + secure.resolve("client.key") + "\""), "secure-unused");
        final Path config = EngineProcess.writeConfig(toml);
        try (EngineProcess p = EngineProcess.start(fullUser(), "produce", "--config", config.toString(), "--topic",
            topic, "--partitions", "2", "--file", input.toString()))
        {
            assertEquals(0, p.waitFor(60), p.output());
            assertEquals(null, passwordsIn(p.output()), p.output());
        }
        assertEquals(50, TestServices.endOffsets(topic, 2).values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void shouldEndWithTheBrokersReasonOnAWrongPassword() throws Exception
    {
        final String wrong = "wrong-" + Long.toString(System.nanoTime(), 36);
        final Run r = run(env(secrets.get("SLUICE_TEST_KAFKA_USER"), wrong),
            gather(kafka(pemCa("ca.pem")), "secure-wrong-password"), "--until-caught-up");
        assertRefused(r, "invalid credentials with SASL mechanism SCRAM-SHA-512");
        assertTrue(r.reason().contains("refused the connection"), r.reason());
    }

    @Test
    void shouldEndWithTheTlsReasonWhenTheTrustStoreLacksTheBrokersCa() throws Exception
    {
        final Run r = run(fullUser(), gather(kafka(pemCa("other-ca.pem")), "secure-wrong-ca"), "--until-caught-up");
        assertRefused(r, "PKIX path building failed");
        assertTrue(r.reason().contains("ssl_ca_file"), r.reason());
    }

    @Test
    void shouldEndWhenTheBrokerRefusesTheClientCertificate() throws Exception
    {
        final Run r = run(fullUser(), gather(kafka(TestServices.mtlsBootstrap(), pemCa("ca.pem")
            + "\nssl_certificate_file = \"" + secure.resolve("rogue-client.pem") + "\"\nssl_key_file = \""
            + secure.resolve("rogue-client.key")
            + "\""), "secure-rogue-certificate"), "--until-caught-up");
        assertRefused(r, "bad_certificate");
        assertTrue(r.reason().contains("refused this client's certificate"), r.reason());
    }

    @Test
    void shouldEndWithTheBrokersReasonWhenAConsumerLacksItsAcls() throws Exception
    {
        final Run r = run(env(secrets.get("SLUICE_TEST_KAFKA_NOACL_USER"), secrets.get(
            "SLUICE_TEST_KAFKA_NOACL_PASSWORD")), gather(kafka(pemCa("ca.pem")), "secure-no-acl"),
            "--until-caught-up");
        assertRefused(r, "Not authorized to access");
        // nothing was read under a user without rights
        assertTrue(TestServices.committed("secure-no-acl").isEmpty());
    }

    @Test
    void shouldEndWithTheBrokersReasonWhenAProducerLacksItsWriteAcl() throws Exception
    {
        final String topic = "secure.readonly." + Long.toString(System.nanoTime(), 36);
        TestServices.createTopic(topic, 1);
        final Path input = Files.createTempFile("secured-readonly-", ".jsonl");
        Files.write(input, List.of("{\"id\":1}", "{\"id\":2}"));
        final String toml = kafka(pemCa("ca.pem")) + """

            [[sources]]
            name = "readonly-file"
            kind = "file"
            path = "%s"
            [[sources.topics]]
            topic = "%s"
            """.formatted(input, topic);
        final Run r = run(env(secrets.get("SLUICE_TEST_KAFKA_READONLY_USER"),
            secrets.get("SLUICE_TEST_KAFKA_READONLY_PASSWORD")), toml);
        assertEquals(1, r.code(), r.output());
        assertTrue(r.ms() < REFUSAL_LIMIT_MS, "took " + r.ms() + " ms:\n" + r.output());
        final Matcher m = Pattern.compile("(?i)authorization failed").matcher(r.reason());
        assertTrue(m.find(), "no ERROR naming the authorization failure:\n" + r.output());
        assertTrue(r.reason().contains("WRITE ACL"), r.reason());
        assertEquals(0L, TestServices.endOffsets(topic, 1).values().iterator().next());
    }
}
