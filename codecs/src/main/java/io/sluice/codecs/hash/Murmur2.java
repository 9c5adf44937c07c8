package io.sluice.codecs.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import org.agrona.DirectBuffer;

/**
 * The 32-bit murmur2 hash exactly as Apache Kafka computes it for record keys, and the bucket (partition) Kafka's
 * default partitioner derives from it.
 *
 * <p>Source of the rule: Apache Kafka {@code clients/src/main/java/org/apache/kafka/common/utils/Utils.java}
 * ({@code murmur2}, {@code toPositive}) and
 * {@code clients/src/main/java/org/apache/kafka/clients/producer/internals/BuiltInPartitioner.java}
 * ({@code partitionForKey}): MurmurHash2 by Austin Appleby with seed {@code 0x9747b28c}, multiplier
 * {@code 0x5bd1e995}, shift 24, four-byte blocks read little endian, a one-to-three-byte tail, and the final
 * avalanche {@code h ^= h >>> 13; h *= m; h ^= h >>> 15}. The bucket is {@code (hash & 0x7fffffff) % buckets}: the
 * sign bit is masked, not removed with {@code abs} or unsigned arithmetic (cases R1 and R2).
 *
 * <p>All methods are static, allocation-free and thread-safe. Hash the UTF-8 bytes of a text key.
 */
public final class Murmur2
{
    /** Kafka's murmur2 seed. */
    public static final int SEED = 0x9747b28c;

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private Murmur2()
    {
    }

    /**
     * Hashes {@code length} bytes of {@code buffer} starting at {@code offset}, reading them in place (no copy).
     *
     * @param buffer the bytes, on or off heap.
     * @param offset index of the first byte.
     * @param length number of bytes, {@code >= 0}.
     * @return the 32-bit murmur2 hash, identical to Kafka's {@code Utils.murmur2} over the same bytes.
     * @throws IndexOutOfBoundsException if the range is outside the buffer (checked once, also when Agrona's
     *                                   per-access bounds checks are disabled).
     */
    public static int hash(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || (long)offset + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("key [" + offset + ", +" + length + ") outside buffer capacity " +
                buffer.capacity());
        }
        int h = SEED ^ length;
        final int blocksEnd = offset + (length & ~3);
        int i = offset;
        while (i < blocksEnd)
        {
            h = mixBlock(h, buffer.getInt(i, ByteOrder.LITTLE_ENDIAN));
            i += 4;
        }

        switch (length & 3)
        {
            case 3 :
                h ^= (buffer.getByte(i + 2) & 0xff) << 16;
                h ^= (buffer.getByte(i + 1) & 0xff) << 8;
                h ^= buffer.getByte(i) & 0xff;
                h *= M;
                break;
            case 2 :
                h ^= (buffer.getByte(i + 1) & 0xff) << 8;
                h ^= buffer.getByte(i) & 0xff;
                h *= M;
                break;
            case 1 :
                h ^= buffer.getByte(i) & 0xff;
                h *= M;
                break;
            default :
                break;
        }

        return avalanche(h);
    }

    /**
     * Hashes a whole byte array.
     *
     * @param data the bytes to hash; not null.
     * @return the 32-bit murmur2 hash, identical to Kafka's {@code Utils.murmur2(data)}.
     */
    public static int hash(final byte[] data)
    {
        final int length = data.length;
        int h = SEED ^ length;
        final int blocksEnd = length & ~3;
        int i = 0;
        while (i < blocksEnd)
        {
            h = mixBlock(h, (int)INT_LE.get(data, i));
            i += 4;
        }

        switch (length & 3)
        {
            case 3 :
                h ^= (data[i + 2] & 0xff) << 16;
                h ^= (data[i + 1] & 0xff) << 8;
                h ^= data[i] & 0xff;
                h *= M;
                break;
            case 2 :
                h ^= (data[i + 1] & 0xff) << 8;
                h ^= data[i] & 0xff;
                h *= M;
                break;
            case 1 :
                h ^= data[i] & 0xff;
                h *= M;
                break;
            default :
                break;
        }

        return avalanche(h);
    }

    /**
     * Clears the sign bit, as Kafka's {@code Utils.toPositive} does ({@code value & 0x7fffffff}). This is not
     * {@code Math.abs}: {@code toPositive(-1)} is {@code 2147483647}.
     *
     * @param value any int.
     * @return a value in {@code [0, Integer.MAX_VALUE]}.
     */
    public static int toPositive(final int value)
    {
        return value & 0x7fffffff;
    }

    /**
     * The bucket Kafka's default partitioner picks for a key with this hash:
     * {@code toPositive(hash) % buckets}, as in {@code BuiltInPartitioner.partitionForKey}.
     *
     * @param hash    a murmur2 hash from {@link #hash(DirectBuffer, int, int)} or {@link #hash(byte[])}.
     * @param buckets number of buckets (partitions), {@code > 0}.
     * @return the bucket in {@code [0, buckets)}.
     * @throws ArithmeticException if {@code buckets} is zero.
     */
    public static int bucket(final int hash, final int buckets)
    {
        return toPositive(hash) % buckets;
    }

    private static int mixBlock(final int h, final int block)
    {
        int k = block * M;
        k ^= k >>> R;
        k *= M;
        return (h * M) ^ k;
    }

    private static int avalanche(final int hash)
    {
        int h = hash;
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }
}
