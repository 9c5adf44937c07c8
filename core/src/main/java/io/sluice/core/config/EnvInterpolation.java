package io.sluice.core.config;

import java.util.List;
import java.util.function.Function;

import org.tomlj.MutableTomlArray;
import org.tomlj.MutableTomlTable;
import org.tomlj.TomlArray;
import org.tomlj.TomlPosition;
import org.tomlj.TomlTable;

/**
 * Environment variables in configuration values, as a shell or Docker Compose spells them. In every string value of
 * the TOML (at any depth: tables, arrays of tables, inline tables, arrays; never in keys):
 * <ul>
 *   <li>{@code ${NAME}} is the variable's value; unset is an error that names the key and the variable (set but
 *       empty is the empty string);</li>
 *   <li>{@code ${NAME:-default}} is the value, or {@code default} when the variable is unset or empty;</li>
 *   <li>{@code ${NAME:?message}} is the value, or an error with {@code message} when it is unset or empty;</li>
 *   <li>{@code $$} is one {@code $}; a {@code $} before anything else (a regular expression's {@code $}) is kept.</li>
 * </ul>
 * A default or a message may itself hold {@code ${...}}. {@code NAME} is letters, digits and {@code _}, not starting
 * with a digit. The substituted text is not interpolated again. Stateless, thread-safe.
 */
final class EnvInterpolation
{
    private EnvInterpolation()
    {
    }

    /** A reference that cannot be resolved; the message names the variable (never its value). */
    static final class UnresolvedException extends Exception
    {
        private static final long serialVersionUID = 1L;

        UnresolvedException(final String message)
        {
            super(message, null, false, false);
        }
    }

    /**
     * @param value a string value from the file
     * @param env   the environment (name to value, null when unset)
     * @return the value with every reference replaced
     * @throws UnresolvedException naming the first variable that is unset (or the malformed reference)
     */
    static String interpolate(final String value, final Function<String, String> env) throws UnresolvedException
    {
        if (value.indexOf('$') < 0)
        {
            return value;
        }
        final StringBuilder out = new StringBuilder(value.length());
        final int end = expand(value, 0, value.length(), env, out);
        if (end != value.length())
        {
            throw new IllegalStateException("expand stopped at " + end);
        }
        return out.toString();
    }

    /** Expands value[from, to) into out; returns to. */
    private static int expand(final String s, final int from, final int to, final Function<String, String> env,
        final StringBuilder out) throws UnresolvedException
    {
        int i = from;
        while (i < to)
        {
            final char c = s.charAt(i);
            if (c != '$' || i + 1 >= to)
            {
                out.append(c);
                i++;
                continue;
            }
            final char next = s.charAt(i + 1);
            if (next == '$')
            {
                out.append('$');
                i += 2;
                continue;
            }
            if (next != '{')
            {
                out.append(c);
                i++;
                continue;
            }
            final int close = matchingBrace(s, i + 2, to);
            if (close < 0)
            {
                throw new UnresolvedException("unterminated \"${\": a reference is ${NAME}, ${NAME:-default} or "
                    + "${NAME:?message}; write $$ for a literal $");
            }
            final String body = s.substring(i + 2, close);
            int nameEnd = 0;
            while (nameEnd < body.length() && (Character.isLetterOrDigit(body.charAt(nameEnd))
                && body.charAt(nameEnd) < 128 || body.charAt(nameEnd) == '_'))
            {
                nameEnd++;
            }
            final String name = body.substring(0, nameEnd);
            if (name.isEmpty() || Character.isDigit(name.charAt(0)))
            {
                throw new UnresolvedException("\"${" + Printable.escape(body) + "}\" is not a reference to a variable "
                    + "(a name is letters, digits and _, not starting with a digit); write $$ for a literal $");
            }
            final String rest = body.substring(nameEnd);
            final String v = env.apply(name);
            if (rest.isEmpty())
            {
                if (v == null)
                {
                    throw new UnresolvedException("${" + name + "} is not set in the environment (write ${" + name
                        + ":-default} to give a default)");
                }
                out.append(v);
            }
            else if (rest.startsWith(":-"))
            {
                if (v == null || v.isEmpty())
                {
                    expand(s, i + 2 + nameEnd + 2, close, env, out);
                }
                else
                {
                    out.append(v);
                }
            }
            else if (rest.startsWith(":?"))
            {
                if (v == null || v.isEmpty())
                {
                    final StringBuilder message = new StringBuilder();
                    expand(s, i + 2 + nameEnd + 2, close, env, message);
                    throw new UnresolvedException("${" + name + "} is " + (v == null ? "not set" : "empty")
                        + (message.isEmpty() ? "" : ": " + Printable.escape(message)));
                }
                out.append(v);
            }
            else
            {
                throw new UnresolvedException("\"${" + Printable.escape(body) + "}\": after the name " + name
                    + " comes } or :- (default) or :? (error message)");
            }
            i = close + 1;
        }
        return to;
    }

