package io.sluice.bench.e2e;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The PostgreSQL side of the cost curve: the sink of {@code examples/users-three-lines.toml} turned into
 * {@code kind = "postgres"} (a table per topic, {@code user_{topic_segment[-1]}}, created on first use from
 * {@code create_table_ddl}: {@code id bigint, user_id text, event text, at timestamptz DEFAULT now()}), in a fresh
 * schema per step of the database of the JDBC URL (user {@code sluice}, password from PGPASSWORD). Rows are counted
 * and verified with {@code count(*)} per table, up to {@value #CHUNK} tables per query ({@code UNION ALL}); the
 * inserts per table are the distinct transactions that wrote its rows ({@code count(DISTINCT xmin)}: the sink writes
 * each batch as one COPY in one transaction), so rows per insert is rows per COPY. Connections are opened per call:
 * the sampling thread and the step's thread never share one. Thread-safe.
 */
final class PostgresScaleSink implements ScaleSink
{
    /** Tables per query (and per DROP): well under max_locks_per_transaction x max_connections. */
    private static final int CHUNK = 500;

    private final String jdbcUrl;
    private final Path root;
    private final long maxNewTopicsPerMinute;

    /**
     * @param jdbcUrl the database, e.g. {@code jdbc:postgresql://127.0.0.1:15432/sluice}
     * @param root the project's root (the example is read from there)
     * @param maxNewTopicsPerMinute the source's {@code max_new_topics_per_minute}
     */
    PostgresScaleSink(final String jdbcUrl, final Path root, final long maxNewTopicsPerMinute)
    {
        this.jdbcUrl = jdbcUrl;
        this.root = root;
        this.maxNewTopicsPerMinute = maxNewTopicsPerMinute;
    }

    private Connection connect() throws SQLException
    {
        return DriverManager.getConnection(jdbcUrl, "sluice", System.getenv("PGPASSWORD"));
    }

    private static String quote(final String identifier)
    {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    @Override
    public String kind()
    {
        return "postgres";
    }

    @Override
    public String version()
    {
        try (Connection c = connect();
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SHOW server_version"))
        {
            return rs.next() ? rs.getString(1) : "?";
        }
        catch (final SQLException e)
        {
            return "?";
        }
    }

    @Override
    public int serverPort()
    {
        final URI u = URI.create(jdbcUrl.substring("jdbc:".length()));
        return u.getPort() > 0 ? u.getPort() : 5432;
    }

    @Override
    public void prepare(final Step step) throws Exception
    {
        dropSchema(step.database());
        try (Connection c = connect(); Statement st = c.createStatement())
        {
            st.execute("CREATE SCHEMA " + quote(step.database()));
        }
    }

    @Override
    public String config(final Step step, final String bootstrap) throws Exception
    {
        final String example = Files.readString(root.resolve("examples/users-three-lines.toml"));
        final Map<String, String> replace = new LinkedHashMap<>();
        replace.put("\"127.0.0.1:${SLUICE_KAFKA_PORT:-19092}\"", "\"" + bootstrap + "\"");
        replace.put("input_topics = [\"signups\"]", "input_topics = [\"" + step.inputTopic() + "\"]");
        replace.put("group_id = \"sluice-signups\"", "group_id = \"" + step.sourceGroup() + "\"");
        replace.put("group_id = \"sluice-users\"", "group_id = \"" + step.sinkGroup() + "\"");
        replace.put("template = \"users.{value}\"", "template = \"" + step.topicPrefix() + ".{value}\"");
        replace.put("pattern = 'users\\..*'", "pattern = '" + step.topicPrefix().replace(".", "\\.") + "\\..*'");
        replace.put("\npartitions = 1\n", "\npartitions = 1\nmax_new_topics_per_minute = " + maxNewTopicsPerMinute
            + "\n");
        replace.put("kind = \"clickhouse\"", "kind = \"postgres\"");
        replace.put("endpoint = \"http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}\"",
            "url = \"" + jdbcUrl + "\"\nusername = \"sluice\"\npassword = \"${PGPASSWORD}\"");
        replace.put("database = \"users\"", "schema = \"" + step.database() + "\"");
        String toml = example;
        for (final Map.Entry<String, String> e : replace.entrySet())
        {
            if (!toml.contains(e.getKey()))
            {
                throw new IllegalStateException("examples/users-three-lines.toml changed shape: no " + e.getKey());
            }
            toml = toml.replace(e.getKey(), e.getValue());
        }
        return toml.replaceFirst("create_table_ddl = \"[^\"\n]*\"", "create_table_ddl = \"" + ddl() + "\"");
    }

    /** The step's table, in the sink's placeholders. */
    private static String ddl()
    {
        return "CREATE TABLE {schema}.{table} (id bigint, user_id text, event text, at timestamptz DEFAULT now())";
    }

    @Override
    public double[] timeTableCreation(final Step step, final String bootstrap, final int tables) throws Exception
    {
        final String scratch = step.database() + "_ddl";
        dropSchema(scratch);
        final double[] seconds = new double[tables];
        try (Connection c = connect(); Statement st = c.createStatement())
        {
            st.execute("CREATE SCHEMA " + quote(scratch));
            for (int i = 0; i < tables; i++)
            {
                final long t = System.nanoTime();
                st.execute(ddl().replace("{schema}", quote(scratch)).replace("{table}", quote("t" + i)));
                seconds[i] = (System.nanoTime() - t) / 1e9;
            }
        }
        finally
        {
            dropSchema(scratch);
        }
        return seconds;
    }

    /** @return the tables of a schema, by name */
    private static List<String> tables(final Connection c, final String schema) throws SQLException
    {
        final List<String> names = new ArrayList<>();
        try (var ps = c.prepareStatement("SELECT tablename FROM pg_tables WHERE schemaname = ? ORDER BY tablename"))
        {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery())
            {
                while (rs.next())
                {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /**
     * Runs {@code perTable} (with {@code %s} for the quoted table and {@code %t} for its name as a literal) over every
     * table of the schema, {@value #CHUNK} tables per query.
     *
     * @return per table, its row of longs
     */
    private Map<String, long[]> perTable(final String schema, final String select, final int columns)
        throws SQLException
    {
        final Map<String, long[]> m = new TreeMap<>();
        try (Connection c = connect(); Statement st = c.createStatement())
        {
            final List<String> names = tables(c, schema);
            for (int from = 0; from < names.size(); from += CHUNK)
            {
                final StringBuilder q = new StringBuilder();
                for (final String t : names.subList(from, Math.min(names.size(), from + CHUNK)))
                {
                    q.append(q.length() == 0 ? "" : " UNION ALL ").append(select
                        .replace("%t", "'" + t.replace("'", "''") + "'")
                        .replace("%s", quote(schema) + "." + quote(t)));
                }
                try (ResultSet rs = st.executeQuery(q.toString()))
                {
                    while (rs.next())
                    {
                        final long[] v = new long[columns];
                        for (int i = 0; i < columns; i++)
                        {
                            v[i] = rs.getLong(i + 2);
                        }
                        m.put(rs.getString(1), v);
                    }
                }
            }
        }
        return m;
    }

    @Override
    public Map<String, Long> rowsPerTable(final Step step) throws Exception
    {
        final Map<String, Long> m = new TreeMap<>();
        for (final Map.Entry<String, long[]> e : perTable(step.database(), "SELECT %t, count(*) FROM %s", 1)
            .entrySet())
        {
            m.put(e.getKey(), e.getValue()[0]);
        }
        return m;
    }

    @Override
    public Map<String, Object> verify(final Step step) throws Exception
    {
        final int k = step.topics();
        final long n = step.records();
        // per table: rows, distinct ids, ids of another user or out of range, wrong user_id, wrong event
        final Map<String, long[]> found = perTable(step.database(), "SELECT %t, count(*), count(DISTINCT id), "
            + "count(*) FILTER (WHERE id IS NULL OR id >= " + n + " OR 'user_' || (id % " + k + ")::text <> %t), "
            + "count(*) FILTER (WHERE 'user_' || user_id IS DISTINCT FROM %t), "
            + "count(*) FILTER (WHERE event IS DISTINCT FROM 'e' || id::text) FROM %s", 5);
        final TreeSet<String> tables = new TreeSet<>(found.keySet());
        return ScaleSink.verdict(step, found, tables);
    }

    @Override
    public Map<String, Object> insertStats(final Step step) throws Exception
    {
        long tables = 0;
        long inserts = 0;
        long rows = 0;
        long insertsMax = 0;
        double perInsertMin = Double.NaN;
        double perInsertMax = Double.NaN;
        for (final long[] f : perTable(step.database(),
            "SELECT %t, count(*), count(DISTINCT xmin::text) FROM %s", 2).values())
        {
            if (f[1] == 0)
            {
                continue;
            }
            tables++;
            rows += f[0];
            inserts += f[1];
            insertsMax = Math.max(insertsMax, f[1]);
            final double mean = (double)f[0] / f[1];
            perInsertMin = Double.isNaN(perInsertMin) ? mean : Math.min(perInsertMin, mean);
            perInsertMax = Double.isNaN(perInsertMax) ? mean : Math.max(perInsertMax, mean);
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("tables_with_rows", tables);
        m.put("inserts", inserts);
        m.put("rows_per_insert_mean", inserts == 0 ? Double.NaN : (double)rows / inserts);
        m.put("rows_per_insert_table_mean_min", perInsertMin);
        m.put("rows_per_insert_table_mean_max", perInsertMax);
        m.put("inserts_per_table_max", insertsMax);
        return m;
    }

    @Override
    public double cleanup(final Step step) throws Exception
    {
        final long t = System.nanoTime();
        dropSchema(step.database());
        return (System.nanoTime() - t) / 1e9;
    }

    /** Drops a schema's tables {@value #CHUNK} per transaction (one DROP SCHEMA CASCADE locks them all), then it. */
    private void dropSchema(final String schema) throws SQLException
    {
        try (Connection c = connect(); Statement st = c.createStatement())
        {
            final List<String> names = tables(c, schema);
            for (int from = 0; from < names.size(); from += CHUNK)
            {
                final List<String> quoted = new ArrayList<>();
                for (final String t : names.subList(from, Math.min(names.size(), from + CHUNK)))
                {
                    quoted.add(quote(schema) + "." + quote(t));
                }
                st.execute("DROP TABLE IF EXISTS " + String.join(", ", quoted));
            }
            st.execute("DROP SCHEMA IF EXISTS " + quote(schema) + " CASCADE");
        }
    }
}
