package io.sluice.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.naming.TopicNameSanitizer;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The input lines of the dry-run commands ({@code route}, {@code explain}), read into a {@link RecordEvent} as a
 * source puts a record into its ring. Without {@code --envelope} a line is the record's value, byte for byte. With it,
 * a line is one JSON object, its members all optional:
 *
 * <pre>{@code {"key": "k", "headers": {"name": "v"}, "timestamp": 1700000000000, "partition": 0, "offset": 42,
 *  "value": <the record, any JSON value>}}</pre>
 *
 * <ul>
 *   <li>{@code key}: a string (its UTF-8 text is the key's bytes) or null (no key);</li>
 *   <li>{@code headers}: an object whose members are header names, each a string or null (a header without a
 *       value), in order, names may repeat (Kafka's headers may); or null;</li>
 *   <li>{@code timestamp}: milliseconds since the epoch, an integer of 0 or more, a create time (default: now, as a
 *       producer stamps a record it sends without one);</li>
 *   <li>{@code partition} (default 0) and {@code offset} (default 0): integers of 0 or more;</li>
 *   <li>{@code value}: the record as JSON, written as it is in the line: an object is the usual record, and any other
 *       value is what the engine would receive (a string value {@code "abc"} is the five bytes {@code "abc"} with its
 *       quotes, not decoded); missing or null is a tombstone (no value).</li>
 * </ul>
 * The line must be valid JSON as a whole (no data after the object; the engine's own validation, so the errors and
 * byte offsets are those of {@link JsonError}); a member named twice, an unknown member (a typo such as
 * {@code "valeu"} would otherwise read as a tombstone) or a member of the wrong type is refused, naming it, and so is
 * an object with none of the members ({@code {}} or a record given without its envelope). A line
 * that is blank by {@link TopicNameSanitizer#isBlank} is {@link #BLANK} (file and stdin sources skip those lines).
 *
 * <p>Not thread-safe: one per command.
 */
final class DryRunInput
{
    /** Why a blank line holds no record. */
    static final String BLANK = "blank line (file and stdin sources skip blank lines)";
    /** How every reason starts that says a line is not an envelope. */
    static final String NOT_AN_ENVELOPE = "not an envelope: ";

    private static final List<String> MEMBERS = List.of("key", "headers", "timestamp", "partition", "offset",
        "value");
    private static final int KEY = 0;
    private static final int HEADERS = 1;
    private static final int TIMESTAMP = 2;
    private static final int PARTITION = 3;
    private static final int OFFSET = 4;
    private static final int VALUE = 5;
    private static final String SHAPE = "{\"key\": ..., \"headers\": {...}, \"timestamp\": ms, \"partition\": n, "
        + "\"offset\": n, \"value\": ...}";

    private final boolean envelope;
    private final int maxRecordBytes;
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(MEMBERS), JsonCursor.DEFAULT_MAX_DEPTH,
        DuplicateKeys.FAIL);
    private final JsonCursor cursor = new JsonCursor();
    private final JsonValueView view = new JsonValueView();
    private final JsonValueView element = new JsonValueView();
    private final JsonValueView name = new JsonValueView();
    private final ExpandableArrayBuffer text = new ExpandableArrayBuffer(256);
    private final List<String> headerNames = new ArrayList<>();
    private final List<byte[]> headerValues = new ArrayList<>();
    private RecordEvent record = new RecordEvent(new UnsafeBuffer(new byte[1 << 16]));

    /**
     * @param envelope       whether lines are envelopes
     * @param maxRecordBytes {@code engine.max_record_bytes}: the largest record a source takes into its ring
     */
    DryRunInput(final boolean envelope, final int maxRecordBytes)
    {
        this.envelope = envelope;
        this.maxRecordBytes = maxRecordBytes;
    }

    /**
     * @return the longest line worth keeping: {@code engine.max_record_bytes} for a record, and for an envelope 6
     *         bytes per record byte (JSON's longest escape, {@code \u0000}) plus 1 MiB for its key and headers
     */
    int lineLimit()
    {
        return envelope
            ? (int)Math.min(RouteCommand.LineReader.MAX_LINE_BYTES, 6L * maxRecordBytes + (1 << 20))
            : maxRecordBytes;
    }

    /**
     * @param lineBytes the length of a line longer than {@link #lineLimit()}
     * @return why it holds no record (as the engine: a record above {@code max_record_bytes} is a record error)
     */
    String tooLong(final long lineBytes)
    {
        return envelope
            ? "the envelope line of " + lineBytes + " bytes is too long to hold a record within "
                + "engine.max_record_bytes (" + maxRecordBytes + ")"
            : "the record of " + lineBytes + " bytes exceeds engine.max_record_bytes (" + maxRecordBytes + ")";
    }

    /** @return the record the last successful {@link #fill} wrote; valid until the next call */
    RecordEvent record()
    {
        return record;
    }

    /**
     * Reads one line into {@link #record()}.
     *
     * @param line   the line's bytes, without its line break
     * @param length how many of them
     * @return null when the record was filled; {@link #BLANK}; or why the line holds no record (not an envelope,
     *         naming the member and what it must be, or the record is over {@code engine.max_record_bytes})
     */
    String fill(final byte[] line, final int length)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(line, 0, length);
        if (TopicNameSanitizer.isBlank(buffer, 0, length))
        {
            return BLANK;
        }
        if (!envelope)
        {
            if (length > maxRecordBytes)
            {
                return tooLong(length);
            }
            begin(length, 0, 0, System.currentTimeMillis());
            record.putValue(buffer, 0, length);
            record.putKey((byte[])null);
            return null;
        }
        final int rc = scanner.validate(buffer, 0, length);
        if (rc == JsonError.DUPLICATE_KEY)
        {
            return NOT_AN_ENVELOPE + "member \"" + scanner.duplicateKey() + "\" appears twice";
        }
        if (rc != JsonError.NONE)
        {
            return NOT_AN_ENVELOPE + JsonError.describe(rc) + " at byte " + scanner.errorOffset();
        }
        if (scanner.rootKind() != JsonKind.OBJECT)
        {
            return NOT_AN_ENVELOPE + "expected an object " + SHAPE;
        }
        final String members = checkMembers(buffer, length);
        if (members != null)
        {
            return members;
        }
        return fillFromMembers(buffer);
    }

    /** @return null when every member of the top-level object is one of {@link #MEMBERS}, else why not */
    private String checkMembers(final UnsafeBuffer buffer, final int length)
    {
        int present = 0;
        for (int i = 0; i < MEMBERS.size(); i++)
        {
            scanner.value(i, view);
            present += view.isMissing() ? 0 : 1;
        }
        int start = 0;
        while (buffer.getByte(start) != '{')
        {
            start++;
        }
        int end = length - 1;
        while (buffer.getByte(end) != '}')
        {
            end--;
        }
        view.set(buffer, JsonKind.OBJECT, start, end - start + 1, false);
        cursor.wrap(view);
        String unknown = null;
        while (unknown == null && cursor.next(element))
        {
            cursor.key(name);
            final String member = decode(name);
            if (!MEMBERS.contains(member))
            {
                unknown = quoted(member);
            }
        }
        if (present == 0)
        {
            return NOT_AN_ENVELOPE + "the object has none of the members of " + SHAPE
                + (unknown == null ? "" : " (its first member: " + unknown + ")")
                + "; without --envelope each line is the record itself";
        }
        if (unknown != null)
        {
            return NOT_AN_ENVELOPE + "unknown member " + unknown + " (an envelope's members: "
                + String.join(", ", MEMBERS) + ")";
        }
        return null;
    }

    private String fillFromMembers(final UnsafeBuffer buffer)
    {
        byte[] key = null;
        scanner.value(KEY, view);
        if (view.kind() == JsonKind.STRING)
        {
            key = decodeBytes(view);
        }
        else if (!view.isMissing() && view.kind() != JsonKind.NULL)
        {
            return NOT_AN_ENVELOPE + "\"key\" must be a string or null, not " + kindName(view.kind());
        }
        headerNames.clear();
        headerValues.clear();
        scanner.value(HEADERS, view);
        if (view.kind() == JsonKind.OBJECT)
        {
            cursor.wrap(view);
            while (cursor.next(element))
            {
                cursor.key(name);
                final String header = decode(name);
                if (element.kind() == JsonKind.STRING)
                {
                    headerValues.add(decodeBytes(element));
                }
                else if (element.kind() == JsonKind.NULL)
                {
                    headerValues.add(null);
                }
                else
                {
                    return NOT_AN_ENVELOPE + "header " + quoted(header) + " must be a string or null, not "
                        + kindName(element.kind());
                }
                headerNames.add(header);
            }
        }
        else if (!view.isMissing() && view.kind() != JsonKind.NULL)
        {
            return NOT_AN_ENVELOPE + "\"headers\" must be an object of strings or null, not " + kindName(view.kind());
        }
        final long timestamp = count(TIMESTAMP, Long.MAX_VALUE, System.currentTimeMillis());
        final long partition = count(PARTITION, Integer.MAX_VALUE, 0);
        final long offset = count(OFFSET, Long.MAX_VALUE, 0);
        if (timestamp < 0 || partition < 0 || offset < 0)
        {
            final int bad = timestamp < 0 ? TIMESTAMP : partition < 0 ? PARTITION : OFFSET;
            return NOT_AN_ENVELOPE + "\"" + MEMBERS.get(bad) + "\" must be an integer from 0 to "
                + (bad == PARTITION ? Integer.MAX_VALUE : Long.MAX_VALUE)
                + (bad == TIMESTAMP ? " (milliseconds since the epoch)" : "") + ", not " + shown(bad);
        }
        scanner.value(VALUE, view);
        final boolean hasValue = !view.isMissing() && view.kind() != JsonKind.NULL;
        // a string's view lies between its quotes: the record is the value as written, quotes included
        final int valueOffset = view.kind() == JsonKind.STRING ? view.offset() - 1 : view.offset();
        final int valueLength = !hasValue ? 0 : view.kind() == JsonKind.STRING ? view.length() + 2 : view.length();
        int headerBytes = 0;
        for (int i = 0; i < headerNames.size(); i++)
        {
            headerBytes += RecordEvent.headerBytesBound(headerNames.get(i).length(),
                headerValues.get(i) == null ? -1 : headerValues.get(i).length);
        }
        final int need = RecordEvent.requiredBytes(key == null ? -1 : key.length, valueLength, headerBytes);
        if (need > maxRecordBytes)
        {
            // the check a kafka source makes before it takes a record into its ring
            return "the record of " + need + " bytes exceeds engine.max_record_bytes (" + maxRecordBytes + ")";
        }
        begin(need, (int)partition, offset, timestamp);
        if (hasValue)
        {
            record.putValue(buffer, valueOffset, valueLength);
        }
        else
        {
            record.putValue((byte[])null);
        }
        record.putKey(key);
        for (int i = 0; i < headerNames.size(); i++)
        {
            record.putHeader(headerNames.get(i), headerValues.get(i));
        }
        return null;
    }

    private void begin(final int need, final int partition, final long offset, final long timestamp)
    {
        if (record.slotCapacity() < need)
        {
            record = new RecordEvent(new UnsafeBuffer(new byte[Math.max(need, 2 * record.slotCapacity())]));
        }
        record.beginRecord(null, need, 0, partition, offset, timestamp, 0, 1);
        record.timestampType(RecordEvent.CREATE_TIME);
    }

    /**
     * @return the member's integer value; {@code otherwise} when it is missing; -1 when it is not an integer of
     *         decimal digits from 0 to {@code max} (JSON numbers with a sign, fraction or exponent included)
     */
    private long count(final int member, final long max, final long otherwise)
    {
        scanner.value(member, view);
        if (view.isMissing())
        {
            return otherwise;
        }
        if (view.kind() != JsonKind.NUMBER || view.length() > 19)
        {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < view.length(); i++)
        {
            final int d = view.buffer().getByte(view.offset() + i) - '0';
            if (d < 0 || d > 9 || n > (max - d) / 10)
            {
                return -1;
            }
            n = n * 10 + d;
        }
        return n;
    }

    /** @return the member's JSON text as written, its first 32 bytes */
    private String shown(final int member)
    {
        scanner.value(member, view);
        final int from = view.kind() == JsonKind.STRING ? view.offset() - 1 : view.offset();
        final int n = view.kind() == JsonKind.STRING ? view.length() + 2 : view.length();
        int cut = Math.min(n, 32);
        while (cut < n && cut > 0 && (view.buffer().getByte(from + cut) & 0xC0) == 0x80)
        {
            cut--; // not inside a UTF-8 sequence
        }
        final String t = view.buffer().getStringWithoutLengthUtf8(from, cut);
        return cut < n ? t + "..." : t;
    }

    /** @return the decoded text of a string view, or null when it cannot be decoded */
    private String decode(final JsonValueView string)
    {
        final byte[] b = decodeBytes(string);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private byte[] decodeBytes(final JsonValueView string)
    {
        text.checkLimit(string.length());
        final int n = RoutingValues.derive(string, text, 0);
        return n < 0 ? null : Arrays.copyOf(text.byteArray(), n);
    }

    /** @return the text as a JSON string literal, so a name holding quotes reads unambiguously */
    private static String quoted(final String s)
    {
        final StringBuilder b = new StringBuilder(s.length() + 2);
        RouteCommand.JsonText.quote(s, b);
        return b.toString();
    }

    private static String kindName(final int kind)
    {
        return switch (kind)
        {
            case JsonKind.STRING -> "a string";
            case JsonKind.NUMBER -> "a number";
            case JsonKind.OBJECT -> "an object";
            case JsonKind.ARRAY -> "an array";
            case JsonKind.TRUE, JsonKind.FALSE -> "a boolean";
            case JsonKind.NULL -> "null";
            default -> "missing";
        };
    }
}
