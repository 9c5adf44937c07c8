package io.sluice.engine.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sluice.engine.TestServices;

/**
 * The fault scenarios' PostgreSQL: a schema of its own per scenario in a database reached over pgJDBC, holding the
 * eight tables of {@code examples/github-events-postgres.sql} without their primary keys (the engine appends, so a
 * record written twice is two rows and duplicates stay countable, as in ClickHouse's MergeTree tables). The engine
 * runs the shipped {@code examples/github-events-postgres.toml} with {@code insert_mode = "append"}; the password
 * reaches it as {@code ${PGPASSWORD}} in its environment, never in a file.
 *
 * <p>{@link Server} is a PostgreSQL of a test's own ({@code scripts/services.sh start postgres} with its own
 * {@code SLUICE_HOME} and port), for the scenarios that stop or freeze the server: the shared one on 15432 is never
 * stopped or frozen.
 */
final class FaultPostgres implements Faults.Store
{
    /** The engines' {@code connect_timeout_ms}: generous, as their {@code engine.kafka_check_timeout_ms}. */
    static final long CONNECT_TIMEOUT_MS = 60_000;

    final String url;
    private final String user;
    private final String password;

    FaultPostgres(final String url, final String user, final String password)
    {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** @return the user the store logs in as (the engine's {@code username}) */
    String user()
    {
        return user;
    }

    /** The shared PostgreSQL ({@code -Dsluice.postgres.url}, the test user of the services' secrets). */
    static FaultPostgres shared()
    {
        final Map<String, String> secrets = TestServices.secrets();
        return new FaultPostgres(System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice"),
            secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
    }

    @Override
    public String kind()
    {
        return "PostgreSQL";
    }

    Connection open() throws SQLException
    {
        final Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "5");
        p.setProperty("socketTimeout", "60");
        p.setProperty("ApplicationName", "sluice-fault-test");
        return DriverManager.getConnection(url, p);
    }

    /** Runs the statements in one session (autocommit), failing the test on any error. */
    void sql(final String... statements)
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException("PostgreSQL " + url + ": " + e.getMessage() + " for "
                + Arrays.toString(statements), e);
        }
    }

