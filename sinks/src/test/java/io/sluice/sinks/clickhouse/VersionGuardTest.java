package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

class VersionGuardTest
{
    /** A bound encoder that writes columns id, h, s (never called to encode here). */
    private static final class Encoder implements RowEncoder.Bound<Object>
    {
        @Override
        public List<String> columns()
        {
            return List.of("id", "h", "s");
        }

        @Override
        public String encode(final Object row, final Bytes<?> out)
        {
            throw new UnsupportedOperationException("not encoded in this test");
        }
    }

    @Test
    void shouldTellWhichBindingsNeedTheVersionGuard()
    {
        final TableSchema plainTable = new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8", "", ""),
            new ColumnSpec("h", "UInt64", "DEFAULT", "cityHash64(id)"), new ColumnSpec("s", "String", "", "")),
            "MergeTree", "1:2");
        final VersionGuard plain = VersionGuard.of(new Binding(new Encoder(), plainTable,
            List.of("`id`", "`h`", "`s`"), 1));
        assertTrue(plain.mergeTree());
        assertFalse(plain.sameLayoutTypes());
        assertFalse(plain.enums());
        final TableSchema memory = new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8", "", ""),
            new ColumnSpec("h", "Array(Decimal(9, 2))", "", ""), new ColumnSpec("s", "Enum8('a' = 1)", "", "")),
            "Memory", "7:8");
        final VersionGuard guarded = VersionGuard.of(new Binding(new Encoder(), memory,
            List.of("`id`", "`h`", "`s`"), 1));
        assertFalse(guarded.mergeTree());
        assertTrue(guarded.sameLayoutTypes(), "a Decimal inside an Array");
        assertTrue(guarded.enums());
    }

    @Test
    void shouldBindAPostgresTypedTableWithoutParsingItsTypes()
    {
        final TableSchema pg = new TableSchema("public", "orders.eu", List.of(new ColumnSpec("id", "bigint", "", ""),
            new ColumnSpec("h", "timestamp with time zone", "", ""), new ColumnSpec("s", "character varying(20)", "",
                "")),
            "", "");
        final Binding b = new Binding(new Encoder(), pg, List.of("\"id\"", "\"h\"", "\"s\""), 1);
        assertTrue(b.types().contains("timestamp with time zone"), "types are kept as the table spells them");
    }
}
