package io.sluice.core.naming;

import java.util.List;

/**
 * Names chosen to break SQL built from them: quotes and backquotes, backslashes and escape look-alikes, statement
 * and comment syntax, control characters, keywords, names that look qualified or numeric, file-system specials,
 * and non-ASCII text. {@link ClickHouseIdentifiersTest} proves each one quotes to exactly one token that decodes
 * back to the name; integration tests against a real ClickHouse server create and query tables with these names.
 *
 * <p>Every entry is a valid Unicode string (no unpaired surrogates) and non-empty, so each is a legal quoted
 * ClickHouse identifier.
 */
public final class HostileNames
{
    /** The hostile names, in a fixed order. */
    public static final List<String> NAMES = List.of(
        // keywords and names that look like something else
        "table", "select", "from", "default", "system", "null", "NULL", "1", "1e3", "0x1F", "1test",
        "01802_empsalary", "_", "__", "orders.eu", "db.table", "foo.bar.table-name", "test-table-master", ".", "..",
        "...", "./x", "../x", "a/b", "con",
        // quotes
        "a'b", "'", "''", "a\"b", "\"", "a`b", "`", "``", "```", "`x`", "x``y", "'; SELECT 1; --",
        "x`; DROP TABLE t; --", "x' OR '1'='1", "x\" OR \"1\"=\"1",
        // backslashes and escape look-alikes
        "\\", "\\\\", "a\\", "a\\`", "\\`", "\\'", "\\x41", "\\x", "\\N", "\\0", "\\n", "\\u0041", "%s", "%",
        "{topic}", "{name:String}", "$1", "?", ":name", "@p",
        // statement and comment syntax
        "x; DROP TABLE t", ";", "--", "-- comment", "x--y", "/*", "*/", "/* c */", "a/*b*/c", "# c", "#!", "//",
        // whitespace and control characters
        " ", " leading", "trailing ", "two  spaces", "line\nbreak", "cr\rlf\n", "tab\there", "nul\u0000byte",
        "\u0000", "bell\u0007", "esc\u001B[31mred", "del\u007F", "vt\u000Bff\u000C", "bs\b", "\u0001\u001F",
        // non-ASCII
        "RÖKSKÅP_1", "café", "cafe\u0301", "日本語テーブル", "таблица", "emoji😀", "👩‍👩‍👧", "\u00A0nbsp", "\u3000",
        "line\u2028sep\u2029", "\u200Bzero-width", "\uFEFFbom", "\u202Eevil.txt", "“smart”", "‘single’", "ｔａｂｌｅ",
        "\u0085nel", "\u009Bcsi",
        // long
        "x".repeat(200));

    private HostileNames()
    {
    }
}
