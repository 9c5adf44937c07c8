package io.sluice.codecs.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class Murmur2Test
{
    private static int offHeapHash(final byte[] data, final int padding)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(data.length + 2 * padding));
        buffer.putBytes(padding, data);
        return Murmur2.hash(buffer, padding, data.length);
    }

    private static void assertHash(final byte[] key, final int expected)
    {
        assertEquals(expected, Murmur2.hash(key), "byte[] hash");
        for (int padding = 0; padding < 8; padding++)
        {
            assertEquals(expected, offHeapHash(key, padding), "off-heap hash at padding " + padding);
        }
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldMatchCaseR1IncludingOneByteTail()
    {
        // Case R1 (shared/cases/README.md; kafkajs#357, node-sinek#39).
        assertHash(utf8("100:48069"), 1009543857);
        assertEquals(9, Murmur2.bucket(Murmur2.hash(utf8("100:48069")), 12));
        assertHash(utf8("wu"), 290249560);
        assertEquals(0, Murmur2.bucket(Murmur2.hash(utf8("wu")), 10));
    }

    @Test
    void shouldMatchKafkaUtilsTestVectors()
    {
        // Vectors from Apache Kafka's UtilsTest.testMurmur2, as listed in case R1.
        assertHash(utf8("21"), -973932308);
        assertHash(utf8("foobar"), -790332482);
        assertHash(utf8("a-little-bit-long-string"), -985981536);
        assertHash(utf8("a-little-bit-longer-string"), -1486304829);
        assertHash(utf8("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
        assertHash(new byte[]{'a', 'b', 'c'}, 479470107);
    }

    @Test
    void shouldMaskSignBitCaseR2()
    {
        // Case R2 (Dekaf#1336, kafka_ex#398, platformatic/kafka#121).
        final int negative = Murmur2.hash(utf8("f562ac3b-2224-4e25-a0ab-56094e10c239"));
        assertEquals(-377816373, negative);
        assertEquals(5, Murmur2.bucket(negative, 10));
        final int positive = Murmur2.hash(utf8("354afe16-939a-4ea8-8e17-8bb0840b6886"));
        assertEquals(4, Murmur2.bucket(positive, 10));
        assertEquals(Integer.MAX_VALUE, Murmur2.toPositive(-1));
        assertEquals(0, Murmur2.toPositive(Integer.MIN_VALUE));
    }

    @Test
    void shouldAgreeWithKafkaOnRandomInputs()
    {
        final SplittableRandom random = new SplittableRandom(0x5EED);
        final UnsafeBuffer offHeap = new UnsafeBuffer(ByteBuffer.allocateDirect(300));
        for (int i = 0; i < 100_000; i++)
        {
            final int length = random.nextInt(i < 1000 ? 16 : 257);
            final byte[] key = new byte[length];
            for (int j = 0; j < length; j++)
            {
                key[j] = (byte)random.nextInt(256);
            }
            final int offset = random.nextInt(40);
            offHeap.putBytes(offset, key);
            final int buckets = 1 + random.nextInt(1000);

            final int expected = Utils.murmur2(key);
            assertEquals(expected, Murmur2.hash(key));
            assertEquals(expected, Murmur2.hash(offHeap, offset, length));
            assertEquals(BuiltInPartitioner.partitionForKey(key, buckets), Murmur2.bucket(expected, buckets));
            assertEquals(Utils.toPositive(expected), Murmur2.toPositive(expected));
        }
    }
}
