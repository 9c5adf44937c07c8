package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.gather.sink.ColumnSpec;

/**
 * {@code explain --schema}: a DEFAULT that is an array or map literal holds commas that do not end the column
 * ({@code DEFAULT [1, 2]}, {@code DEFAULT ['c1','c2']}, the example of docs/codecs.md), as the server reads it; a
 * fresh-user trial saw {@code [1,2]} read as an extra column named {@code 2} of type {@code ]}.
 */
class SchemaFileArrayDefaultsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldReadArrayAndMapLiteralsInADefaultAsOneColumn() throws Exception
    {
        final Path file = dir.resolve("s.sql");
        Files.writeString(file, """
            CREATE TABLE d.t (
                id UInt32,
                x Array(UInt8) DEFAULT [1,2],
                `n.a` Array(String) DEFAULT ['c1','c2'],
                deep Array(Array(UInt8)) DEFAULT [[1, 2], [3]],
                s String DEFAULT 'a,b'
            ) ENGINE = MergeTree ORDER BY id;
            """);
        final SchemaFile f = SchemaFile.load(file, "UTC");
        final List<ColumnSpec> columns = f.describe("d", "t").columns();
        assertEquals(List.of("id", "x", "n.a", "deep", "s"), columns.stream().map(ColumnSpec::name).toList());
        assertEquals(List.of("", "[1,2]", "['c1','c2']", "[[1, 2], [3]]", "'a,b'"),
            columns.stream().map(ColumnSpec::defaultExpression).toList());
    }
}
