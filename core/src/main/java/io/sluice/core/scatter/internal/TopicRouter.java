package io.sluice.core.scatter.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.hash.Murmur2;
import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.config.SluiceConfig.TopicRule;
import io.sluice.core.config.SluiceConfig.TopicRule.Strategy;
import io.sluice.core.naming.RoutingTemplate;
import io.sluice.core.naming.TopicNameSanitizer;
import io.sluice.ringbuffers.RecordEvent;

/**
 * Evaluates one source's routing rule for a record: derives the value (seed 000, "How the value is derived from a
 * JSON field"), renders the template with it, sanitises the result into a topic name, and applies the fallback when
 * the value is missing. This is the only implementation of a rule: the scatter route stage and the {@code route} dry
 * run both call {@link #route(RecordEvent)}.
 *
 * <p>The strategies:
 * <ul>
 *   <li>{@code static}: the literal name; never missing.</li>
 *   <li>{@code field}: the value at the rule's JSON path, found in one pass by {@link JsonScanner}; a string gives
 *       its unescaped text, a number its text as written, {@code true}/{@code false} their names; {@code null}, an
 *       object, an array, an absent path or a record that is not JSON up to the path is missing.</li>
 *   <li>{@code header}: the value of the last header with the rule's name, as UTF-8; absent or null is missing.</li>
 *   <li>{@code key}: the record key as UTF-8; an unkeyed record is missing.</li>
 *   <li>{@code hash}: murmur2 (Kafka's {@code Utils.murmur2}) of the field's derived text, the header's or the
 *       key's bytes, masked to 31 bits, modulo {@code buckets} ({@link Murmur2#bucket}, as Kafka's
 *       {@code BuiltInPartitioner.partitionForKey}); {@code {value}} is the bucket number in decimal.</li>
 * </ul>
 * A blank value (empty or only whitespace) is missing whatever the strategy, and so is a rendered name that
 * sanitising leaves empty, {@code .} or {@code ..} (Kafka refuses those).
 *
 * <p>Results: {@link #ROUTED}, {@link #FALLBACK} (the value was missing and the rule has a fallback) or
 * {@link #MISSING} (no fallback: the record's batch fails). After ROUTED or FALLBACK {@link #topic()} holds the
 * sanitised name as ASCII bytes; after FALLBACK or MISSING {@link #why()} says why the value was missing and
 * {@link #reason()} describes it for logs and the dry run.
 *
 * <p>Zero allocation per record in steady state (scratch buffers grow to the largest value seen, once); only
 * {@link #reason()} and {@link #topicName()} allocate. Not thread-safe: one instance per thread.
 */
public final class TopicRouter
{
    /** {@link #route}: the rule produced a topic from the record's value. */
    public static final int ROUTED = 0;
    /** {@link #route}: the value was missing and the record goes to the rule's fallback topic. */
    public static final int FALLBACK = 1;
    /** {@link #route}: the value was missing and the rule has no fallback: the record's batch fails. */
    public static final int MISSING = 2;

    /** {@link #why()}: nothing was missing. */
    public static final int WHY_NONE = 0;
    /** The record has no value (a tombstone), so there is no JSON field to read. */
    public static final int WHY_NO_VALUE = 1;
    /** The record is not valid JSON before the path could be found. */
    public static final int WHY_NOT_JSON = 2;
    /** The path, header or key is absent. */
    public static final int WHY_ABSENT = 3;
    /** JSON {@code null} at the path, or a header whose value is null. */
    public static final int WHY_NULL = 4;
    /** An object at the path. */
    public static final int WHY_OBJECT = 5;
    /** An array at the path. */
    public static final int WHY_ARRAY = 6;
    /** A string at the path that cannot be decoded (bad escape, lone surrogate). */
    public static final int WHY_BAD_STRING = 7;
    /** The value is empty or only whitespace. */
    public static final int WHY_BLANK = 8;
    /** The rendered name is empty, {@code .} or {@code ..} after sanitising. */
    public static final int WHY_ILLEGAL_NAME = 9;
    /** The key of the rule's path occurs twice in one object ({@code duplicate_keys = "fail"}). */
    public static final int WHY_DUPLICATE_KEY = 10;

    private static final int MAX_DEPTH = 128;

