package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explain} for a postgres sink, with the tables read from a file of PostgreSQL {@code CREATE TABLE} statements
 * ({@code --schema}) and from the real server's catalog ({@code --connect}): the same records give the same columns,
 * sources and values both ways, and each value is what the server prints for it (checked against the server's own
 * output of the same values in the same types). Also the bundled example
 * (examples/github-events-postgres.toml with its .sql), and a bad schema file named with its line.
 */
class ExplainPostgresIT
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String DDL = """
        CREATE TYPE "%1$s".mood AS ENUM ('sad', 'so so', 'ok');
        CREATE DOMAIN "%1$s".price AS numeric(8,2) CHECK (VALUE >= 0);
        CREATE TABLE "%1$s"."Orders.EU" (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            "Key" integer NOT NULL,
            at timestamptz NOT NULL DEFAULT now(),
            n numeric(12,2),
            f double precision,
            r real,
            ok boolean DEFAULT true,
            tag char(4),
            name varchar(10) DEFAULT 'anon',
            doc jsonb,
            raw json,
            u uuid,
            d date,
            ts timestamp,
            tags text[],
            ints integer ARRAY,
            m "%1$s".mood,
            p "%1$s".price,
            note text,
            topic text
        );
        """;

    private static final List<String> RECORDS = List.of(
        "{\"Key\":1,\"at\":\"2024-03-10T12:00:00+02:00\",\"n\":1.005,\"f\":0.1,\"r\":1e6,\"ok\":false,\"tag\":\"ab\","
            + "\"name\":\"Zoë\",\"doc\":{\"b\":1,\"a\":[1,2.50]},\"raw\":{\"b\":1, \"a\":2},"
            + "\"u\":\"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\",\"d\":\"2024-02-29\",\"ts\":1659386157.403862,"
            + "\"tags\":[\"a b\",null,\"NULL\",\"\"],\"ints\":[1,null],\"m\":\"so so\",\"p\":\"12.345\",\"note\":null}",
        "{\"Key\":2}",
        "{\"Key\":3,\"n\":12345678901.5}");

    private static Path config(final Path dir, final String schema) throws Exception
    {
        final Path config = dir.resolve("pg.toml");
        Files.writeString(config, "[kafka]\nbootstrap_servers = \"127.0.0.1:1\"\n"
            + "[[sinks]]\nname = \"pg\"\nkind = \"postgres\"\ntopics = [\"orders.eu\"]\ngroup_id = \"explain-pg\"\n"
            + "[sinks.plugin_config]\n" + PostgresSinkIT.login() + "schema = \"" + schema + "\"\ntarget_table = "
            + "\"Orders.EU\"\n"
            + "[[sinks.branches]]\nname = \"all\"\ncolumns = { topic = \"$topic\" }\n");
        return config;
    }

    private static List<JsonNode> explain(final Path config, final String sink, final String topic, final Path schema,
        final List<String> records) throws Exception
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config, sink, topic, false, schema, schema == null, "UTC",
            new ByteArrayInputStream((String.join("\n", records) + "\n").getBytes(StandardCharsets.UTF_8)),
            new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        final List<JsonNode> nodes = new ArrayList<>();
        for (final String line : out.toString().split("\n"))
        {
            nodes.add(JSON.readTree(line));
        }
        return nodes;
    }

    /** @return per column "name type source value" */
    private static List<String> columns(final JsonNode row)
    {
        final List<String> out = new ArrayList<>();
        row.get("columns").forEach(c -> out.add(c.get("name").asText() + " | " + c.get("source").asText() + " | "
            + c.get("value").asText()));
        return out;
    }

    @Test
    void schemaFileAndCatalogShowTheSameRowsAsTheServerStoresThem(@TempDir final Path dir) throws Exception
    {
        final String schema = "explain_pg_" + Long.toString(System.nanoTime(), 36);
        final String ddl = String.format(DDL, schema);
        PostgresSinkIT.sql("CREATE SCHEMA \"" + schema + "\"");
        try
        {
            PostgresSinkIT.sql(ddl.split(";\n"));
            final Path file = dir.resolve("tables.sql");
            Files.writeString(file, ddl);
            final Path config = config(dir, schema);
            final List<JsonNode> fromFile = explain(config, "pg", null, file, RECORDS);
            final List<JsonNode> fromServer = explain(config, "pg", null, null, RECORDS);
            final List<String> first = columns(fromServer.get(0));
            assertEquals(List.of(
                "id | server default | DEFAULT GENERATED ALWAYS AS IDENTITY (left out of the row: the server "
                    + "evaluates it)",
                "Key | path | 1",
                "at | path | 2024-03-10 10:00:00+00",
                "n | path | 1.01",
                "f | path | 0.1",
                "r | path | 1e+06",
                "ok | path | f",
                "tag | path | ab  ",
                "name | path | Zoë",
                "doc | path | {\"a\": [1, 2.50], \"b\": 1}",
                "raw | path | {\"b\":1, \"a\":2}",
                "u | path | a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                "d | path | 2024-02-29",
                "ts | path | 2022-08-01 20:35:57.403862",
                "tags | path | {\"a b\",NULL,\"NULL\",\"\"}",
                "ints | path | {1,NULL}",
                "m | path | so so",
                "p | path | 12.35",
                "note | null | \\N",
                "topic | metadata | orders.eu"), first);
            final List<String> second = columns(fromServer.get(1));
            assertEquals("at | server default | DEFAULT now() (left out of the row: the server evaluates it)",
                second.get(2));
            assertEquals("ok | default | t", second.get(6));
            assertEquals("name | default | anon", second.get(8));
            assertEquals("p | null | \\N", second.get(17));
            assertTrue(fromServer.get(2).get("error").asText().contains("column n (numeric(12,2)) from path n"),
                fromServer.get(2).toString());
            for (int i = 0; i < RECORDS.size(); i++)
            {
                final JsonNode a = fromFile.get(i);
                final JsonNode b = fromServer.get(i);
                assertEquals(b.get("table").asText(), a.get("table").asText());
                if (b.has("columns"))
                {
                    assertEquals(columns(b), columns(a), "record " + i + " by --schema and by --connect");
                }
                else
                {
                    assertEquals(b.get("error").asText().replaceAll(" \\(table .*\\)$", ""),
                        a.get("error").asText().replaceAll(" \\(table .*\\)$", ""));
                }
            }
            // what the server stores for the first record is what explain showed
            final List<String> stored = PostgresSinkIT.rows("SELECT format('%s', at AT TIME ZONE 'UTC') || '+00', "
                + "format('%s', n), format('%s', r), format('%s', ok), format('%s', tag), doc::text, "
                + "format('%s', tags), format('%s', p) FROM (SELECT '2024-03-10T12:00:00+02:00'::timestamptz AS at, "
                + "1.005::numeric(12,2) AS n, 1e6::real AS r, false AS ok, 'ab'::char(4) AS tag, "
                + "'{\"b\":1,\"a\":[1,2.50]}'::jsonb AS doc, ARRAY['a b',NULL,'NULL','']::text[] AS tags, "
                + "12.345::numeric(8,2) AS p) v");
            assertEquals(List.of("2024-03-10 10:00:00+00|1.01|1e+06|f|ab  |{\"a\": [1, 2.50], \"b\": 1}|"
                + "{\"a b\",NULL,\"NULL\",\"\"}|12.35"), stored);
        }
        finally
        {
            PostgresSinkIT.sql("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
    }

    @Test
    void theBundledExampleExplainsFromItsSchemaFile(@TempDir final Path dir) throws Exception
    {
        final Path root = TestServices.projectRoot();
        final Path config = dir.resolve("github-events-postgres.toml");
        Files.writeString(config, Files.readString(root.resolve("examples/github-events-postgres.toml"))
            .replace("${PGPASSWORD}", "unused"));
        final List<JsonNode> rows = explain(config, "github", "github.events",
            root.resolve("examples/github-events-postgres.sql"),
            List.of("{\"id\":\"2489651045\",\"type\":\"WatchEvent\",\"created_at\":\"2015-01-01T15:00:00Z\","
                + "\"actor\":{\"login\":\"octo\"},\"repo\":{\"name\":\"o/r\"},\"payload\":{\"action\":\"started\"}}",
                "{\"id\":\"7\",\"type\":\"GollumEvent\",\"created_at\":\"2015-01-01T15:00:01Z\","
                    + "\"payload\":{\"pages\":[{\"title\":\"x\"}],\"n\":1e2}}"));
        assertEquals("public.watch_events", rows.get(0).get("database").asText() + "."
            + rows.get(0).get("table").asText(), rows.get(0).toString());
        assertEquals(List.of("id | path | 2489651045", "created_at | path | 2015-01-01 15:00:00+00",
            "actor_login | path | octo", "repo_name | path | o/r", "action | path | started"),
            columns(rows.get(0)));
        assertEquals("other_events", rows.get(1).get("table").asText());
        assertEquals("payload | path | {\"n\": 100, \"pages\": [{\"title\": \"x\"}]}", columns(rows.get(1)).get(5));
    }

    @Test
    void aBadSchemaFileIsNamedWithItsLine(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("bad.sql");
        Files.writeString(file, "CREATE TABLE t (\n  a int,\n  b int NOT NUL\n);\n");
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config(dir, "s"), "pg", null, false, file, false, "UTC",
            new ByteArrayInputStream(new byte[0]), new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(2, code);
        assertTrue(err.toString().startsWith("error: --schema " + file + ": line 3: expected NULL but found \"NUL\""),
            err.toString());
    }

    /**
     * {@code explain --connect} writes nothing: with {@code create_table = true} (by DDL or LIKE a template) a missing
     * table is not created; the record's line says that the table does not exist and that a run would create it.
     */
    @Test
    void explainNeverCreatesAMissingTable(@TempDir final Path dir) throws Exception
    {
        final String schema = "explain_pg_nc_" + Long.toString(System.nanoTime(), 36);
        PostgresSinkIT.sql("CREATE SCHEMA \"" + schema + "\"", "CREATE TABLE \"" + schema + "\".tpl (id bigint)");
        try
        {
            for (final String create : List.of("create_table_ddl = \"CREATE TABLE {schema}.{table} (id bigint)\"",
                "create_table_like = '\"" + schema + "\".tpl'"))
            {
                final Path config = dir.resolve("nc.toml");
                Files.writeString(config, "[kafka]\nbootstrap_servers = \"127.0.0.1:1\"\n"
                    + "[[sinks]]\nname = \"pg\"\nkind = \"postgres\"\ntopics = [\"orders.zz\"]\n"
                    + "group_id = \"explain-pg\"\n[sinks.plugin_config]\n" + PostgresSinkIT.login() + "schema = \""
                    + schema + "\"\ntarget_table = \"{topic}\"\ncreate_table = true\n" + create + "\n");
                final StringWriter out = new StringWriter();
                final StringWriter err = new StringWriter();
                final int code = ExplainCommand.run(config, "pg", "orders.zz", false, (Path)null, true, "UTC",
                    new ByteArrayInputStream("{\"id\":1}\n".getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
                    new PrintWriter(err));
                final String said = code + "\n" + out + err;
                assertTrue(said.contains("does not exist") && said.contains("a run would create it"), said);
                assertEquals(List.of("null"), PostgresSinkIT.rows("SELECT pg_catalog.to_regclass('\"" + schema
                    + "\".\"orders.zz\"')"), create + ": explain created the table; " + said);
            }
        }
        finally
        {
            PostgresSinkIT.sql("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
    }
}
