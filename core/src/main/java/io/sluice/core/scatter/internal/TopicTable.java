package io.sluice.core.scatter.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.agrona.DirectBuffer;

import io.sluice.codecs.hash.Murmur2;

/**
 * The routed topics of one scatter pipeline: a small open-addressing map from a sanitised topic name, given as bytes
 * in a buffer, to a dense id and its {@link TopicEntry}. A lookup of a known name hashes and compares bytes and
 * allocates nothing; only a name seen for the first time creates its String and entry.
 *
 * <p>Layout: {@code slots} holds {@code id + 1} (0 = empty) at {@code hash & mask}, probed linearly; the table
 * doubles when it is half full. Hash: murmur2 of the name bytes (any good spread will do).
 *
 * <p>Thread-safety: {@link #intern} is called by one thread (the route stage). {@link #entry(int)} may be called
 * by any thread for an id it learnt through a happens-before edge (a ring sequence, a queue): the entries array is
 * published through a volatile field and only grows.
 */
public final class TopicTable
{
    private int[] slots = new int[64];
    private int mask = 63;
    private volatile TopicEntry[] entries = new TopicEntry[32];
    private int size;

    /**
     * Finds the id of a topic name, adding it when new (route stage only).
     *
     * @param name   buffer holding the name as ASCII (sanitised) bytes
     * @param length its length in bytes, 1 to 249
     * @return the id, {@code >= 0}
     */
    public int intern(final DirectBuffer name, final int length)
    {
        final int hash = Murmur2.hash(name, 0, length);
        final TopicEntry[] all = entries;
        int index = hash & mask;
        while (true)
        {
            final int slot = slots[index];
            if (slot == 0)
            {
                return add(name, length, hash, index);
            }
            final TopicEntry e = all[slot - 1];
            if (e.hash() == hash && sameBytes(e.bytes(), name, length))
            {
                return slot - 1;
            }
            index = (index + 1) & mask;
        }
    }

    /**
     * Finds the id of a topic name given as a String, adding it when new (route stage, or before the stages start).
     *
     * @param name a legal topic name
     * @return the id
     */
    public int intern(final String name)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        return intern(new org.agrona.concurrent.UnsafeBuffer(bytes), bytes.length);
    }

    /**
     * @param id an id returned by {@link #intern}
     * @return its entry (any thread)
     */
    public TopicEntry entry(final int id)
    {
        return entries[id];
    }

    /** @return the number of distinct names (route stage exact; elsewhere approximate) */
    public int size()
    {
        return size;
    }

    private int add(final DirectBuffer name, final int length, final int hash, final int index)
    {
        final byte[] bytes = new byte[length];
        name.getBytes(0, bytes);
        final int id = size;
        TopicEntry[] all = entries;
        if (id == all.length)
        {
            all = Arrays.copyOf(all, all.length * 2);
        }
        all[id] = new TopicEntry(id, new String(bytes, StandardCharsets.US_ASCII), bytes, hash);
        entries = all;
        slots[index] = id + 1;
        size = id + 1;
        if (size * 2 > slots.length)
        {
            rehash(slots.length * 2);
        }
        return id;
    }

    private void rehash(final int capacity)
    {
        final int[] next = new int[capacity];
        final int nextMask = capacity - 1;
        final TopicEntry[] all = entries;
        for (int id = 0; id < size; id++)
        {
            int index = all[id].hash() & nextMask;
            while (next[index] != 0)
            {
                index = (index + 1) & nextMask;
            }
            next[index] = id + 1;
        }
        slots = next;
        mask = nextMask;
    }

    private static boolean sameBytes(final byte[] bytes, final DirectBuffer name, final int length)
    {
        if (bytes.length != length)
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            if (bytes[i] != name.getByte(i))
            {
                return false;
            }
        }
        return true;
    }
}
