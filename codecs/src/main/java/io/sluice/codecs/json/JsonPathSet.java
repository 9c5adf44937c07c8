package io.sluice.codecs.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A set of {@link JsonPath}s compiled once into a trie that {@link JsonScanner} walks in a single pass.
 *
 * <p>Expressions keep the order given to {@link #compile}; duplicates are allowed and every occurrence reports the
 * same value ({@link #indexOf} gives the index of the first occurrence). Two spellings of the same path (there are
 * none today, since the escape syntax is unambiguous) would share one slot.
 *
 * <p>Immutable and thread-safe; share one instance between the scanners of all threads.
 */
public final class JsonPathSet
{
    private final String[] expressions;
    private final JsonPath[] paths;
    private final int[] slotOfIndex;
    private final int slotCount;
    private final Map<String, Integer> firstIndex;

    // trie, node 0 is the root; children of node n are childStart[n] .. childStart[n] + childCount[n] - 1
    final int[] childStart;
    final int[] childCount;
    final int[] terminalSlot;
    final byte[][] childName;
    final int[] childArrayIndex;
    final int[] childNode;
    final int maxNameLength;
    // parent node of each node (-1 for the root) and the segment that leads to it, for error messages
    private final int[] parent;
    private final String[] segment;
    // the descendants of node n (not n itself) are subtreeNodes[subtreeStart[n] .. subtreeStart[n + 1] - 1]
    final int[] subtreeStart;
    final int[] subtreeNodes;

    private JsonPathSet(final List<String> expressionList)
    {
        final int size = expressionList.size();
        expressions = new String[size];
        paths = new JsonPath[size];
        slotOfIndex = new int[size];
        firstIndex = new HashMap<>();

        final List<Builder> nodes = new ArrayList<>();
        nodes.add(new Builder());
        int slots = 0;
        for (int i = 0; i < size; i++)
        {
            final String expression = expressionList.get(i);
            final JsonPath path = JsonPath.parse(expression);
            expressions[i] = expression;
            paths[i] = path;
            firstIndex.putIfAbsent(expression, i);

            int node = 0;
            for (int s = 0; s < path.segmentCount(); s++)
            {
                final String name = path.segment(s);
                Integer child = nodes.get(node).children.get(name);
                if (child == null)
                {
                    child = nodes.size();
                    nodes.add(new Builder());
                    nodes.get(node).children.put(name, child);
                    nodes.get(node).order.add(name);
                    nodes.get(child).arrayIndex = path.arrayIndex(s);
                    nodes.get(child).parent = node;
                    nodes.get(child).segment = name;
                }
                node = child;
            }
            final Builder terminal = nodes.get(node);
            if (terminal.slot < 0)
            {
                terminal.slot = slots++;
            }
            slotOfIndex[i] = terminal.slot;
        }
        slotCount = slots;

        final int nodeCount = nodes.size();
        childStart = new int[nodeCount];
        childCount = new int[nodeCount];
        terminalSlot = new int[nodeCount];
        childName = new byte[nodeCount][];
        childArrayIndex = new int[nodeCount];
        childNode = new int[nodeCount];
        int next = 0;
        int longest = 0;
        for (int n = 0; n < nodeCount; n++)
        {
            final Builder builder = nodes.get(n);
            terminalSlot[n] = builder.slot;
            childStart[n] = next;
            childCount[n] = builder.order.size();
            for (final String name : builder.order)
            {
                final int child = builder.children.get(name);
                childName[next] = name.getBytes(StandardCharsets.UTF_8);
                childArrayIndex[next] = nodes.get(child).arrayIndex;
                childNode[next] = child;
                longest = Math.max(longest, childName[next].length);
                next++;
            }
        }
        maxNameLength = longest;

        parent = new int[nodeCount];
        segment = new String[nodeCount];
        subtreeStart = new int[nodeCount + 1];
        final List<Integer> flat = new ArrayList<>();
        for (int n = 0; n < nodeCount; n++)
        {
            parent[n] = nodes.get(n).parent;
            segment[n] = nodes.get(n).segment;
            subtreeStart[n] = flat.size();
            addDescendants(n, flat);
        }
        subtreeStart[nodeCount] = flat.size();
        subtreeNodes = flat.stream().mapToInt(Integer::intValue).toArray();
    }

    private void addDescendants(final int node, final List<Integer> into)
    {
        final int first = childStart[node];
        for (int k = first; k < first + childCount[node]; k++)
        {
            into.add(childNode[k]);
            addDescendants(childNode[k], into);
        }
    }

    private static final class Builder
    {
        final Map<String, Integer> children = new HashMap<>();
        final List<String> order = new ArrayList<>();
        int arrayIndex = -1;
        int slot = -1;
        int parent = -1;
        String segment;
    }

    /**
     * Parses and compiles path expressions.
     *
     * @param expressions the expressions, in the order their indexes will have; duplicates allowed; not null.
     * @return the compiled set.
     * @throws IllegalArgumentException if an expression is malformed (see {@link JsonPath#parse}).
     */
    public static JsonPathSet compile(final List<String> expressions)
    {
        return new JsonPathSet(expressions);
    }

    /**
     * Number of expressions, duplicates included.
     *
     * @return the size.
     */
    public int size()
    {
        return expressions.length;
    }

    /**
     * The expression at an index.
     *
     * @param index in {@code [0, size())}.
     * @return the expression text.
     */
    public String expression(final int index)
    {
        return expressions[index];
    }

    /**
     * The parsed path at an index.
     *
     * @param index in {@code [0, size())}.
     * @return the path.
     */
    public JsonPath path(final int index)
    {
        return paths[index];
    }

    /**
     * The index of the first occurrence of an expression.
     *
     * @param expression the expression text, compared exactly.
     * @return its index, or -1 if absent.
     */
    public int indexOf(final String expression)
    {
        final Integer index = firstIndex.get(expression);
        return index == null ? -1 : index;
    }

    /** Number of distinct paths; the scanner stops early once it has found this many. */
    int slotCount()
    {
        return slotCount;
    }

    /** The result slot of an expression index. */
    int slot(final int index)
    {
        return slotOfIndex[index];
    }

    int nodeCount()
    {
        return childStart.length;
    }

    /**
     * The path expression that leads to a trie node, in {@link JsonPath} syntax (dots and backslashes in names
     * escaped), for error messages; allocates.
     */
    String nodeExpression(final int node)
    {
        final StringBuilder sb = new StringBuilder();
        for (int n = node; n > 0; n = parent[n])
        {
            final String name = segment[n].replace("\\", "\\\\").replace(".", "\\.");
            sb.insert(0, sb.length() == 0 ? name : name + ".");
        }
        return sb.toString();
    }
}
