package io.sluice.core.naming;

import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sink's destination template ({@code target_table}, {@code database}): literal text plus placeholders resolved
 * from the topic a batch arrived on.
 *
 * <table>
 *   <caption>Placeholders</caption>
 *   <tr><th>Placeholder</th><th>Resolves to</th></tr>
 *   <tr><td>{@code {topic}}</td><td>The whole topic name</td></tr>
 *   <tr><td>{@code {topic_segment[n]}}</td><td>Segment {@code n} of the name split on {@code .}, counting from
 *       zero</td></tr>
 *   <tr><td>{@code {topic_segment[-n]}}</td><td>Segment {@code n} counting from the end: {@code -1} is the
 *       last</td></tr>
 * </table>
 *
 * <p>Only {@code .} separates segments: {@code orders-eu} is one segment, so {@code {topic_segment[-1]}} of it is
 * {@code orders-eu}. An index is a whole number written without sign ({@code 0}, {@code 12}) or with {@code -}
 * ({@code -1}); leading zeros, {@code +}, {@code -0}, spaces and indices beyond the 249-character topic limit are
 * rejected. {@code {{} and {@code }}} write literal braces.
 *
 * <p>Resolution never yields a partial or empty name: a topic with fewer segments than a placeholder needs, a
 * placeholder that selects an empty segment (segment 1 of {@code a..b}, segment -1 of {@code a.b.}), and an empty
 * topic for {@code {topic}} each give a {@link Resolution} with an error naming the topic and the template, and the
 * sink fails the batch. The resolved name is not yet an identifier: the sink applies its {@link IdentifierPolicy}
 * and its kind quotes it.
 *
 * <p>Immutable and thread-safe. Resolution allocates; it is meant to run once per new topic, with the result
 * cached by the caller.
 */
public final class DestinationTemplate
{
    private static final String KIND = "destination";
    private static final int LITERAL = 0;
    private static final int TOPIC = 1;
    private static final int SEGMENT = 2;
    private static final Pattern SEGMENT_PLACEHOLDER = Pattern.compile("topic_segment\\[(.*)]");
    private static final Pattern SEGMENT_INDEX = Pattern.compile("-?(0|[1-9][0-9]{0,8})");
    private static final String KNOWN = "{topic}, {topic_segment[n]}, {topic_segment[-n]}";

    private final String template;
    private final int[] kinds;
    private final String[] texts;
    private final int[] segmentIndices;
    private final int requiredSegments;
    private final boolean literal;

    private DestinationTemplate(
        final String template, final int[] kinds, final String[] texts, final int[] segmentIndices)
    {
        this.template = template;
        this.kinds = kinds;
        this.texts = texts;
        this.segmentIndices = segmentIndices;

        int required = 0;
        boolean onlyLiterals = true;
        for (int p = 0; p < kinds.length; p++)
        {
            if (kinds[p] == SEGMENT)
            {
                final int index = segmentIndices[p];
                required = Math.max(required, index >= 0 ? index + 1 : -index);
            }
            onlyLiterals &= kinds[p] == LITERAL;
        }
        this.requiredSegments = required;
        this.literal = onlyLiterals;
    }

    /**
     * Parses a destination template as written in a sink's configuration.
     *
     * @param template the template, for example {@code events_{topic}} or {@code {topic_segment[-1]}}.
     * @return the parsed template.
     * @throws NullPointerException     if {@code template} is null.
     * @throws IllegalArgumentException naming the template and the problem, when it is empty, has an unknown
     *                                  placeholder (including {@code {value}}, which belongs to a source's routing
     *                                  template), a malformed or out-of-range segment index, or a stray brace.
     */
    public static DestinationTemplate parse(final String template)
    {
        Objects.requireNonNull(template, "template");
        if (template.isEmpty())
        {
            throw TemplateScanner.error(KIND, template, "the template is empty");
        }

        final List<TemplateScanner.Part> parts = TemplateScanner.scan(KIND, template);
        final int[] kinds = new int[parts.size()];
        final String[] texts = new String[parts.size()];
        final int[] indices = new int[parts.size()];

        for (int p = 0; p < parts.size(); p++)
        {
            final TemplateScanner.Part part = parts.get(p);
            if (!part.placeholder)
            {
                kinds[p] = LITERAL;
                texts[p] = part.text;
            }
            else if ("topic".equals(part.text))
            {
                kinds[p] = TOPIC;
            }
            else
            {
                kinds[p] = SEGMENT;
                indices[p] = segmentIndex(template, part);
            }
        }
        return new DestinationTemplate(template, kinds, texts, indices);
    }

    /**
     * The template as it was given to {@link #parse(String)}.
     *
     * @return the template text, never null.
     */
    public String template()
    {
        return template;
    }

    /**
     * Whether the template has no placeholders, so every topic resolves to the same name.
     *
     * @return true for a literal such as {@code events}.
     */
    public boolean isLiteral()
    {
        return literal;
    }

    /**
     * The fewest {@code .}-separated segments a topic must have for every {@code {topic_segment[...]}} to resolve:
     * {@code n + 1} for {@code {topic_segment[n]}}, {@code n} for {@code {topic_segment[-n]}}, the largest over
     * all placeholders; 0 when the template has none. A sink can check its topic pattern against it.
     *
     * @return the number of segments required, 0 to 249.
     */
    public int requiredSegments()
    {
        return requiredSegments;
    }

