package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/**
 * {@code produce --parse-key --key-separator --null-marker} on the real broker: keys, values and null values
 * (tombstones) arrive as written, and a line without the separator is refused before anything is sent.
 */
class ProduceKeysIT
{
    @TempDir
    Path dir;

    private static int produce(final StringWriter err, final String... args)
    {
        final CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        final List<String> all = new ArrayList<>(List.of("produce", "--bootstrap-servers", TestServices.bootstrap(),
            "--partitions", "1"));
        all.addAll(List.of(args));
        return cl.execute(all.toArray(String[]::new));
    }

    private static String text(final byte[] bytes)
    {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendKeysAndTombstonesAsWritten() throws Exception
    {
        final String topic = unique("produce-keys-");
        final Path file = dir.resolve("in.jsonl");
        Files.writeString(file, String.join("\n",
            "1\t{\"id\":1,\"note\":\"a\\tb\"}",
            "2\tNULL",
            "\t{\"id\":3}",
            "NULL\t{\"id\":4}",
            "é5\tnull",
            "") + "\n");
        final StringWriter err = new StringWriter();
        assertEquals(0, produce(err, "--topic", topic, "--file", file.toString(), "--parse-key", "--null-marker",
            "NULL"), err.toString());
        final List<ConsumerRecord<byte[], byte[]>> got = KafkaRecords.readAll(topic);
        assertEquals(5, got.size());
        assertEquals("1", text(got.get(0).key()));
        // only the first separator splits: a TAB inside the value stays in it
        assertEquals("{\"id\":1,\"note\":\"a\\tb\"}", text(got.get(0).value()));
        assertEquals("2", text(got.get(1).key()));
        assertNull(got.get(1).value(), "the null marker as the value is a tombstone");
        assertEquals("", text(got.get(2).key()), "an empty key is a key, not null");
        assertEquals("{\"id\":3}", text(got.get(2).value()));
        assertNull(got.get(3).key(), "the null marker as the key is a null key");
        assertEquals("{\"id\":4}", text(got.get(3).value()));
        assertEquals("é5", text(got.get(4).key()));
        assertEquals("null", text(got.get(4).value()), "the marker is compared exactly: JSON null is a value");
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSplitAtAnOtherSeparatorAndSendUnkeyedLinesWhole() throws Exception
    {
        final String topic = unique("produce-sep-");
        final Path file = dir.resolve("sep.jsonl");
        Files.writeString(file, "k1::{\"a\":1}\nk2::-\n");
        final StringWriter err = new StringWriter();
        assertEquals(0, produce(err, "--topic", topic, "--file", file.toString(), "--parse-key", "--key-separator",
            "::", "--null-marker", "-"), err.toString());
        final Path plain = dir.resolve("plain.jsonl");
        Files.writeString(plain, "k3::{\"a\":3}\n");
        assertEquals(0, produce(err, "--topic", topic, "--file", plain.toString()), err.toString());
        final List<ConsumerRecord<byte[], byte[]>> got = KafkaRecords.readAll(topic);
        assertEquals(3, got.size());
        assertEquals("k1", text(got.get(0).key()));
        assertEquals("{\"a\":1}", text(got.get(0).value()));
        assertEquals("k2", text(got.get(1).key()));
        assertNull(got.get(1).value());
        assertNull(got.get(2).key(), "without --parse-key the line is the value");
        assertEquals("k3::{\"a\":3}", text(got.get(2).value()));
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseALineWithoutTheSeparatorNamingItBeforeSendingAnything() throws Exception
    {
        final String topic = unique("produce-nosep-");
        final Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, "1\t{\"id\":1}\n{\"id\":2}\n");
        final StringWriter err = new StringWriter();
        assertEquals(2, produce(err, "--topic", topic, "--file", file.toString(), "--parse-key"));
        assertTrue(err.toString().contains("line 2 has no key separator \"\\t\""), err.toString());
        assertTrue(!KafkaRecords.exists(topic), "nothing is created or sent");
    }
}