    long sqlLong(final String query)
    {
        try (Connection c = open(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(query))
        {
            r.next();
            return r.getLong(1);
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException("PostgreSQL " + url + ": " + e.getMessage() + " for [" + query + "]", e);
        }
    }

    /** @return whether the server takes a login and answers a query now */
    boolean answers()
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            s.setQueryTimeout(2);
            return s.execute("SELECT 1");
        }
        catch (final SQLException e)
        {
            return false;
        }
    }

    static String q(final String identifier)
    {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    @Override
    public List<String> createGithubTables(final String schema) throws IOException
    {
        final String ddl = Files.readString(Faults.projectRoot().resolve("examples/github-events-postgres.sql"))
            .replaceAll("--[^\n]*", "");
        final List<String> tables = new ArrayList<>();
        final Matcher m = Pattern.compile("CREATE TABLE IF NOT EXISTS \"public\"\\.\"(\\w+)\"").matcher(ddl);
        while (m.find())
        {
            tables.add(m.group(1));
        }
        if (tables.isEmpty())
        {
            throw new IllegalStateException("no tables found in examples/github-events-postgres.sql");
        }
        final List<String> statements = new ArrayList<>();
        statements.add("CREATE SCHEMA " + q(schema));
        for (final String stmt : ddl.replace("\"public\".", q(schema) + ".").replace(" PRIMARY KEY", "").split(";"))
        {
            if (!stmt.isBlank())
            {
                statements.add(stmt);
            }
        }
        sql(statements.toArray(new String[0]));
        return tables;
    }

    @Override
    public String pipelineToml(final String topic, final String group, final String schema,
        final long stalledFailAfterMs, final int metricsPort, final String clientId) throws IOException
    {
        String t = Files.readString(Faults.projectRoot().resolve("examples/github-events-postgres.toml"));
        t = Faults.replaceOnce(t, "bootstrap_servers = \"127.0.0.1:${SLUICE_KAFKA_PORT:-19092}\"",
            "bootstrap_servers = \"" + Faults.bootstrap() + "\"");
        t = Faults.replaceOnce(t, "url = \"postgresql://127.0.0.1:${SLUICE_POSTGRES_PORT:-15432}/analytics\"",
            "url = \"" + url + "\"");
        t = Faults.replaceOnce(t, "username = \"sluice\"", "username = \"" + user + "\"");
        t = Faults.replaceOnce(t, "schema = \"public\"", "schema = \"" + schema + "\"");
        // as engine.kafka_check_timeout_ms: a login on a starved machine can take longer than the default 10 s
        t = Faults.replaceOnce(t, "password = \"${PGPASSWORD}\"", "password = \"${PGPASSWORD}\"\n"
            + "connect_timeout_ms = " + CONNECT_TIMEOUT_MS);
        t = Faults.replaceOnce(t, "insert_mode = \"upsert\"", "insert_mode = \"append\"");
        t = Faults.replaceOnce(t, "pattern = 'github\\.events'", "pattern = '" + Pattern.quote(topic) + "'");
        t = Faults.replaceOnce(t, "group_id = \"sluice-github-pg\"", "group_id = \"" + group + "\"");
        t = t.replaceFirst("stalled_fail_after_ms = \\d+", "stalled_fail_after_ms = " + stalledFailAfterMs);
        return Faults.withRunSettings(t, metricsPort, clientId);
    }

    @Override
    public Map<String, String> engineEnv()
    {
        return Map.of("PGPASSWORD", password);
    }

    /** Rows over the schema's tables, whatever their columns (an exact count: the tables are small). */
    long rows(final String schema, final List<String> tables)
    {
        final StringBuilder sb = new StringBuilder("SELECT 0");
        for (final String t : tables)
        {
            sb.append(" + (SELECT count(*) FROM ").append(q(schema)).append('.').append(q(t)).append(')');
        }
        return sqlLong(sb.toString());
    }

    /**
     * Waits until no session of the engine ({@code application_name} {@code sluice}) is inside a statement or a
     * transaction on the schema's tables and the row count has stayed the same for two reads 250 ms apart, at most
     * 60 s (a loaded machine). A COPY whose client was killed is rolled back by the server, but a COMMIT already sent
     * completes without it. Fails naming the sessions still busy and the last row counts.
     */
    @Override
    public void settle(final String schema)
    {
        final List<String> tables = tablesOf(schema);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long last = rows(schema, tables);
        long busy = -1;
        long now = last;
        int stable = 0;
        while (System.nanoTime() < deadline)
        {
            Faults.sleep(250);
            busy = sqlLong("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND application_name = 'sluice' AND state <> 'idle' AND position('" + schema.replace("'", "''")
                + "' in query) > 0");
            now = rows(schema, tables);
            stable = busy == 0 && now == last ? stable + 1 : 0;
            if (stable >= 2)
            {
                return;
            }
            last = now;
        }
        throw new AssertionError("writes into schema " + schema + " did not settle within 60 s: " + busy
            + " engine sessions still busy on it, rows " + last + " then " + now);
    }

    private List<String> tablesOf(final String schema)
    {
        final List<String> out = new ArrayList<>();
        try (Connection c = open();
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery(
                "SELECT tablename FROM pg_tables WHERE schemaname = '" + schema.replace("'", "''") + "' ORDER BY 1"))
        {
            while (r.next())
            {
                out.add(r.getString(1));
            }
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException("PostgreSQL " + url + ": " + e.getMessage(), e);
        }
        return out;
    }

    private static String union(final String schema, final List<String> tables)
    {
        final StringBuilder sb = new StringBuilder();
        for (final String t : tables)
        {
            sb.append(sb.length() == 0 ? "" : " UNION ALL ").append("SELECT id FROM ").append(q(schema)).append('.')
                .append(q(t));
        }
        return sb.toString();
    }

    @Override
    public long[] countAndUniq(final String schema, final List<String> tables)
    {
        try (Connection c = open();
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT count(*), count(DISTINCT id) FROM (" + union(schema, tables)
                + ") AS u"))
        {
            r.next();
            return new long[]{r.getLong(1), r.getLong(2)};
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException("PostgreSQL " + url + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long[] distinctIds(final String schema, final List<String> tables)
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            c.setAutoCommit(false); // a cursor: the ids are fetched in parts
            s.setFetchSize(50_000);
            long[] ids = new long[1 << 16];
            int n = 0;
            try (ResultSet r = s.executeQuery("SELECT DISTINCT id FROM (" + union(schema, tables) + ") AS u"))
            {
                while (r.next())
                {
                    if (n == ids.length)
                    {
                        ids = Arrays.copyOf(ids, n * 2);
                    }
                    ids[n++] = r.getLong(1);
                }
            }
            c.commit();
            final long[] out = Arrays.copyOf(ids, n);
            Arrays.sort(out);
            return out;
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException("PostgreSQL " + url + ": " + e.getMessage(), e);
        }
    }

    /**
     * A real DROP TABLE: in one transaction the table is locked (ACCESS EXCLUSIVE: a COPY of the engine either
     * committed before or waits and then finds the table gone), its rows copied to {@code table_gone}, and it is dropped.
     */
    @Override
    public String removeTable(final String schema, final String table)
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            c.setAutoCommit(false);
            s.execute("LOCK TABLE " + q(schema) + "." + q(table) + " IN ACCESS EXCLUSIVE MODE");
            s.execute("CREATE TABLE " + q(schema) + "." + q(table + "_gone") + " AS SELECT * FROM " + q(schema) + "."
                + q(table));
            s.execute("DROP TABLE " + q(schema) + "." + q(table));
            c.commit();
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException("PostgreSQL " + url + ": " + e.getMessage(), e);
        }
        return "DROP (its rows copied to " + table + "_gone in the same transaction)";
    }

    @Override
    public boolean names(final String line, final String schema, final String table)
    {
        return line.contains(q(schema) + "." + q(table));
    }

    @Override
    public void drop(final String schema)
    {
        sql("DROP SCHEMA " + q(schema) + " CASCADE");
    }

    // ------------------------------------------------------------------------------------------------ own server

    /**
     * A PostgreSQL of a test's own: {@code scripts/services.sh start|stop|wipe postgres} with {@code SLUICE_HOME} under
     * {@code engine/target/faults/} and a free port, plain TCP only ({@code SLUICE_SECURE=0}); services.sh runs it as
     * the package's system user. Its processes are found by the server's own lock file (the postmaster, {@link
     * #postmaster()}) and as the postmaster's children (the backends and auxiliary processes), never by name.
     */
    static final class Server
    {
        private final Path dir;
        private final Path home;
        final int port;

        Server(final Path dir, final int port)
        {
            this.dir = dir;
            this.home = dir.resolve("sluice-home");
            this.port = port;
        }

        /** @return a store on this server's database {@code sluice}, as its user {@code sluice} */
        FaultPostgres store() throws IOException
        {
            final Map<String, String> secrets = new HashMap<>();
            for (final String line : Files.readAllLines(home.resolve("secure/secrets.env")))
            {
                final int eq = line.indexOf('=');
                if (!line.startsWith("#") && eq > 0)
                {
                    secrets.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            return new FaultPostgres("jdbc:postgresql://127.0.0.1:" + port + "/sluice",
                secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
        }

        /** {@code scripts/services.sh <command> postgres} for this instance; fails the test when it fails. */
        void run(final String command) throws IOException, InterruptedException
        {
            Faults.services(dir, home, command, "postgres",
                Map.of("SLUICE_POSTGRES_PORT", Integer.toString(port), "SLUICE_SECURE", "0"));
        }

        /**
         * PostgreSQL's immediate shutdown: SIGQUIT to the postmaster ({@link #postmaster()}), which ends every backend
         * at once without a checkpoint (the next start runs crash recovery). Returns once the postmaster and every
         * process it had are gone ({@code /proc/PID} absent or a zombie), waiting at most 60 s, and nothing listens on
         * its port any more; fails naming the pid, the port and what it saw.
         */
        void immediateShutdown() throws IOException, InterruptedException
        {
            final long pid = postmaster();
            if (pid < 0)
            {
                throw new AssertionError("no running postmaster in " + pidFile() + " (port " + port + ")");
            }
            final List<Long> children = new ArrayList<>();
            ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> children.add(d.pid())));
            signal("QUIT", List.of(pid));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (running(pid) || children.stream().anyMatch(Server::running))
            {
                if (System.nanoTime() > deadline)
                {
                    final StringBuilder seen = new StringBuilder();
                    for (final long p : children)
                    {
                        if (running(p))
                        {
                            seen.append(seen.length() == 0 ? "" : ", ").append(p).append(' ').append(state(p));
                        }
                    }
                    throw new AssertionError("the postmaster " + pid + " of 127.0.0.1:" + port + " (" + pidFile()
                        + ") was still there 60 s after SIGQUIT: /proc/" + pid + " state " + state(pid)
                        + (seen.length() == 0 ? "" : "; its processes still running: " + seen));
                }
                Faults.sleep(50);
            }
            final long listener = FrozenClickHouseFaultIT.pidListeningOn(port);
            if (listener >= 0)
            {
                throw new AssertionError("the postmaster " + pid + " and its processes are gone, yet pid " + listener
                    + " (" + ProcessHandle.of(listener).flatMap(h -> h.info().commandLine()).orElse("?")
                    + ") listens on 127.0.0.1:" + port);
            }
        }

        /**
         * Sends SIGSTOP or SIGCONT to the postmaster ({@link #postmaster()}) and every process under it.
         *
         * @return the pids signalled (empty when no postmaster runs)
         */
        List<Long> signalAll(final String name) throws IOException, InterruptedException
        {
            final long pid = postmaster();
            if (pid < 0)
            {
                return List.of();
            }
            final List<Long> pids = new ArrayList<>();
            pids.add(pid);
            ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
            signal(name, pids);
            return pids;
        }

        private static void signal(final String name, final List<Long> pids) throws IOException, InterruptedException
        {
            final List<String> cmd = new ArrayList<>(List.of("kill", "-" + name));
            pids.forEach(p -> cmd.add(Long.toString(p)));
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() == 0)
            {
                return;
            }
            // a backend that exited between the listing and the signal is no failure (it has nothing to stop or
            // resume); any other complaint of kill is
            for (final String line : out.split("\n"))
            {
                if (!line.isBlank() && !line.contains("No such process"))
                {
                    throw new AssertionError(String.join(" ", cmd) + ": " + out);
                }
            }
        }

        /** @return the server's lock file, {@code postmaster.pid} in its data directory */
        Path pidFile()
        {
            return home.resolve("postgres").resolve("data").resolve("postmaster.pid");
        }

        /**
         * The postmaster as the server records it: the first line of {@code postmaster.pid} (PostgreSQL's lock file:
         * pid, data directory, start time, port, ...), when that file names this server's port and the process runs.
         * Not by the listening port: a backend just forked holds the listening socket until it closes it, and
         * {@code ss} may name that backend first (a SIGQUIT to a backend is a crash restart, not a shutdown).
         *
         * @return the postmaster's pid, or -1 when none runs
         */
        long postmaster() throws IOException
        {
            final List<String> lines;
            try
            {
                lines = Files.readAllLines(pidFile());
            }
            catch (final java.nio.file.NoSuchFileException e)
            {
                return -1;
            }
            if (lines.size() < 4 || !lines.get(3).trim().equals(Integer.toString(port)))
            {
                throw new AssertionError(pidFile() + " does not name port " + port + ": " + lines);
            }
            final long pid = Long.parseLong(lines.get(0).trim());
            return running(pid) ? pid : -1;
        }

        /** @return whether the process exists and has not exited ({@code /proc/PID} present, not a zombie) */
        static boolean running(final long pid)
        {
            final String s = state(pid);
            return !s.equals("gone") && !s.startsWith("Z");
        }

        /** @return the state letter of {@code /proc/PID/stat} (R, S, D, T, Z, ...) or "gone" */
        static String state(final long pid)
        {
            try
            {
                final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
            }
            catch (final IOException | IndexOutOfBoundsException e)
            {
                return "gone";
            }
        }
    }
}
