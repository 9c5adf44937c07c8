package io.sluice.codecs.json;

import java.util.Arrays;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Finds every path of a {@link JsonPathSet} in one pass over a JSON document held in a {@link DirectBuffer}
 * (typically an off-heap record slot), validating what it passes over, and allocating nothing.
 *
 * <h2>What a scan does</h2>
 * <ul>
 *   <li>{@link #scan} reads the document from the start and descends only into objects and arrays that lie on a
 *       compiled path. Every level it descends into, and every value it yields, is validated against RFC 8259
 *       (UTF-8, control characters, escapes and surrogate pairing in strings, number grammar, literals, brackets,
 *       depth). An object or array that lies on no path is skipped by its structure only (bracket counting,
 *       strings 8 bytes per step): its strings must close, its brackets nest and match in kind within the depth limit, and no backslash may
 *       stand outside a string; nothing else inside it is checked, since no value comes out of it (docs/codecs.md,
 *       "Skipped subtrees"). Under {@link DuplicateKeys#FIRST} it stops as soon as every distinct path has been
 *       found: bytes after that point are not looked at.</li>
 *   <li>{@link #validate} does the same without the early stop and without structure skips, and so checks every
 *       byte of the document, including that only whitespace follows the top-level value. With an empty path set
 *       {@link #scan} behaves the same.</li>
 *   <li>Duplicate keys at a compiled path follow the scanner's {@link DuplicateKeys} policy: {@link
 *       DuplicateKeys#FAIL} ends the scan with {@link JsonError#DUPLICATE_KEY} and names the key in
 *       {@link #duplicateKey()}; {@link DuplicateKeys#FIRST} keeps the first occurrence (later ones are validated,
 *       never descended into); {@link DuplicateKeys#LAST} keeps the last. Under {@code FAIL} and {@code LAST} a scan
 *       cannot stop early (a later duplicate may follow), so it reads the whole document like {@link #validate};
 *       under {@code FIRST} it stops as soon as every path is found. Keys that lie on no path are never compared, so
 *       their duplicates are not noticed (as ClickHouse ignores duplicates of fields no column reads).</li>
 *   <li>A top-level value that is not an object or array is validated; every path is then
 *       {@link JsonKind#MISSING}. {@link #rootKind()} tells what the top-level value was (judged from its first
 *       byte, so it costs nothing), for the caller that accepts only objects; {@link #topLevelKind} tells it
 *       without a scan.</li>
 *   <li>{@link #beginElements} and {@link #nextElement} scan the elements of a top-level array one by one, each as
 *       if it were a document of its own (paths are relative to the element), in the same single pass: for a
 *       Kafka value that holds several rows, as ClickHouse's JSONEachRow reads {@code [{...},{...}]}.</li>
 *   <li>On an error, values completely and validly scanned before the error keep their result (they ended before
 *       the error offset); every other path is {@link JsonKind#MISSING}. A value is complete when its last byte is
 *       read: a number or literal additionally needs its following byte to be a delimiter, so {@code 12x} is an
 *       error and never the number {@code 12}.</li>
 *   <li>Nesting: the top-level container has depth 1; a container deeper than {@code maxDepth} is
 *       {@link JsonError#TOO_DEEP}.</li>
 * </ul>
 *
 * <p>Results are per path index of the {@link JsonPathSet}; offsets are absolute indexes into the scanned buffer,
 * whereas {@link #errorOffset()} is relative to the scan's {@code offset}.
 *
 * <p>Reads never leave {@code [offset, offset + length)}, which is checked against the buffer's capacity once per
 * scan; running with {@code -Dagrona.disable.bounds.checks=true} (about a third faster) is therefore safe for the
 * scanner.
 *
 * <p>Not thread-safe: one instance per thread, reused for every record. Every scanner that reads the same records
 * (a route's, a branch condition's, a table's) should get the same {@link DuplicateKeys} policy, so that they all
 * see the same value at a path.
 */
public final class JsonScanner
{
    /** A default nesting limit that real event data never reaches. */
    public static final int DEFAULT_MAX_DEPTH = 128;

    /** What {@link #nextElement()} returns after the last element of the array. */
    public static final int NO_MORE_ELEMENTS = -1;

    private static final int STOP = -2;

    private final JsonPathSet paths;
    private final DuplicateKeys duplicateKeys;
    private final boolean firstWins;
    private final boolean failOnDuplicate;
    private final JsonReader reader;
    private final int slotCount;
    private final int[] kinds;
    private final int[] offsets;
    private final int[] lengths;
    private final boolean[] escapes;
    private final int[] nodeSeenEpoch;
    private final UnsafeBuffer keyScratch;

    private DirectBuffer buffer;
    private int start;
    private int epoch;
    private int found;
    private boolean stopEarly;
    /** Whether values off every path are skipped by structure only ({@link #scan}) or validated ({@link #validate}). */
    private boolean structureSkips;
    private int errorCode;
    private int errorOffset;
    private int rootKind;
    private int duplicateNode = -1;

    // iteration over the elements of a top-level array (beginElements / nextElement)
    private int end;
    private int elementPosition;
    private int elementIndex;
    private boolean elementsDone = true;
    private int elementOffset;
    private int elementLength;

    /**
     * Creates a scanner for a path set where the first occurrence of a duplicate key wins ({@link
     * DuplicateKeys#FIRST}, the behaviour before policies existed). A pipeline should pass its configured policy to
     * {@link #JsonScanner(JsonPathSet, int, DuplicateKeys)} instead.
     *
     * @param paths    the compiled paths; shared, immutable.
     * @param maxDepth the deepest nesting of objects and arrays accepted, {@code >= 1}.
     * @throws IllegalArgumentException if {@code maxDepth < 1}.
     */
    public JsonScanner(final JsonPathSet paths, final int maxDepth)
    {
        this(paths, maxDepth, DuplicateKeys.FIRST);
    }

    /**
     * Creates a scanner for a path set.
     *
     * @param paths         the compiled paths; shared, immutable.
     * @param maxDepth      the deepest nesting of objects and arrays accepted, {@code >= 1}.
     * @param duplicateKeys what a key that occurs twice at a compiled path does; not null.
     * @throws IllegalArgumentException if {@code maxDepth < 1} or {@code duplicateKeys} is null.
     */
    public JsonScanner(final JsonPathSet paths, final int maxDepth, final DuplicateKeys duplicateKeys)
    {
        if (duplicateKeys == null)
        {
            throw new IllegalArgumentException("duplicateKeys must not be null");
        }
        this.paths = paths;
        this.duplicateKeys = duplicateKeys;
        this.firstWins = duplicateKeys == DuplicateKeys.FIRST;
        this.failOnDuplicate = duplicateKeys == DuplicateKeys.FAIL;
        this.reader = new JsonReader(maxDepth);
        this.slotCount = paths.slotCount();
        this.kinds = new int[slotCount];
        this.offsets = new int[slotCount];
        this.lengths = new int[slotCount];
        this.escapes = new boolean[slotCount];
        this.nodeSeenEpoch = new int[paths.nodeCount()];
        // a key whose raw form is longer than 6x the longest name cannot decode to any name (see keyMatches)
        this.keyScratch = new UnsafeBuffer(new byte[Math.max(16, paths.maxNameLength * 6 + 12)]);
    }

    /**
     * The path set this scanner finds.
     *
     * @return the path set.
     */
    public JsonPathSet paths()
    {
        return paths;
    }

    /**
     * The duplicate-key policy of this scanner.
     *
     * @return the policy given at construction.
     */
    public DuplicateKeys duplicateKeys()
    {
        return duplicateKeys;
    }

    /**
     * Scans a document for every path, stopping once all are found (under {@link DuplicateKeys#FIRST}; the other
     * policies read the whole document); objects and arrays on no path are checked for their structure only.
     *
     * @param buffer the document's buffer.
     * @param offset index of the document's first byte.
     * @param length number of bytes of the document.
     * @return {@link JsonError#NONE} or a negative {@link JsonError} code (also in {@link #errorCode()}).
     * @throws IndexOutOfBoundsException if the range lies outside the buffer (a programming error, not bad data).
     */
    public int scan(final DirectBuffer buffer, final int offset, final int length)
    {
        return run(buffer, offset, length, true, firstWins);
    }

    /**
     * Scans a document until every path is found, whatever the duplicate-key policy: as {@link #scan} under
     * {@link DuplicateKeys#FIRST}, but under {@code FAIL} too (a duplicate seen before the last path is found still
     * fails the scan). What follows the last path found is not read, so neither its validity nor a later duplicate is
     * known: the caller must read the whole document with another scan whose paths include these (or with
     * {@link #scan}) before it relies on either. Under {@code LAST} it would yield a first occurrence that a later one
     * overrides, so it must not be used there.
     *
     * @param buffer the document's buffer.
     * @param offset index of the document's first byte.
     * @param length number of bytes of the document.
     * @return {@link JsonError#NONE} or a negative {@link JsonError} code (also in {@link #errorCode()}).
     * @throws IndexOutOfBoundsException if the range lies outside the buffer (a programming error, not bad data).
     * @throws IllegalStateException under {@link DuplicateKeys#LAST}.
     */
    public int find(final DirectBuffer buffer, final int offset, final int length)
    {
        if (duplicateKeys == DuplicateKeys.LAST)
        {
            throw new IllegalStateException("find would yield a first occurrence under duplicate_keys = last");
        }
        return run(buffer, offset, length, true, true);
    }

    /**
     * Validates the whole document (no early stop) and finds every path on the way.
     *
     * @param buffer the document's buffer.
     * @param offset index of the document's first byte.
     * @param length number of bytes of the document.
     * @return {@link JsonError#NONE} if the whole document is valid JSON, else a negative {@link JsonError} code.
     * @throws IndexOutOfBoundsException if the range lies outside the buffer (a programming error, not bad data).
     */
    public int validate(final DirectBuffer buffer, final int offset, final int length)
    {
        return run(buffer, offset, length, false, false);
    }

    private int run(final DirectBuffer buffer, final int offset, final int length, final boolean skips,
        final boolean stopWhenFound)
    {
        // one range check per record: every read below stays inside [offset, offset + length), so the scanner is
        // memory-safe even when Agrona's per-access bounds checks are disabled
        checkRange(buffer, offset, length);
        this.buffer = buffer;
        this.start = offset;
        this.stopEarly = stopWhenFound;
        this.structureSkips = skips;
        this.elementsDone = true;
        clearResults();
        final int end = offset + length;
        this.end = end;
        final JsonReader reader = this.reader;
        reader.reset(buffer, end);

        final int i = reader.skipWhitespace(offset);
        if (i >= end)
        {
            rootKind = JsonKind.MISSING;
            return error(JsonError.EMPTY_DOCUMENT, length);
        }
        final int c = buffer.getByte(i);
        rootKind = JsonKind.ofFirstByte(c);
        final int after;
        if (c == '{' && paths.childCount[0] > 0)
        {
            after = scanObject(i, 0, 0);
        }
        else if (c == '[' && paths.childCount[0] > 0)
        {
            after = scanArray(i, 0, 0);
        }
        else
        {
            after = reader.skipValue(i, 0);
        }

        if (after == STOP)
        {
            return success();
        }
        if (after < 0)
        {
            return error(reader.errorCode, reader.errorIndex - offset);
        }
        final int trailing = reader.skipWhitespace(after);
        if (trailing < end)
        {
            return error(JsonError.TRAILING_DATA, trailing - offset);
        }
        return success();
    }

    private void clearResults()
    {
        found = 0;
        duplicateNode = -1;
        Arrays.fill(kinds, JsonKind.MISSING);
        if (++epoch == 0)
        {
            Arrays.fill(nodeSeenEpoch, 0);
            epoch = 1;
        }
    }

    private static void checkRange(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || (long)offset + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("document [" + offset + ", +" + length + ") outside buffer capacity " +
                buffer.capacity());
        }
    }

    /**
     * The kind of a document's top-level value, judged from its first non-whitespace byte without scanning it: for
     * a caller that must decide before the scan (an array to split, a value that is not an object to refuse).
     *
     * @param buffer the document's buffer.
     * @param offset index of the document's first byte.
     * @param length number of bytes of the document.
     * @return the {@link JsonKind} the first byte starts, or {@link JsonKind#MISSING} if the document is empty or
     *     blank or the byte cannot start a JSON value. Whether the value is valid is the scan's business.
     * @throws IndexOutOfBoundsException if the range lies outside the buffer.
     */
    public static int topLevelKind(final DirectBuffer buffer, final int offset, final int length)
    {
        checkRange(buffer, offset, length);
        final int end = offset + length;
        for (int i = offset; i < end; i++)
        {
            final int c = buffer.getByte(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            {
                return JsonKind.ofFirstByte(c);
            }
        }
        return JsonKind.MISSING;
    }

    /**
     * Starts scanning the elements of a top-level array one at a time: each {@link #nextElement()} then scans one
     * element as if it were a whole document (paths are relative to the element; {@link #rootKind()} is the
     * element's kind) and moves on, so the array is read once. Elements are always read to their end (no early
     * stop). A {@link #scan} or {@link #validate} ends the iteration.
     *
     * @param buffer the document's buffer.
     * @param offset index of the document's first byte.
     * @param length number of bytes of the document.
     * @return {@link JsonError#NONE} if the document starts with {@code [}; {@link JsonError#EMPTY_DOCUMENT} for an
     *     empty or blank one, {@link JsonError#UNEXPECTED_BYTE} (at the first byte) for any other value.
     * @throws IndexOutOfBoundsException if the range lies outside the buffer.
     */
    public int beginElements(final DirectBuffer buffer, final int offset, final int length)
    {
        checkRange(buffer, offset, length);
        this.buffer = buffer;
        this.start = offset;
        this.stopEarly = false;
        this.structureSkips = true;
        this.elementsDone = true;
        clearResults();
        final int end = offset + length;
        this.end = end;
        reader.reset(buffer, end);
        final int i = reader.skipWhitespace(offset);
        if (i >= end)
        {
            rootKind = JsonKind.MISSING;
            return error(JsonError.EMPTY_DOCUMENT, length);
        }
        rootKind = JsonKind.ofFirstByte(buffer.getByte(i));
        if (rootKind != JsonKind.ARRAY)
        {
            return error(JsonError.UNEXPECTED_BYTE, i - offset);
        }
        elementPosition = i + 1;
        elementIndex = 0;
        elementsDone = false;
        return success();
    }

    /**
     * Scans the next element of the array started by {@link #beginElements}; its paths are then read with
     * {@link #kind}, {@link #value} etc., its kind with {@link #rootKind()} and its byte range with
     * {@link #elementOffset()} and {@link #elementLength()} (to hand to other scanners of the same record).
     *
     * @return the element's index ({@code >= 0}); {@link #NO_MORE_ELEMENTS} after the closing bracket (only
     *     whitespace may follow it); or a negative {@link JsonError} code ({@code <= -2}) that ends the iteration.
     *     After an error, {@link #errorOffset()} is relative to the document's start.
     */
    public int nextElement()
    {
        if (elementsDone)
        {
            return NO_MORE_ELEMENTS;
        }
        clearResults();
        final JsonReader reader = this.reader;
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        int i = reader.skipWhitespace(elementPosition);
        if (i >= end)
        {
            return failElements(JsonError.TRUNCATED, end - start);
        }
        int c = buffer.getByte(i);
        if (c == ']')
        {
            return endElements(i + 1);
        }
        if (elementIndex > 0)
        {
            if (c != ',')
            {
                return failElements(JsonError.UNEXPECTED_BYTE, i - start);
            }
            i = reader.skipWhitespace(i + 1);
            if (i >= end)
            {
                return failElements(JsonError.TRUNCATED, end - start);
            }
            c = buffer.getByte(i);
        }
        rootKind = JsonKind.ofFirstByte(c);
        final int after;
        if (c == '{' && paths.childCount[0] > 0)
        {
            after = scanObject(i, 0, 1);
        }
        else if (c == '[' && paths.childCount[0] > 0)
        {
            after = scanArray(i, 0, 1);
        }
        else
        {
            after = reader.skipValue(i, 1);
        }
        if (after < 0)
        {
            return failElements(reader.errorCode, reader.errorIndex - start);
        }
        elementOffset = i;
        elementLength = after - i;
        elementPosition = after;
        success();
        return elementIndex++;
    }

    private int endElements(final int after)
    {
        elementsDone = true;
        final int trailing = reader.skipWhitespace(after);
        if (trailing < end)
        {
            return failElements(JsonError.TRAILING_DATA, trailing - start);
        }
        rootKind = JsonKind.MISSING;
        success();
        return NO_MORE_ELEMENTS;
    }

    private int failElements(final int code, final int relativeOffset)
    {
        elementsDone = true;
        return error(code, relativeOffset);
    }

    /**
     * Absolute index in the buffer of the element the last {@link #nextElement()} scanned.
     *
     * @return the index of its first byte.
     */
    public int elementOffset()
    {
        return elementOffset;
    }

    /**
     * Length in bytes of the element the last {@link #nextElement()} scanned.
     *
     * @return the length, brackets or quotes included.
     */
    public int elementLength()
    {
        return elementLength;
    }

    /**
     * The kind of the top-level value of the last scan, or of the element the last {@link #nextElement()} scanned,
     * judged from its first byte: what the caller needs to refuse anything but an object ("value is a JSON array,
     * not an object", see {@link JsonKind#notAnObject}).
     *
     * @return a {@link JsonKind} constant; {@link JsonKind#MISSING} for an empty or blank document (the scan
     *     returned {@link JsonError#EMPTY_DOCUMENT}) or a first byte that starts no JSON value.
     */
    public int rootKind()
    {
        return rootKind;
    }

    /**
     * The path of the key that occurred twice, after a scan that returned {@link JsonError#DUPLICATE_KEY}: for the
     * error message ("duplicate key id", in {@link JsonPath} syntax for nested keys: {@code user.id}). Allocates;
     * for the error path only.
     *
     * @return the path, or null if the last scan found no duplicate.
     */
    public String duplicateKey()
    {
        return duplicateNode < 0 ? null : paths.nodeExpression(duplicateNode);
    }

    private int success()
    {
        errorCode = JsonError.NONE;
        errorOffset = 0;
        return JsonError.NONE;
    }

    private int error(final int code, final int relativeOffset)
    {
        errorCode = code;
        errorOffset = relativeOffset;
        return code;
    }

    private int scanObject(final int index, final int node, final int depth)
    {
        final JsonReader reader = this.reader;
        final DirectBuffer buffer = this.buffer;
        final int end = reader.end;
        final int d = depth + 1;
        if (d > reader.maxDepth)
        {
            return reader.fail(JsonError.TOO_DEEP, index);
        }
        int i = reader.skipWhitespace(index + 1);
        if (i >= end)
        {
            return reader.fail(JsonError.TRUNCATED, end);
        }
        int c = buffer.getByte(i);
        if (c == '}')
        {
            return i + 1;
        }
        while (true)
        {
            if (c != '"')
            {
                return reader.fail(JsonError.UNEXPECTED_BYTE, i);
            }
            final int keyStart = i + 1;
            final int keyEnd = reader.skipString(keyStart);
            if (keyEnd < 0)
            {
                return JsonReader.FAIL;
            }
            final boolean keyEscaped = reader.lastEscaped;
            i = reader.skipWhitespace(keyEnd);
            if (i >= end)
            {
                return reader.fail(JsonError.TRUNCATED, end);
            }
            if (buffer.getByte(i) != ':')
            {
                return reader.fail(JsonError.UNEXPECTED_BYTE, i);
            }
            i = reader.skipWhitespace(i + 1);
            if (i >= end)
            {
                return reader.fail(JsonError.TRUNCATED, end);
            }
            final int child = findKey(node, keyStart, keyEnd - 1, keyEscaped);
            if (child >= 0 && nodeSeenEpoch[child] == epoch)
            {
                i = duplicate(i, child, d, keyStart - 1);
            }
            else
            {
                i = child < 0 ? skipUnread(i, d) : scanMember(i, child, d);
            }
            if (i < 0)
            {
                return i;
            }
            i = reader.skipWhitespace(i);
            if (i >= end)
            {
                return reader.fail(JsonError.TRUNCATED, end);
            }
            c = buffer.getByte(i);
            if (c == ',')
            {
                i = reader.skipWhitespace(i + 1);
                if (i >= end)
                {
                    return reader.fail(JsonError.TRUNCATED, end);
                }
                c = buffer.getByte(i);
            }
            else if (c == '}')
            {
                return i + 1;
            }
            else
            {
                return reader.fail(JsonError.UNEXPECTED_BYTE, i);
            }
        }
    }

    private int scanArray(final int index, final int node, final int depth)
    {
        final JsonReader reader = this.reader;
        final DirectBuffer buffer = this.buffer;
        final int end = reader.end;
        final int d = depth + 1;
        if (d > reader.maxDepth)
        {
            return reader.fail(JsonError.TOO_DEEP, index);
        }
        int i = reader.skipWhitespace(index + 1);
        if (i >= end)
        {
            return reader.fail(JsonError.TRUNCATED, end);
        }
        if (buffer.getByte(i) == ']')
        {
            return i + 1;
        }
        int element = 0;
        while (true)
        {
            final int child = findIndex(node, element);
            i = child < 0 ? skipUnread(i, d) : scanMember(i, child, d);
            if (i < 0)
            {
                return i;
            }
            i = reader.skipWhitespace(i);
            if (i >= end)
            {
                return reader.fail(JsonError.TRUNCATED, end);
            }
            final int c = buffer.getByte(i);
            if (c == ',')
            {
                i = reader.skipWhitespace(i + 1);
                if (i >= end)
                {
                    return reader.fail(JsonError.TRUNCATED, end);
                }
                element++;
            }
            else if (c == ']')
            {
                return i + 1;
            }
            else
            {
                return reader.fail(JsonError.UNEXPECTED_BYTE, i);
            }
        }
    }

    /**
     * Skips a value that lies on no path: an object or array by its structure only under {@link #scan} (see
     * {@link JsonReader#skipStructure}), anything else, and everything under {@link #validate}, validated in full.
     */
    private int skipUnread(final int index, final int depth)
    {
        if (structureSkips)
        {
            final int c = buffer.getByte(index);
            if (c == '{' || c == '[')
            {
                return reader.skipStructure(index, depth);
            }
        }
        return reader.skipValue(index, depth);
    }

    /** A member whose key matched trie node {@code child} a second time in the same object. */
    private int duplicate(final int index, final int child, final int depth, final int keyQuote)
    {
        if (firstWins)
        {
            return skipUnread(index, depth);
        }
        if (failOnDuplicate)
        {
            duplicateNode = child;
            return reader.fail(JsonError.DUPLICATE_KEY, keyQuote);
        }
        forget(child);
        return scanMember(index, child, depth);
    }

    /** Forgets what an earlier occurrence of a node found: its own value and everything below it. */
    private void forget(final int node)
    {
        final JsonPathSet paths = this.paths;
        forgetSlot(paths.terminalSlot[node]);
        final int last = paths.subtreeStart[node + 1];
        for (int k = paths.subtreeStart[node]; k < last; k++)
        {
            final int n = paths.subtreeNodes[k];
            nodeSeenEpoch[n] = 0;
            forgetSlot(paths.terminalSlot[n]);
        }
    }

    private void forgetSlot(final int slot)
    {
        if (slot >= 0 && kinds[slot] != JsonKind.MISSING)
        {
            kinds[slot] = JsonKind.MISSING;
            found--;
        }
    }

    /** Scans the value at {@code index} of a member that matched trie node {@code child}. */
    private int scanMember(final int index, final int child, final int depth)
    {
        final JsonReader reader = this.reader;
        nodeSeenEpoch[child] = epoch;

        final JsonPathSet paths = this.paths;
        final int c = buffer.getByte(index);
        final int slot = paths.terminalSlot[child];
        final int after;
        if (paths.childCount[child] > 0 && (c == '{' || c == '['))
        {
            // a value that is itself a result is validated in full, also where paths below it are not
            final boolean skips = structureSkips;
            structureSkips = skips && slot < 0;
            after = c == '{' ? scanObject(index, child, depth) : scanArray(index, child, depth);
            structureSkips = skips;
        }
        else
        {
            after = reader.skipValue(index, depth);
        }
        if (after < 0)
        {
            return after;
        }
        if (slot >= 0)
        {
            final int kind = JsonKind.ofFirstByte(c);
            kinds[slot] = kind;
            if (kind == JsonKind.STRING)
            {
                offsets[slot] = index + 1;
                lengths[slot] = after - index - 2;
                escapes[slot] = reader.lastEscaped;
            }
            else
            {
                offsets[slot] = index;
                lengths[slot] = after - index;
                escapes[slot] = false;
            }
            if (++found == slotCount && stopEarly)
            {
                return STOP;
            }
        }
        return after;
    }

    private int findIndex(final int node, final int element)
    {
        final JsonPathSet paths = this.paths;
        final int first = paths.childStart[node];
        final int last = first + paths.childCount[node];
        for (int k = first; k < last; k++)
        {
            if (paths.childArrayIndex[k] == element)
            {
                return paths.childNode[k];
            }
        }
        return -1;
    }

    private int findKey(final int node, final int keyStart, final int keyEnd, final boolean keyEscaped)
    {
        final JsonPathSet paths = this.paths;
        final int first = paths.childStart[node];
        final int last = first + paths.childCount[node];
        if (first == last)
        {
            return -1;
        }
        final DirectBuffer buffer = this.buffer;
        int from = keyStart;
        int length = keyEnd - keyStart;
        DirectBuffer source = buffer;
        if (keyEscaped)
        {
            if (length > keyScratch.capacity())
            {
                return -1;
            }
            length = JsonStrings.unescape(buffer, keyStart, length, keyScratch, 0);
            if (length < 0)
            {
                return -1;
            }
            source = keyScratch;
            from = 0;
        }
        final byte[][] names = paths.childName;
        for (int k = first; k < last; k++)
        {
            final byte[] name = names[k];
            if (name.length == length && equals(source, from, name))
            {
                return paths.childNode[k];
            }
        }
        return -1;
    }

    private static boolean equals(final DirectBuffer source, final int from, final byte[] name)
    {
        for (int j = 0; j < name.length; j++)
        {
            if (source.getByte(from + j) != name[j])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The code of the last scan.
     *
     * @return {@link JsonError#NONE} or a negative {@link JsonError} code.
     */
    public int errorCode()
    {
        return errorCode;
    }

    /**
     * Where the last scan's error was found.
     *
     * @return the byte offset relative to the {@code offset} passed to the scan (the document length for a
     *     truncated document), or 0 when there was no error.
     */
    public int errorOffset()
    {
        return errorOffset;
    }

    /**
     * The kind found for a path in the last scan.
     *
     * @param pathIndex index into the {@link JsonPathSet}.
     * @return a {@link JsonKind} constant, {@link JsonKind#MISSING} if not found.
     */
    public int kind(final int pathIndex)
    {
        return kinds[paths.slot(pathIndex)];
    }

    /**
     * Absolute index in the scanned buffer of a found value (see {@link JsonValueView} for what the range covers).
     *
     * @param pathIndex index into the {@link JsonPathSet}.
     * @return the offset; meaningless if {@link #kind} is {@link JsonKind#MISSING}.
     */
    public int valueOffset(final int pathIndex)
    {
        return offsets[paths.slot(pathIndex)];
    }

    /**
     * Length in bytes of a found value.
     *
     * @param pathIndex index into the {@link JsonPathSet}.
     * @return the length; meaningless if {@link #kind} is {@link JsonKind#MISSING}.
     */
    public int valueLength(final int pathIndex)
    {
        return lengths[paths.slot(pathIndex)];
    }

    /**
     * Whether a found string value contains escapes.
     *
     * @param pathIndex index into the {@link JsonPathSet}.
     * @return true if the string needs {@link JsonStrings#unescape}.
     */
    public boolean escaped(final int pathIndex)
    {
        return escapes[paths.slot(pathIndex)];
    }

    /**
     * Points a view at the value found for a path, or makes it missing.
     *
     * @param pathIndex index into the {@link JsonPathSet}.
     * @param into      the view to fill.
     */
    public void value(final int pathIndex, final JsonValueView into)
    {
        final int slot = paths.slot(pathIndex);
        final int kind = kinds[slot];
        if (kind == JsonKind.MISSING)
        {
            into.setMissing();
        }
        else
        {
            into.set(buffer, kind, offsets[slot], lengths[slot], escapes[slot]);
        }
    }
}
