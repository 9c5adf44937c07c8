package io.sluice.core.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.tomlj.TomlArray;
import org.tomlj.TomlPosition;
import org.tomlj.TomlTable;

/**
 * Reads one TOML table against the keys {@link ConfigSchema} defines for its section, collecting problems instead of
 * stopping at the first one. Not thread-safe; used once per table while loading.
 */
final class TableReader
{
    private final TomlTable table;
    private final String path;
    private final String section;
    private final List<ConfigProblem> problems;
    private final int fallbackLine;
    private final Set<String> seen = new HashSet<>();
    private List<ConfigKey> keys;
    /** Keys that belong in another table, by name: where they go, e.g. {@code [sinks.plugin_config]}. */
    private final Map<String, String> elsewhere = new HashMap<>();

    /**
     * @param table        the TOML table (may be empty, never null)
     * @param path         display path with indices, e.g. {@code sinks[0].plugin_config}
     * @param section      schema section id, e.g. {@code sinks[].plugin_config}
     * @param problems     where problems go
     * @param fallbackLine line to report for keys the table lacks (0 when unknown)
     */
    TableReader(final TomlTable table, final String path, final String section, final List<ConfigProblem> problems,
        final int fallbackLine)
    {
        this.table = table;
        this.path = path;
        this.section = section;
        this.problems = problems;
        this.fallbackLine = fallbackLine;
    }

    /**
     * @param keys the keys of this table when they are not {@link ConfigSchema}'s (a sink kind's plugin_config)
     * @return this reader
     */
    TableReader keys(final List<ConfigKey> keys)
    {
        this.keys = keys;
        return this;
    }

    String path()
    {
        return path;
    }

    /** @return whether a problem was reported for this table or a key under it */
    boolean hasProblems()
    {
        for (final ConfigProblem p : problems)
        {
            if (p.key().equals(path) || p.key().startsWith(path + ".") || p.key().startsWith(path + "["))
            {
                return true;
            }
        }
        return false;
    }

    String keyPath(final String name)
    {
        return path.isEmpty() ? name : path + "." + name;
    }

    int line(final String name)
    {
        TomlPosition p = table.contains(List.of(name)) ? table.inputPositionOf(List.of(name)) : null;
        final int dot = name.indexOf('.');
        if (p == null && dot > 0)
        {
            // a key under a sub-table (settings.TimeZone): its own line; the rest may hold dots (myext.level)
            final List<String> path = List.of(name.substring(0, dot), name.substring(dot + 1));
            p = table.contains(path) ? table.inputPositionOf(path) : null;
        }
        return p == null ? fallbackLine : p.line();
    }

    void problem(final String name, final String message)
    {
        problems.add(new ConfigProblem(keyPath(name), line(name), message));
    }

    boolean has(final ConfigKey key)
    {
        return table.contains(List.of(key.name()));
    }

    private Object raw(final ConfigKey key)
    {
        if (!key.section().equals(section))
        {
            throw new IllegalStateException("key " + key.qualifiedName() + " read in section " + section);
        }
        seen.add(key.name());
        final Object v = table.get(List.of(key.name()));
        if (v == null && key.required())
        {
            problems.add(new ConfigProblem(keyPath(key.name()), fallbackLine, "missing (required)"));
        }
        return v;
    }

