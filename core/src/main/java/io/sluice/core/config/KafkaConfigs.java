package io.sluice.core.config;

import static io.sluice.core.config.ConfigSchema.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;

/**
 * Reads a {@code [kafka]} table (or a source's or sink's {@code kafka} override on top of it): bootstrap servers,
 * the security block and the raw pass-through tables, each checked against what it configures.
 *
 * <ul>
 *   <li>The security block: protocol and mechanism agree with the keys given (no sasl_* without SASL, no ssl_*
 *       without TLS, user name with password or a JAAS config, one trust source, one client certificate source), and
 *       every file it names is a readable file of the expected kind (PEM blocks, a PKCS#8 key).</li>
 *   <li>The raw tables: every key is one kafka-clients defines for that client ({@code ConsumerConfig},
 *       {@code ProducerConfig}, {@code AdminClientConfig} {@code configDef()}), its value parses as the key's type and
 *       passes the key's own validator; a key that Sluice owns, or that the security block already sets, is refused
 *       rather than silently overridden.</li>
 * </ul>
 * Every problem names the key. Stateless; used by {@link ConfigLoader} on the loading thread.
 */
final class KafkaConfigs
{
    /** The three clients and what each one's raw table may hold. */
    enum Client
    {
        CONSUMER("consumer", ConsumerConfig.configDef(), Set.of(ConsumerConfig.GROUP_ID_CONFIG,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)), PRODUCER("producer",
                ProducerConfig.configDef(),
                Set.of(ProducerConfig.ACKS_CONFIG,
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)), ADMIN(
                        "admin", AdminClientConfig.configDef(), Set.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG));

        final String table;
        final ConfigDef def;
        final Set<String> owned;

