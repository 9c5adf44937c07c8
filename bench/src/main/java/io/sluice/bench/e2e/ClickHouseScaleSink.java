package io.sluice.bench.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ClickHouse side of the cost curve: the sink of {@code examples/users-three-lines.toml} (a table per topic,
 * {@code user_{topic_segment[-1]}}, created on first use from {@code create_table_ddl}), pointed at a fresh database
 * per step, with an {@code id UInt64} column added to the example's DDL so that every row can be checked against its
 * record. Rows are watched in {@code system.parts} (active parts), verified through the {@code merge()} table
 * function (one query over every table of the step), and counted per insert from the level-0 parts each INSERT made
 * (one per insert into an unpartitioned MergeTree table; merged-away parts stay listed, inactive, for
 * {@code old_parts_lifetime}, 8 minutes by default). Thread-safe: no mutable state.
 */
final class ClickHouseScaleSink implements ScaleSink
{

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String endpoint;
    private final Path root;
    private final long maxNewTopicsPerMinute;

    /**
     * @param endpoint the ClickHouse HTTP endpoint, e.g. {@code http://127.0.0.1:18123}
     * @param root the project's root (the example is read from there)
     * @param maxNewTopicsPerMinute the source's {@code max_new_topics_per_minute} (the example's default of 100
     *     would make a step of 10,000 topics take 100 minutes by design)
     */
    ClickHouseScaleSink(final String endpoint, final Path root, final long maxNewTopicsPerMinute)
    {
        this.endpoint = endpoint;
        this.root = root;
        this.maxNewTopicsPerMinute = maxNewTopicsPerMinute;
    }

    @Override
    public String kind()
    {
        return "clickhouse";
    }

    @Override
    public String version()
    {
        try
        {
            return sql("SELECT version()");
        }
        catch (final IOException | InterruptedException | RuntimeException e)
        {
            return "?";
        }
    }

    @Override
    public int serverPort()
    {
        final URI u = URI.create(endpoint);
        return u.getPort() > 0 ? u.getPort() : "https".equals(u.getScheme()) ? 8443 : 8123;
    }

    @Override
    public void prepare(final Step step) throws Exception
    {
        sql("DROP DATABASE IF EXISTS " + step.database());
        sql("CREATE DATABASE " + step.database());
    }

    @Override
    public String config(final Step step, final String bootstrap) throws IOException
    {
        final String example = Files.readString(root.resolve("examples/users-three-lines.toml"));
        final Map<String, String> replace = new LinkedHashMap<>();
        replace.put("\"127.0.0.1:${SLUICE_KAFKA_PORT:-19092}\"", "\"" + bootstrap + "\"");
        replace.put("\"http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}\"", "\"" + endpoint + "\"");
        replace.put("input_topics = [\"signups\"]", "input_topics = [\"" + step.inputTopic() + "\"]");
        replace.put("group_id = \"sluice-signups\"", "group_id = \"" + step.sourceGroup() + "\"");
        replace.put("group_id = \"sluice-users\"", "group_id = \"" + step.sinkGroup() + "\"");
        replace.put("template = \"users.{value}\"", "template = \"" + step.topicPrefix() + ".{value}\"");
        replace.put("pattern = 'users\\..*'", "pattern = '" + step.topicPrefix().replace(".", "\\.") + "\\..*'");
        replace.put("database = \"users\"", "database = \"" + step.database() + "\"");
        replace.put("\npartitions = 1\n", "\npartitions = 1\nmax_new_topics_per_minute = " + maxNewTopicsPerMinute
            + "\n");
        replace.put("(user_id String, event String,", "(id UInt64, user_id String, event String,");
        String toml = example;
        for (final Map.Entry<String, String> e : replace.entrySet())
        {
            if (!toml.contains(e.getKey()))
            {
                throw new IllegalStateException("examples/users-three-lines.toml changed shape: no " + e.getKey());
            }
            toml = toml.replace(e.getKey(), e.getValue());
        }
        return toml;
    }

    @Override
    public double[] timeTableCreation(final Step step, final String bootstrap, final int tables) throws Exception
    {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("create_table_ddl = \"([^\"]+)\"")
            .matcher(config(step, bootstrap));
        if (!m.find())
        {
            throw new IllegalStateException("examples/users-three-lines.toml changed shape: no create_table_ddl");
        }
        final String scratch = step.database() + "_ddl";
        sql("DROP DATABASE IF EXISTS " + scratch);
        sql("CREATE DATABASE " + scratch);
        final double[] seconds = new double[tables];
        try
        {
            for (int i = 0; i < tables; i++)
            {
                final long t = System.nanoTime();
                sql(m.group(1).replace("{database}", scratch).replace("{table}", "t" + i));
                seconds[i] = (System.nanoTime() - t) / 1e9;
            }
        }
        finally
        {
            sql("DROP DATABASE IF EXISTS " + scratch);
        }
        return seconds;
    }

