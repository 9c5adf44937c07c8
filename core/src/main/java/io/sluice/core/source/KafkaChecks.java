package io.sluice.core.source;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

import io.sluice.core.config.Printable;
import io.sluice.core.config.Secrets;
import io.sluice.core.config.SluiceConfig;

/**
 * Start-up checks against the Kafka clusters, so an unreachable broker, or one that refuses the credentials or the
 * TLS handshake, is reported with its address and the reason at once instead of a consumer that retries silently
 * forever (Kafka's clients log an authentication failure and keep retrying; a consumer shows it as "0 partitions").
 * Thread-safe (stateless).
 */
public final class KafkaChecks
{
    private KafkaChecks()
    {
    }

    /**
     * Asks every cluster the configuration's consumers use (sinks and kafka sources, each with its own security
     * settings) for its metadata.
     *
     * @param config    the configuration
     * @param timeoutMs how long to wait per cluster, ms
     * @return {@code null} when every cluster answered, else a message naming the address and what happened
     */
    public static String unreachable(final SluiceConfig config, final long timeoutMs)
    {
        final Set<SluiceConfig.Kafka> used = new LinkedHashSet<>();
        config.sinks().forEach(s -> used.add(config.kafkaFor(s)));
        // the consumers: a file or stdin source's admin client and producer report a refusal themselves, at start
        config.sources().stream().filter(s -> SluiceConfig.Source.KAFKA.equals(s.kind()))
            .forEach(s -> used.add(config.kafkaFor(s)));
        for (final SluiceConfig.Kafka kafka : used)
        {
            final String problem = unreachable(kafka, timeoutMs);
            if (problem != null)
            {
                return problem;
            }
        }
        return null;
    }

    /**
     * Asks one cluster for its metadata.
     *
     * @param kafka     the connection (bootstrap servers, security block, [kafka.admin])
     * @param timeoutMs how long to wait, ms
     * @return {@code null} when the cluster answered, else a message naming the address and what happened
     */
    public static String unreachable(final SluiceConfig.Kafka kafka, final long timeoutMs)
    {
        final Map<String, String> properties;
        try
        {
            properties = kafka.adminProperties();
        }
        catch (final RuntimeException e)
        {
            return "Kafka at " + kafka.describe() + " cannot be used: " + Secrets.redact(e.getMessage());
        }
        return unreachable(kafka.bootstrapServers(), properties, timeoutMs, kafka.security().describe());
    }

    /**
     * Asks the cluster for its metadata.
     *
     * @param bootstrapServers the configured {@code bootstrap_servers}
     * @param adminProperties  extra Admin client properties (security settings and the like)
     * @param timeoutMs        how long to wait, ms
     * @return {@code null} when the cluster answered, else a message naming the address and what happened
     */
    public static String unreachable(final String bootstrapServers, final Map<String, String> adminProperties,
        final long timeoutMs)
    {
        return unreachable(bootstrapServers, adminProperties, timeoutMs, null);
    }

    private static String unreachable(final String bootstrapServers, final Map<String, String> adminProperties,
        final long timeoutMs, final String security)
    {
        final String at = "Kafka at " + Printable.escape(bootstrapServers) + (security == null
            || "PLAINTEXT".equals(security) ? "" : " (" + security + ")");
        final Map<String, Object> props = new HashMap<>(adminProperties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int)timeoutMs);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)timeoutMs);
        props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "sluice-check");
        try (Admin admin = Admin.create(props))
        {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int)timeoutMs)).clusterId()
                .get(timeoutMs + 1000, TimeUnit.MILLISECONDS);
            return null;
        }
        catch (final ExecutionException e)
        {
            final Throwable cause = e.getCause();
            return at + (refusal(cause) ? " refused the connection: " : " is unreachable: ") + describe(cause);
        }
        catch (final TimeoutException e)
        {
            return at + " did not answer within " + timeoutMs + " ms";
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return "interrupted while checking " + at;
        }
        catch (final RuntimeException e)
        {
            return at + " cannot be used: " + describe(e);
        }
    }

    /**
     * @param failure what a Kafka client threw or completed a future with
     * @return whether it is the broker (or the TLS handshake) refusing this client: authentication, authorization
     *         or TLS, which retrying with the same settings cannot cure
     */
    public static boolean refusal(final Throwable failure)
    {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (c instanceof AuthenticationException || c instanceof AuthorizationException
                || c instanceof SSLException)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * One line on what went wrong: every distinct message of the cause chain (the broker's reason, the TLS
     * library's), secrets redacted, control characters escaped, and what to look at for authentication and TLS
     * failures.
     *
     * @param failure what a Kafka client threw
     * @return the description
     */
    public static String describe(final Throwable failure)
    {
        final StringBuilder sb = new StringBuilder();
        final Set<String> seen = new LinkedHashSet<>();
        for (Throwable c = failure; c != null && seen.size() < 6; c = c.getCause() == c ? null : c.getCause())
        {
            final String m = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
            if (seen.add(m) && (sb.isEmpty() || !sb.toString().contains(m)))
            {
                sb.append(sb.isEmpty() ? "" : ": ").append(m);
            }
        }
        String hint = "";
        final String all = sb.toString();
        if (all.contains("fatal alert: bad_certificate") || all.contains("fatal alert: certificate_required")
            || all.contains("fatal alert: unknown_ca") || all.contains("fatal alert: certificate_unknown"))
        {
            hint = " (TLS: the broker refused this client's certificate: is ssl_certificate_file or ssl_keystore_file "
                + "given, and signed by a CA the broker trusts?)";
        }
        else if (find(failure, SslAuthenticationException.class) || find(failure, SSLException.class))
        {
            hint = " (TLS: does ssl_ca_file or ssl_truststore_file hold the CA that signed the broker's certificate, "
                + "and does the certificate name the host in bootstrap_servers?)";
        }
        else if (find(failure, SaslAuthenticationException.class))
        {
            hint = " (SASL: check sasl_mechanism, sasl_username and sasl_password against the user the broker has)";
        }
        else if (find(failure, ClusterAuthorizationException.class))
        {
            hint = " (an idempotent producer, as Sluice's, needs the WRITE ACL on its topics or IDEMPOTENT_WRITE on the "
                + "cluster; creating topics needs CREATE)";
        }
        else if (find(failure, AuthorizationException.class))
        {
            hint = " (the user authenticated but lacks an ACL: the broker names the resource)";
        }
        return Printable.escape(Secrets.redact(sb.toString())) + hint;
    }

    private static boolean find(final Throwable t, final Class<? extends Throwable> type)
    {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause())
        {
            if (type.isInstance(c))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The consumer properties of a pipeline with its {@code isolation_level} (Kafka's {@code isolation.level}, which
     * Sluice owns: the raw {@code [kafka.consumer]} table may not set it).
     *
     * @param properties     the connection's raw consumer properties
     * @param isolationLevel {@code read_committed} or {@code read_uncommitted}
     * @return a copy with {@code isolation.level} set
     */
    public static Map<String, String> withIsolationLevel(final Map<String, String> properties,
        final String isolationLevel)
    {
        final Map<String, String> out = new HashMap<>(properties);
        out.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        return out;
    }
}
