package io.sluice.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code kafka-connect} contender of {@code scripts/bench.sh --sink postgres}: Apache Kafka Connect in standalone
 * mode ({@code org.apache.kafka.connect.cli.ConnectStandalone}) with Debezium's JDBC sink connector
 * ({@code io.debezium.connector.jdbc.JdbcSinkConnector}), both from Maven Central (classpath:
 * {@code bench/kafka-connect/pom.xml}).
 *
 * <p>What it needs that the other contenders do not, given to it before the timed window: records with a schema and
 * one topic per table. {@link #produce} writes every benchmark record, already routed to its table's branch and with
 * its columns already picked and typed, into {@code <topic>.connect.<table>} (4 partitions each) in the JSON
 * converter's envelope ({@code {"schema": {...}, "payload": {...}}}): int64 / int32 / boolean for bigint / integer /
 * boolean columns, Connect's Timestamp logical type (epoch milliseconds) for timestamptz, Debezium's
 * {@code io.debezium.data.Json} for jsonb, string otherwise; a column whose JSON value is missing or null is null. A
 * RegexRouter transform turns the topic into the table's name, {@code collection.name.format} puts it in the
 * benchmark's schema.
 *
 * <p>Not thread-safe.
 */
final class KafkaConnect
{
    /** The Connect worker's main class. */
    static final String MAIN = "org.apache.kafka.connect.cli.ConnectStandalone";

    private final ObjectMapper mapper = new ObjectMapper();

    private KafkaConnect()
    {
    }

    /**
     * @param topic the benchmark topic
     * @param table a target table
     * @return the topic holding that table's records
     */
    static String topicOf(final String topic, final String table)
    {
        return topic + ".connect." + table;
    }

    /**
     * Writes the per-table topics (recreated) with every record of the run in the schema envelope.
     *
     * @param bootstrap the brokers
     * @param admin an admin client
     * @param topic the benchmark topic (names the per-table topics)
     * @param partitions partitions per topic
     * @param sample the sample's lines
     * @param records how many records (record i is line i % lines of copy i / lines)
     * @param withId the line with the copy's id (as the benchmark topic holds it)
     * @param branchOf per sample line, its branch
     * @param tables per branch, its table
     * @param schemas per table, its columns {name, data_type, is_nullable, JSON path}
     * @return per table, the records written
     * @throws IllegalStateException if a value does not fit its column's type
     */
    static Map<String, Long> produce(final String bootstrap, final Admin admin, final String topic,
        final int partitions, final List<byte[]> sample, final long records,
        final java.util.function.BiFunction<byte[], Long, byte[]> withId, final int[] branchOf,
        final List<String> tables, final Map<String, List<String[]>> schemas) throws Exception
    {
        final KafkaConnect k = new KafkaConnect();
        final List<String> topics = new ArrayList<>();
        for (final String t : tables)
        {
            topics.add(topicOf(topic, t));
        }
        final Set<String> existing = admin.listTopics().names().get();
        final List<String> old = topics.stream().filter(existing::contains).toList();
        if (!old.isEmpty())
        {
            admin.deleteTopics(old).all().get();
            for (int i = 0; i < 100 && admin.listTopics().names().get().stream().anyMatch(old::contains); i++)
            {
                Thread.sleep(100);
            }
        }
        final List<NewTopic> create = new ArrayList<>();
        for (final String t : topics)
        {
            create.add(new NewTopic(t, partitions, (short)1));
        }
        admin.createTopics(create).all().get();
        final Map<String, Object> p = new LinkedHashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 << 10));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        final Map<String, Long> counts = new LinkedHashMap<>();
        final Map<String, JsonNode> envelopeSchemas = new LinkedHashMap<>();
        for (final String t : tables)
        {
            envelopeSchemas.put(t, k.schema(t, schemas.get(t)));
            counts.put(t, 0L);
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            for (long i = 0; i < records; i++)
            {
                final int line = (int)(i % sample.size());
                final String table = tables.get(branchOf[line]);
                final JsonNode root = k.mapper.readTree(withId.apply(sample.get(line), i / sample.size()));
                final ObjectNode envelope = k.mapper.createObjectNode();
                envelope.set("schema", envelopeSchemas.get(table));
                envelope.set("payload", k.payload(root, schemas.get(table)));
                producer.send(new ProducerRecord<>(topicOf(topic, table), k.mapper.writeValueAsBytes(envelope)));
                counts.merge(table, 1L, Long::sum);
            }
            producer.flush();
        }
        return counts;
    }

    private JsonNode schema(final String table, final List<String[]> columns)
    {
        final ObjectNode s = mapper.createObjectNode();
        s.put("type", "struct");
        s.put("name", table);
        s.put("optional", false);
        final ArrayNode fields = s.putArray("fields");
        for (final String[] c : columns)
        {
            final ObjectNode f = fields.addObject();
            f.put("field", c[0]);
            f.put("optional", c[2].equals("YES"));
            switch (c[1])
            {
                case "bigint" -> f.put("type", "int64");
                case "integer" -> f.put("type", "int32");
                case "smallint" -> f.put("type", "int16");
                case "boolean" -> f.put("type", "boolean");
                case "jsonb", "json" -> {
                    f.put("type", "string");
                    f.put("name", "io.debezium.data.Json");
                }
                default -> {
                    if (c[1].startsWith("timestamp"))
                    {
                        f.put("type", "int64");
                        f.put("name", "org.apache.kafka.connect.data.Timestamp");
                        f.put("version", 1);
                    }
                    else
                    {
                        f.put("type", "string");
                    }
                }
            }
        }
        return s;
    }

    private JsonNode payload(final JsonNode root, final List<String[]> columns)
    {
        final ObjectNode o = mapper.createObjectNode();
        for (final String[] c : columns)
        {
            JsonNode v = root;
            for (final String part : c[3].split("\\."))
            {
                v = v == null ? null : v.get(part);
            }
            if (v == null || v.isNull())
            {
                o.putNull(c[0]);
                continue;
            }
            switch (c[1])
            {
                case "bigint", "integer", "smallint" -> o.put(c[0], v.isBoolean()
                    ? (v.booleanValue() ? 1 : 0)
                    : v.isNumber() ? v.longValue() : Long.parseLong(v.asText().strip()));
                case "boolean" -> o.put(c[0], v.isBoolean() ? v.booleanValue() : v.asLong() != 0);
                default -> {
                    if (c[1].startsWith("timestamp"))
                    {
                        o.put(c[0], v.isNumber()
                            ? v.longValue() * 1000
                            : java.time.Instant.parse(v.asText()).toEpochMilli());
                    }
                    else
                    {
                        o.put(c[0], v.isTextual() ? v.textValue() : v.toString());
                    }
                }
            }
        }
        return o;
    }

    /**
     * Writes the worker's and the connector's properties into {@code dir}.
     *
     * @return the two files, worker first
     */
    static List<Path> configure(final Path dir, final String name, final String bootstrap, final String jdbcUrl,
        final String user, final String schema, final String topic,
        final List<String> tables, final int restPort, final int batchSize, final int tasks) throws IOException
    {
        final Path worker = dir.resolve(name + "-worker.properties");
        final Path connector = dir.resolve(name + "-connector.properties");
        Files.writeString(worker, String.join("\n",
            "bootstrap.servers=" + bootstrap,
            "key.converter=org.apache.kafka.connect.storage.StringConverter",
            "value.converter=org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable=true",
            "offset.storage.file.filename=" + dir.resolve(name + ".offsets"),
            // commit the consumed offsets every second (default 60 s), as the other contenders do
            "offset.flush.interval.ms=1000",
            "listeners=http://127.0.0.1:" + restPort,
            // the same fetch settings as Sluice and the baseline; a poll as big as a batch (Debezium's advice)
            "consumer.max.poll.records=" + batchSize,
            "consumer.fetch.max.bytes=" + (32 << 20),
            "consumer.max.partition.fetch.bytes=" + (8 << 20),
            "consumer.auto.offset.reset=earliest",
            // the password comes from the environment (PGPASSWORD), never written into a file
            "config.providers=env",
            "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
            ""));
        final List<String> topics = new ArrayList<>();
        for (final String t : tables)
        {
            topics.add(topicOf(topic, t));
        }
        Files.writeString(connector, String.join("\n",
            "name=" + name,
            "connector.class=io.debezium.connector.jdbc.JdbcSinkConnector",
            "tasks.max=" + tasks,
            "topics=" + String.join(",", topics),
            "connection.url=" + jdbcUrl,
            "connection.username=" + user,
            "connection.password=${env:PGPASSWORD}",
            "insert.mode=insert",
            "delete.enabled=false",
            "primary.key.mode=none",
            "schema.evolution=none",
            "batch.size=" + batchSize,
            "collection.name.format=" + schema + ".${topic}",
            "transforms=table",
            "transforms.table.type=org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.table.regex=.*\\\\.connect\\\\.(.*)", // a properties file: a doubled backslash is one
            "transforms.table.replacement=$1",
            ""));
        return List.of(worker, connector);
    }
}