    @Override
    public Map<String, Long> rowsPerTable(final Step step) throws Exception
    {
        final Map<String, Long> m = new TreeMap<>();
        for (final String[] f : rows("SELECT table, sum(rows) FROM system.parts WHERE database = '" + step.database()
            + "' AND active GROUP BY table"))
        {
            m.put(f[0], Long.parseLong(f[1]));
        }
        return m;
    }

    @Override
    public Map<String, Object> verify(final Step step) throws Exception
    {
        final int k = step.topics();
        final long n = step.records();
        final TreeSet<String> tables = new TreeSet<>();
        for (final String[] f : rows("SELECT name FROM system.tables WHERE database = '" + step.database() + "'"))
        {
            tables.add(f[0]);
        }
        final Map<String, long[]> found = new TreeMap<>();
        if (!tables.isEmpty())
        {
            // per table: rows, distinct ids, ids of another user or out of range, wrong user_id, wrong event
            for (final String[] f : rows("SELECT _table, count(), uniqExact(id), countIf(id >= " + n
                + " OR toString(id % " + k + ") != substring(_table, 6)), countIf(user_id != substring(_table, 6)),"
                + " countIf(event != concat('e', toString(id))) FROM merge(" + step.database()
                + ", '^user_') GROUP BY _table"))
            {
                found.put(f[0], new long[]{Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5])});
            }
        }
        return ScaleSink.verdict(step, found, tables);
    }

    @Override
    public Map<String, Object> insertStats(final Step step) throws Exception
    {
        long tables = 0;
        long created = 0;
        long rows = 0;
        long active = 0;
        long activeMax = 0;
        long createdMax = 0;
        double perInsertMin = Double.NaN;
        double perInsertMax = Double.NaN;
        for (final String[] f : rows("SELECT table, countIf(level = 0), sumIf(rows, level = 0), countIf(active) "
            + "FROM system.parts WHERE database = '" + step.database() + "' GROUP BY table"))
        {
            final long c = Long.parseLong(f[1]);
            final long r = Long.parseLong(f[2]);
            final long a = Long.parseLong(f[3]);
            tables++;
            created += c;
            rows += r;
            active += a;
            activeMax = Math.max(activeMax, a);
            createdMax = Math.max(createdMax, c);
            if (c > 0)
            {
                final double mean = (double)r / c;
                perInsertMin = Double.isNaN(perInsertMin) ? mean : Math.min(perInsertMin, mean);
                perInsertMax = Double.isNaN(perInsertMax) ? mean : Math.max(perInsertMax, mean);
            }
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("tables_with_parts", tables);
        m.put("inserts", created);
        m.put("rows_per_insert_mean", created == 0 ? Double.NaN : (double)rows / created);
        m.put("rows_per_insert_table_mean_min", perInsertMin);
        m.put("rows_per_insert_table_mean_max", perInsertMax);
        m.put("inserts_per_table_max", createdMax);
        m.put("parts_per_table_mean", tables == 0 ? Double.NaN : (double)active / tables);
        m.put("parts_per_table_max", activeMax);
        m.put("active_parts", active);
        return m;
    }

    @Override
    public double cleanup(final Step step) throws Exception
    {
        final long t = System.nanoTime();
        sql("DROP DATABASE IF EXISTS " + step.database());
        return (System.nanoTime() - t) / 1e9;
    }

    private List<String[]> rows(final String query) throws IOException, InterruptedException
    {
        final List<String[]> out = new ArrayList<>();
        final String body = sql(query + " FORMAT TabSeparated");
        if (!body.isEmpty())
        {
            for (final String line : body.split("\n"))
            {
                out.add(line.split("\t", -1));
            }
        }
        return out;
    }

    private String sql(final String query) throws IOException, InterruptedException
    {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/"))
            .POST(HttpRequest.BodyPublishers.ofString(query)).timeout(Duration.ofMinutes(5)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200)
        {
            throw new IllegalStateException("ClickHouse: " + query + ": HTTP " + r.statusCode() + ": "
                + r.body().strip());
        }
        return r.body().strip();
    }
}
