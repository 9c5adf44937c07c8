package io.sluice.core.config;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * Every regular expression a user writes (a sink's or source's topic {@code pattern}, a {@code when} condition's
 * {@code matches}) is compiled here, with RE2/J ({@code com.google.re2j}): a linear-time engine (an automaton
 * simulation, no backtracking), so no value and no topic name can make a match take longer than a constant times its
 * length. {@code (.*a){8}b} against 10 KB of {@code a}s, which java.util.regex would not finish, is one pass.
 *
 * <p>The syntax is RE2's (https://github.com/google/re2/wiki/Syntax), which is java.util.regex's minus what needs
 * backtracking: backreferences, lookahead and lookbehind, atomic groups and possessive quantifiers are refused, and so
 * are the few java.util.regex spellings that RE2/J would read differently without saying so (a class intersection
 * {@code [a-z&&[^e]]}, {@code \v}, {@code {,n}}, an octal escape of two or more digits such as {@code \0101}).
 * docs/configuration.md lists what changes for users.
 *
 * <p>Thread-safe (stateless). A compiled {@link Pattern} is thread-safe; its {@code Matcher}s are not.
 */
public final class UserRegex
{
    private UserRegex()
    {
    }

    /**
     * Compiles a user's regular expression.
     *
     * @param regex the expression as the configuration gives it
     * @return the compiled pattern
     * @throws IllegalArgumentException naming what RE2/J cannot express (the message of {@link #problem})
     */
    public static Pattern compile(final String regex)
    {
        final String problem = problem(regex);
        if (problem != null)
        {
            throw new IllegalArgumentException(problem);
        }
        return Pattern.compile(regex);
    }

    /**
     * Checks a user's regular expression without keeping it ({@code check}, the configuration loader).
     *
     * @param regex the expression
     * @return null when it compiles and means what java.util.regex would make of it; else what is wrong, for a
     *         message that the caller prefixes with the key and line
     */
    public static String problem(final String regex)
    {
        final String silent = silentDifference(regex);
        if (silent != null)
        {
            return silent;
        }
        try
        {
            Pattern.compile(regex);
            return null;
        }
        catch (final PatternSyntaxException e)
        {
            return "not a regular expression Sluice can run (RE2/J syntax, linear time): " + e.getDescription() + ": `"
                + e.getPattern() + "`" + hint(e.getDescription(), e.getPattern());
        }
    }

    private static String hint(final String description, final String fragment)
    {
        final String f = fragment == null ? "" : fragment;
        if (description.startsWith("invalid escape sequence") && f.length() == 2 && Character.isDigit(f.charAt(1)))
        {
            return "; backreferences are not supported (matching them can take exponential time)";
        }
        if (f.startsWith("(?=") || f.startsWith("(?!"))
        {
            return "; lookahead is not supported";
        }
        if (f.startsWith("(?<=") || f.startsWith("(?<!"))
        {
            return "; lookbehind is not supported";
        }
        if (f.startsWith("(?>"))
        {
            return "; atomic groups are not supported (write the group plainly: RE2/J never backtracks)";
        }
        if (description.startsWith("invalid nested repetition operator") && f.endsWith("+"))
        {
            return "; possessive quantifiers are not supported (drop the trailing +: RE2/J never backtracks)";
        }
        if (description.startsWith("invalid character class range") && f.startsWith("\\p"))
        {
            return "; RE2/J knows Unicode categories and scripts (\\p{L}, \\p{Greek}) and POSIX classes as "
                + "[[:alpha:]], not java.util.regex's \\p{Alpha} or \\p{javaXxx}";
        }
        return "";
    }

    /**
     * Finds the spellings that both engines accept with different meanings: a class intersection ({@code &&} in a
     * class: java.util.regex intersects, RE2/J reads two {@code &}), {@code \v} (java.util.regex: any vertical
     * whitespace; RE2/J: the vertical tab only) and {@code {,n}} (java.util.regex refuses it; RE2/J reads it
     * literally).
     */
    /** @return whether the escape at {@code i} is {@code \0mnn} (m at most 3) or {@code \dn} with d in 1-7, n octal */
    private static boolean octalDiffers(final String regex, final int i)
    {
        final int n = regex.length();
        final char d = regex.charAt(i + 1);
        if (d == '0')
        {
            return i + 4 < n && regex.charAt(i + 2) >= '0' && regex.charAt(i + 2) <= '3' && octal(regex.charAt(i + 3))
                && octal(regex.charAt(i + 4));
        }
        return d >= '1' && d <= '7' && i + 2 < n && octal(regex.charAt(i + 2));
    }

    private static boolean octal(final char c)
    {
        return c >= '0' && c <= '7';
    }

    private static String silentDifference(final String regex)
    {
        int depth = 0;
        final int n = regex.length();
        for (int i = 0; i < n; i++)
        {
            final char c = regex.charAt(i);
            if (c == '\\' && i + 1 < n)
            {
                final char next = regex.charAt(i + 1);
                if (next == 'Q')
                {
                    final int end = regex.indexOf("\\E", i + 2);
                    i = end < 0 ? n : end + 1;
                    continue;
                }
                if (next == 'v')
                {
                    return "\\v at index " + i + " means any vertical whitespace in java.util.regex but only the "
                        + "vertical tab in RE2/J (the engine Sluice matches with): write \\x0B, or [\\n\\x0B\\f\\r]";
                }
                if (octalDiffers(regex, i))
                {
                    // \0101 is 'A' in java.util.regex (\0 then up to three octal digits) but backspace and '1' in
                    // RE2/J (three octal digits in all); \101 is a backreference there and 'A' here
                    return "\\" + next + regex.charAt(i + 2) + " at index " + i + " is an octal escape that "
                        + "java.util.regex and RE2/J (the engine Sluice matches with) read differently: write the "
                        + "character as \\x{41} (hex), or the digit after an escape as [" + regex.charAt(i + 2) + "]";
                }
                i++;
                continue;
            }
            if (depth > 0)
            {
                if (c == '[' && i + 1 < n && regex.charAt(i + 1) == ':')
                {
                    final int end = regex.indexOf(":]", i + 2);
                    i = end < 0 ? i : end + 1;
                }
                else if (c == ']' && !(regex.charAt(i - 1) == '[' || regex.charAt(i - 1) == '^'
                    && regex.charAt(i - 2) == '['))
                {
                    depth--;
                }
                else if (c == '[')
                {
                    depth++;
                }
                else if (c == '&' && i + 1 < n && regex.charAt(i + 1) == '&')
                {
                    return "a class intersection (&&) at index " + i + " is java.util.regex syntax that RE2/J (the "
                        + "engine Sluice matches with) would read as two '&': write the class out, e.g. [a-df-z] "
                        + "for [a-z&&[^e]]";
                }
            }
            else if (c == '[')
            {
                depth = 1;
            }
            else if (c == '{' && i + 1 < n && regex.charAt(i + 1) == ',')
            {
                return "{, at index " + i + " is no repetition in java.util.regex and a literal in RE2/J (the engine "
                    + "Sluice matches with): write {0,n} for up to n, or \\{ for a brace";
            }
        }
        return null;
    }
}