    /**
     * Resolves the template against a topic.
     *
     * @param topic the topic a batch arrived on, not null.
     * @return the resolved name, or an error when the topic has too few segments, a selected segment is empty,
     *         or {@code {topic}} would be empty. Never a partial or empty name.
     * @throws NullPointerException if {@code topic} is null.
     */
    public Resolution resolve(final String topic)
    {
        Objects.requireNonNull(topic, "topic");

        int[] segmentBounds = null;
        int segmentCount = 0;
        if (requiredSegments > 0)
        {
            segmentCount = 1;
            for (int i = 0; i < topic.length(); i++)
            {
                if (topic.charAt(i) == '.')
                {
                    segmentCount++;
                }
            }
            segmentBounds = new int[segmentCount + 1];
            int s = 1;
            for (int i = 0; i < topic.length(); i++)
            {
                if (topic.charAt(i) == '.')
                {
                    segmentBounds[s++] = i + 1;
                }
            }
            segmentBounds[segmentCount] = topic.length() + 1;
        }

        final StringBuilder name = new StringBuilder();
        for (int p = 0; p < kinds.length; p++)
        {
            switch (kinds[p])
            {
                case LITERAL :
                    name.append(texts[p]);
                    break;
                case TOPIC :
                    if (topic.isEmpty())
                    {
                        return Resolution.failed("topic '' is empty; template '" + template +
                            "' would produce an empty name");
                    }
                    name.append(topic);
                    break;
                default :
                {
                    final int written = segmentIndices[p];
                    final int index = written >= 0 ? written : segmentCount + written;
                    if (index < 0 || index >= segmentCount)
                    {
                        return Resolution.failed("topic '" + topic + "' has " + segmentCount +
                            (segmentCount == 1 ? " segment" : " segments") + "; template '" + template +
                            "' needs segment " + written);
                    }
                    final int start = segmentBounds[index];
                    final int end = segmentBounds[index + 1] - 1;
                    if (start == end)
                    {
                        return Resolution.failed("topic '" + topic + "' has an empty segment " + written +
                            "; template '" + template + "' would produce a name with an empty part");
                    }
                    name.append(topic, start, end);
                    break;
                }
            }
        }
        return Resolution.ok(name.toString());
    }

    /**
     * The template text.
     *
     * @return the template as given to {@link #parse(String)}.
     */
    @Override
    public String toString()
    {
        return template;
    }

    private static int segmentIndex(final String template, final TemplateScanner.Part part)
    {
        final Matcher placeholder = SEGMENT_PLACEHOLDER.matcher(part.text);
        if (!placeholder.matches())
        {
            final String hint = "value".equals(part.text)
                ? "; {value} belongs to a source's routing template, a destination is resolved from the topic"
                : "";
            throw TemplateScanner.error(KIND, template, "unknown placeholder '" + part.written() + "' at index " +
                part.index + "; the placeholders are " + KNOWN + hint);
        }
        final String index = placeholder.group(1);
        if (!SEGMENT_INDEX.matcher(index).matches() || "-0".equals(index))
        {
            throw TemplateScanner.error(KIND, template, "malformed segment index '" + index + "' in '" +
                part.written() + "' at index " + part.index + "; write a whole number such as " +
                "{topic_segment[0]} for the first segment or {topic_segment[-1]} for the last");
        }
        final int value = Integer.parseInt(index);
        if (value >= TopicNameSanitizer.MAX_LENGTH || value < -TopicNameSanitizer.MAX_LENGTH)
        {
            throw TemplateScanner.error(KIND, template, "segment index " + index + " in '" + part.written() +
                "' at index " + part.index + " is out of range; a topic name of at most " +
                TopicNameSanitizer.MAX_LENGTH + " characters never has that segment");
        }
        return value;
    }

    /**
     * The outcome of {@link #resolve(String)}: a name, or an error message naming the topic and the template.
     * Immutable and thread-safe.
     */
    public static final class Resolution
    {
        private final String name;
        private final String error;

        private Resolution(final String name, final String error)
        {
            this.name = name;
            this.error = error;
        }

        static Resolution ok(final String name)
        {
            return new Resolution(name, null);
        }

        static Resolution failed(final String error)
        {
            return new Resolution(null, error);
        }

        /**
         * Whether the template resolved.
         *
         * @return true if {@link #name()} holds the resolved name, false if {@link #error()} says why not.
         */
        public boolean ok()
        {
            return name != null;
        }

        /**
         * The resolved name, not yet rewritten or quoted.
         *
         * @return the non-empty name, or null when resolution failed.
         */
        public String name()
        {
            return name;
        }

        /**
         * Why the template did not resolve, for example
         * {@code topic 'a.b' has 2 segments; template '{topic_segment[9]}' needs segment 9}.
         *
         * @return the error message, or null when resolution succeeded.
         */
        public String error()
        {
            return error;
        }

        /**
         * The resolved name, or an exception carrying the error.
         *
         * @return the non-empty name.
         * @throws IllegalStateException with {@link #error()} as its message when resolution failed.
         */
        public String nameOrThrow()
        {
            if (name == null)
            {
                throw new IllegalStateException(error);
            }
            return name;
        }

        /**
         * Describes the outcome.
         *
         * @return {@code ok(<name>)} or {@code failed(<error>)}.
         */
        @Override
        public String toString()
        {
            return name != null ? "ok(" + name + ")" : "failed(" + error + ")";
        }
    }
}
