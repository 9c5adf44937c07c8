package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.gather.sink.ColumnSpec;

/**
 * {@code explain --schema}: a {@code Nested} column of a CREATE TABLE is read as the server describes it (its members
 * as {@code n.a Array(T)}, flatten_nested = 1, checked on 18.16), so the dry run binds the same columns as a run
 * (before, such a schema file was refused: "unsupported or unknown type 'Nested'").
 */
class SchemaFileNestedTest
{
    @Test
    void shouldDescribeANestedColumnAsItsArrayMembers(@TempDir final Path dir) throws Exception
    {
        final Path sql = dir.resolve("s.sql");
        Files.writeString(sql, "CREATE TABLE d.t (id UInt32, n Nested(a UInt8, `b` LowCardinality(String), "
            + "c Nullable(Decimal(9, 2))), tags Array(String)) ENGINE = MergeTree ORDER BY id;\n");
        final List<ColumnSpec> columns = SchemaFile.load(sql, "UTC").describe("d", "t").columns();
        assertEquals(List.of(new ColumnSpec("id", "UInt32", "", ""), new ColumnSpec("n.a", "Array(UInt8)", "", ""),
            new ColumnSpec("n.b", "Array(LowCardinality(String))", "", ""),
            new ColumnSpec("n.c", "Array(Nullable(Decimal(9, 2)))", "", ""),
            new ColumnSpec("tags", "Array(String)", "", "")), columns);
    }
}
