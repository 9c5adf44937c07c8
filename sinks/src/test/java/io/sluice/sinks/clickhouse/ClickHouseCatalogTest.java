package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** create_table_ddl: the placeholders are replaced by quoted identifiers in one pass. */
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
}
