package io.sluice.core.gather.json;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.codecs.json.JsonPath;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;

/**
 * The JSON paths one route stage extracts, each with a stable index. Conditions and bound columns register their
 * paths here; when a new destination brings a new path, the scanner is rebuilt once (off the hot path) and every
 * earlier index stays valid. Not thread-safe: owned by the route stage thread.
 */
public final class PathRegistry
{
    private final List<String> paths = new ArrayList<>();
    private final Map<String, Integer> index = new HashMap<>();
    private final int maxDepth;
    private JsonScanner scanner;

    /** @param maxDepth deepest nesting a record may have before it is rejected as malformed */
    public PathRegistry(final int maxDepth)
    {
        this.maxDepth = maxDepth;
    }

    /**
     * @param path a path expression ({@code user.id}, {@code items.0.sku}, {@code a\.b} for a key with a dot)
     * @return its index, registering it on first sight
     * @throws IllegalArgumentException when the expression is not a valid path
     */
    public int indexOf(final String path)
    {
        final Integer i = index.get(path);
        if (i != null)
        {
            return i;
        }
        JsonPath.parse(path);
        final int next = paths.size();
        paths.add(path);
        index.put(path, next);
        scanner = null;
        return next;
    }

    /** @return a scanner over every registered path (rebuilt after a registration, else the same instance) */
    public JsonScanner scanner()
    {
        JsonScanner s = scanner;
        if (s == null)
        {
            s = new JsonScanner(JsonPathSet.compile(List.copyOf(paths)), maxDepth);
            scanner = s;
        }
        return s;
    }

    /** @return the deepest nesting accepted */
    public int maxDepth()
    {
        return maxDepth;
    }

    /** @return the registered paths in index order */
    public List<String> paths()
    {
        return List.copyOf(paths);
    }
}
