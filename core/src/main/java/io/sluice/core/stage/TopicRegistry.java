package io.sluice.core.stage;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Interns topic names as dense ids so records carry an int, and stages can keep per-topic caches (resolved
 * destinations) in arrays. Ids are never reused.
 *
 * <p>Thread-safety: {@link #idOf(String)} may be called from any thread (synchronized; off the hot path: once per
 * assignment); {@link #name(int)} from any thread without locking (copy-on-write array behind a volatile field).
 */
public final class TopicRegistry
{
    private final Map<String, Integer> ids = new HashMap<>();
    private volatile String[] names = new String[0];

    /**
     * @param topic a topic name
     * @return its id, assigning the next one on first sight
     */
    public synchronized int idOf(final String topic)
    {
        final Integer id = ids.get(topic);
        if (id != null)
        {
            return id;
        }
        final int next = names.length;
        final String[] grown = Arrays.copyOf(names, next + 1);
        grown[next] = topic;
        ids.put(topic, next);
        names = grown;
        return next;
    }

    /**
     * @param id a topic id
     * @return the topic name
     */
    public String name(final int id)
    {
        return names[id];
    }

    /** @return number of topics seen */
    public int size()
    {
        return names.length;
    }
}
