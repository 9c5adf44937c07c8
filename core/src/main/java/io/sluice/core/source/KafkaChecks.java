package io.sluice.core.source;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Start-up checks against the Kafka cluster, so an unreachable broker is reported with its address instead of a
 * consumer that retries silently forever. Thread-safe (stateless).
 */
public final class KafkaChecks
{
    private KafkaChecks()
    {
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
            return "Kafka at " + bootstrapServers + " is unreachable: " + e.getCause().getMessage();
        }
        catch (final TimeoutException e)
        {
            return "Kafka at " + bootstrapServers + " did not answer within " + timeoutMs + " ms";
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return "interrupted while checking Kafka at " + bootstrapServers;
        }
        catch (final RuntimeException e)
        {
            return "Kafka at " + bootstrapServers + " cannot be used: " + e.getMessage();
        }
    }
}
