package io.sluice.engine;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.naming.TopicNameSanitizer;
import io.sluice.core.scatter.internal.TopicRouter;
import io.sluice.ringbuffers.RecordEvent;

/**
 * {@code engine.jar route --config F --source NAME [--envelope]}: a dry run of a source's routing rule. Reads JSON
 * lines on stdin and prints one JSON object per input line, in order:
 * <ul>
 *   <li>{@code {"topic": "<name>"}} for a routed record;</li>
 *   <li>{@code {"topic": "<fallback>", "fallback": true, "reason": "..."}} when the fallback was used;</li>
 *   <li>{@code {"topic": null, "reason": "..."}} when the value is missing and the rule has no fallback (or the
 *       line is blank, the record is larger than {@code engine.max_record_bytes}, or with {@code --envelope} the
 *       line is not an envelope).</li>
 * </ul>
 * With {@code --envelope} each line is {@code {"key": <string|null>, "headers": {"name": "value", ...}, "value":
 * <the record>}} (header values are UTF-8 strings or null); without it each line is the record itself. The rule is
 * evaluated by {@link TopicRouter}, the same class the running engine uses. Never connects to Kafka; exits 0 after
 * the last line, 2 on a bad configuration or an unknown source.
 */
@Command(name = "route", mixinStandardHelpOptions = true, description = {
    "Dry run of a source's routing rule: reads JSON lines on stdin, prints the topic of each.",
    "Never connects to Kafka. Exit 0 after the last line, 2 on a bad configuration."})
