package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.gather.sink.ColumnSpec;

/**
 * {@code explain --schema}: the SQL spellings ClickHouse 18.16 takes for its types in a CREATE TABLE (its
 * {@code system.data_type_families} aliases, read in any case) are read as the names DESCRIBE gives; the spellings it
 * does not take stay as written, so they are refused as unknown types, as the server refuses them.
 */
class SchemaFileAliasesTest
{
    @Test
    void shouldReadTheAliasesThatTheServerReadsAtAnyDepth()
    {
        assertEquals("Int32", SchemaFile.canonicalType("INT"));
        assertEquals("Int32", SchemaFile.canonicalType("integer"));
        assertEquals("Int8", SchemaFile.canonicalType("TinyInt"));
        assertEquals("Int16", SchemaFile.canonicalType("SMALLINT"));
        assertEquals("Int64", SchemaFile.canonicalType("bigint"));
        assertEquals("Float32", SchemaFile.canonicalType("FLOAT"));
        assertEquals("Float64", SchemaFile.canonicalType("Double"));
        for (final String s : List.of("VARCHAR", "char", "TEXT", "tinytext", "MEDIUMTEXT", "LONGTEXT", "BLOB",
            "TINYBLOB", "MEDIUMBLOB", "LONGBLOB"))
        {
            assertEquals("String", SchemaFile.canonicalType(s), s);
        }
        assertEquals("DateTime", SchemaFile.canonicalType("TIMESTAMP"));
        assertEquals("Date", SchemaFile.canonicalType("DATE"));
        assertEquals("DateTime('UTC')", SchemaFile.canonicalType("datetime('UTC')"));
        assertEquals("Decimal(9, 2)", SchemaFile.canonicalType("DEC(9, 2)"));
        assertEquals("Decimal(18,4)", SchemaFile.canonicalType("decimal(18,4)"));
        assertEquals("FixedString(16)", SchemaFile.canonicalType("BINARY(16)"));
        assertEquals("Array(Nullable(Int64))", SchemaFile.canonicalType("Array(Nullable(BIGINT))"));
        assertEquals("Nested(text String, n Int32)", SchemaFile.canonicalType("Nested(text VARCHAR, n INT)"),
            "an element named like an alias keeps its name");
        assertEquals("Tuple(Int32, Float64)", SchemaFile.canonicalType("Tuple(INT, DOUBLE)"));
    }

    @Test
    void shouldLeaveEverythingElseAsWritten()
    {
        for (final String s : List.of("UInt32", "Decimal(9,2)", "Array(LowCardinality(String))", "Enum8('a' = 1)",
            "BOOL", "BOOLEAN", "VARCHAR(10)", "DateTime64(3)", "Nested(a UInt8, b String)"))
        {
            assertSame(s, SchemaFile.canonicalType(s), s);
        }
    }

    @Test
    void shouldDescribeATableWrittenWithAliasesAsTheServerDoes(@TempDir final Path dir) throws Exception
    {
        final Path sql = dir.resolve("s.sql");
        Files.writeString(sql, "CREATE TABLE d.t (id BIGINT, name varchar, score DOUBLE DEFAULT 0, "
            + "n Nested(a INT, b TEXT)) ENGINE = MergeTree ORDER BY id;\n");
        assertEquals(List.of(new ColumnSpec("id", "Int64", "", ""), new ColumnSpec("name", "String", "", ""),
            new ColumnSpec("score", "Float64", "DEFAULT", "0"), new ColumnSpec("n.a", "Array(Int32)", "", ""),
            new ColumnSpec("n.b", "Array(String)", "", "")),
            SchemaFile.load(sql, "UTC").describe("d", "t").columns());
    }
}
