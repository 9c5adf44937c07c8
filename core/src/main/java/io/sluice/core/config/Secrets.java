package io.sluice.core.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Keeps secrets (passwords, JAAS configurations, tokens, key passwords, credentials inside URLs) out of everything
 * Sluice prints: logs, {@code check}/{@code route}/{@code destination} output, exception messages and metric labels.
 * A secret prints as {@value #MASK}. Thread-safe.
 *
 * <p>Three tools, for three kinds of text:
 * <ul>
 *   <li>{@link #redactUrl} for a URL Sluice knows is one (an endpoint, a metric label): the password of its user
 *       info, or the whole user info when it has no password part (a token), and the values of query parameters
 *       that carry credentials ({@link #SECRET_QUERY_PARAMETERS}) become {@value #MASK};</li>
 *   <li>{@link #redact} for free text that may quote such URLs or a secret value (a client library's exception
 *       message): every URL with user info is redacted as above, and every value {@link #register registered} as a
 *       secret is replaced;</li>
 *   <li>{@link #isSecretKafkaProperty} and {@link #redactProperties} for Kafka client properties: a key is secret
 *       when kafka-clients declares it of type {@link ConfigDef.Type#PASSWORD} (as its own logs print
 *       {@code [hidden]}), or when its name says so ({@code password}, {@code secret}, {@code token},
 *       {@code jaas}, {@code .key} of a PEM key).</li>
 * </ul>
 *
 * <p>The configuration loader registers the value of every secret key of a loaded file ({@link ConfigKey#secret()},
 * and the secret Kafka properties of the pass-through tables). Values shorter than {@value #MIN_REGISTERED_LENGTH}
 * characters are not registered: masking every occurrence of a two-letter password would garble unrelated text, so
 * they rely on the first and third tool alone.
 */
public final class Secrets
{
    /** What a secret prints as. */
    public static final String MASK = "***";

    /** Registered secret values shorter than this are not replaced in free text. */
    public static final int MIN_REGISTERED_LENGTH = 4;

    /** Query parameters of a URL whose values are credentials (ClickHouse's HTTP interface takes user and password). */
    public static final Set<String> SECRET_QUERY_PARAMETERS = Set.of("password", "passwd", "pass", "pwd", "token",
        "access_token", "secret", "key", "api_key", "apikey", "sig", "signature", "x-clickhouse-key");

    /** scheme://userinfo@ inside any text; group 1 is the scheme and "//", group 2 the user info. */
    private static final Pattern URL_USERINFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/?#@\\s\"'<>]+)@");
    /** name=value of a credential query parameter inside any text (after ? or &). */
    private static final Pattern QUERY_SECRET = Pattern.compile("([?&;](?i:" + String.join("|",
        SECRET_QUERY_PARAMETERS.stream().sorted().map(Pattern::quote).toList()) + ")=)([^&#\\s\"'<>]*)");

    /** Registered secrets, longest first (so that a secret containing another is replaced whole); copy on write. */
    private static volatile List<String> registered = List.of();

    private static final Set<String> PASSWORD_PROPERTIES = passwordProperties();

    private Secrets()
    {
    }

    private static Set<String> passwordProperties()
    {
        final Set<String> out = new HashSet<>();
        for (final ConfigDef def : new ConfigDef[]{ConsumerConfig.configDef(), ProducerConfig.configDef(),
            AdminClientConfig.configDef()})
        {
            def.configKeys().forEach((name, key) ->
            {
                if (key.type == ConfigDef.Type.PASSWORD)
                {
                    out.add(name);
                }
            });
        }
        return Set.copyOf(out);
    }

    /**
     * Marks a value as secret: from now on {@link #redact} replaces it wherever it appears. Values shorter than
     * {@value #MIN_REGISTERED_LENGTH} characters are ignored (see the class comment).
     *
     * @param value a secret (null and short values are ignored)
     */
    public static synchronized void register(final String value)
    {
        if (value != null && value.length() >= MIN_REGISTERED_LENGTH && !registered.contains(value))
        {
            final List<String> next = new ArrayList<>(registered);
            next.add(value);
            next.sort(Comparator.comparingInt(String::length).reversed());
            registered = List.copyOf(next);
        }
    }

    /**
     * @param url a URL (or anything; text that is no URL is returned as it is)
     * @return the URL with the password of its user info (or the whole user info when it has no {@code :}) and the
     *         values of credential query parameters replaced by {@value #MASK}; null for null
     */
    public static String redactUrl(final String url)
    {
        if (url == null)
        {
            return null;
        }
        return redactUrls(url);
    }

    /**
     * @param text free text: a message, an exception's text, a label (null gives null)
     * @return the text with every URL's credentials and every registered secret replaced by {@value #MASK}
     */
    public static String redact(final String text)
    {
        if (text == null)
        {
            return null;
        }
        String out = redactUrls(text);
        for (final String secret : registered)
        {
            if (out.contains(secret))
            {
                out = out.replace(secret, MASK);
            }
        }
        return out;
    }

    private static String redactUrls(final String text)
    {
        String out = text;
        if (out.indexOf('@') >= 0)
        {
            final Matcher m = URL_USERINFO.matcher(out);
            final StringBuilder sb = new StringBuilder(out.length());
            while (m.find())
            {
                final String info = m.group(2);
                final int colon = info.indexOf(':');
                final String masked = colon < 0 ? MASK : info.substring(0, colon) + ":" + MASK;
                m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + masked + "@"));
            }
            m.appendTail(sb);
            out = sb.toString();
        }
        if (out.indexOf('=') >= 0)
        {
            out = QUERY_SECRET.matcher(out).replaceAll(r -> Matcher.quoteReplacement(r.group(1) + MASK));
        }
        return out;
    }

    /**
     * @param url an http(s) URL
     * @return whether it carries user info ({@code user:password@}) or a credential query parameter
     */
    public static boolean hasCredentials(final String url)
    {
        return !redactUrls(url).equals(url);
    }

    /**
     * @param key a Kafka client property name
     * @return whether its value is a secret: kafka-clients' ConfigDef declares it a PASSWORD, or its name says so
     */
    public static boolean isSecretKafkaProperty(final String key)
    {
        if (PASSWORD_PROPERTIES.contains(key))
        {
            return true;
        }
        final String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("token") && !k.contains("endpoint")
            || k.contains("jaas") || k.endsWith(".key") || k.contains("credential");
    }

    /**
     * @param properties Kafka client properties
     * @return a copy, in the same order, with the value of every secret property replaced by {@value #MASK} and every
     *         other value passed through {@link #redact}
     */
    public static Map<String, String> redactProperties(final Map<String, ?> properties)
    {
        final Map<String, String> out = new LinkedHashMap<>();
        properties.forEach((k, v) -> out.put(k, isSecretKafkaProperty(k) ? MASK : redact(String.valueOf(v))));
        return out;
    }
}
