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
 * first view depends on its table, before the other views exist. So {@link #create()} commits the new group to the
 * start of every partition with Kafka's admin API, then creates the views (the first with ATTACH and its full
 * definition, which ClickHouse accepts before the table it reads exists), and the Kafka table last. (Creating
 * everything, DETACHing the table, committing and ATTACHing works too, but DETACH while the engine's stream reads can
 * abort the 18.16 server with librdkafka 2.0.2: see {@link #dropKafkaTables}.)
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

    /**
     * How long a Kafka table's stream can still read once its last view is gone, when the topic has nothing new: one
     * poll of 500 ms that ends the stream, and the 500 ms before the stream thread looks for views again (18.16's
     * READ_POLL_MS), with a margin.
     */
    static final long IDLE_MILLIS = 2500;

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
     * Commits the group to the start of the topic, then creates the views and the Kafka table: the engine starts
     * consuming.
     *
     * @throws IllegalStateException if a statement fails
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
        final List<String> statements = statements(values);
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
        admin.alterConsumerGroupOffsets(group, start).all().get(30, TimeUnit.SECONDS);
        for (final String s : statements)
        {
            sql.run(s);
        }
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

    /** Drops the views and then the Kafka table (its consumer stops and leaves the group): see {@link #dropKafkaTables}. */
    void stop() throws IOException, InterruptedException
    {
        dropKafkaTables(sql, database);
    }

    /**
     * Drops the Kafka tables of a database without crashing the server. ClickHouse 18.16 with librdkafka 2.0.2 can
     * abort (rd_kafka_cgrp_destroy_final: assert !rkcg->rkcg_subscription) when a Kafka table is dropped or detached
     * while its stream reads: the cancelled stream re-subscribes its consumer, which is then closed in the middle of
     * a rebalance. A Kafka table without views streams nothing (its stream thread waits for a view), so the
     * materialized views of the database are dropped first (in descending name order, so that {@code to_*} go before
     * the {@code route} they select from), then, once the last stream has ended ({@link #IDLE_MILLIS}), the Kafka
     * tables.
     *
     * @param sql runs statements
     * @param database the database
     */
    static void dropKafkaTables(final Sql sql, final String database) throws IOException, InterruptedException
    {
        final List<String> kafka = names(sql, database, "Kafka");
        if (kafka.isEmpty())
        {
            return;
        }
        for (final String view : names(sql, database, "MaterializedView"))
        {
            sql.run("DROP TABLE IF EXISTS `" + database + "`.`" + view + "`");
        }
        Thread.sleep(IDLE_MILLIS);
        for (final String table : kafka)
        {
            sql.run("DROP TABLE IF EXISTS `" + database + "`.`" + table + "`");
        }
    }

    private static List<String> names(final Sql sql, final String database, final String engine)
        throws IOException, InterruptedException
    {
        final List<String> out = new ArrayList<>();
        for (final String name : sql.run("SELECT name FROM system.tables WHERE database = '" + database
            + "' AND engine = '" + engine + "' ORDER BY name DESC").split("\n"))
        {
            if (!name.isBlank())
            {
                out.add(name.strip());
            }
        }
        return out;
    }
}
