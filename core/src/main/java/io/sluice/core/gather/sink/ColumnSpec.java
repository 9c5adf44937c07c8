package io.sluice.core.gather.sink;

/**
 * One column of a destination table, as the destination describes it.
 *
 * @param name              column name, verbatim
 * @param type              type as the destination spells it (e.g. ClickHouse's {@code Nullable(String)})
 * @param defaultKind       empty, {@code DEFAULT}, {@code MATERIALIZED}, {@code ALIAS} or {@code EPHEMERAL}
 * @param defaultExpression the default expression text, or empty
 */
public record ColumnSpec(String name, String type, String defaultKind, String defaultExpression)
{
    /** @return whether an INSERT may write this column (MATERIALIZED and ALIAS columns are computed by the server) */
    public boolean insertable()
    {
        return !"MATERIALIZED".equals(defaultKind) && !"ALIAS".equals(defaultKind);
    }

    /** @return whether the column has a DEFAULT expression the server evaluates when a value is omitted */
    public boolean hasDefault()
    {
        return "DEFAULT".equals(defaultKind) && !defaultExpression.isEmpty();
    }
}
