package io.sluice.sinks.clickhouse;

import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.core.gather.batch.Binding;

/**
 * What a binding's table needs from {@link ClickHouseBatchWriter}'s version guard: which of its column types and its
 * engine let an insert typed for an old definition through without an error. Computed once per binding (the writer
 * keeps the last one). Immutable.
 *
 * @param mergeTree       the table's engine is of the MergeTree family, whose writer checks each column's class
 *                        against the block's on ClickHouse 18.16 (other engines store the block's bytes as they come)
 * @param sameLayoutTypes a column is (or holds) a Decimal, FixedString or Enum: a change of its scale, length or
 *                        values keeps the column's class, which 18.16's Native check does not see
 * @param enums           a column is (or holds) an Enum, whose values may be renumbered without changing its width:
 *                        the one change current servers let through a Native insert with type conversion off
 */
record VersionGuard(boolean mergeTree, boolean sameLayoutTypes, boolean enums)
{
    /**
     * @param binding a binding of a ClickHouse table
     * @return what its guard needs
     * @throws IllegalArgumentException when a column's type is no ClickHouse type
     */
    static VersionGuard of(final Binding binding)
    {
        boolean same = false;
        boolean e = false;
        for (final String type : binding.types())
        {
            final ClickHouseType parsed = ClickHouseType.parse(type);
            same |= contains(parsed, true);
            e |= contains(parsed, false);
        }
        return new VersionGuard(binding.schema().engine().endsWith("MergeTree"), same, e);
    }

    /** Whether the type holds a type whose changes keep the column's layout (Decimal, FixedString, Enum) or an Enum. */
    private static boolean contains(final ClickHouseType type, final boolean anySameLayout)
    {
        switch (type.kind())
        {
            case ENUM8 :
            case ENUM16 :
                return true;
            case DECIMAL :
            case FIXED_STRING :
                return anySameLayout;
            default :
                for (final ClickHouseType n : type.nestedTypes())
                {
                    if (contains(n, anySameLayout))
                    {
                        return true;
                    }
                }
                return false;
        }
    }
}
