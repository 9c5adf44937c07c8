package io.sluice.core.gather.json;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import com.google.re2j.Matcher;

import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.UserRegex;

/**
 * The TOML form of a split's classifier: each branch's {@code when} condition, tried in branch order; the first that
 * holds picks the branch. Conditions compare the value derived from a JSON path exactly as seed 000 derives routing
 * values (a string's text, a number's text as written, {@code true}/{@code false}; null, object, array or absent is
 * missing and never matches, except {@code exists = false}).
 *
 * <p>{@code matches} is a full match (the whole value) in RE2/J's syntax and linear time ({@link UserRegex}): no value
 * can make a condition take longer than a constant times its length, whatever the expression.
 *
 * <p>Allocation per record: literals are pre-encoded to UTF-8 and the derived value is written into a reusable direct
 * buffer (nothing); {@code matches} runs a reused RE2/J {@link Matcher} over a reusable char view, and RE2/J
 * allocates a few small objects per match inside itself (measured in bench/ RegexBenchmark). Not thread-safe: one
 * per route stage.
 */
public final class Classifier
{
    /** Returned by {@link #classify} when no branch matches. */
    public static final int UNMATCHED = -1;

    private final Condition[] conditions;
    private final JsonValueView view = new JsonValueView();
    private final UnsafeBuffer derived = new UnsafeBuffer(new byte[4096]);
    private final Utf8Chars chars = new Utf8Chars();

    /**
     * @param branches the branches, in order
     * @param paths    the route stage's path registry; each condition's path is registered in it
     */
    public Classifier(final List<SluiceConfig.Branch> branches, final PathRegistry paths)
    {
        this.conditions = new Condition[branches.size()];
        for (int i = 0; i < conditions.length; i++)
        {
            final SluiceConfig.Condition c = branches.get(i).when();
            conditions[i] = c == null ? null : new Condition(c, paths.indexOf(c.path()));
        }
    }

    /**
     * @param scanner a scanner that has just scanned the record without error
     * @return the index of the first branch whose condition holds, or {@link #UNMATCHED}
     */
    public int classify(final JsonScanner scanner)
    {
        final Condition[] cs = conditions;
        for (int i = 0; i < cs.length; i++)
        {
            final Condition c = cs[i];
            if (c == null || matches(c, scanner))
            {
                return i;
            }
        }
        return UNMATCHED;
    }

    private boolean matches(final Condition c, final JsonScanner scanner)
    {
        scanner.value(c.pathIndex, view);
        if (c.op == SluiceConfig.Condition.Op.EXISTS)
        {
            final int kind = view.kind();
            return (kind != JsonKind.MISSING && kind != JsonKind.NULL) == c.exists;
        }
        if (view.length() > derived.capacity())
        {
            derived.wrap(new byte[Math.max(view.length(), derived.capacity() * 2)]);
        }
        final int length = RoutingValues.derive(view, derived, 0);
        if (length < 0)
        {
            return false;
        }
        switch (c.op)
        {
            case EQUALS :
            case IN :
                for (final byte[] literal : c.literals)
                {
                    if (literal.length == length && equal(derived, literal, length))
                    {
                        return true;
                    }
                }
                return false;
            case PREFIX :
                return c.literals[0].length <= length && equal(derived, c.literals[0], c.literals[0].length);
            case MATCHES :
                chars.wrap(derived, length);
                return c.matcher.reset(chars).matches();
            default :
                return false;
        }
    }

    private static boolean equal(final DirectBuffer buffer, final byte[] literal, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(i) != literal[i])
            {
                return false;
            }
        }
        return true;
    }

    private static final class Condition
    {
        final SluiceConfig.Condition.Op op;
        final int pathIndex;
        final byte[][] literals;
        final boolean exists;
        final Matcher matcher;

        Condition(final SluiceConfig.Condition c, final int pathIndex)
        {
            this.op = c.op();
            this.pathIndex = pathIndex;
            this.exists = c.exists();
            this.literals = new byte[c.values().size()][];
            for (int i = 0; i < literals.length; i++)
            {
                literals[i] = c.values().get(i).getBytes(StandardCharsets.UTF_8);
            }
            this.matcher = op == SluiceConfig.Condition.Op.MATCHES
                ? UserRegex.compile(c.values().get(0)).matcher("")
                : null;
        }
    }

    /** A reusable UTF-16 view of UTF-8 bytes, decoded into a growable char array (no allocation once grown). */
    private static final class Utf8Chars implements CharSequence
    {
        private char[] chars = new char[256];
        private int length;

        void wrap(final DirectBuffer utf8, final int byteLength)
        {
            if (chars.length < byteLength)
            {
                chars = new char[Math.max(byteLength, chars.length * 2)];
            }
            int n = 0;
            int i = 0;
            while (i < byteLength)
            {
                final int b = utf8.getByte(i) & 0xFF;
                int cp;
                if (b < 0x80)
                {
                    cp = b;
                    i += 1;
                }
                else if (b < 0xE0)
                {
                    cp = ((b & 0x1F) << 6) | (utf8.getByte(i + 1) & 0x3F);
                    i += 2;
                }
                else if (b < 0xF0)
                {
                    cp = ((b & 0x0F) << 12) | ((utf8.getByte(i + 1) & 0x3F) << 6) | (utf8.getByte(i + 2) & 0x3F);
                    i += 3;
                }
                else
                {
                    cp = ((b & 0x07) << 18) | ((utf8.getByte(i + 1) & 0x3F) << 12) | ((utf8.getByte(i + 2) & 0x3F) << 6)
                        | (utf8.getByte(i + 3) & 0x3F);
                    i += 4;
                }
                if (cp >= 0x10000)
                {
                    chars[n++] = Character.highSurrogate(cp);
                    chars[n++] = Character.lowSurrogate(cp);
                }
                else
                {
                    chars[n++] = (char)cp;
                }
            }
            length = n;
        }

        @Override
        public int length()
        {
            return length;
        }

        @Override
        public char charAt(final int index)
        {
            return chars[index];
        }

        @Override
        public CharSequence subSequence(final int start, final int end)
        {
            return new String(chars, start, end - start);
        }

        @Override
        public String toString()
        {
            return new String(chars, 0, length);
        }
    }
}