public final class RouteCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Option(names = "--source", required = true, paramLabel = "NAME", description = "The [[sources]] whose rule to apply.")
    String source;

    @Option(names = "--envelope", description = "Each line is {\"key\": ..., \"headers\": {...}, \"value\": <record>}.")
    boolean envelope;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException
    {
        // UTF-8 whatever the platform's default: reasons may quote non-ASCII header names
        final PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        final int code = run(config, source, envelope, System.in, out, spec.commandLine().getErr());
        out.flush();
        return code;
    }

    /**
     * Runs the dry run.
     *
     * @param file     the configuration file
     * @param name     the source name
     * @param envelope whether lines are envelopes
     * @param in       JSON lines
     * @param out      where the results go, one line each
     * @param err      where configuration problems go
     * @return 0, or 2 on a bad configuration
     * @throws IOException when reading {@code in} fails
     */
    static int run(final Path file, final String name, final boolean envelope, final InputStream in,
        final PrintWriter out, final PrintWriter err) throws IOException
    {
        final SluiceConfig.Source src;
        final int maxRecordBytes;
        try
        {
            final SluiceConfig c = ConfigChecks.load(file);
            src = c.source(name);
            maxRecordBytes = c.engine().maxRecordBytes();
        }
        catch (final ConfigException e)
        {
            return ConfigChecks.report(file, e, err);
        }
        final DryRun dryRun = new DryRun(new TopicRouter(src.rule(), src.duplicateKeys()), envelope, maxRecordBytes);
        final LineReader lines = new LineReader(in,
            envelope ? DryRun.envelopeLineLimit(maxRecordBytes) : maxRecordBytes);
        final StringBuilder sb = new StringBuilder(256);
        while (lines.next())
        {
            sb.setLength(0);
            if (lines.truncated())
            {
                // as the engine: a record above max_record_bytes is a record error, and the line is not kept
                DryRun.missing(sb, envelope
                    ? "the envelope line of " + lines.lineBytes() + " bytes is too long to hold a record within "
                        + "engine.max_record_bytes (" + maxRecordBytes + ")"
                    : "the record of " + lines.lineBytes() + " bytes exceeds engine.max_record_bytes ("
                        + maxRecordBytes + ")");
            }
            else
            {
                dryRun.route(lines.bytes(), lines.length(), sb);
            }
            out.println(sb);
            out.flush();
        }
        return SluiceEngine.EXIT_OK;
    }

    /** Routes one input line into one output object. Not thread-safe. */
    static final class DryRun
    {
        private final TopicRouter router;
        private final boolean envelope;
        private final int maxRecordBytes;
        private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("key", "headers", "value")),
            512);
        private final JsonCursor cursor = new JsonCursor();
        private final JsonValueView view = new JsonValueView();
        private final JsonValueView element = new JsonValueView();
        private final JsonValueView name = new JsonValueView();
        private final ExpandableArrayBuffer text = new ExpandableArrayBuffer(256);
        private RecordEvent record = newRecord(1 << 16);

        DryRun(final TopicRouter router, final boolean envelope, final int maxRecordBytes)
        {
            this.router = router;
            this.envelope = envelope;
            this.maxRecordBytes = maxRecordBytes;
        }

        /**
         * @param maxRecordBytes {@code engine.max_record_bytes}
         * @return the longest envelope line that may hold a record of that size: JSON escaping takes at most 6
         *         bytes per byte ({@code \u0000}), plus room for the envelope's keys and headers
         */
        static int envelopeLineLimit(final int maxRecordBytes)
        {
            return (int)Math.min(LineReader.MAX_LINE_BYTES, 6L * maxRecordBytes + (1 << 20));
        }

        void route(final byte[] line, final int length, final StringBuilder out)
        {
            if (TopicNameSanitizer.isBlank(new UnsafeBuffer(line, 0, length), 0, length))
            {
                missing(out, "blank line (file and stdin sources skip blank lines)");
                return;
            }
            if (envelope)
            {
                final String problem = fillFromEnvelope(line, length);
                if (problem != null)
                {
                    missing(out, problem);
                    return;
                }
            }
            else
            {
                ensure(length);
                record.beginRecord(null, length, 0, 0, 0L, 0L, 0, 1);
                record.putValue(new UnsafeBuffer(line, 0, length), 0, length);
                record.putKey((byte[])null);
            }
            final int result = router.route(record);
            out.append("{\"topic\": ");
            if (result == TopicRouter.MISSING)
            {
                out.append("null, \"reason\": ");
                JsonText.quote(router.reason(), out);
            }
            else
            {
                JsonText.quote(router.topicName(), out);
                if (result == TopicRouter.FALLBACK)
                {
                    out.append(", \"fallback\": true, \"reason\": ");
                    JsonText.quote(router.reason(), out);
                }
            }
            out.append('}');
        }

        static void missing(final StringBuilder out, final String reason)
        {
            out.append("{\"topic\": null, \"reason\": ");
            JsonText.quote(reason, out);
            out.append('}');
        }

        /** @return null when the record was filled, else why not: the line is not an envelope, or too large */
        private String fillFromEnvelope(final byte[] line, final int length)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(line, 0, length);
            final int rc = scanner.validate(buffer, 0, length);
            if (rc != JsonError.NONE)
            {
                return "not an envelope: " + JsonError.describe(rc) + " at byte " + scanner.errorOffset();
            }
            if (buffer.getByte(firstNonSpace(buffer, length)) != '{')
            {
                return "not an envelope: expected an object {\"key\": ..., \"headers\": {...}, \"value\": ...}";
            }
            int present = 0;
            for (int i = 0; i < 3; i++)
            {
                scanner.value(i, view);
                present += view.kind() == JsonKind.MISSING ? 0 : 1;
            }
            if (present == 0)
            {
                return "not an envelope: the object has none of \"key\", \"headers\", \"value\" (without --envelope "
                    + "each line is the record itself)";
            }
            byte[] key = null;
            scanner.value(0, view);
            if (view.kind() == JsonKind.STRING)
            {
                key = decode(view);
            }
            else if (view.kind() != JsonKind.NULL && view.kind() != JsonKind.MISSING)
            {
                return "not an envelope: key must be a string or null";
            }
            final List<String> headerNames = new ArrayList<>();
            final List<byte[]> headerValues = new ArrayList<>();
            scanner.value(1, view);
            if (view.kind() == JsonKind.OBJECT)
            {
                cursor.wrap(view);
                while (cursor.next(element))
                {
                    cursor.key(name);
                    final byte[] n = decode(name);
                    headerNames.add(new String(n, StandardCharsets.UTF_8));
                    if (element.kind() == JsonKind.STRING)
                    {
                        headerValues.add(decode(element));
                    }
                    else if (element.kind() == JsonKind.NULL)
                    {
                        headerValues.add(null);
                    }
                    else
                    {
                        return "not an envelope: header " + headerNames.get(headerNames.size() - 1)
                            + " must be a string or null";
                    }
                }
                if (cursor.errorCode() != JsonError.NONE)
                {
                    return "not an envelope: headers: " + JsonError.describe(cursor.errorCode());
                }
            }
            else if (view.kind() != JsonKind.NULL && view.kind() != JsonKind.MISSING)
            {
                return "not an envelope: headers must be an object of strings";
            }
            scanner.value(2, view);
            final boolean hasValue = view.kind() != JsonKind.MISSING && view.kind() != JsonKind.NULL;
            final int valueOffset = view.offset();
            final int valueLength = hasValue ? view.length() : 0;
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
            ensure(need);
            record.beginRecord(null, need, 0, 0, 0L, 0L, 0, 1);
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

        private byte[] decode(final JsonValueView string)
        {
            text.checkLimit(string.length());
            final int n = RoutingValues.derive(string, text, 0);
            return Arrays.copyOf(text.byteArray(), Math.max(0, n));
        }

        private static int firstNonSpace(final UnsafeBuffer b, final int length)
        {
            int i = 0;
            while (i < length - 1 && (b.getByte(i) == ' ' || b.getByte(i) == '\t' || b.getByte(i) == '\r'
                || b.getByte(i) == '\n'))
            {
                i++;
            }
            return i;
        }

        private void ensure(final int bytes)
        {
            if (record.slotCapacity() < bytes)
            {
                record = newRecord(Math.max(bytes, record.slotCapacity() * 2));
            }
        }

        private static RecordEvent newRecord(final int capacity)
        {
            return new RecordEvent(new UnsafeBuffer(new byte[capacity]));
        }
    }

    /**
     * Splits a stream into lines of bytes (without the line feed, and without a carriage return before it). Keeps at
     * most {@code limit} bytes of a line, as a file or stdin source keeps at most {@code engine.max_record_bytes}:
     * the bytes beyond it are counted ({@link #lineBytes()}) and the line is {@link #truncated()}.
     */
    static final class LineReader
    {
        /** The longest line an array can hold, whatever the limit asked for. */
        static final int MAX_LINE_BYTES = Integer.MAX_VALUE - 16;

        private final InputStream in;
        private final int limit;
        private byte[] line = new byte[1 << 12];
        private int length;
        private long lineBytes;

        LineReader(final InputStream in, final int limit)
        {
            this.in = new BufferedInputStream(in, 1 << 16);
            this.limit = Math.min(limit, MAX_LINE_BYTES);
        }

        boolean next() throws IOException
        {
            length = 0;
            lineBytes = 0;
            int b = in.read();
            if (b < 0)
            {
                return false;
            }
            while (b >= 0 && b != '\n')
            {
                if (lineBytes < limit)
                {
                    if (length == line.length)
                    {
                        line = Arrays.copyOf(line, (int)Math.min(limit, 2L * line.length));
                    }
                    line[length++] = (byte)b;
                }
                lineBytes++;
                b = in.read();
            }
            if (!truncated() && length > 0 && line[length - 1] == '\r')
            {
                length--;
                lineBytes--;
            }
            return true;
        }

        /** @return whether the line had more than {@code limit} bytes (only the first {@code limit} are kept) */
        boolean truncated()
        {
            return lineBytes > limit;
        }

        /** @return the length of the whole line, kept or not */
        long lineBytes()
        {
            return lineBytes;
        }

        byte[] bytes()
        {
            return line;
        }

        int length()
        {
            return length;
        }
    }

    /** JSON string quoting for the output (RFC 8259: quote, backslash and control characters escaped). */
    static final class JsonText
    {
        private JsonText()
        {
        }

        static void quote(final String s, final StringBuilder out)
        {
            out.append('"');
            for (int i = 0; i < s.length(); i++)
            {
                final char c = s.charAt(i);
                switch (c)
                {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    case '\b' -> out.append("\\b");
                    case '\f' -> out.append("\\f");
                    default -> {
                        if (c < 0x20 || c == 0x2028 || c == 0x2029 || Character.isSurrogate(c)
                            && !(Character.isHighSurrogate(c) && i + 1 < s.length()
                                && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1))))
                        {
                            out.append(String.format("\\u%04x", (int)c));
                        }
                        else
                        {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }
    }
}