        Client(final String table, final ConfigDef def, final Set<String> owned)
        {
            this.table = table;
            this.def = def;
            this.owned = owned;
        }
    }

    private static final List<ConfigKey> SASL_KEYS = List.of(KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME,
        KAFKA_SASL_PASSWORD, KAFKA_SASL_JAAS_CONFIG, KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL,
        KAFKA_SASL_OAUTHBEARER_SCOPE);
    private static final List<ConfigKey> SSL_KEYS = List.of(KAFKA_SSL_CA_FILE, KAFKA_SSL_TRUSTSTORE_FILE,
        KAFKA_SSL_TRUSTSTORE_TYPE, KAFKA_SSL_TRUSTSTORE_PASSWORD, KAFKA_SSL_CERTIFICATE_FILE, KAFKA_SSL_KEY_FILE,
        KAFKA_SSL_KEY_PASSWORD, KAFKA_SSL_KEYSTORE_FILE, KAFKA_SSL_KEYSTORE_TYPE, KAFKA_SSL_KEYSTORE_PASSWORD,
        KAFKA_SSL_ENDPOINT_IDENTIFICATION);

    private KafkaConfigs()
    {
    }

    /**
     * @param r    reader of the table, section {@code kafka}
     * @param base the connection an override starts from, or null when {@code r} is {@code [kafka]} itself
     * @return the connection (never null; fields of a broken table keep their defaults)
     */
    static SluiceConfig.Kafka read(final TableReader r, final SluiceConfig.Kafka base)
    {
        final KafkaSecurity b = base == null ? KafkaSecurity.NONE : base.security();
        final String bootstrap = base != null && !r.has(KAFKA_BOOTSTRAP_SERVERS)
            ? base.bootstrapServers()
            : r.string(KAFKA_BOOTSTRAP_SERVERS);
        if (bootstrap != null && bootstrap.isBlank())
        {
            r.problem(KAFKA_BOOTSTRAP_SERVERS.name(), "empty: give host:port of at least one broker");
        }
        final KafkaSecurity security = new KafkaSecurity(
            pick(r, KAFKA_SECURITY_PROTOCOL, base, b.protocol()),
            pick(r, KAFKA_SASL_MECHANISM, base, b.saslMechanism()),
            pick(r, KAFKA_SASL_USERNAME, base, b.saslUsername()),
            pick(r, KAFKA_SASL_PASSWORD, base, b.saslPassword()),
            pick(r, KAFKA_SASL_JAAS_CONFIG, base, b.saslJaasConfig()),
            pick(r, KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, base, b.oauthTokenEndpointUrl()),
            pick(r, KAFKA_SASL_OAUTHBEARER_SCOPE, base, b.oauthScope()),
            pick(r, KAFKA_SSL_CA_FILE, base, b.sslCaFile()),
            pick(r, KAFKA_SSL_TRUSTSTORE_FILE, base, b.sslTruststoreFile()),
            pick(r, KAFKA_SSL_TRUSTSTORE_TYPE, base, b.sslTruststoreType()),
            pick(r, KAFKA_SSL_TRUSTSTORE_PASSWORD, base, b.sslTruststorePassword()),
            pick(r, KAFKA_SSL_CERTIFICATE_FILE, base, b.sslCertificateFile()),
            pick(r, KAFKA_SSL_KEY_FILE, base, b.sslKeyFile()),
            pick(r, KAFKA_SSL_KEY_PASSWORD, base, b.sslKeyPassword()),
            pick(r, KAFKA_SSL_KEYSTORE_FILE, base, b.sslKeystoreFile()),
            pick(r, KAFKA_SSL_KEYSTORE_TYPE, base, b.sslKeystoreType()),
            pick(r, KAFKA_SSL_KEYSTORE_PASSWORD, base, b.sslKeystorePassword()),
            base != null && !r.has(KAFKA_SSL_ENDPOINT_IDENTIFICATION)
                ? b.sslEndpointIdentification()
                : r.bool(KAFKA_SSL_ENDPOINT_IDENTIFICATION));
        checkSecurity(r, security);
        final Map<String, String> consumer = raw(r, KAFKA_CONSUMER, Client.CONSUMER, security,
            base == null ? Map.of() : base.consumer());
        final Map<String, String> producer = raw(r, KAFKA_PRODUCER, Client.PRODUCER, security,
            base == null ? Map.of() : base.producer());
        final Map<String, String> admin = raw(r, KAFKA_ADMIN, Client.ADMIN, security,
            base == null ? Map.of() : base.admin());
        r.finish();
        return new SluiceConfig.Kafka(bootstrap, security, Map.copyOf(consumer), Map.copyOf(producer),
            Map.copyOf(admin));
    }

    private static String pick(final TableReader r, final ConfigKey key, final SluiceConfig.Kafka base,
        final String inherited)
    {
        return base != null && !r.has(key) ? inherited : r.string(key);
    }

    private static void checkSecurity(final TableReader r, final KafkaSecurity s)
    {
        final String where = "security_protocol = \"" + s.protocol() + "\"";
        if (!s.sasl())
        {
            for (final ConfigKey k : SASL_KEYS)
            {
                if (r.has(k))
                {
                    r.problem(k.name(), "applies only with security_protocol SASL_PLAINTEXT or SASL_SSL (here "
                        + where + ")");
                }
            }
        }
        else
        {
            checkSasl(r, s);
        }
        if (!s.tls())
        {
            for (final ConfigKey k : SSL_KEYS)
            {
                if (r.has(k))
                {
                    r.problem(k.name(), "applies only with security_protocol SSL or SASL_SSL (here " + where + ")");
                }
            }
            return;
        }
        if (s.sslCaFile() != null && s.sslTruststoreFile() != null)
        {
            r.problem(KAFKA_SSL_CA_FILE.name(), "give ssl_ca_file or ssl_truststore_file, not both");
        }
        if (s.sslCertificateFile() != null && s.sslKeystoreFile() != null)
        {
            r.problem(KAFKA_SSL_CERTIFICATE_FILE.name(), "give ssl_certificate_file and ssl_key_file, or "
                + "ssl_keystore_file, not both");
        }
        if ((s.sslCertificateFile() == null) != (s.sslKeyFile() == null))
        {
            r.problem(s.sslCertificateFile() == null ? KAFKA_SSL_KEY_FILE.name() : KAFKA_SSL_CERTIFICATE_FILE.name(),
                "ssl_certificate_file and ssl_key_file go together (the certificate and its private key)");
        }
        if (s.sslTruststorePassword() != null && s.sslTruststoreFile() == null)
        {
            r.problem(KAFKA_SSL_TRUSTSTORE_PASSWORD.name(), "is the password of ssl_truststore_file, which is not "
                + "given");
        }
        if (s.sslKeystorePassword() != null && s.sslKeystoreFile() == null)
        {
            r.problem(KAFKA_SSL_KEYSTORE_PASSWORD.name(), "is the password of ssl_keystore_file, which is not given");
        }
        if (s.sslTruststoreType() != null && s.sslTruststoreFile() == null)
        {
            r.problem(KAFKA_SSL_TRUSTSTORE_TYPE.name(), "is the type of ssl_truststore_file, which is not given");
        }
        if (s.sslKeystoreType() != null && s.sslKeystoreFile() == null)
        {
            r.problem(KAFKA_SSL_KEYSTORE_TYPE.name(), "is the type of ssl_keystore_file, which is not given");
        }
        pem(r, KAFKA_SSL_CA_FILE, s.sslCaFile(), "CERTIFICATE");
        pem(r, KAFKA_SSL_CERTIFICATE_FILE, s.sslCertificateFile(), "CERTIFICATE");
        key(r, KAFKA_SSL_KEY_FILE, s.sslKeyFile(), s.sslKeyPassword() != null);
        readable(r, KAFKA_SSL_TRUSTSTORE_FILE, s.sslTruststoreFile());
        readable(r, KAFKA_SSL_KEYSTORE_FILE, s.sslKeystoreFile());
    }

    private static void checkSasl(final TableReader r, final KafkaSecurity s)
    {
        final String m = s.saslMechanism();
        if (m == null)
        {
            r.problem(KAFKA_SASL_MECHANISM.name(), "missing: security_protocol " + s.protocol() + " needs a "
                + "sasl_mechanism (" + String.join(", ", KAFKA_SASL_MECHANISM.allowed()) + ")");
            return;
        }
        final boolean jaas = s.saslJaasConfig() != null;
        if (jaas)
        {
            try
            {
                // Kafka's own parser, as every client will run it
                JaasContext.loadClientContext(Map.of(SaslConfigs.SASL_JAAS_CONFIG, new Password(s.saslJaasConfig())));
            }
            catch (final IllegalArgumentException e)
            {
                r.problem(KAFKA_SASL_JAAS_CONFIG.name(), "is not a JAAS configuration Kafka reads: "
                    + Secrets.redact(e.getMessage()) + " (the form is: LoginModuleClass required key=\"value\" ...;)");
            }
        }
        final boolean user = s.saslUsername() != null;
        final boolean pass = s.saslPassword() != null;
        if (jaas && (user || pass))
        {
            r.problem(KAFKA_SASL_JAAS_CONFIG.name(), "give sasl_jaas_config or sasl_username and sasl_password, not "
                + "both");
        }
        else if (!jaas && "GSSAPI".equals(m))
        {
            r.problem(KAFKA_SASL_JAAS_CONFIG.name(), "missing: sasl_mechanism GSSAPI (Kerberos) needs "
                + "sasl_jaas_config (Krb5LoginModule with keyTab and principal)");
        }
        else if (!jaas && (!user || !pass))
        {
            r.problem(user ? KAFKA_SASL_PASSWORD.name() : KAFKA_SASL_USERNAME.name(), "missing: sasl_mechanism " + m
                + " needs sasl_username and sasl_password" + ("OAUTHBEARER".equals(m)
                    ? " (the client id and secret)"
                    : "")
                + ", or sasl_jaas_config");
        }
        if (!"OAUTHBEARER".equals(m))
        {
            for (final ConfigKey k : List.of(KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, KAFKA_SASL_OAUTHBEARER_SCOPE))
            {
                if (r.has(k))
                {
                    r.problem(k.name(), "applies only with sasl_mechanism OAUTHBEARER (here " + m + ")");
                }
            }
        }
        else if (!jaas && s.oauthTokenEndpointUrl() == null)
        {
            r.problem(KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL.name(), "missing: OAUTHBEARER with a client id and "
                + "secret needs the token endpoint (https://.../token)");
        }
    }

    private static String text(final TableReader r, final ConfigKey key, final String file)
    {
        if (file == null)
        {
            return null;
        }
        final Path p = Path.of(file);
        if (!Files.isRegularFile(p))
        {
            r.problem(key.name(), Printable.escape(file) + (Files.isDirectory(p)
                ? " is a directory, not a file"
                : ": no such file"));
            return null;
        }
        try
        {
            return Files.readString(p, StandardCharsets.ISO_8859_1);
        }
        catch (final IOException e)
        {
            r.problem(key.name(), "cannot read " + Printable.escape(file) + ": " + e.getMessage());
            return null;
        }
    }

    private static void readable(final TableReader r, final ConfigKey key, final String file)
    {
        if (file != null)
        {
            text(r, key, file);
        }
    }

    private static void pem(final TableReader r, final ConfigKey key, final String file, final String block)
    {
        final String t = text(r, key, file);
        if (t != null && !t.contains("-----BEGIN " + block + "-----"))
        {
            r.problem(key.name(), Printable.escape(file) + " holds no PEM " + block + " block (-----BEGIN " + block
                + "-----)");
        }
    }

    private static void key(final TableReader r, final ConfigKey key, final String file, final boolean password)
    {
        final String t = text(r, key, file);
        if (t == null)
        {
            return;
        }
        if (t.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        {
            if (!password)
            {
                r.problem(key.name(), Printable.escape(file) + " is an encrypted key: give ssl_key_password");
            }
        }
        else if (!t.contains("-----BEGIN PRIVATE KEY-----"))
        {
            final boolean other = t.matches("(?s).*-----BEGIN [A-Z ]*PRIVATE KEY-----.*");
            r.problem(key.name(), Printable.escape(file) + (other
                ? " is not a PKCS#8 key (Kafka reads BEGIN PRIVATE KEY or BEGIN ENCRYPTED PRIVATE KEY): convert it "
                    + "with openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8"
                : " holds no PEM private key (-----BEGIN PRIVATE KEY-----)"));
        }
    }

    private static Map<String, String> raw(final TableReader r, final ConfigKey key, final Client client,
        final KafkaSecurity security, final Map<String, String> inherited)
    {
        final Map<String, String> given = r.stringMap(key);
        final Set<String> byBlock = security.propertyNames();
        for (final Map.Entry<String, String> e : given.entrySet())
        {
            final String name = e.getKey();
            final Supplier<String> at = () -> key.name() + ".\"" + Printable.escape(name) + "\"";
            if (client.owned.contains(name))
            {
                r.problem(at.get(), "is set by Sluice (" + owner(name) + "); remove it here");
                continue;
            }
            if (byBlock.contains(name))
            {
                r.problem(at.get(), "is also set by the security block (" + blockKey(name) + "); give it once, in the "
                    + "block");
                continue;
            }
            final ConfigDef.ConfigKey def = client.def.configKeys().get(name);
            if (def == null)
            {
                final String hint = nearest(name, client.def.names());
                r.problem(at.get(), "is not a " + client.table + " property of kafka-clients"
                    + (hint == null ? "" : "; did you mean \"" + hint + "\"?")
                    + " (the keys are those of " + className(client) + ")");
                continue;
            }
            if (Secrets.isSecretKafkaProperty(name))
            {
                Secrets.register(e.getValue());
            }
            try
            {
                final Object parsed = ConfigDef.parseType(name, e.getValue(), def.type);
                if (def.validator != null)
                {
                    def.validator.ensureValid(name, parsed);
                }
            }
            catch (final ConfigException | IllegalArgumentException ex)
            {
                r.problem(at.get(), Secrets.isSecretKafkaProperty(name)
                    ? "not a valid value for " + name
                    : Secrets.redact(ex.getMessage()));
            }
        }
        final Map<String, String> out = new LinkedHashMap<>(inherited);
        out.putAll(given);
        return out;
    }

    private static String className(final Client c)
    {
        return switch (c)
        {
            case CONSUMER -> "ConsumerConfig";
            case PRODUCER -> "ProducerConfig";
            case ADMIN -> "AdminClientConfig";
        };
    }

    private static String owner(final String name)
    {
        return switch (name)
        {
            case ConsumerConfig.GROUP_ID_CONFIG -> "the pipeline's group_id";
            case ConsumerConfig.AUTO_OFFSET_RESET_CONFIG -> "the pipeline's auto_offset_reset";
            case ConsumerConfig.ISOLATION_LEVEL_CONFIG -> "the pipeline's isolation_level";
            case CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG -> "kafka.bootstrap_servers";
            case ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG -> "offsets are committed after ClickHouse or Kafka took "
                + "the records";
            case ProducerConfig.ACKS_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG -> "at-least-once needs "
                + "acks=all and idempotence";
            default -> "the record path reads and writes raw bytes";
        };
    }

    private static String blockKey(final String property)
    {
        final String p = property.toLowerCase(Locale.ROOT);
        if (p.startsWith("sasl."))
        {
            return "sasl_*";
        }
        if (p.startsWith("ssl."))
        {
            return "ssl_*";
        }
        return "security_protocol";
    }

    private static String nearest(final String key, final Set<String> known)
    {
        String best = null;
        int bestDistance = Math.max(2, key.length() / 5) + 1;
        for (final String k : known)
        {
            final int d = TableReader.distance(key.toLowerCase(Locale.ROOT), k);
            if (d < bestDistance)
            {
                bestDistance = d;
                best = k;
            }
        }
        return best;
    }
}
