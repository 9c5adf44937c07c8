package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import io.sluice.core.gather.sink.ColumnSpec;

import org.junit.jupiter.api.Test;

/**
 * create_table_ddl: the placeholders are replaced by quoted identifiers in one pass; constant defaults are evaluated
 * in a form the encoder reads back exactly (TypedInsertIT runs the queries on the real server).
 */
class ClickHouseCatalogTest
{
    @Test
    void shouldReplaceBothPlaceholdersByQuotedIdentifiers()
    {
        assertEquals("CREATE TABLE `analytics`.`user_42` (id UInt64) ENGINE = MergeTree() ORDER BY id",
            ClickHouseCatalog.ddl("CREATE TABLE {database}.{table} (id UInt64) ENGINE = MergeTree() ORDER BY id",
                "analytics", "user_42"));
        assertEquals("CREATE TABLE `d`.`t` ENGINE = Memory AS SELECT '`t`' AS name, '{tables}' AS other",
            ClickHouseCatalog.ddl("CREATE TABLE {database}.{table} ENGINE = Memory AS SELECT '{table}' AS name, "
                + "'{tables}' AS other", "d", "t"));
    }

    @Test
    void shouldNeverSubstituteInsideANameThatContainsAPlaceholder()
    {
        assertEquals("CREATE TABLE `{table}`.`x\\`; DROP TABLE t; --` (id UInt8)",
            ClickHouseCatalog.ddl("CREATE TABLE {database}.{table} (id UInt8)", "{table}", "x`; DROP TABLE t; --"));
        assertEquals("CREATE TABLE `a`.`{database}{table}` (id UInt8)",
            ClickHouseCatalog.ddl("CREATE TABLE {database}.{table} (id UInt8)", "a", "{database}{table}"));
    }

    @Test
    void shouldEvaluateDateAndTimeDefaultsAsNumbersNotAsTheServersText()
    {
        // 18.16 describes DateTime DEFAULT 0 as CAST(0, 'DateTime') and prints its value as 0000-00-00 00:00:00,
        // which no encoder reads: it was reported as "without a default"
        final ColumnSpec zero = new ColumnSpec("t", "DateTime", "DEFAULT", "CAST(0, 'DateTime')");
        assertEquals("SELECT isNull(CAST((CAST(0, 'DateTime')) AS DateTime)), ifNull(toString(toUnixTimestamp("
            + "CAST((CAST(0, 'DateTime')) AS DateTime))), '')", ClickHouseCatalog.defaultEvaluation(zero));
        assertEquals("0.0", ClickHouseCatalog.defaultJson(zero, List.of(List.of("0", "0"))),
            "seconds with a fraction, whatever the epoch unit");
        final ColumnSpec date = new ColumnSpec("d", "Nullable(Date)", "DEFAULT", "'2020-02-29'");
        assertEquals("18321", ClickHouseCatalog.defaultJson(date, List.of(List.of("0", "18321"))), "a day number");
        assertEquals("null", ClickHouseCatalog.defaultJson(date, List.of(List.of("1", ""))));
        final ColumnSpec time64 = new ColumnSpec("t", "DateTime64(3)", "DEFAULT", "'2020-01-01 00:00:00'");
        assertEquals("\"2020-01-01 00:00:00.000Z\"", ClickHouseCatalog.defaultJson(time64,
            List.of(List.of("0", "2020-01-01 00:00:00.000"))), "UTC text");
        final ColumnSpec enumColumn = new ColumnSpec("e", "Enum8('a' = 1, 'b' = 2)", "DEFAULT",
            "CAST('b', 'Enum8(\\'a\\' = 1, \\'b\\' = 2)')");
        assertEquals("SELECT isNull(CAST((CAST('b', 'Enum8(\\'a\\' = 1, \\'b\\' = 2)')) AS Enum8('a' = 1, 'b' = 2))), "
            + "ifNull(toString(CAST((CAST('b', 'Enum8(\\'a\\' = 1, \\'b\\' = 2)')) AS Enum8('a' = 1, 'b' = 2))), '')",
            ClickHouseCatalog.defaultEvaluation(enumColumn), "a type argument with escaped quotes is a constant too");
        assertNull(ClickHouseCatalog.defaultEvaluation(new ColumnSpec("hn", "Nullable(UInt64)", "DEFAULT",
            "CAST(cityHash64(id), 'Nullable(UInt64)')")), "an expression of other columns is the server's");
    }

    /** Array literals, as 18.16 describes them, are constants too (a Nested member's DEFAULT ['c1','c2']). */
    @Test
    void shouldEvaluateArrayLiteralDefaultsAndReadTheServersArrayTextAsJson()
    {
        for (final String e : List.of("['c1', 'c\\'2']", "[1, 2]", "CAST([], 'Array(String)')",
            "CAST([NULL, -3], 'Array(Nullable(Int32))')", "[1.5, -2]", "[ ]"))
        {
            assertEquals("SELECT isNull(CAST((" + e + ") AS Array(String))), ifNull(toString(CAST((" + e
                + ") AS Array(String))), '')",
                ClickHouseCatalog.defaultEvaluation(new ColumnSpec("a",
                    "Array(String)", "DEFAULT", e)),
                e);
        }
        for (final String e : List.of("[1, id]", "[[1]]", "['a'] || ['b']", "arrayResize([1], k)", "[now()]"))
        {
            assertNull(ClickHouseCatalog.defaultEvaluation(new ColumnSpec("a", "Array(UInt8)", "DEFAULT", e)), e);
        }
        assertNull(ClickHouseCatalog.defaultEvaluation(new ColumnSpec("a", "Array(Date)", "DEFAULT", "['2020-01-01']")),
            "an Array of dates travels as the server's text: left to the server");
        final ColumnSpec strings = new ColumnSpec("n.b", "Array(String)", "DEFAULT", "['c1', 'c2']");
        assertEquals("[\"c1\",\"c'2\",\"a\\\\b\\\"t\",\"x\\u0009y\"]", ClickHouseCatalog.defaultJson(strings,
            List.of(List.of("0", "['c1','c\\'2','a\\\\b\"t','x\\ty']"))));
        assertEquals("[]", ClickHouseCatalog.defaultJson(strings, List.of(List.of("0", "[]"))));
        assertEquals("[null,-3]", ClickHouseCatalog.arrayJson("[NULL,-3]"));
        assertEquals("[1.5,-2,\"NULL\"]", ClickHouseCatalog.arrayJson("[1.5,-2,'NULL']"));
    }
}
