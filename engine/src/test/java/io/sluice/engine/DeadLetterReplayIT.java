package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.deadletter.DeadLetterHeaders;

/**
 * Issue 13 (replay): the example of docs/dead-letters.md run step by step as the page gives it, on the files it
 * names: examples/dead-letters/orders.sql creates {@code shop.orders} with an amount column too narrow for two of
 * the six orders of orders.jsonl (one more is malformed); {@code engine.jar produce} puts them into {@code orders};
 * {@code engine.jar --config examples/dead-letters/orders.toml --until-caught-up} writes three and sends three to
 * {@code dlq.orders}; {@code ALTER TABLE ... MODIFY COLUMN amount UInt32} fixes the table; the same with replay.toml
 * re-drives the dead letters into it, each at its original coordinates (from the dead letter's headers), and the
 * malformed one, which no table fix can help, goes on to {@code dlq.orders.again} byte for byte. A second replay from
 * the start writes the two orders again, and {@code FINAL} still shows each order once. The engine runs as the page runs it: a separate
 * {@code java -jar engine.jar} process, the ports from {@code SLUICE_KAFKA_PORT} and {@code SLUICE_CLICKHOUSE_HTTP_PORT}.
 * The example's names are fixed ({@code shop}, {@code orders}, {@code dlq.orders}): the test removes what an earlier
 * run left first.
 */
class DeadLetterReplayIT
{
    private static final Path EXAMPLE = TestServices.projectRoot().resolve("examples/dead-letters");

    private static Map<String, String> ports()
    {
        return Map.of("SLUICE_KAFKA_PORT", TestServices.bootstrap().substring(TestServices.bootstrap()
            .lastIndexOf(':') + 1), "SLUICE_CLICKHOUSE_HTTP_PORT", Integer.toString(URI
                .create(TestServices
                    .clickhouse())
                .getPort()));
    }

    private static void run(final String config) throws Exception
    {
        try (EngineProcess e = EngineProcess.start(ports(), "--config", EXAMPLE.resolve(config).toString(),
            "--until-caught-up"))
        {
            assertEquals(0, e.waitFor(90), config + " ends once caught up; output:\n" + e.output());
        }
    }

    private static List<String> rows(final String query) throws Exception
    {
        final List<String> out = new ArrayList<>();
        for (final String line : TestServices.sql(query + " FORMAT TabSeparated").split("\n"))
        {
            if (!line.isEmpty())
            {
                out.add(line);
            }
        }
        return out;
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldReDriveTheDeadLettersIntoTheFixedTableAsTheDocsShow() throws Exception
    {
        TestServices.sql("DROP DATABASE IF EXISTS shop");
        ScatterEndToEndIT.deleteTopics(Set.of("orders", "dlq.orders", "dlq.orders.again").stream()
            .filter(t ->
            {
                try
                {
                    return KafkaRecords.exists(t);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            }).collect(Collectors.toSet()));
        try (Admin admin = TestServices.admin())
        {
            for (final String g : List.of("sluice-orders", "sluice-orders-replay"))
            {
                try
                {
                    admin.deleteConsumerGroups(List.of(g)).all().get(30, TimeUnit.SECONDS);
                }
                catch (final ExecutionException absent)
                {
                    // GroupIdNotFoundException: nothing to remove
                }
            }
        }

        // 1. the table, 2. the orders
        TestServices.sqlFile(EXAMPLE.resolve("orders.sql"), Map.of());
        assertEquals(0, Main.commandLine().execute("produce", "--bootstrap-servers", TestServices.bootstrap(),
            "--topic", "orders", "--partitions", "1", "--file", EXAMPLE.resolve("orders.jsonl").toString()));
        final List<String> lines = Files.readAllLines(EXAMPLE.resolve("orders.jsonl"));

        // 3. the pipeline: three orders written, three dead letters, the run ends
        run("orders.toml");
        assertEquals(List.of("1\tada\t20\torders\t0\t0", "2\tbob\t250\torders\t0\t1", "4\tdee\t75\torders\t0\t3"),
            rows(
                "SELECT id, customer, amount, src_topic, src_partition, src_offset FROM shop.orders FINAL ORDER BY id"));
        final List<ConsumerRecord<byte[], byte[]>> dead = KafkaRecords.readAll("dlq.orders");
        assertEquals(3, dead.size(), "dead letters in dlq.orders");
        final long[] offsets = {2, 4, 5};
        for (int i = 0; i < dead.size(); i++)
        {
            final ConsumerRecord<byte[], byte[]> d = dead.get(i);
            System.out.println("dead letter " + i + ": " + new String(d.value(), StandardCharsets.UTF_8)
                + " headers " + KafkaRecords.ownHeaders(d));
            assertArrayEquals(lines.get((int)offsets[i]).getBytes(StandardCharsets.UTF_8), d.value(),
                "the dead letter's value is the record's");
            assertEquals("orders", KafkaRecords.header(d, DeadLetterHeaders.TOPIC));
            assertEquals("0", KafkaRecords.header(d, DeadLetterHeaders.PARTITION));
            assertEquals(Long.toString(offsets[i]), KafkaRecords.header(d, DeadLetterHeaders.OFFSET));
            assertEquals(i < 2 ? "convert" : "parse", KafkaRecords.header(d, DeadLetterHeaders.STAGE));
        }

        // 4. the fix, 5. the replay: each order at its original coordinates; the malformed one goes on, untouched
        TestServices.sql("ALTER TABLE shop.orders MODIFY COLUMN amount UInt32");
        run("replay.toml");
        final List<String> fixed = List.of("1\tada\t20\torders\t0\t0", "2\tbob\t250\torders\t0\t1",
            "3\tcyd\t1200\torders\t0\t2", "4\tdee\t75\torders\t0\t3", "5\teve\t300\torders\t0\t4");
        assertEquals(fixed,
            rows(
                "SELECT id, customer, amount, src_topic, src_partition, src_offset FROM shop.orders FINAL ORDER BY id"));
        final List<ConsumerRecord<byte[], byte[]>> again = KafkaRecords.readAll("dlq.orders.again");
        assertEquals(1, again.size(), "what no table fix helps goes on to dlq.orders.again");
        assertArrayEquals(lines.get(5).getBytes(StandardCharsets.UTF_8), again.get(0).value());
        assertEquals("dlq.orders", KafkaRecords.header(again.get(0), DeadLetterHeaders.TOPIC));

        // 6. replaying again from the start (a new group) writes the two orders a second time; FINAL counts them once
        final String second = Files.readString(EXAMPLE.resolve("replay.toml"))
            .replace("group_id = \"sluice-orders-replay\"",
                "group_id = \"sluice-orders-replay-2\"")
            .replace("\"{topic}.again\"", "\"{topic}.again2\"");
        final Path cfg = EngineProcess.writeConfig(second);
        try (EngineProcess e = EngineProcess.start(ports(), "--config", cfg.toString(), "--until-caught-up"))
        {
            assertEquals(0, e.waitFor(90), "the second replay; output:\n" + e.output());
        }
        assertEquals(fixed,
            rows(
                "SELECT id, customer, amount, src_topic, src_partition, src_offset FROM shop.orders FINAL ORDER BY id"));
        ScatterEndToEndIT.deleteTopics(Set.of("orders", "dlq.orders", "dlq.orders.again", "dlq.orders.again2"));
        TestServices.sql("DROP DATABASE shop");
    }
}