    /** @return the index of the } closing a reference whose body starts at from, or -1 */
    private static int matchingBrace(final String s, final int from, final int to)
    {
        int depth = 0;
        for (int i = from; i < to; i++)
        {
            final char c = s.charAt(i);
            if (c == '$' && i + 1 < to && s.charAt(i + 1) == '$')
            {
                i++;
            }
            else if (c == '$' && i + 1 < to && s.charAt(i + 1) == '{')
            {
                depth++;
                i++;
            }
            else if (c == '}')
            {
                if (depth == 0)
                {
                    return i;
                }
                depth--;
            }
        }
        return -1;
    }

    /**
     * Replaces the references in every string value of a parsed file, in place.
     *
     * @param root     the parsed file (tomlj's parse result is mutable)
     * @param env      the environment
     * @param problems receives one problem per value that cannot be resolved, with its key and line
     */
    static void interpolateAll(final TomlTable root, final Function<String, String> env,
        final List<ConfigProblem> problems)
    {
        table(root, "", env, problems, 0);
    }

    private static void table(final TomlTable t, final String path, final Function<String, String> env,
        final List<ConfigProblem> problems, final int parentLine)
    {
        for (final String key : List.copyOf(t.keySet()))
        {
            final List<String> k = List.of(key);
            final Object v = t.get(k);
            final TomlPosition pos = t.inputPositionOf(k);
            final int line = pos == null ? parentLine : pos.line();
            final String at = path.isEmpty() ? key : path + "." + key;
            if (v instanceof String s)
            {
                final String resolved = resolve(s, at, line, env, problems);
                if (resolved != null && !resolved.equals(s) && t instanceof MutableTomlTable m)
                {
                    m.set(k, resolved);
                }
            }
            else if (v instanceof TomlTable sub)
            {
                table(sub, at, env, problems, line);
            }
            else if (v instanceof TomlArray a)
            {
                array(a, at, env, problems, line);
            }
        }
    }

    private static void array(final TomlArray a, final String path, final Function<String, String> env,
        final List<ConfigProblem> problems, final int line)
    {
        for (int i = 0; i < a.size(); i++)
        {
            final Object v = a.get(i);
            final String at = path + "[" + i + "]";
            if (v instanceof String s)
            {
                final String resolved = resolve(s, at, line, env, problems);
                if (resolved != null && !resolved.equals(s) && a instanceof MutableTomlArray m)
                {
                    m.set(i, resolved);
                }
            }
            else if (v instanceof TomlTable sub)
            {
                table(sub, at, env, problems, line);
            }
            else if (v instanceof TomlArray inner)
            {
                array(inner, at, env, problems, line);
            }
        }
    }

    private static String resolve(final String s, final String at, final int line, final Function<String, String> env,
        final List<ConfigProblem> problems)
    {
        try
        {
            return interpolate(s, env);
        }
        catch (final UnresolvedException e)
        {
            problems.add(new ConfigProblem(at, line, e.getMessage()));
            return null;
        }
    }
}
