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

        /**
         * @param n records sent over the step (its warm pass sends them twice: ids 0 to 2n - 1)
         * @return this step expecting {@code n} records
         */
        Step withRecords(final long n)
        {
            return new Step(topics, n, topicPrefix, inputTopic, sourceGroup, sinkGroup, database);
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

    /**
     * The verdict of {@link #verify} from what a database found, the same for every kind.
     *
     * @param step the step
     * @param found per table: rows, distinct ids, ids of another user or out of range, wrong user_id, wrong event
     * @param tables every table of the step's database (changed: the expected ones are removed)
     * @return as {@link #verify}
     */
    static Map<String, Object> verdict(final Step step, final Map<String, long[]> found,
        final java.util.TreeSet<String> tables)
    {
        final int k = step.topics();
        final long n = step.records();
        final Map<String, Object> r = new java.util.LinkedHashMap<>();
        final java.util.List<String> problems = new java.util.ArrayList<>();
        long rows = 0;
        long lost = 0;
        long duplicates = 0;
        long wrong = 0;
        for (long u = 0; u < k; u++)
        {
            final String table = step.tableOf(u);
            final long expected = n / k + (u < n % k ? 1 : 0);
            final long[] f = found.getOrDefault(table, new long[5]);
            rows += f[0];
            final long misplaced = f[2];
            final long badValues = Math.max(f[3], f[4]);
            // ids of this user in range, each counted once: the ones expected that are there
            final long right = f[1] - (misplaced > 0 ? Math.min(misplaced, f[1]) : 0);
            lost += Math.max(0, expected - right);
            duplicates += f[0] - f[1];
            wrong += misplaced + badValues;
            if ((expected != f[0] || f[0] != f[1] || misplaced > 0 || badValues > 0) && problems.size() < 10)
            {
                problems.add(String.format(java.util.Locale.ROOT,
                    "%s: %d rows, %d distinct ids, expected %d; %d ids of another user or out of range, "
                        + "%d wrong user_id, %d wrong event",
                    tables.contains(table) ? table : table + " (missing)", f[0], f[1], expected, misplaced, f[3],
                    f[4]));
            }
            tables.remove(table);
        }
        for (final String t : tables)
        {
            final long[] f = found.getOrDefault(t, new long[5]);
            rows += f[0];
            wrong += f[0];
            if (problems.size() < 10)
            {
                problems.add("unexpected table " + t + " with " + f[0] + " rows");
            }
        }
        r.put("ok", rows == n && lost == 0 && duplicates == 0 && wrong == 0 && tables.isEmpty());
        r.put("rows", rows);
        r.put("tables", (long)found.size());
        r.put("lost", lost);
        r.put("duplicates", duplicates);
        r.put("wrong", wrong);
        r.put("unknown_tables", tables.size());
        r.put("problems", problems);
        return r;
    }
}
