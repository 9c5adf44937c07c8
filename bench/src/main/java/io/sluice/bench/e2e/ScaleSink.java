package io.sluice.bench.e2e;

import java.util.Map;

/**
 * The database side of one step of the cost curve ({@link ScaleRun}): where the gather sink of the three-line design
 * writes, how its rows are watched while the step runs, and how they are verified afterwards. {@link ScaleRun} owns
 * the broker side (the input topic, the routing rule, the created topics, the consumer groups) and the measuring; a
 * sink kind is added by implementing this for its database (ClickHouse: {@link ClickHouseScaleSink}).
 *
 * <p>One instance serves one step; it is used by the step's thread and by the sampling thread ({@link #rowsPerTable}
 * only), so implementations keep no state that those calls change.
 */
interface ScaleSink
{
    /** The names of one step: unique per run and step, so that other users of the services are never touched. */
    record Step(int topics, long records, String topicPrefix, String inputTopic, String sourceGroup,
        String sinkGroup, String database)
    {
        /** @return the table the records of user {@code user} go to (the template {@code user_{topic_segment[-1]}}) */
        String tableOf(final long user)
        {
            return "user_" + user;
        }
    }

    /** @return the sink kind, as in the configuration ({@code clickhouse}) */
    String kind();

    /** @return the database server's version, for the report ("?" if unknown) */
    String version();

    /** @return the TCP port the database server listens on (its CPU is found by it), or -1 */
    int serverPort();

    /**
     * Creates what the step's sink needs before the engine starts (the database; tables are created by the sink).
     *
     * @throws Exception if the database refuses
     */
    void prepare(Step step) throws Exception;

    /**
     * @param bootstrap the Kafka bootstrap servers
     * @return the step's whole pipeline configuration (TOML): the scatter source reading {@link Step#inputTopic}
     *     and routing by {@code user_id} into {@code <topicPrefix>.{value}} with topic creation on, and this kind's
     *     gather sink following {@code <topicPrefix>\..*} into a table per topic created on first use, with an
     *     {@code id} column of the record's {@code id}
     * @throws Exception if the example it is derived from cannot be read or changed shape
     */
    String config(Step step, String bootstrap) throws Exception;

    /**
     * Times the database's own table creation with the step's DDL, in a scratch database of its own, before the engine
     * starts: the sink creates a table per new topic, so this bounds how fast new topics can get their first rows.
     *
     * @param step the step (its DDL and names)
     * @param bootstrap as for {@link #config}
     * @param tables how many tables to create
     * @return the seconds each creation took, in order
     * @throws Exception if the database refuses
     */
    double[] timeTableCreation(Step step, String bootstrap, int tables) throws Exception;

    /**
     * @return per table of the step's database, the rows it holds now (tables without rows may be left out)
     * @throws Exception if the database cannot be asked
     */
    Map<String, Long> rowsPerTable(Step step) throws Exception;

    /**
     * Verifies every table of the step against the input: record {@code i} ({@code 0 <= i < records}) is user
     * {@code i % topics}'s, with {@code user_id} its user and {@code event} {@code "e" + i}, and must be in
     * {@link Step#tableOf that user's table} exactly once; no other table or row may exist.
     *
     * @return what was found: {@code ok} (boolean), {@code rows}, {@code tables}, {@code lost}, {@code duplicates},
     *     {@code wrong} (a row in the wrong table or with wrong values), {@code unknown_tables}, {@code problems}
     *     (a few examples)
     * @throws Exception if the database cannot be asked
     */
    Map<String, Object> verify(Step step) throws Exception;

    /**
     * @return how the rows were written: rows per insert and what the database keeps per table (for ClickHouse:
     *     parts created, active parts per table, from system.parts)
     * @throws Exception if the database cannot be asked
     */
    Map<String, Object> insertStats(Step step) throws Exception;

    /**
     * Drops what {@link #prepare} created and the sink made in it.
     *
     * @return how long it took, in seconds
     * @throws Exception if the database refuses
     */
    double cleanup(Step step) throws Exception;
}