    private final TopicRule rule;
    private final Strategy valueFrom;
    private final RoutingTemplate template;
    private final JsonScanner scanner;
    private final JsonValueView view = new JsonValueView();
    private final UnsafeBuffer headerName;
    private final int headerNameLength;
    private final UnsafeBuffer staticTopic;
    private final int staticTopicLength;
    private final UnsafeBuffer fallbackTopic;
    private final int fallbackLength;
    private final int buckets;
    private final ExpandableArrayBuffer valueScratch = new ExpandableArrayBuffer(256);
    private final ExpandableArrayBuffer rendered = new ExpandableArrayBuffer(512);
    private final UnsafeBuffer topicBuffer = new UnsafeBuffer(new byte[TopicNameSanitizer.MAX_LENGTH]);

    private DirectBuffer topic;
    private int topicLength;
    private int why;
    private int jsonError;
    private int jsonErrorOffset;
    private int renderedLength;
    /** The routing value the template rendered last (for the dry run); its bytes are valid until the next route. */
    private DirectBuffer renderedValue;
    private int renderedValueLength = -1;

    /**
     * @param rule a validated rule from the configuration
     * @throws IllegalArgumentException if the rule's template, path or names do not parse (the configuration
     *                                  loader has reported those already)
     */
    public TopicRouter(final TopicRule rule)
    {
        this(rule, DuplicateKeys.FAIL);
    }

    /**
     * @param rule          a validated rule from the configuration
     * @param duplicateKeys which occurrence of a key that occurs twice at the rule's path routes the record
     *                      ({@code duplicate_keys}); under {@link DuplicateKeys#FAIL} such a record's value is
     *                      missing ({@link #WHY_DUPLICATE_KEY}: the fallback, else the record fails)
     * @throws IllegalArgumentException if the rule's template, path or names do not parse (the configuration
     *                                  loader has reported those already)
     */
    public TopicRouter(final TopicRule rule, final DuplicateKeys duplicateKeys)
    {
        this.rule = rule;
        this.valueFrom = rule.strategy() == Strategy.HASH ? rule.hashOf() : rule.strategy();
        this.buckets = rule.buckets();
        if (rule.strategy() == Strategy.STATIC)
        {
            final String name = TopicNameSanitizer.sanitize(rule.template());
            if (name == null || !name.equals(rule.template()))
            {
                throw new IllegalArgumentException(
                    "static topic \"" + rule.template() + "\" is not a legal topic name");
            }
            final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
            this.staticTopic = new UnsafeBuffer(bytes);
            this.staticTopicLength = bytes.length;
            this.template = null;
        }
        else
        {
            this.staticTopic = null;
            this.staticTopicLength = 0;
            this.template = RoutingTemplate.parse(rule.template());
        }
        this.scanner = valueFrom == Strategy.FIELD
            ? new JsonScanner(JsonPathSet.compile(List.of(rule.path())), MAX_DEPTH, duplicateKeys)
            : null;
        if (valueFrom == Strategy.HEADER)
        {
            final byte[] name = rule.header().getBytes(StandardCharsets.UTF_8);
            this.headerName = new UnsafeBuffer(name);
            this.headerNameLength = name.length;
        }
        else
        {
            this.headerName = null;
            this.headerNameLength = 0;
        }
        if (rule.fallback() != null)
        {
            final String name = TopicNameSanitizer.sanitize(rule.fallback());
            if (name == null || !name.equals(rule.fallback()))
            {
                throw new IllegalArgumentException("fallback \"" + rule.fallback() + "\" is not a legal topic name");
            }
            final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
            this.fallbackTopic = new UnsafeBuffer(bytes);
            this.fallbackLength = bytes.length;
        }
        else
        {
            this.fallbackTopic = null;
            this.fallbackLength = 0;
        }
    }

    /** @return the rule this router evaluates */
    public TopicRule rule()
    {
        return rule;
    }

