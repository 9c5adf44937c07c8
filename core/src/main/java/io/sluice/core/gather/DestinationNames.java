package io.sluice.core.gather;

import java.util.Objects;
import java.util.function.BinaryOperator;

import io.sluice.core.naming.DestinationTemplate;
import io.sluice.core.naming.IdentifierPolicy;

/**
 * The naming step of destination resolution on its own: a sink's {@code database} and {@code target_table}
 * templates resolved from a topic ({@link DestinationTemplate}: {@code {topic}}, {@code {topic_segment[n]}},
 * {@code {topic_segment[-n]}}), the sink's identifier policy applied ({@link IdentifierPolicy}: {@code rewrite} or
 * {@code quote}), and the qualified name as every statement writes it (the sink kind's quoting:
 * {@link SinkProvider#qualifiedName}, the catalog's {@code qualifiedName}).
 *
 * <p>Pure: it connects to nothing and keeps no state, so the running engine ({@link DestinationResolver}) and the
 * {@code engine.jar destination} dry run give the same answer for the same topic. A topic that cannot produce a
 * name (too few segments, an empty segment selected) gives a {@link Name} with an error that names the topic and
 * the template, never a partial name.
 *
 * <p>Immutable and thread-safe. {@link #resolve(String)} allocates; it runs once per new topic.
 */
public final class DestinationNames
{
    /**
     * A resolved destination name, or the reason there is none.
     *
     * @param database the database identifier after the policy (verbatim, unquoted), or null on error
     * @param table    the table identifier after the policy (verbatim, unquoted), or null on error
     * @param sql      the qualified name exactly as Sluice writes it into statements (ClickHouse:
     *                 {@code `database`.`table`}), or null on error
     * @param error    why the topic gives no name (names the topic and the template), or null when resolved
     */
    public record Name(String database, String table, String sql, String error)
    {
        /** @return true when the names are set, false when {@link #error()} says why not */
        public boolean ok()
        {
            return error == null;
        }
    }

    private final DestinationTemplate database;
    private final DestinationTemplate table;
    private final IdentifierPolicy policy;
    private final BinaryOperator<String> qualify;

    /**
     * @param databaseTemplate the {@code database} setting, a literal or a template
     * @param tableTemplate    the {@code target_table} setting, a literal or a template
     * @param identifierPolicy the {@code identifier} setting, {@code rewrite} or {@code quote}
     * @param qualify          the sink kind's quoting of (database, table), e.g. {@link SinkProvider#qualifiedName};
     *                         it may throw IllegalArgumentException for a name the database cannot hold
     * @throws IllegalArgumentException naming the template or policy when one is invalid
     * @throws NullPointerException     when an argument is null
     */
    public DestinationNames(final String databaseTemplate, final String tableTemplate, final String identifierPolicy,
        final BinaryOperator<String> qualify)
    {
        this.qualify = Objects.requireNonNull(qualify, "qualify");
        this.database = DestinationTemplate.parse(Objects.requireNonNull(databaseTemplate, "databaseTemplate"));
        this.table = DestinationTemplate.parse(Objects.requireNonNull(tableTemplate, "tableTemplate"));
        this.policy = IdentifierPolicy.parse(identifierPolicy);
    }

    /** @return whether database and table are both literals, so every topic gives the same name */
    public boolean isLiteral()
    {
        return database.isLiteral() && table.isLiteral();
    }

    /** @return the identifier policy applied to resolved names */
    public IdentifierPolicy policy()
    {
        return policy;
    }

    /**
     * Resolves the database and table of a topic.
     *
     * @param topic the topic a batch came from (any string for literal templates)
     * @return the names, or an error such as
     *     {@code target_table topic 'a.b' has 2 segments; template '{topic_segment[9]}' needs segment 9}
     * @throws NullPointerException when {@code topic} is null
     */
    public Name resolve(final String topic)
    {
        Objects.requireNonNull(topic, "topic");
        final DestinationTemplate.Resolution db = database.resolve(topic);
        if (!db.ok())
        {
            return new Name(null, null, null, "database " + db.error());
        }
        final DestinationTemplate.Resolution t = table.resolve(topic);
        if (!t.ok())
        {
            return new Name(null, null, null, "target_table " + t.error());
        }
        try
        {
            final String databaseName = policy.apply(db.name());
            final String tableName = policy.apply(t.name());
            return new Name(databaseName, tableName, qualify.apply(databaseName, tableName), null);
        }
        catch (final IllegalArgumentException e)
        {
            return new Name(null, null, null, "topic " + topic + " gives no usable table name: " + e.getMessage());
        }
    }
}
