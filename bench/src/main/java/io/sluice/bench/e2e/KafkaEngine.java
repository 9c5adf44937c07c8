package io.sluice.bench.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code kafka-engine} contender: ClickHouse's own Kafka table engine, one table reading the topic and one
 * MATERIALIZED VIEW per target table with its branch's condition, as {@code kafka-engine/github-events.sql} (a
 * resource of this module) defines them. There is no contender process: the ClickHouse server consumes, parses,
 * routes and writes.
 *
 * <p>Starting it from the topic's beginning on ClickHouse 18.16: a new consumer group of the Kafka engine starts at
 * the END of the topic (librdkafka's {@code auto.offset.reset=largest}), and the engine starts consuming as soon as a
 * first view depends on its table, before the other views exist. So {@link #create()} creates the table and every
 * view (nothing is consumed: the topic holds no record past its end), DETACHes the Kafka table (its consumer leaves
 * the group), and commits the group's offsets to the start of every partition with Kafka's admin API;
 * {@link #attach()} then ATTACHes the table, and the engine reads the whole topic into every view.
 *
 * <p>Not thread-safe.
 */
final class KafkaEngine
{
    /** Runs one statement on ClickHouse and returns its output. */
    interface Sql
    {
        String run(String sql) throws IOException, InterruptedException;
    }

    /** The resource with the DDL. */
    static final String RESOURCE = "/kafka-engine/github-events.sql";

    private final Sql sql;
    private final Admin admin;
    private final String bootstrap;
    private final String database;
    private final String topic;
    private final String group;
    private final int blockSize;
    private final int consumers;

    /**
     * @param sql runs statements on the ClickHouse server
     * @param admin Kafka's admin client (not closed here)
     * @param bootstrap the broker list, as the ClickHouse server reaches it
     * @param database the database holding the target tables; the Kafka table and the views are created there
     * @param topic the topic
     * @param group the consumer group of the Kafka table (new for each run)
     * @param blockSize kafka_max_block_size: the rows of one block, read then written to every view
     * @param consumers kafka_num_consumers
     */
    KafkaEngine(final Sql sql, final Admin admin, final String bootstrap, final String database, final String topic,
        final String group, final int blockSize, final int consumers)
    {
        this.sql = sql;
        this.admin = admin;
        this.bootstrap = bootstrap;
        this.database = database;
        this.topic = topic;
        this.group = group;
        this.blockSize = blockSize;
        this.consumers = consumers;
    }

    /** @return the consumer group */
    String group()
    {
        return group;
    }

    /**
     * @param values the placeholders ({@code db}, {@code broker}, {@code topic}, {@code group}, {@code block_size},
     *     {@code consumers}) and their values
     * @return the statements of the resource, placeholders filled in
     * @throws IllegalStateException if the resource is missing or a placeholder is left
     */
    static List<String> statements(final Map<String, String> values) throws IOException
    {
        String text;
        try (InputStream in = KafkaEngine.class.getResourceAsStream(RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException("resource " + RESOURCE + " is missing");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (final Map.Entry<String, String> e : values.entrySet())
        {
            text = text.replace("${" + e.getKey() + "}", e.getValue());
        }
        if (text.contains("${"))
        {
            throw new IllegalStateException(RESOURCE + " has a placeholder left: "
                + text.substring(text.indexOf("${"), Math.min(text.length(), text.indexOf("${") + 20)));
        }
        final List<String> out = new ArrayList<>();
        for (final String s : text.split("\n;\n"))
        {
            if (!s.replaceAll("(?m)^--.*$", "").isBlank())
            {
                out.add(s.strip());
            }
        }
        return out;
    }

    /**
     * Creates the Kafka table and the views, stops the table and points the group at the start of the topic.
     *
     * @throws IllegalStateException if a statement fails, or the group's offsets cannot be set within 60 s
     */
    void create() throws Exception
    {
        final Map<String, String> values = new HashMap<>();
        values.put("db", database);
        values.put("broker", bootstrap);
        values.put("topic", topic);
        values.put("group", group);
        values.put("block_size", String.valueOf(blockSize));
        values.put("consumers", String.valueOf(consumers));
        for (final String s : statements(values))
        {
            sql.run(s);
        }
        sql.run("DETACH TABLE `" + database + "`.kafka_events");
        final TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        final Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (final var p : d.partitions())
        {
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
        }
        final Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        for (final var e : admin.listOffsets(earliest).all().get().entrySet())
        {
            start.put(e.getKey(), new OffsetAndMetadata(e.getValue().offset()));
        }
        // the detached table's consumer may still be leaving the group: offsets of a group with members are refused
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            try
            {
                admin.alterConsumerGroupOffsets(group, start).all().get(30, TimeUnit.SECONDS);
                return;
            }
            catch (final ExecutionException e)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("cannot commit group " + group + " to the start of " + topic
                        + ": " + e.getCause(), e.getCause());
                }
                Thread.sleep(200);
            }
        }
    }

    /** ATTACHes the Kafka table: the engine starts consuming. */
    void attach() throws IOException, InterruptedException
    {
        sql.run("ATTACH TABLE `" + database + "`.kafka_events");
    }

    /**
     * @param partitions the topic's partitions
     * @param timeoutSeconds how long to wait
     * @return the moment ({@link System#nanoTime()}) the group's members were seen holding every partition
     * @throws IllegalStateException if that does not happen in time
     */
    long awaitAssignment(final int partitions, final long timeoutSeconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() - deadline < 0)
        {
            try
            {
                final ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                int assigned = 0;
                for (final MemberDescription m : g.members())
                {
                    assigned += m.assignment().topicPartitions().size();
                }
                if (assigned == partitions)
                {
                    return System.nanoTime();
                }
            }
            catch (final ExecutionException e)
            {
                // not known yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("the Kafka table's group " + group + " got no assignment of " + partitions
            + " partitions within " + timeoutSeconds + " s (is the broker list " + bootstrap
            + " reachable from the ClickHouse server?)");
    }

    /** @return the records the group has committed, over all partitions of the topic (from offset 0) */
    long committed() throws Exception
    {
        long n = 0;
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).entrySet())
        {
            if (e.getValue() != null && e.getKey().topic().equals(topic))
            {
                n += e.getValue().offset();
            }
        }
        return n;
    }

    /** Drops the Kafka table (its consumer stops and leaves the group); the views stay. */
    void stop() throws IOException, InterruptedException
    {
        sql.run("DROP TABLE IF EXISTS `" + database + "`.kafka_events");
    }
}