    String string(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return key.defaultValue();
        }
        if (!(v instanceof String s))
        {
            problem(key.name(), "expected a string, got " + (key.secret() ? kind(v) : describe(v)));
            return key.defaultValue();
        }
        if (key.secret())
        {
            Secrets.register(s);
        }
        if (!key.allowed().isEmpty() && !key.allowed().contains(s))
        {
            problem(key.name(), "\"" + s + "\" is not one of "
                + String.join(", ", key.allowed().stream().map(a -> "\"" + a + "\"").toList()));
            return key.defaultValue();
        }
        return s;
    }

    long longValue(final ConfigKey key)
    {
        final Object v = raw(key);
        final long fallback = key.defaultValue() == null ? 0 : Long.parseLong(key.defaultValue());
        if (v == null)
        {
            return fallback;
        }
        if (!(v instanceof Long l))
        {
            problem(key.name(),
                "expected an integer" + (key.unit().isEmpty() ? "" : " (" + key.unit() + ")") + ", got " + describe(v));
            return fallback;
        }
        if (l < key.min() || l > key.max())
        {
            problem(key.name(), l + " is out of range [" + key.min() + ", " + key.max() + "]");
            return fallback;
        }
        return l;
    }

    /** @return the value, or {@code Long.MIN_VALUE} when absent and without default */
    long optionalLong(final ConfigKey key)
    {
        return table.contains(List.of(key.name())) || key.defaultValue() != null ? longValue(key) : markAbsent(key);
    }

    private long markAbsent(final ConfigKey key)
    {
        seen.add(key.name());
        return Long.MIN_VALUE;
    }

    int intValue(final ConfigKey key)
    {
        return (int)longValue(key);
    }

    boolean bool(final ConfigKey key)
    {
        final Object v = raw(key);
        final boolean fallback = Boolean.parseBoolean(key.defaultValue());
        if (v == null)
        {
            return fallback;
        }
        if (!(v instanceof Boolean b))
        {
            problem(key.name(), "expected true or false, got " + describe(v));
            return fallback;
        }
        return b;
    }

    List<String> strings(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return List.of();
        }
        if (v instanceof String s && key.type() == ConfigKey.Type.STRING_OR_LIST)
        {
            return List.of(s);
        }
        if (!(v instanceof TomlArray a) || !all(a, a::isString))
        {
            problem(key.name(), "expected " + (key.type() == ConfigKey.Type.STRING_OR_LIST ? "a string or " : "")
                + "an array of strings, got " + describe(v));
            return List.of();
        }
        final List<String> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++)
        {
            out.add(a.getString(i));
        }
        return List.copyOf(out);
    }

    List<List<String>> stringLists(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return List.of();
        }
        final String expected = "an array of arrays of strings, e.g. [[\"http://a:8123\"], [\"http://b:8123\"]]";
        if (!(v instanceof TomlArray a) || !all(a, a::isArray))
        {
            problem(key.name(), "expected " + expected + ", got " + describe(v));
            return List.of();
        }
        final List<List<String>> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++)
        {
            final TomlArray inner = a.getArray(i);
            if (inner.isEmpty() || !all(inner, inner::isString))
            {
                problem(key.name(), "shard " + i + ": expected a non-empty array of strings");
                return List.of();
            }
            final List<String> items = new ArrayList<>();
            for (int j = 0; j < inner.size(); j++)
            {
                items.add(inner.getString(j));
            }
            out.add(List.copyOf(items));
        }
        return List.copyOf(out);
    }

    List<Integer> ints(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return List.of();
        }
        if (!(v instanceof TomlArray a) || !all(a, a::isLong))
        {
            problem(key.name(), "expected an array of integers, got " + describe(v));
            return List.of();
        }
        final List<Integer> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++)
        {
            final long item = a.getLong(i);
            if (item < key.min() || item > key.max())
            {
                problem(key.name(), "element " + i + ": " + item + " is out of range [" + key.min() + ", " + key.max()
                    + "]");
                return List.of();
            }
            out.add((int)item);
        }
        return List.copyOf(out);
    }

    Map<String, String> stringMap(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return Map.of();
        }
        if (!(v instanceof TomlTable t))
        {
            problem(key.name(), "expected a table of strings, got " + describe(v));
            return Map.of();
        }
        final Map<String, String> out = new LinkedHashMap<>();
        for (final String k : t.keySet())
        {
            final Object item = t.get(List.of(k));
            if (item instanceof String s)
            {
                out.put(k, s);
            }
            else if (item instanceof Long || item instanceof Boolean || item instanceof Double)
            {
                out.put(k, String.valueOf(item));
            }
            else
            {
                problems.add(new ConfigProblem(keyPath(key.name()) + "." + k, line(t, k),
                    "expected a string, got " + describe(item)));
            }
        }
        return out;
    }

    /** @return the sub-table (empty when absent) */
    TomlTable table(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return org.tomlj.Toml.parse("");
        }
        if (!(v instanceof TomlTable t))
        {
            problem(key.name(), "expected a table, got " + describe(v));
            return org.tomlj.Toml.parse("");
        }
        return t;
    }

    /** @return the array of tables (empty when absent) */
    List<TomlTable> tables(final ConfigKey key)
    {
        final Object v = raw(key);
        if (v == null)
        {
            return List.of();
        }
        if (v instanceof TomlArray a && all(a, a::isTable))
        {
            final List<TomlTable> out = new ArrayList<>();
            for (int i = 0; i < a.size(); i++)
            {
                out.add(a.getTable(i));
            }
            return out;
        }
        problem(key.name(), "expected an array of tables ([[" + keyPath(key.name()) + "]]), got " + describe(v));
        return List.of();
    }

    /** @return the raw value of a RULE key (String or TomlTable), or null */
    Object rule(final ConfigKey key)
    {
        return raw(key);
    }

    /**
     * Names where keys that do not belong here go, for the unknown-key message ("did you mean [sinks.plugin_config]
     * delivery?"), when a key of this table is one of them.
     *
     * @param names the keys of the other table
     * @param table the other table as the file writes it, e.g. {@code [sinks.plugin_config]}
     * @return this reader
     */
    TableReader belongElsewhere(final Collection<String> names, final String table)
    {
        names.forEach(n -> elsewhere.putIfAbsent(n, table));
        return this;
    }

    /**
     * A sink table's {@code plugin_config} keys written at the sink level: an unknown key that is one of them is
     * reported with where it goes ({@code [sinks.plugin_config]}).
     *
     * @param kind the sink's kind, or null when unknown (nothing to say then)
     * @return this reader
     */
    TableReader pluginKeysOf(final SinkKind kind)
    {
        return kind == null
            ? this
            : belongElsewhere(kind.pluginConfigKeys().stream().map(ConfigKey::name).toList(), "[sinks.plugin_config]");
    }

    /** Reports every key of this table that the schema does not define for its section. */
    void finish()
    {
        final Set<String> known = new HashSet<>();
        for (final ConfigKey k : keys != null ? keys : ConfigSchema.keys(section))
        {
            known.add(k.name());
        }
        for (final String k : table.keySet())
        {
            if (!known.contains(k) && !seen.contains(k))
            {
                final String other = elsewhere.get(k);
                final String hint = other != null ? other + " " + k : hint(k, known);
                problem(k, "unknown key" + (hint == null ? "" : "; did you mean " + hint + "?")
                    + (other == null ? "" : " (" + k + " is a key of " + other + ", not of this table)")
                    + (known.isEmpty()
                        ? ""
                        : " (keys here: " + String.join(", ", known.stream().sorted().toList()) + ")"));
            }
        }
    }

    private static String hint(final String key, final Set<String> known)
    {
        final String synonym = ConfigSchema.SYNONYMS.get(key);
        if (synonym != null && known.contains(synonym))
        {
            return synonym;
        }
        String best = null;
        int bestDistance = 3;
        for (final String k : known)
        {
            final int d = distance(key.toLowerCase(java.util.Locale.ROOT), k);
            if (d < bestDistance)
            {
                bestDistance = d;
                best = k;
            }
        }
        return best;
    }

    static int distance(final String a, final String b)
    {
        final int[] prev = new int[b.length() + 1];
        final int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            System.arraycopy(cur, 0, prev, 0, cur.length);
        }
        return prev[b.length()];
    }

    private static boolean all(final TomlArray a, final java.util.function.IntPredicate test)
    {
        for (int i = 0; i < a.size(); i++)
        {
            if (!test.test(i))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the line of the first key of a table (its header is not reported by the parser), or 0 */
    static int firstLine(final TomlTable t)
    {
        int line = Integer.MAX_VALUE;
        for (final String k : t.keySet())
        {
            line = Math.min(line, line(t, k));
        }
        return line == Integer.MAX_VALUE ? 0 : line;
    }

    /** @return the line of a key of a table, or 0 when absent */
    static int line(final TomlTable t, final String key)
    {
        final TomlPosition p = t.inputPositionOf(List.of(key));
        return p == null ? 0 : p.line();
    }

    /** @return what a value is, without the value (for secrets) */
    static String kind(final Object v)
    {
        return v instanceof String
            ? "a string"
            : v instanceof Long
                ? "an integer"
                : v instanceof Double
                    ? "a float"
                    : v instanceof Boolean ? "a boolean" : describe(v);
    }

    static String describe(final Object v)
    {
        if (v instanceof String s)
        {
            return "the string \"" + s + "\"";
        }
        if (v instanceof Long)
        {
            return "the integer " + v;
        }
        if (v instanceof Double)
        {
            return "the float " + v;
        }
        if (v instanceof Boolean)
        {
            return "the boolean " + v;
        }
        if (v instanceof TomlArray)
        {
            return "an array";
        }
        if (v instanceof TomlTable)
        {
            return "a table";
        }
        if (v instanceof java.time.temporal.Temporal)
        {
            return "the date/time " + v;
        }
        return v == null ? "nothing" : v.getClass().getSimpleName();
    }
}
