package io.sluice.engine;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.naming.ReservedTopics;
import io.sluice.core.scatter.internal.TopicRouter;

/**
 * {@code engine.jar route --config F --source NAME [--envelope]}: a dry run of a source's routing rule. Reads JSON
 * lines on stdin and prints one JSON object per input line, in order:
 * <ul>
 *   <li>{@code {"topic": "<name>"}} for a routed record;</li>
 *   <li>{@code {"topic": "<fallback>", "fallback": true, "reason": "..."}} when the fallback was used;</li>
 *   <li>{@code {"topic": null, "reason": "..."}} when the value is missing and the rule has no fallback (or the
 *       line is blank, the record is larger than {@code engine.max_record_bytes}, or with {@code --envelope} the
 *       line is not an envelope);</li>
 *   <li>{@code {"topic": "<fallback>", "fallback": true, "refused": "<name>", "reason": "..."}}, or without a
 *       fallback {@code {"topic": null, "refused": "<name>", "reason": "..."}}, when the rule gives a name Kafka
 *       reserves ({@link ReservedTopics}: {@code __consumer_offsets}, {@code __cluster_metadata}, ...), which the
 *       engine refuses before any create or produce as this says (the names only the broker's listing reports as
 *       internal, and topics the broker refuses, need the broker: the dry run does not connect).</li>
 * </ul>
 * When sanitising changed the name the template rendered, or the name is refused (reserved, or nothing legal is left
 * of it), three members follow the ones above: {@code "routing_value"} (the value the rule read),
 * {@code "rendered"} (the template's result) and {@code "sanitised"} (the name sanitising made of it; null when
 * nothing legal is left), e.g. {@code {"topic": "users.acme_corp", "routing_value": "acme corp", "rendered":
 * "users.acme corp", "sanitised": "users.acme_corp"}}.
 * With {@code --envelope} each line is an envelope, {@code {"key": <string|null>, "headers": {"name": "value", ...},
 * "value": <the record>}} (and optionally {@code timestamp}, {@code partition}, {@code offset}; read and checked as
 * {@link DryRunInput} says, the same reader {@code explain} uses); without it each line is the record itself. The
 * rule is
 * evaluated by {@link TopicRouter}, the same class the running engine uses. Never connects to Kafka; exits 0 after
 * the last line, 2 on a bad configuration or an unknown source.
 */
@Command(name = "route", mixinStandardHelpOptions = true, description = {
    "Dry run of a source's routing rule: reads JSON lines on stdin, prints the topic of each.",
    "Never connects to Kafka. A line that holds no record is answered on its own output line.",
    "Exit 0 after the last line, 2 on a bad configuration or arguments."})
public final class RouteCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Option(names = "--source", required = true, paramLabel = "NAME", description = "The [[sources]] whose rule to apply.")
    String source;

    @Option(names = "--envelope", description = "Each line is {\"key\": ..., \"headers\": {...}, \"timestamp\": ms, \"partition\": n, \"offset\": n, \"value\": <record>}, every member optional but one at least, no other member allowed.")
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
        final LineReader lines = new LineReader(in, dryRun.lineLimit());
        final StringBuilder sb = new StringBuilder(256);
        while (lines.next())
        {
            sb.setLength(0);
            if (lines.truncated())
            {
                // as the engine: a record above max_record_bytes is a record error, and the line is not kept
                dryRun.tooLong(lines.lineBytes(), sb);
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
        private final DryRunInput input;

        DryRun(final TopicRouter router, final boolean envelope, final int maxRecordBytes)
        {
            this.router = router;
            this.input = new DryRunInput(envelope, maxRecordBytes);
        }

        /** @return the longest line worth reading whole ({@link DryRunInput#lineLimit()}) */
        int lineLimit()
        {
            return input.lineLimit();
        }

        /** Writes why a line longer than {@link #lineLimit()} is routed nowhere. */
        void tooLong(final long lineBytes, final StringBuilder out)
        {
            missing(out, input.tooLong(lineBytes));
        }

        void route(final byte[] line, final int length, final StringBuilder out)
        {
            final String problem = input.fill(line, length);
            if (problem != null)
            {
                missing(out, problem);
                return;
            }
            final int result = router.route(input.record());
            out.append("{\"topic\": ");
            final String reserved = result == TopicRouter.ROUTED ? ReservedTopics.refusal(router.topicName()) : null;
            if (reserved != null)
            {
                // as the engine: a reserved name is refused for good, so the record takes the fallback or stops
                final String fallback = router.rule().fallback();
                if (fallback != null)
                {
                    JsonText.quote(fallback, out);
                    out.append(", \"fallback\": true");
                }
                else
                {
                    out.append("null");
                }
                out.append(", \"refused\": ");
                JsonText.quote(router.topicName(), out);
                out.append(", \"reason\": ");
                JsonText.quote(fallback != null ? reserved : reserved + "; the rule has no fallback", out);
            }
            else if (result == TopicRouter.MISSING)
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
            sanitising(result, reserved != null, out);
            out.append('}');
        }

        /**
         * Adds what sanitising did when it changed the rendered name or the name is refused (reserved, or nothing
         * legal left): {@code "routing_value"} (what the rule read), {@code "rendered"} (the template's result) and
         * {@code "sanitised"} (the name sanitising made of it, null when none), after the fields above.
         */
        private void sanitising(final int result, final boolean reserved, final StringBuilder out)
        {
            final String rendered = router.renderedName();
            if (rendered == null)
            {
                return;
            }
            final boolean illegal = result != TopicRouter.ROUTED && router.why() == TopicRouter.WHY_ILLEGAL_NAME;
            final String sanitised = result == TopicRouter.ROUTED ? router.topicName() : null;
            if (!reserved && !illegal && (result != TopicRouter.ROUTED || rendered.equals(sanitised)))
            {
                return;
            }
            out.append(", \"routing_value\": ");
            JsonText.quote(router.routingValue(), out);
            out.append(", \"rendered\": ");
            JsonText.quote(rendered, out);
            out.append(", \"sanitised\": ");
            if (sanitised == null)
            {
                out.append("null");
            }
            else
            {
                JsonText.quote(sanitised, out);
            }
        }

        static void missing(final StringBuilder out, final String reason)
        {
            out.append("{\"topic\": null, \"reason\": ");
            JsonText.quote(reason, out);
            out.append('}');
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
