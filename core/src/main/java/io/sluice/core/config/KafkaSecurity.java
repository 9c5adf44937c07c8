package io.sluice.core.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * The security block of {@code [kafka]} (or of a source's or sink's {@code kafka} override): how every Kafka client
 * Sluice makes authenticates and encrypts. {@link #properties()} turns it into the Kafka client properties that
 * consumers, producers, admin clients and the {@code produce} command all get, identically. Validated by the
 * loader (combinations, files); immutable and thread-safe. {@link #toString()} masks every secret.
 *
 * <p>The rules (Kafka's own: {@code CommonClientConfigs}, {@code SaslConfigs}, {@code SslConfigs}):
 * <ul>
 *   <li>{@code security.protocol} is written whenever the block names one other than PLAINTEXT;</li>
 *   <li>SASL: {@code sasl.mechanism}, and {@code sasl.jaas.config} either as given or written from user name and
 *       password with the mechanism's login module (PLAIN: {@code PlainLoginModule}, SCRAM-*:
 *       {@code ScramLoginModule}, OAUTHBEARER: {@code OAuthBearerLoginModule} with {@code clientId},
 *       {@code clientSecret}, {@code scope}, plus the token endpoint and Kafka's
 *       {@code OAuthBearerLoginCallbackHandler}); values are quoted as the JAAS parser reads them
 *       ({@code \} and {@code "} escaped);</li>
 *   <li>TLS trust: a PEM CA file becomes {@code ssl.truststore.type=PEM} with {@code ssl.truststore.location}; a
 *       trust store file keeps its type and password;</li>
 *   <li>TLS client certificate: PEM certificate and key files are read and passed as
 *       {@code ssl.keystore.certificate.chain} and {@code ssl.keystore.key} ({@code ssl.keystore.type=PEM}, as
 *       Kafka takes separate PEM files); a key store file keeps its location, type and passwords;</li>
 *   <li>{@code ssl_endpoint_identification = false} is {@code ssl.endpoint.identification.algorithm=""}.</li>
 * </ul>
 *
 * @param protocol                  PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
 * @param saslMechanism             SASL mechanism, or null
 * @param saslUsername              SASL user name (OAUTHBEARER: client id), or null
 * @param saslPassword              SASL password (OAUTHBEARER: client secret), or null; secret
 * @param saslJaasConfig            a complete JAAS configuration, or null; secret
 * @param oauthTokenEndpointUrl     OAUTHBEARER token endpoint, or null
 * @param oauthScope                OAUTHBEARER scope, or null
 * @param sslCaFile                 PEM file of CAs, or null
 * @param sslTruststoreFile         trust store file, or null
 * @param sslTruststoreType         its type (JKS, PKCS12, PEM), or null
 * @param sslTruststorePassword     its password, or null; secret
 * @param sslCertificateFile        PEM client certificate chain, or null
 * @param sslKeyFile                PEM PKCS#8 private key of the certificate, or null
 * @param sslKeyPassword            password of the key, or null; secret
 * @param sslKeystoreFile           key store file, or null
 * @param sslKeystoreType           its type, or null
 * @param sslKeystorePassword       its password, or null; secret
 * @param sslEndpointIdentification whether broker certificates must name the host they were reached at
 */
public record KafkaSecurity(
    String protocol,
    String saslMechanism,
    String saslUsername,
    String saslPassword,
    String saslJaasConfig,
    String oauthTokenEndpointUrl,
    String oauthScope,
    String sslCaFile,
    String sslTruststoreFile,
    String sslTruststoreType,
    String sslTruststorePassword,
    String sslCertificateFile,
    String sslKeyFile,
    String sslKeyPassword,
    String sslKeystoreFile,
    String sslKeystoreType,
    String sslKeystorePassword,
    boolean sslEndpointIdentification)
{
    /** No security settings: PLAINTEXT, nothing written (the raw pass-through tables may still set them). */
    public static final KafkaSecurity NONE = new KafkaSecurity("PLAINTEXT", null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, true);

    /** Kafka's JVM-wide list of token endpoints an OAUTHBEARER client may call (Kafka 4.0, KIP-1089). */
    public static final String OAUTH_ALLOWED_URLS_PROPERTY = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    static final String PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    static final String SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";
    static final String OAUTH_LOGIN_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
    static final String OAUTH_CALLBACK_HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

    /** @return whether the protocol authenticates with SASL */
    public boolean sasl()
    {
        return protocol.startsWith("SASL_");
    }

    /** @return whether the protocol encrypts with TLS */
    public boolean tls()
    {
        return "SSL".equals(protocol) || "SASL_SSL".equals(protocol);
    }

    /**
     * The names of the properties {@link #properties()} writes, without reading any file: the loader refuses a raw
     * pass-through key that the block also sets.
     *
     * @return property names, in the order written
     */
    public Set<String> propertyNames()
    {
        final Set<String> out = new LinkedHashSet<>();
        if (!"PLAINTEXT".equals(protocol))
        {
            out.add(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
        }
        if (sasl())
        {
            out.add(SaslConfigs.SASL_MECHANISM);
            out.add(SaslConfigs.SASL_JAAS_CONFIG);
            if ("OAUTHBEARER".equals(saslMechanism) && oauthTokenEndpointUrl != null)
            {
                out.add(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL);
                out.add(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS);
            }
        }
        if (tls())
        {
            if (sslCaFile != null || sslTruststoreFile != null)
            {
                out.add(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG);
                out.add(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);
            }
            if (sslTruststorePassword != null)
            {
                out.add(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG);
            }
            if (sslCertificateFile != null)
            {
                out.add(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG);
                out.add(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG);
                out.add(SslConfigs.SSL_KEYSTORE_KEY_CONFIG);
            }
            if (sslKeystoreFile != null)
            {
                out.add(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG);
                out.add(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG);
            }
            if (sslKeystorePassword != null)
            {
                out.add(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG);
            }
            if (sslKeyPassword != null)
            {
                out.add(SslConfigs.SSL_KEY_PASSWORD_CONFIG);
            }
            if (!sslEndpointIdentification)
            {
                out.add(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG);
            }
        }
        return out;
    }

    /**
     * The Kafka client properties of this block. Reads the PEM certificate and key files when they are given (so
     * a renewed certificate is picked up by the next client made).
     *
     * @return properties in a stable order; empty for {@link #NONE}
     * @throws UncheckedIOException when a certificate or key file cannot be read (its message names the file)
     */
    public Map<String, String> properties()
    {
        final Map<String, String> p = new LinkedHashMap<>();
        if (!"PLAINTEXT".equals(protocol))
        {
            p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        }
        if (sasl())
        {
            p.put(SaslConfigs.SASL_MECHANISM, saslMechanism);
            p.put(SaslConfigs.SASL_JAAS_CONFIG, saslJaasConfig != null ? saslJaasConfig : jaasConfig());
            if ("OAUTHBEARER".equals(saslMechanism) && oauthTokenEndpointUrl != null)
            {
                p.put(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, oauthTokenEndpointUrl);
                p.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, OAUTH_CALLBACK_HANDLER);
                allowTokenEndpoint(oauthTokenEndpointUrl);
            }
        }
        if (tls())
        {
            if (sslCaFile != null)
            {
                p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
                p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, sslCaFile);
            }
            else if (sslTruststoreFile != null)
            {
                p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, storeType(sslTruststoreType, sslTruststoreFile));
                p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, sslTruststoreFile);
            }
            if (sslTruststorePassword != null)
            {
                p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, sslTruststorePassword);
            }
            if (sslCertificateFile != null)
            {
                p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
                p.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG,
                    read(sslCertificateFile, "ssl_certificate_file"));
                p.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, read(sslKeyFile, "ssl_key_file"));
            }
            else if (sslKeystoreFile != null)
            {
                p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, storeType(sslKeystoreType, sslKeystoreFile));
                p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, sslKeystoreFile);
            }
            if (sslKeystorePassword != null)
            {
                p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, sslKeystorePassword);
            }
            if (sslKeyPassword != null)
            {
                p.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, sslKeyPassword);
            }
            if (!sslEndpointIdentification)
            {
                p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
            }
        }
        return p;
    }

    /** @return the JAAS configuration Sluice writes for the mechanism from user name and password */
    String jaasConfig()
    {
        return switch (saslMechanism)
        {
            case "PLAIN" -> PLAIN_LOGIN_MODULE + " required username=" + jaasQuote(saslUsername) + " password="
                + jaasQuote(saslPassword) + ";";
            case "SCRAM-SHA-256", "SCRAM-SHA-512" -> SCRAM_LOGIN_MODULE + " required username="
                + jaasQuote(saslUsername) + " password=" + jaasQuote(saslPassword) + ";";
            case "OAUTHBEARER" -> OAUTH_LOGIN_MODULE + " required clientId=" + jaasQuote(saslUsername)
                + " clientSecret=" + jaasQuote(saslPassword)
                + (oauthScope == null ? "" : " scope=" + jaasQuote(oauthScope)) + ";";
            default -> throw new IllegalStateException("sasl_mechanism " + saslMechanism + " needs sasl_jaas_config");
        };
    }

    /**
     * @param value a JAAS option value
     * @return it in double quotes, with {@code \} and {@code "} escaped as Kafka's JAAS parser (a
     *         {@link java.io.StreamTokenizer} with {@code "} as its quote character) reads them back
     */
    static String jaasQuote(final String value)
    {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * @param configured the configured type, or null
     * @param file       the store file
     * @return the configured type, else PKCS12 for .p12/.pfx, PEM for .pem/.crt/.cer, else JKS
     */
    static String storeType(final String configured, final String file)
    {
        if (configured != null)
        {
            return configured;
        }
        final String f = file.toLowerCase(Locale.ROOT);
        if (f.endsWith(".p12") || f.endsWith(".pfx"))
        {
            return "PKCS12";
        }
        if (f.endsWith(".pem") || f.endsWith(".crt") || f.endsWith(".cer"))
        {
            return "PEM";
        }
        return "JKS";
    }

    private static String read(final String file, final String key)
    {
        try
        {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read " + key + " " + file + ": " + e.getMessage(), e);
        }
    }

    /** Adds a token endpoint to Kafka's JVM-wide allowed list, keeping what is there (set by the user or before). */
    private static synchronized void allowTokenEndpoint(final String url)
    {
        final String current = System.getProperty(OAUTH_ALLOWED_URLS_PROPERTY, "");
        for (final String u : current.split(","))
        {
            if (u.trim().equals(url))
            {
                return;
            }
        }
        System.setProperty(OAUTH_ALLOWED_URLS_PROPERTY, current.isBlank() ? url : current + "," + url);
    }

    /** @return a one-line description for logs: protocol, mechanism and user, never a secret */
    public String describe()
    {
        final StringBuilder sb = new StringBuilder(protocol);
        if (sasl())
        {
            sb.append(' ').append(saslMechanism);
            if (saslUsername != null)
            {
                sb.append(" as ").append(Printable.escape(saslUsername));
            }
            else if (saslJaasConfig != null)
            {
                sb.append(" (sasl_jaas_config)");
            }
        }
        return sb.toString();
    }

    @Override
    public String toString()
    {
        return "KafkaSecurity[" + describe() + (sslCaFile != null ? ", ssl_ca_file=" + sslCaFile : "")
            + (sslTruststoreFile != null ? ", ssl_truststore_file=" + sslTruststoreFile : "")
            + (sslCertificateFile != null ? ", ssl_certificate_file=" + sslCertificateFile : "")
            + (sslKeystoreFile != null ? ", ssl_keystore_file=" + sslKeystoreFile : "")
            + (saslPassword != null || saslJaasConfig != null || sslKeyPassword != null
                || sslKeystorePassword != null || sslTruststorePassword != null ? ", secrets=" + Secrets.MASK : "")
            + "]";
    }
}
