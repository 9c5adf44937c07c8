package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explain --schema}: a CREATE TABLE that declares a column twice, or a Nested / named Tuple that names an
 * element twice, is refused as ClickHouse refuses it, naming the table, the column and the line.
 */
class SchemaFileDuplicatesTest
{
    @TempDir
    Path dir;

    private String refused(final String sql) throws Exception
    {
        final Path file = dir.resolve("s.sql");
        Files.writeString(file, sql);
        return assertThrows(IllegalArgumentException.class, () -> SchemaFile.load(file, "UTC")).getMessage();
    }

    @Test
    void shouldRefuseAColumnDeclaredTwice() throws Exception
    {
        assertEquals("table d.t, line 4: column id is declared twice (first on line 2); ClickHouse refuses a table "
            + "with a duplicate column", refused("""
                CREATE TABLE d.t (
                    id UInt32,
                    name String,
                    `id` UInt64 DEFAULT 0
                ) ENGINE = MergeTree ORDER BY name;
                """));
    }

    @Test
    void shouldRefuseANestedMemberDeclaredTwiceAndCountLinesAcrossStatementsAndComments() throws Exception
    {
        assertEquals("table t, line 6: column n: Nested element a is declared twice in Nested(a UInt8, a String); "
            + "ClickHouse refuses a Nested with a duplicate element name", refused("""
                -- a comment; with a semicolon
                CREATE TABLE d.ok (id UInt32) ENGINE = Memory;

                CREATE TABLE IF NOT EXISTS t
                (id UInt32,
                 n Nested(a UInt8, a String)) ENGINE = Memory;
                """));
    }

    @Test
    void shouldRefuseAFlattenedNameThatClashesWithAColumn() throws Exception
    {
        assertEquals("table d.t, line 1: column n.a is declared twice (first on line 1), as a member of Nested column "
            + "n; ClickHouse refuses a table with a duplicate column",
            refused("CREATE TABLE d.t (`n.a` Array(UInt8), n Nested(a UInt8, b String)) ENGINE = Memory"));
    }

    @Test
    void shouldRefuseANamedTupleElementDeclaredTwiceAtAnyDepth() throws Exception
    {
        assertEquals("table d.t, line 2: column p: Tuple element x is declared twice in Tuple(x UInt8, y String, x "
            + "Float64); ClickHouse refuses a Tuple with a duplicate element name",
            refused("CREATE TABLE d.t (id UInt32,\n p Array(Nullable(Tuple(x UInt8, y String, x Float64)))) "
                + "ENGINE = Memory"));
        assertEquals("table d.t, line 1: column n: Nested element b is declared twice in Nested(b Int8, b Int8); "
            + "ClickHouse refuses a Nested with a duplicate element name",
            refused("CREATE TABLE d.t (n Nested(a UInt8, m Nested(b Int8, b Int8))) ENGINE = Memory"));
    }

    @Test
    void shouldAcceptUnnamedTuplesAndDistinctNames() throws Exception
    {
        final Path file = dir.resolve("ok.sql");
        Files.writeString(file, "CREATE TABLE d.t (id UInt32, p Tuple(UInt8, UInt8, Nullable(String)), "
            + "q Tuple(Decimal(9, 2), Decimal(9, 2)), n Nested(a UInt8, b String), m Nested(a UInt8, b String), "
            + "`ID` UInt32, s String DEFAULT 'id, id') ENGINE = Memory");
        assertEquals(9, SchemaFile.load(file, "UTC").describe("d", "t").columns().size());
    }
}
