package io.sluice.sinks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.TopicAdmin;
import io.sluice.core.source.KafkaChecks;

/**
 * {@link TopicAdmin} over Kafka's {@link Admin} client. One request per call, whatever the number of topics: a burst
 * of new topics is one {@code CreateTopics} round trip. "Already exists" (another client, or another engine process,
 * created it first) is a success. Used by one thread at a time.
 */
public final class KafkaTopicAdmin implements TopicAdmin
{
    private static final long TIMEOUT_MS = 60_000;

    private final Admin admin;

    /**
     * @param kafka    the connection: bootstrap servers, the security block and [kafka.admin]
     * @param clientId the client id
     */
    public KafkaTopicAdmin(final SluiceConfig.Kafka kafka, final String clientId)
    {
        this.admin = Admin.create(properties(kafka, clientId));
    }

    /**
     * The admin client's properties: the security block and [kafka.admin], then Sluice's defaults where the user gave
     * none.
     *
     * @param kafka    the connection
     * @param clientId the client id (unless the user gave one)
     * @return the properties
     */
    public static Properties properties(final SluiceConfig.Kafka kafka, final String clientId)
    {
        final Properties p = new Properties();
        p.putAll(kafka.adminProperties());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return p;
    }

    @Override
    public Set<String> listTopics()
    {
        try
        {
            return admin.listTopics(new ListTopicsOptions().listInternal(false)).names().get(TIMEOUT_MS,
                TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException(KafkaChecks.describe(e.getCause()), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("no answer within " + TIMEOUT_MS + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public Set<String> listInternalTopics()
    {
        try
        {
            final Set<String> internal = new HashSet<>();
            for (final TopicListing t : admin.listTopics(new ListTopicsOptions().listInternal(true)).listings()
                .get(TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                if (t.isInternal())
                {
                    internal.add(t.name());
                }
            }
            return internal;
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException(KafkaChecks.describe(e.getCause()), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("no answer within " + TIMEOUT_MS + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public Map<String, Result> describeTopics(final Collection<String> names)
    {
        final Map<String, KafkaFuture<org.apache.kafka.clients.admin.TopicDescription>> futures = admin
            .describeTopics(names).topicNameValues();
        final Map<String, Result> out = new HashMap<>();
        for (final String name : names)
        {
            out.put(name, outcome(futures.get(name), Outcome.EXISTS, true));
        }
        return out;
    }

    @Override
    public Map<String, Result> createTopics(final Collection<String> names, final int partitions,
        final int replicationFactor)
    {
        final List<NewTopic> topics = new ArrayList<>(names.size());
        for (final String name : names)
        {
            topics.add(new NewTopic(name, partitions < 0 ? Optional.empty() : Optional.of(partitions),
                replicationFactor < 0 ? Optional.empty() : Optional.of((short)replicationFactor)));
        }
        final Map<String, KafkaFuture<Void>> futures = admin.createTopics(topics).values();
        final Map<String, Result> out = new HashMap<>();
        for (final String name : names)
        {
            out.put(name, outcome(futures.get(name), Outcome.CREATED, false));
        }
        return out;
    }

    private static Result outcome(final KafkaFuture<?> future, final Outcome success, final boolean lookup)
    {
        if (future == null)
        {
            return new Result(Outcome.FAILED, "no answer for the topic");
        }
        try
        {
            future.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            return new Result(success, null);
        }
        catch (final ExecutionException e)
        {
            final Throwable cause = e.getCause();
            if (cause instanceof TopicExistsException)
            {
                return new Result(Outcome.EXISTS, null);
            }
            if (lookup && cause instanceof UnknownTopicOrPartitionException)
            {
                return new Result(Outcome.ABSENT, null);
            }
            return new Result(Outcome.FAILED, KafkaChecks.describe(cause), cause);
        }
        catch (final TimeoutException e)
        {
            return new Result(Outcome.FAILED, "no answer within " + TIMEOUT_MS + " ms");
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new Result(Outcome.FAILED, "interrupted");
        }
    }

    @Override
    public void close()
    {
        try
        {
            admin.close(Duration.ofSeconds(5));
        }
        catch (final RuntimeException e)
        {
            // closing: nothing left to do with it
        }
    }
}