    /**
     * Routes one record. Reads the record's value, key or headers as the rule says; never modifies the record.
     *
     * @param record a record event (value, key and headers as the source copied them)
     * @return {@link #ROUTED}, {@link #FALLBACK} or {@link #MISSING}
     */
    public int route(final RecordEvent record)
    {
        why = WHY_NONE;
        renderedLength = -1;
        renderedValueLength = -1;
        if (staticTopic != null)
        {
            topic = staticTopic;
            topicLength = staticTopicLength;
            return ROUTED;
        }
        final int w = deriveAndRender(record);
        if (w == WHY_NONE)
        {
            topic = topicBuffer;
            return ROUTED;
        }
        why = w;
        if (fallbackTopic != null)
        {
            topic = fallbackTopic;
            topicLength = fallbackLength;
            return FALLBACK;
        }
        topic = null;
        topicLength = 0;
        return MISSING;
    }

    private int deriveAndRender(final RecordEvent record)
    {
        final DirectBuffer value;
        final int length;
        switch (valueFrom)
        {
            case FIELD -> {
                final int n = field(record);
                if (n < 0)
                {
                    return -n;
                }
                value = valueScratch;
                length = n;
            }
            case HEADER -> {
                final DirectBuffer h = record.lastHeader(headerName, 0, headerNameLength);
                if (h == null)
                {
                    return headerPresent(record) ? WHY_NULL : WHY_ABSENT;
                }
                value = h;
                length = h.capacity();
            }
            case KEY -> {
                if (record.keyLength() < 0)
                {
                    return WHY_ABSENT;
                }
                value = record.key();
                length = record.keyLength();
            }
            default -> throw new IllegalStateException(valueFrom.name());
        }
        if (buckets > 0)
        {
            if (TopicNameSanitizer.isBlank(value, 0, length))
            {
                return WHY_BLANK;
            }
            final int bucket = Murmur2.bucket(Murmur2.hash(value, 0, length), buckets);
            return render(valueScratch, 0, putDecimal(bucket));
        }
        return render(value, 0, length);
    }

    /** @return the derived length ({@code >= 0}), or minus a WHY code */
    private int field(final RecordEvent record)
    {
        final int length = record.valueLength();
        if (length < 0)
        {
            return -WHY_NO_VALUE;
        }
        final JsonScanner s = scanner;
        final int rc = s.scan(record.value(), 0, length);
        if (rc == JsonError.DUPLICATE_KEY)
        {
            // the first occurrence was kept before the scan failed: routing by it would be first, not fail
            jsonErrorOffset = s.errorOffset();
            return -WHY_DUPLICATE_KEY;
        }
        s.value(0, view);
        switch (view.kind())
        {
            case JsonKind.STRING, JsonKind.NUMBER, JsonKind.TRUE, JsonKind.FALSE -> {
                valueScratch.checkLimit(view.length());
                final int n = RoutingValues.derive(view, valueScratch, 0);
                if (n < 0)
                {
                    jsonError = n;
                    return -WHY_BAD_STRING;
                }
                return n;
            }
            case JsonKind.NULL -> {
                return -WHY_NULL;
            }
            case JsonKind.OBJECT -> {
                return -WHY_OBJECT;
            }
            case JsonKind.ARRAY -> {
                return -WHY_ARRAY;
            }
            default -> {
                if (rc != JsonError.NONE)
                {
                    jsonError = rc;
                    jsonErrorOffset = s.errorOffset();
                    return -WHY_NOT_JSON;
                }
                return -WHY_ABSENT;
            }
        }
    }

    private int render(final DirectBuffer value, final int offset, final int length)
    {
        renderedValue = value;
        renderedValueLength = length;
        final RoutingTemplate t = template;
        rendered.checkLimit(t.maxRenderedLength(length));
        final int n = t.render(value, offset, length, rendered, 0);
        if (n == TopicNameSanitizer.MISSING)
        {
            return WHY_BLANK;
        }
        renderedLength = n;
        final int sanitized = TopicNameSanitizer.sanitize(rendered, 0, n, topicBuffer, 0);
        if (sanitized == TopicNameSanitizer.MISSING)
        {
            return WHY_ILLEGAL_NAME;
        }
        topicLength = sanitized;
        return WHY_NONE;
    }

    private int putDecimal(final int value)
    {
        int digits = 1;
        for (int v = value; v >= 10; v /= 10)
        {
            digits++;
        }
        int v = value;
        for (int i = digits - 1; i >= 0; i--)
        {
            valueScratch.putByte(i, (byte)('0' + v % 10));
            v /= 10;
        }
        return digits;
    }

