package io.sluice.core.gather.json;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.codecs.json.DuplicateKeys;
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
    private final DuplicateKeys duplicateKeys;
    private JsonScanner scanner;

    /**
     * A registry whose scanner fails a record that holds a key twice at a registered path
     * ({@code duplicate_keys = "fail"}, the default).
     *
     * @param maxDepth deepest nesting a record may have before it is rejected as malformed
     */
    public PathRegistry(final int maxDepth)
    {
        this(maxDepth, DuplicateKeys.FAIL);
    }

    /**
     * @param maxDepth      deepest nesting a record may have before it is rejected as malformed
     * @param duplicateKeys what a key that occurs twice at a registered path does; every registry of one record (its
     *                      own scope and its branches' scopes) must have the same, so that the branch chosen and the
     *                      row read the same occurrence
     */
    public PathRegistry(final int maxDepth, final DuplicateKeys duplicateKeys)
    {
        this.maxDepth = maxDepth;
        this.duplicateKeys = duplicateKeys;
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
            s = new JsonScanner(JsonPathSet.compile(List.copyOf(paths)), maxDepth, duplicateKeys);
            scanner = s;
        }
        return s;
    }

    /** @return what a key that occurs twice at a registered path does */
    public DuplicateKeys duplicateKeys()
    {
        return duplicateKeys;
    }

    /** @return the deepest nesting accepted */
    public int maxDepth()
    {
        return maxDepth;
    }

    /** @return how many paths are registered */
    public int size()
    {
        return paths.size();
    }

    /** @return the registered paths in index order */
    public List<String> paths()
    {
        return List.copyOf(paths);
    }
}
