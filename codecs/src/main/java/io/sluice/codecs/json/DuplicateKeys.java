package io.sluice.codecs.json;

/**
 * What {@link JsonScanner} does when an object holds the same key twice at a path it extracts.
 *
 * <p>RFC 8259 §4 says the names within an object SHOULD be unique and that parsers differ when they are not (some
 * report the last pair, some the first, some fail). ClickHouse's JSONEachRow input fails on a duplicate of a field
 * that a column reads ({@code JSONEachRowRowInputFormat::readField}: "Duplicate field found while parsing JSONEachRow
 * format: id", code 117 INCORRECT_DATA; verified on 18.16), so {@link #FAIL} is the default a pipeline should use.
 *
 * <p>Only keys on a compiled path count: {@code {"id":1,"x":1,"x":2}} scanned for {@code id} has no duplicate, just
 * as ClickHouse ignores duplicates among fields that no column reads. A key counts as the same after JSON unescaping
 * ({@code "id"} and {@code "\u0069d"} are one key). Two occurrences of a parent key are a duplicate of that parent,
 * whatever they hold: {@code {"a":{"b":1},"a":{"c":2}}} scanned for {@code a.b} is a duplicate of {@code a}.
 */
public enum DuplicateKeys
{
    /** The scan fails with {@link JsonError#DUPLICATE_KEY}; {@link JsonScanner#duplicateKey()} names the key. */
    FAIL("fail"),
    /** The first occurrence wins; later ones are validated and skipped. The scan may stop early. */
    FIRST("first"),
    /** The last occurrence wins: a later occurrence replaces the earlier one and everything found inside it (a
     * path below a replaced parent is missing unless the later parent has it). */
    LAST("last");

    private final String configName;

    DuplicateKeys(final String configName)
    {
        this.configName = configName;
    }

    /**
     * The name used in configuration files.
     *
     * @return {@code fail}, {@code first} or {@code last}.
     */
    public String configName()
    {
        return configName;
    }

    /**
     * The policy named in a configuration file.
     *
     * @param name {@code fail}, {@code first} or {@code last}, compared exactly.
     * @return the policy.
     * @throws IllegalArgumentException naming the value and the accepted ones.
     */
    public static DuplicateKeys fromConfig(final String name)
    {
        for (final DuplicateKeys d : values())
        {
            if (d.configName.equals(name))
            {
                return d;
            }
        }
        throw new IllegalArgumentException("duplicate_keys must be \"fail\", \"first\" or \"last\", not \"" + name +
            "\"");
    }
}
