package io.sluice.engine.faults;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import io.sluice.engine.TestServices;

/**
 * What the fault scenarios share: the real services' addresses, ClickHouse over plain HTTP, Kafka's Admin client
 * (committed offsets, group membership), the engine configuration derived from the shipped example, and the report
 * file {@code engine/target/fault-report.txt}. Verification never goes through the engine's own code.
 */
final class Faults
{
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static boolean reportStarted;

    private Faults()
    {
    }

    static String bootstrap()
    {
        return TestServices.bootstrap();
    }

    static String sharedClickHouse()
    {
        return TestServices.clickhouse();
    }

    static Path projectRoot()
    {
        return TestServices.projectRoot();
    }

    /** @return {@code engine/target/faults/<scenario>}, created */
    static Path workDir(final String scenario) throws IOException
    {
        final Path d = projectRoot().resolve("engine/target/faults").resolve(scenario);
        Files.createDirectories(d);
        return d;
    }

    static String suffix()
    {
        return Long.toString(System.currentTimeMillis(), 36) + Long.toString(System.nanoTime() % 1296, 36);
    }

    static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code scripts/services.sh <command> <service>} for a server of a test's own: {@code SLUICE_HOME} {@code home},
     * the ports and switches in {@code env}; its output appended to {@code dir/services.log}. Fails the test when the
     * script fails or takes more than 180 s.
     */
    static void services(final Path dir, final Path home, final String command, final String service,
        final Map<String, String> env) throws IOException, InterruptedException
    {
        final Path log = dir.resolve("services.log");
        final ProcessBuilder pb = new ProcessBuilder("bash", projectRoot().resolve("scripts/services.sh").toString(),
            command, service).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("SLUICE_HOME", home.toString());
        pb.environment().putAll(env);
        final Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError(
                "scripts/services.sh " + command + " " + service + " did not finish in 180 s (see " + log + ")");
        }
        if (p.exitValue() != 0)
        {
            throw new AssertionError("scripts/services.sh " + command + " " + service + " exited " + p.exitValue()
                + ":\n" + Files.readString(log));
        }
    }

    // ------------------------------------------------------------------------------------------------ report

    /** Prints a measured summary line and appends it to engine/target/fault-report.txt (truncated once per JVM). */
    static synchronized void report(final String line)
    {
        System.out.println(line);
        final Path f = projectRoot().resolve("engine/target/fault-report.txt");
        try
        {
            Files.createDirectories(f.getParent());
            if (!reportStarted)
            {
                reportStarted = true;
                Files.writeString(f, "# Sluice fault-injection report, "
                    + LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME) + " (mvn verify -Pfaults)\n",
                    StandardCharsets.UTF_8);
            }
            Files.writeString(f, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        }
        catch (final IOException e)
        {
            System.err.println("cannot write " + f + ": " + e);
        }
    }

    // ------------------------------------------------------------------------------------------------ stores

    /**
     * Where a scenario's rows land, read only through the database's own interface: a ClickHouse database or a
     * PostgreSQL schema ({@code name}) holding the eight tables of the GitHub example, each with the event id.
     */
    interface Store
    {
        /** @return the database's name in reports ("ClickHouse", "PostgreSQL") */
        String kind();

        /** Creates {@code name} with the example's tables (no key, so duplicates stay countable); returns them. */
        List<String> createGithubTables(String name) throws Exception;

        /** The engine's configuration: the database's shipped GitHub example pointed at this store and {@code name}. */
        String pipelineToml(String topic, String group, String name, long stalledFailAfterMs, int metricsPort,
            String clientId) throws IOException;

        /** The environment the engine needs for that configuration (a password it reads as ${VAR}). */
        Map<String, String> engineEnv();

        /** After an engine was killed: waits until no write of it is still running and the row count is stable. */
        void settle(String name);

        /** @return the distinct ids over the union of the tables, sorted */
        long[] distinctIds(String name, List<String> tables);

        /** @return {count, distinct ids} over the union of the tables */
        long[] countAndUniq(String name, List<String> tables);

        /**
         * Takes {@code table} away while the engine runs, keeping its rows under {@code table + "_gone"} so that what
         * was written before stays checkable.
         *
         * @return how it was taken away, for the report
         */
        String removeTable(String name, String table) throws Exception;

        /** @return whether an engine's failure line names {@code table} of {@code name} */
        boolean names(String line, String name, String table);

        /** Drops {@code name} and everything in it. */
        void drop(String name) throws Exception;
    }

    // ------------------------------------------------------------------------------------------------ ClickHouse

    /** ClickHouse's HTTP interface at one address. */
    static final class ClickHouse implements Store
    {
        final String url;

        ClickHouse(final String url)
        {
            this.url = url;
        }

        @Override
        public String kind()
        {
            return "ClickHouse";
        }

        @Override
        public List<String> createGithubTables(final String name) throws IOException
        {
            return createGithubDatabase(name);
        }

        @Override
        public String pipelineToml(final String topic, final String group, final String name,
            final long stalledFailAfterMs, final int metricsPort, final String clientId) throws IOException
        {
            return Faults.pipelineToml(topic, group, name, url, stalledFailAfterMs, metricsPort, clientId);
        }

        @Override
        public Map<String, String> engineEnv()
        {
            return Map.of();
        }

        /** RENAME rather than DROP: to the engine both are ClickHouse error 60, UNKNOWN_TABLE. */
        @Override
        public String removeTable(final String name, final String table)
        {
            sql("RENAME TABLE " + name + "." + table + " TO " + name + "." + table + "_gone");
            return "RENAME";
        }

        @Override
        public boolean names(final String line, final String name, final String table)
        {
            return line.contains(name + "." + table) || line.contains("`" + name + "`.`" + table + "`");
        }

        @Override
        public void drop(final String name)
        {
            sql("DROP DATABASE " + name);
        }

        /**
         * Runs one statement. A read-only one ({@code SELECT}) is sent again once when the server closed the
         * connection without answering (a pooled connection it had just timed out, as a server resumed from SIGSTOP
         * does at once); any other statement fails on the first such error, since it may have run.
         */
        String sql(final String statement)
        {
            try
            {
                return send(statement);
            }
            catch (final IllegalStateException e)
            {
                if (statement.startsWith("SELECT") && e.getCause() instanceof IOException)
                {
                    return send(statement);
                }
                throw e;
            }
        }

        private String send(final String statement)
        {
            try
            {
                final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/"))
                    .timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(statement, StandardCharsets.UTF_8)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (r.statusCode() != 200)
                {
                    throw new IllegalStateException(
                        "ClickHouse " + url + " " + r.statusCode() + " for [" + statement + "]: " + r.body());
                }
                return r.body();
            }
            catch (final IOException e)
            {
                throw new IllegalStateException("ClickHouse at " + url + " unreachable: " + e, e);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        long sqlLong(final String statement)
        {
            return Long.parseLong(sql(statement).trim());
        }

        boolean ping()
        {
            try
            {
                final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/ping"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200 && r.body().startsWith("Ok");
            }
            catch (final IOException e)
            {
                return false;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Creates {@code database} with the tables of examples/github-events.sql; returns their names. */
        List<String> createGithubDatabase(final String database) throws IOException
        {
            final String ddl = Files.readString(projectRoot().resolve("examples/github-events.sql"))
                .replaceAll("--[^\n]*", "");
            final List<String> tables = new ArrayList<>();
            final Matcher m = Pattern.compile("CREATE TABLE IF NOT EXISTS github\\.(\\w+)").matcher(ddl);
            while (m.find())
            {
                tables.add(m.group(1));
            }
            if (tables.isEmpty())
            {
                throw new IllegalStateException("no tables found in examples/github-events.sql");
            }
            final String text = ddl.replace("DATABASE IF NOT EXISTS github", "DATABASE IF NOT EXISTS " + database)
                .replace("github.", database + ".");
            for (final String stmt : text.split(";"))
            {
                if (!stmt.isBlank())
                {
                    sql(stmt);
                }
            }
            return tables;
        }

        /** Rows in every active part of the database: cheap enough to poll (no table scan). */
        long rows(final String database)
        {
            return sqlLong("SELECT sum(rows) FROM system.parts WHERE database = '" + database + "' AND active");
        }

        /**
         * After an engine was killed: waits until no INSERT into the database is still running on the server (an
         * insert whose body had fully arrived completes without its client) and the row count has stayed the same for
         * two reads 250 ms apart, so what is counted as written afterwards does not change under the count.
         */
        @Override
        public void settle(final String database)
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long last = rows(database);
            int stable = 0;
            while (System.nanoTime() < deadline)
            {
                sleep(250);
                final long running = sqlLong(
                    "SELECT count() FROM system.processes WHERE query LIKE 'INSERT%' AND position(query, '"
                        + database + "') > 0");
                final long now = rows(database);
                stable = running == 0 && now == last ? stable + 1 : 0;
                if (stable >= 2)
                {
                    return;
                }
                last = now;
            }
            throw new AssertionError("inserts into " + database + " did not settle within 30 s");
        }

        static String union(final String database, final List<String> tables)
        {
            final StringBuilder sb = new StringBuilder();
            for (final String t : tables)
            {
                if (sb.length() > 0)
                {
                    sb.append(" UNION ALL ");
                }
                sb.append("SELECT id FROM ").append(database).append('.').append(t);
            }
            return sb.toString();
        }

        /** @return {count(), uniqExact(id)} over the union of the tables */
        @Override
        public long[] countAndUniq(final String database, final List<String> tables)
        {
            final String[] parts = sql(
                "SELECT count(), uniqExact(id) FROM (" + union(database, tables) + ") FORMAT TabSeparated")
                .trim().split("\t");
            return new long[]{Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        }

        /** @return the distinct ids over the union of the tables, sorted */
        @Override
        public long[] distinctIds(final String database, final List<String> tables)
        {
            final String body = sql("SELECT DISTINCT id FROM (" + union(database, tables) + ") FORMAT TabSeparated");
            long[] ids = new long[1 << 16];
            int n = 0;
            long v = 0;
            boolean any = false;
            for (int i = 0; i < body.length(); i++)
            {
                final char c = body.charAt(i);
                if (c == '\n')
                {
                    if (any)
                    {
                        if (n == ids.length)
                        {
                            ids = Arrays.copyOf(ids, n * 2);
                        }
                        ids[n++] = v;
                    }
                    v = 0;
                    any = false;
                }
                else
                {
                    v = v * 10 + (c - '0');
                    any = true;
                }
            }
            final long[] out = Arrays.copyOf(ids, n);
            Arrays.sort(out);
            return out;
        }
    }

    // ------------------------------------------------------------------------------------------------ Kafka

    static Admin admin()
    {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000", AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            "30000"));
    }

    /** @return the group's committed offset per partition of the topic (0 where nothing is committed) */
    static long[] committed(final Admin admin, final String group, final String topic, final int partitions)
        throws ExecutionException, InterruptedException
    {
        final long[] out = new long[partitions];
        final Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get();
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : m.entrySet())
        {
            if (e.getKey().topic().equals(topic) && e.getValue() != null)
            {
                out[e.getKey().partition()] = e.getValue().offset();
            }
        }
        return out;
    }

    static long[] endOffsets(final Admin admin, final String topic, final int partitions)
        throws ExecutionException, InterruptedException
    {
        final Map<TopicPartition, OffsetSpec> q = new HashMap<>();
        for (int i = 0; i < partitions; i++)
        {
            q.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        final long[] out = new long[partitions];
        admin.listOffsets(q).all().get().forEach((tp, info) -> out[tp.partition()] = info.offset());
        return out;
    }

    /** @return client id -> assigned partitions of the topic, for the group's current members */
    static Map<String, List<Integer>> members(final Admin admin, final String group, final String topic)
        throws ExecutionException, InterruptedException
    {
        final ConsumerGroupDescription d;
        try
        {
            d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)
            {
                return Map.of(); // no member has joined yet
            }
            throw e;
        }
        final Map<String, List<Integer>> out = new HashMap<>();
        for (final MemberDescription m : d.members())
        {
            final List<Integer> ps = new ArrayList<>();
            for (final TopicPartition tp : m.assignment().topicPartitions())
            {
                if (tp.topic().equals(topic))
                {
                    ps.add(tp.partition());
                }
            }
            ps.sort(null);
            out.merge(m.clientId(), ps, (x, y) ->
            {
                final List<Integer> both = new ArrayList<>(x);
                both.addAll(y);
                both.sort(null);
                return both;
            });
        }
        return out;
    }

    static long sum(final long[] a)
    {
        long s = 0;
        for (final long v : a)
        {
            s += v;
        }
        return s;
    }

    // ------------------------------------------------------------------------------------------------ engine config

    /**
     * The shipped example (examples/github-events.toml) pointed at a topic, group, database and ClickHouse, with the
     * stall limit given, a status line every second, a quick group session (so a killed member is noticed in
     * seconds) and, when {@code metricsPort > 0}, the Prometheus endpoint.
     */
    static String pipelineToml(final String topic, final String group, final String database, final String clickhouse,
        final long stalledFailAfterMs, final int metricsPort) throws IOException
    {
        return pipelineToml(topic, group, database, clickhouse, stalledFailAfterMs, metricsPort, null);
    }

    /** As above, with the consumer's {@code client.id} (tells group members apart, see {@link #members}). */
    static String pipelineToml(final String topic, final String group, final String database, final String clickhouse,
        final long stalledFailAfterMs, final int metricsPort, final String clientId) throws IOException
    {
        String t = Files.readString(projectRoot().resolve("examples/github-events.toml"));
        t = replaceOnce(t, "bootstrap_servers = \"127.0.0.1:${SLUICE_KAFKA_PORT:-19092}\"",
            "bootstrap_servers = \"" + bootstrap() + "\"");
        t = replaceOnce(t, "endpoint = \"http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}\"",
            "endpoint = \"" + clickhouse + "\"");
        t = replaceOnce(t, "database = \"github\"", "database = \"" + database + "\"");
        t = replaceOnce(t, "pattern = 'github\\.events'", "pattern = '" + Pattern.quote(topic) + "'");
        t = replaceOnce(t, "group_id = \"sluice-github\"", "group_id = \"" + group + "\"");
        t = t.replaceFirst("stalled_fail_after_ms = \\d+", "stalled_fail_after_ms = " + stalledFailAfterMs);
        return withRunSettings(t, metricsPort, clientId);
    }

    /**
     * Appends what every scenario sets beside the example: a status line every second, the Prometheus endpoint when
     * {@code metricsPort > 0}, a quick group session and the consumer's {@code client.id} when given.
     */
    static String withRunSettings(final String toml, final int metricsPort, final String clientId)
    {
        final StringBuilder sb = new StringBuilder(toml);
        sb.append("\n[engine]\nkafka_check_timeout_ms = 60000\nstatus_interval_ms = 1000\n");
        if (metricsPort > 0)
        {
            sb.append("\n[metrics]\nlisten = \"127.0.0.1:").append(metricsPort).append("\"\n");
        }
        // a killed member is dropped from the group after session.timeout.ms (45 s by default)
        sb.append("\n[kafka.consumer]\n\"session.timeout.ms\" = \"6000\"\n\"heartbeat.interval.ms\" = \"1500\"\n");
        if (clientId != null)
        {
            sb.append("\"client.id\" = \"").append(clientId).append("\"\n");
        }
        return sb.toString();
    }

    static String replaceOnce(final String text, final String from, final String to)
    {
        final int i = text.indexOf(from);
        if (i < 0)
        {
            throw new IllegalStateException(
                "the shipped example no longer contains [" + from + "]; update the fault tests' configuration");
        }
        return text.substring(0, i) + to + text.substring(i + from.length());
    }

    static Path writeConfig(final Path dir, final String name, final String toml) throws IOException
    {
        final Path f = dir.resolve(name);
        Files.writeString(f, toml, StandardCharsets.UTF_8);
        return f;
    }

    /** Percentile (0..100) of the values, nearest rank; 0 for none. */
    static long percentile(final List<Long> values, final double p)
    {
        if (values.isEmpty())
        {
            return 0;
        }
        final long[] a = values.stream().mapToLong(Long::longValue).sorted().toArray();
        final int rank = (int)Math.ceil(p / 100.0 * a.length);
        return a[Math.max(0, Math.min(a.length - 1, rank - 1))];
    }
}
