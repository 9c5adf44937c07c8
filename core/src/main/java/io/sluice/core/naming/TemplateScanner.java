package io.sluice.core.naming;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a template into literal text and {@code {placeholder}} parts, shared by {@link RoutingTemplate} and
 * {@link DestinationTemplate}. {@code {{} and {@code }}} stand for a literal brace; any other brace that is not
 * part of a {@code {name}} is an error. The placeholder names are checked by the caller.
 */
final class TemplateScanner
{
    /**
     * One part of a template: literal text (braces unescaped), or a placeholder with the text between its braces
     * and the index of its opening brace ({@code -1} for literal text).
     */
    static final class Part
    {
        final boolean placeholder;
        final String text;
        final int index;

        private Part(final boolean placeholder, final String text, final int index)
        {
            this.placeholder = placeholder;
            this.text = text;
            this.index = index;
        }

        /** The placeholder as written, braces included. */
        String written()
        {
            return "{" + text + "}";
        }
    }

    private TemplateScanner()
    {
    }

    /**
     * Splits {@code template} into parts. Adjacent literal text is merged into one part.
     *
     * @param kind     "routing" or "destination", for error messages.
     * @param template the template as configured.
     * @return the parts in order; empty only for an empty template.
     * @throws IllegalArgumentException on an unclosed {@code {}, an unmatched {@code }}, or a placeholder that is
     *                                  empty or contains {@code {}.
     */
    static List<Part> scan(final String kind, final String template)
    {
        final List<Part> parts = new ArrayList<>();
        final StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < template.length())
        {
            final char c = template.charAt(i);
            if (c == '{')
            {
                if (i + 1 < template.length() && template.charAt(i + 1) == '{')
                {
                    literal.append('{');
                    i += 2;
                    continue;
                }
                final int close = template.indexOf('}', i + 1);
                final int nextOpen = template.indexOf('{', i + 1);
                if (close < 0 || (nextOpen >= 0 && nextOpen < close))
                {
                    throw error(kind, template, "'{' at index " + i + " is not closed; write '{{' for a literal '{'");
                }
                if (close == i + 1)
                {
                    throw error(kind, template, "empty placeholder '{}' at index " + i +
                        "; write '{{' and '}}' for literal braces");
                }
                if (literal.length() > 0)
                {
                    parts.add(new Part(false, literal.toString(), -1));
                    literal.setLength(0);
                }
                parts.add(new Part(true, template.substring(i + 1, close), i));
                i = close + 1;
            }
            else if (c == '}')
            {
                if (i + 1 < template.length() && template.charAt(i + 1) == '}')
                {
                    literal.append('}');
                    i += 2;
                    continue;
                }
                throw error(kind, template, "'}' at index " + i + " has no matching '{'; write '}}' for a literal '}'");
            }
            else
            {
                literal.append(c);
                i++;
            }
        }
        if (literal.length() > 0)
        {
            parts.add(new Part(false, literal.toString(), -1));
        }
        return parts;
    }

    /**
     * An {@link IllegalArgumentException} whose message names the template: {@code <kind> template '<t>': <problem>}.
     */
    static IllegalArgumentException error(final String kind, final String template, final String problem)
    {
        return new IllegalArgumentException(kind + " template '" + template + "': " + problem);
    }
}