    private boolean headerPresent(final RecordEvent record)
    {
        final int n = record.headerCount();
        for (int i = 0; i < n; i++)
        {
            final DirectBuffer name = record.headerName(i);
            if (name.capacity() == headerNameLength)
            {
                boolean same = true;
                for (int b = 0; b < headerNameLength && same; b++)
                {
                    same = name.getByte(b) == headerName.getByte(b);
                }
                if (same)
                {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the sanitised topic name of the last ROUTED or FALLBACK result, as ASCII bytes from index 0 */
    public DirectBuffer topic()
    {
        return topic;
    }

    /** @return the length of {@link #topic()} in bytes (1 to 249), 0 after MISSING */
    public int topicLength()
    {
        return topicLength;
    }

    /** @return the topic of the last ROUTED or FALLBACK result as a String (allocates), or null after MISSING */
    public String topicName()
    {
        return topic == null ? null : topic.getStringWithoutLengthAscii(0, topicLength);
    }

    /**
     * The name the rule's template rendered for the last record, before sanitising: with {@link #topicName()} it
     * shows what sanitising changed, and it is the name {@link #WHY_ILLEGAL_NAME} refers to. Allocates; for the
     * failure path and the dry run.
     *
     * @return the rendered name (UTF-8 decoded), or null when no name was rendered (a static topic, or the value was
     *         missing before the template)
     */
    public String renderedName()
    {
        return renderedLength < 0 ? null : rendered.getStringWithoutLengthUtf8(0, renderedLength);
    }

    /**
     * The routing value the template rendered for the last record: the field's text (a JSON string decoded, a number
     * or boolean as written), the header's or the key's bytes, or the bucket number of a {@code hash} rule.
     * Allocates; for the failure path and the dry run.
     *
     * @return the value (UTF-8 decoded), or null when no name was rendered
     */
    public String routingValue()
    {
        if (renderedValueLength < 0 || renderedValue == null)
        {
            return null;
        }
        final byte[] b = new byte[renderedValueLength];
        renderedValue.getBytes(0, b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** @return why the last value was missing: a {@code WHY_*} code, {@link #WHY_NONE} after ROUTED */
    public int why()
    {
        return why;
    }

    /**
     * Describes why the last value was missing, naming the rule and what was found, e.g.
     * {@code field user.id: null at the path}. Allocates; for the failure path, logs and the dry run.
     *
     * @return the description, or null after ROUTED
     */
    public String reason()
    {
        if (why == WHY_NONE)
        {
            return null;
        }
        return rule.describe() + ": " + whyText();
    }

    private String whyText()
    {
        final String at = valueFrom == Strategy.FIELD
            ? " at the path"
            : valueFrom == Strategy.HEADER ? " in header " + rule.header() : " as the key";
        return switch (why)
        {
            case WHY_NO_VALUE -> "the record has no value (a tombstone), so there is no field to read";
            case WHY_NOT_JSON -> "no value at the path: the record is not valid JSON (" + JsonError.describe(jsonError)
                + " at byte " + jsonErrorOffset + ")";
            case WHY_ABSENT -> valueFrom == Strategy.FIELD
                ? "no value at the path"
                : valueFrom == Strategy.HEADER ? "the record has no header " + rule.header() : "the record has no key";
            case WHY_NULL -> valueFrom == Strategy.FIELD ? "null at the path" : "header " + rule.header() + " is null";
            case WHY_OBJECT -> "an object at the path (only a string, number or boolean routes)";
            case WHY_ARRAY -> "an array at the path (only a string, number or boolean routes)";
            case WHY_BAD_STRING -> "the string at the path cannot be decoded (" + JsonError.describe(jsonError) + ")";
            case WHY_BLANK -> "blank value" + at;
            case WHY_DUPLICATE_KEY -> "the key of the path occurs twice in one object (the second at byte "
                + jsonErrorOffset + "; duplicate_keys = \"fail\", \"first\" or \"last\" would take one of them)";
            case WHY_ILLEGAL_NAME -> "the name '" + rendered.getStringWithoutLengthUtf8(0, Math.max(0, renderedLength))
                + "' is not a topic name after sanitising (empty, '.' or '..')";
            default -> "unknown reason " + why;
        };
    }
}
