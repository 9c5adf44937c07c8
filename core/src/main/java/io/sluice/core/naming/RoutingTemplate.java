package io.sluice.core.naming;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A source's topic template: literal text with zero or more {@code {value}} placeholders, such as
 * {@code users.{value}} or {@code tenant.{value}}. Rendering substitutes the value a routing rule derived from a
 * record; {@link TopicNameSanitizer} then turns the whole rendered name into a legal topic name.
 *
 * <p>Syntax: {@code {value}} is the only placeholder and may appear any number of times (none makes a static
 * topic). {@code {{} and {@code }}} write a literal {@code {} and {@code }} (which sanitising then replaces with
 * {@code _}, since braces are not legal in topic names). Any other brace, such as {@code {Value}},
 * {@code { value }}, {@code {} or a lone {@code }}, is rejected by {@link #parse(String)}.
 *
 * <p>The value is substituted with its surrounding whitespace trimmed (whitespace as in
 * {@link TopicNameSanitizer#isWhitespace(int)}), so {@code users.{value}} with {@code " bob "} renders
 * {@code users.bob}, not {@code users._bob_}. A blank value (empty or only whitespace) is a missing value: rendering
 * reports {@link TopicNameSanitizer#MISSING} rather than a name such as {@code users.}, and the routing rule
 * applies its fallback or fails the batch.
 *
 * <p>Immutable and thread-safe. {@link #render(DirectBuffer, int, int, MutableDirectBuffer, int)} never allocates.
 */
public final class RoutingTemplate
{
    /** The placeholder a routing rule's value is substituted for. */
    public static final String VALUE_PLACEHOLDER = "{value}";

    private static final String KIND = "routing";
    private static final int VALUE_PART = -1;

    private final String template;
    private final UnsafeBuffer literalBytes;
    private final int[] partOffsets;
    private final int[] partLengths;
    private final String[] literalTexts;
    private final int valueCount;
    private final int literalLength;

    private RoutingTemplate(
        final String template,
        final byte[] literalBytes,
        final int[] partOffsets,
        final int[] partLengths,
        final String[] literalTexts,
        final int valueCount)
    {
        this.template = template;
        this.literalBytes = new UnsafeBuffer(literalBytes);
        this.partOffsets = partOffsets;
        this.partLengths = partLengths;
        this.literalTexts = literalTexts;
        this.valueCount = valueCount;
        this.literalLength = literalBytes.length;
    }

    /**
     * Parses a topic template as written in a source's {@code topic} rule.
     *
     * @param template the template, for example {@code users.{value}}.
     * @return the parsed template.
     * @throws NullPointerException     if {@code template} is null.
     * @throws IllegalArgumentException naming the template and the problem, when it is empty; has an unknown
     *                                  placeholder or a stray brace; has no {@code {value}} and its literal text is
     *                                  not a topic name after sanitising (blank, {@code .} or {@code ..}); or has so
     *                                  much text before the first {@code {value}} that the 249-character cut would
     *                                  always drop the value.
     */
    public static RoutingTemplate parse(final String template)
    {
        Objects.requireNonNull(template, "template");
        if (template.isEmpty())
        {
            throw TemplateScanner.error(KIND, template, "the template is empty");
        }

        final List<TemplateScanner.Part> parts = TemplateScanner.scan(KIND, template);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int[] offsets = new int[parts.size()];
        final int[] lengths = new int[parts.size()];
        final String[] texts = new String[parts.size()];
        final StringBuilder prefix = new StringBuilder();
        int valueCount = 0;

        for (int p = 0; p < parts.size(); p++)
        {
            final TemplateScanner.Part part = parts.get(p);
            if (part.placeholder)
            {
                if (!"value".equals(part.text))
                {
                    throw TemplateScanner.error(KIND, template, "unknown placeholder '" + part.written() +
                        "' at index " + part.index + "; the only placeholder is {value}" +
                        " (write '{{' and '}}' for literal braces)");
                }
                offsets[p] = VALUE_PART;
                valueCount++;
            }
            else
            {
                final byte[] utf8 = part.text.getBytes(StandardCharsets.UTF_8);
                offsets[p] = bytes.size();
                lengths[p] = utf8.length;
                texts[p] = part.text;
                bytes.writeBytes(utf8);
                if (valueCount == 0)
                {
                    prefix.append(part.text);
                }
            }
        }

        if (valueCount == 0 && TopicNameSanitizer.sanitize(template(parts)) == null)
        {
            throw TemplateScanner.error(KIND, template,
                "it has no {value} and is not a topic name after sanitising (blank, '.' or '..')");
        }
        if (valueCount > 0 && codePointsAfterLeadingWhitespace(prefix) >= TopicNameSanitizer.MAX_LENGTH)
        {
            throw TemplateScanner.error(KIND, template, "the text before the first {value} fills the " +
                TopicNameSanitizer.MAX_LENGTH + "-character limit of a topic name, so the value would always be cut");
        }

        return new RoutingTemplate(template, bytes.toByteArray(), offsets, lengths, texts, valueCount);
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
     * Whether the template contains {@code {value}}. A template without it always renders the same name.
     *
     * @return true if at least one {@code {value}} appears.
     */
    public boolean usesValue()
    {
        return valueCount > 0;
    }

    /**
     * Upper bound of the bytes {@link #render(DirectBuffer, int, int, MutableDirectBuffer, int)} writes for a
     * value of {@code valueLength} bytes: the literal text's UTF-8 length plus {@code valueLength} for each
     * {@code {value}}. Size a render buffer with it.
     *
     * @param valueLength the value's length in bytes, at least zero.
     * @return the largest possible rendered length in bytes.
     * @throws ArithmeticException if the bound does not fit in an int.
     */
    public int maxRenderedLength(final int valueLength)
    {
        return Math.addExact(literalLength, Math.multiplyExact(valueCount, valueLength));
    }

    /**
     * Renders the template with a value into {@code dst}, as UTF-8 bytes: the literal text verbatim and, for each
     * {@code {value}}, the value's bytes without their surrounding whitespace. The result still needs
     * {@link TopicNameSanitizer#sanitize(DirectBuffer, int, int, MutableDirectBuffer, int)}, which accepts
     * {@link TopicNameSanitizer#MISSING} as a length, and may sanitise in place in {@code dst}.
     *
     * <p>{@code dst} must have room for {@link #maxRenderedLength(int) maxRenderedLength(valueLength)} bytes from
     * {@code dstOffset} (an expandable buffer such as Agrona's {@code ExpandableArrayBuffer} grows as needed);
     * {@code dst} must not overlap the value. Zero allocation; thread-safe as long as no other thread writes
     * the same region of {@code dst}.
     *
     * @param value       buffer holding the value as UTF-8; may be null when {@link #usesValue()} is false.
     * @param valueOffset index of the value's first byte.
     * @param valueLength the value's length in bytes, at least zero.
     * @param dst         where the rendered name is written.
     * @param dstOffset   index in {@code dst} of the first byte written.
     * @return the number of bytes written, or {@link TopicNameSanitizer#MISSING} (nothing written) when the
     *         template uses {@code {value}} and the value is blank.
     * @throws IndexOutOfBoundsException if a range falls outside a buffer (when Agrona's bounds checks are on).
     */
    public int render(
        final DirectBuffer value,
        final int valueOffset,
        final int valueLength,
        final MutableDirectBuffer dst,
        final int dstOffset)
    {
        int valueStart = 0;
        int trimmedLength = 0;
        if (valueCount > 0)
        {
            final int valueEnd = valueOffset + valueLength;
            valueStart = TopicNameSanitizer.trimStart(value, valueOffset, valueEnd);
            trimmedLength = TopicNameSanitizer.trimEnd(value, valueStart, valueEnd) - valueStart;
            if (trimmedLength == 0)
            {
                return TopicNameSanitizer.MISSING;
            }
        }

        final int[] offsets = partOffsets;
        final int[] lengths = partLengths;
        final UnsafeBuffer literals = literalBytes;
        int position = dstOffset;
        for (int p = 0; p < offsets.length; p++)
        {
            final int offset = offsets[p];
            if (offset == VALUE_PART)
            {
                dst.putBytes(position, value, valueStart, trimmedLength);
                position += trimmedLength;
            }
            else
            {
                final int length = lengths[p];
                dst.putBytes(position, literals, offset, length);
                position += length;
            }
        }
        return position - dstOffset;
    }

    /**
     * Renders the template with a value given as a String, by the same rules as the buffer method. Allocates;
     * for tools, tests and configuration checks. Thread-safe.
     *
     * @param value the value; may be null only when {@link #usesValue()} is false. A missing value must be
     *              handled by the routing rule, never rendered as the text {@code null}.
     * @return the rendered, not yet sanitised name, or null when the template uses {@code {value}} and the value
     *         is blank.
     * @throws NullPointerException if the template uses {@code {value}} and {@code value} is null.
     */
    public String render(final String value)
    {
        String trimmed = "";
        if (valueCount > 0)
        {
            trimmed = TopicNameSanitizer.trim(Objects.requireNonNull(value, "value"));
            if (trimmed.isEmpty())
            {
                return null;
            }
        }
        final StringBuilder out = new StringBuilder(literalLength + valueCount * trimmed.length());
        for (int p = 0; p < partOffsets.length; p++)
        {
            out.append(partOffsets[p] == VALUE_PART ? trimmed : literalTexts[p]);
        }
        return out.toString();
    }

    /**
     * The topic name for a value: {@link #render(String)} followed by {@link TopicNameSanitizer#sanitize(String)}.
     * Allocates; for tools, tests and configuration checks. Thread-safe.
     *
     * @param value the value; may be null only when {@link #usesValue()} is false.
     * @return the sanitised topic name, or null when it is missing (blank value, or a name that sanitises to
     *         nothing, {@code .} or {@code ..}).
     * @throws NullPointerException if the template uses {@code {value}} and {@code value} is null.
     */
    public String topicFor(final String value)
    {
        final String rendered = render(value);
        return rendered == null ? null : TopicNameSanitizer.sanitize(rendered);
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

    private static String template(final List<TemplateScanner.Part> parts)
    {
        final StringBuilder literal = new StringBuilder();
        for (final TemplateScanner.Part part : parts)
        {
            literal.append(part.text);
        }
        return literal.toString();
    }

    private static int codePointsAfterLeadingWhitespace(final CharSequence text)
    {
        int i = 0;
        while (i < text.length() && TopicNameSanitizer.isWhitespace(Character.codePointAt(text, i)))
        {
            i += Character.charCount(Character.codePointAt(text, i));
        }
        return Character.codePointCount(text, i, text.length());
    }
}
