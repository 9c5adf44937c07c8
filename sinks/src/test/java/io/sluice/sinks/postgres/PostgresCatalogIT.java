package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.sinks.postgres.PostgresColumn.DefaultClass;

/**
 * {@link PostgresCatalog} against the real PostgreSQL of scripts/services.sh (cases P1, P2, P3 of the project's
 * case list, the 63-byte limit, awkward names, names taken by types and views, describe of every type family and
 * default kind, tableVersion). Each run works in schemas of its own ({@code pgcat_<time>}), dropped at the end.
 * Reaches the server through {@code -Dsluice.postgres.url} as user {@code SLUICE_TEST_POSTGRES_USER} of
 * {@code -Dsluice.secure.dir}/secrets.env.
 */
class PostgresCatalogIT
{
    private static final String RUN = Long.toString(System.currentTimeMillis(), 36);
    private static final String SCHEMA = "pgcat_" + RUN;
    private static final String DOTTED_SCHEMA = "orders_" + RUN;
    private static final String DDL = "CREATE TABLE {schema}.{table} (id bigint PRIMARY KEY, doc jsonb, at timestamptz)";

    private static Properties props;

    private static String url()
    {
        return System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    @BeforeAll
    static void connect() throws IOException, SQLException
    {
        props = PgTestServer.props();
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA), "CREATE SCHEMA "
            + PostgresIdentifiers.quote(DOTTED_SCHEMA));
    }

    @AfterAll
    static void dropSchemas() throws SQLException
    {
        sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE",
            "DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(DOTTED_SCHEMA) + " CASCADE");
    }

    private static Connection open() throws SQLException
    {
        return DriverManager.getConnection(url(), props);
    }

    private static void sql(final String... statements) throws SQLException
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }

    private static PostgresCatalog catalog(final PostgresCatalog.Creation creation)
    {
        return new PostgresCatalog(PostgresCatalogIT::open, url(), creation);
    }

    private static PostgresCatalog creating()
    {
        return catalog(new PostgresCatalog.Creation(true, DDL, null));
    }

    /** Relation names and kinds in a schema, exactly as the catalog stores them. */
    private static Map<String, String> relations(final String schema) throws SQLException
    {
        try (Connection c = open();
            PreparedStatement ps = c.prepareStatement("SELECT c.relname, c.relkind::text"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?"
                + " AND c.relkind IN ('r', 'p', 'v')"))
        {
            ps.setString(1, schema);
            try (ResultSet r = ps.executeQuery())
            {
                final Map<String, String> out = new java.util.TreeMap<>();
                while (r.next())
                {
                    out.put(r.getString(1), r.getString(2));
                }
                return out;
            }
        }
    }

    private static long count(final String qualified) throws SQLException
    {
        try (Connection c = open();
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT count(*) FROM " + qualified))
        {
            assertTrue(r.next());
            return r.getLong(1);
        }
    }

    @Test
    void shouldCreateOneTablePerDottedTopicAndNoSchema() throws Exception
    {
        // P1, with schema orders_<run> standing for schema "orders"
        final PostgresCatalog catalog = creating();
        final String eu = DOTTED_SCHEMA + ".eu";
        final String deep = "acme.cdc.inventory." + DOTTED_SCHEMA;
        for (final String topic : List.of(eu, deep))
        {
            assertNull(catalog.describe(SCHEMA, topic));
            catalog.create(SCHEMA, topic);
            assertNotNull(catalog.describe(SCHEMA, topic), topic);
        }
        assertEquals("r", relations(SCHEMA).get(eu));
        assertEquals("r", relations(SCHEMA).get(deep));
        assertNull(relations(SCHEMA).get("eu"));
        assertEquals(Map.of(), relations(DOTTED_SCHEMA), "a table was made in the schema named by a topic's prefix");
        sql("INSERT INTO " + catalog.qualifiedName(SCHEMA, eu) + " VALUES (1, '{}', now())",
            "INSERT INTO " + catalog.qualifiedName(SCHEMA, deep) + " VALUES (2, '{}', now()), (3, '{}', now())");
        assertEquals(1, count(catalog.qualifiedName(SCHEMA, eu)));
        assertEquals(2, count(catalog.qualifiedName(SCHEMA, deep)));
        assertEquals("\"" + SCHEMA + "\".\"" + eu + "\"", catalog.qualifiedName(SCHEMA, eu));
        // to_regclass on the concatenation would have looked for table "eu" in schema orders_<run>
        sql("CREATE TABLE " + PostgresIdentifiers.qualified(DOTTED_SCHEMA, "eu") + " (x int)");
        assertEquals(List.of("id", "doc", "at"), names(catalog.describe(SCHEMA, eu)));
        sql("DROP TABLE " + PostgresIdentifiers.qualified(DOTTED_SCHEMA, "eu"));
    }

    @Test
    void shouldNeverCreateASchema() throws Exception
    {
        final String missing = SCHEMA + "_missing";
        final SinkException e = assertThrows(SinkException.class, () -> creating().create(missing, "t"));
        assertTrue(e.getMessage().contains("never creates a schema") && e.getMessage().contains(missing),
            e.getMessage());
        assertFalse(e.retriable());
        try (Connection c = open();
            PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM pg_namespace WHERE nspname = ?"))
        {
            ps.setString(1, missing);
            try (ResultSet r = ps.executeQuery())
            {
                assertFalse(r.next(), "schema " + missing + " was created");
            }
        }
        assertNull(creating().describe(missing, "t"));
    }

    @Test
    void shouldKeepCase() throws Exception
    {
        // P2: a table created unquoted as Orders is stored as orders
        sql("CREATE TABLE " + PostgresIdentifiers.quote(SCHEMA) + ".Orders (id bigint)");
        final PostgresCatalog off = catalog(PostgresCatalog.Creation.OFF);
        assertNull(off.describe(SCHEMA, "Orders"));
        assertNotNull(off.describe(SCHEMA, "orders"));
        final SinkException e = assertThrows(SinkException.class, () -> off.create(SCHEMA, "Orders"));
        assertTrue(e.getMessage().contains("\"Orders\"") && e.getMessage().contains("create_table is off"),
            e.getMessage());
        assertEquals("42P01", PostgresErrors.sqlstate(e.code()));
        final PostgresCatalog on = creating();
        on.create(SCHEMA, "Orders");
        on.create(SCHEMA, "Orders");
        assertEquals("r", relations(SCHEMA).get("Orders"));
        assertEquals("r", relations(SCHEMA).get("orders"));
        assertEquals(List.of("id"), names(on.describe(SCHEMA, "orders")));
        assertEquals(List.of("id", "doc", "at"), names(on.describe(SCHEMA, "Orders")));
    }

    @Test
    void shouldLetConcurrentCreatorsAllSucceed() throws Exception
    {
        // P3: two engine processes (two catalogs, each with its own connections) at the same moment, 20 times
        final String table = "orders";
        final String race = SCHEMA + "_race";
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(race));
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try
        {
            for (int round = 0; round < 20; round++)
            {
                sql("DROP TABLE IF EXISTS " + PostgresIdentifiers.qualified(race, table));
                final CyclicBarrier together = new CyclicBarrier(2);
                final List<Future<Void>> both = new ArrayList<>();
                for (int worker = 0; worker < 2; worker++)
                {
                    final PostgresCatalog catalog = creating();
                    both.add(pool.submit(() ->
                    {
                        together.await(30, TimeUnit.SECONDS);
                        catalog.create(race, table);
                        return null;
                    }));
                }
                for (final Future<Void> f : both)
                {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertEquals(Map.of(table, "r"), relations(race), "round " + round);
                sql("INSERT INTO " + PostgresIdentifiers.qualified(race, table) + " VALUES (1, '{}', now()), (2, "
                    + "'{}', now())");
                assertEquals(2, count(PostgresIdentifiers.qualified(race, table)), "round " + round);
            }
        }
        finally
        {
            pool.shutdownNow();
            sql("DROP SCHEMA " + PostgresIdentifiers.quote(race) + " CASCADE");
        }
    }

    @Test
    void shouldTakeWhatTheServerSaysToTheLoserOfARaceAsALostRace() throws Exception
    {
        // the bare statements, without the catalog's look-up first: whatever the loser sees must count as a race
        final String race = SCHEMA + "_bare";
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(race));
        final String create = PostgresCatalog.replacePlaceholders(DDL, PostgresIdentifiers.quote(race),
            PostgresIdentifiers.quote("orders"));
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final List<String> seen = new ArrayList<>();
        try
        {
            for (int round = 0; round < 20; round++)
            {
                sql("DROP TABLE IF EXISTS " + PostgresIdentifiers.qualified(race, "orders"));
                final CyclicBarrier together = new CyclicBarrier(2);
                final List<Future<SQLException>> both = new ArrayList<>();
                for (int worker = 0; worker < 2; worker++)
                {
                    both.add(pool.submit(() ->
                    {
                        try (Connection c = open(); Statement s = c.createStatement())
                        {
                            together.await(30, TimeUnit.SECONDS);
                            s.execute(create);
                            return null;
                        }
                        catch (final SQLException e)
                        {
                            return e;
                        }
                    }));
                }
                int failed = 0;
                for (final Future<SQLException> f : both)
                {
                    final SQLException e = f.get(60, TimeUnit.SECONDS);
                    if (e != null)
                    {
                        failed++;
                        seen.add(e.getSQLState());
                        assertTrue(PostgresCatalog.lostRace(e) || "42710".equals(e.getSQLState()),
                            "not taken for a lost race: " + e);
                    }
                }
                assertEquals(1, failed, "round " + round + ": exactly one creator loses");
            }
        }
        finally
        {
            pool.shutdownNow();
            sql("DROP SCHEMA " + PostgresIdentifiers.quote(race) + " CASCADE");
        }
        assertEquals(20, seen.size(), seen.toString());
        System.out.println("SQLSTATEs of the losers: " + seen);
    }

    @Test
    void shouldRefuseNamesOverSixtyThreeBytesBeforeAnyDdl() throws Exception
    {
        final PostgresCatalog catalog = creating();
        for (final String ok : List.of("a" + "é".repeat(31), "€".repeat(21), "\uD83D\uDE00".repeat(15) + "abc"))
        {
            assertEquals(63, PostgresIdentifiers.utf8Length(ok));
            catalog.create(SCHEMA, ok);
            assertNotNull(catalog.describe(SCHEMA, ok));
            assertEquals("r", relations(SCHEMA).get(ok), "not stored exactly: " + relations(SCHEMA).keySet());
        }
        final int before = relations(SCHEMA).size();
        for (final String tooLong : List.of("é".repeat(32), "€".repeat(21) + "b", "\uD83D\uDE00".repeat(16),
            "z".repeat(64)))
        {
            for (final String op : List.of("create", "describe", "version"))
            {
                final SinkException e = assertThrows(SinkException.class, () ->
                {
                    switch (op)
                    {
                        case "create" -> catalog.create(SCHEMA, tooLong);
                        case "describe" -> catalog.describe(SCHEMA, tooLong);
                        default -> catalog.tableVersion(SCHEMA, tooLong);
                    }
                }, op);
                assertTrue(e.getMessage().contains(tooLong) && e.getMessage().contains("64 bytes"), e.getMessage());
            }
        }
        assertEquals(before, relations(SCHEMA).size(), "a truncated table was created: " + relations(SCHEMA));
        final SinkException schema = assertThrows(SinkException.class, () -> catalog.create("s".repeat(64), "t"));
        assertTrue(schema.getMessage().contains("schema name"), schema.getMessage());
    }

    @Test
    void shouldTakeQuotesSpacesDotsAndUpperCaseVerbatim() throws Exception
    {
        final PostgresCatalog catalog = creating();
        final List<String> names = List.of("a\"b", "with space", "x.y.z", "MiXeD", "\"", "semi;colon --",
            "it's", "{table}");
        for (final String n : names)
        {
            catalog.create(SCHEMA, n);
            sql("INSERT INTO " + catalog.qualifiedName(SCHEMA, n) + " (id) VALUES (7)");
            assertEquals(1, count(catalog.qualifiedName(SCHEMA, n)), n);
            assertEquals(List.of("id", "doc", "at"), names(catalog.describe(SCHEMA, n)));
        }
        assertTrue(relations(SCHEMA).keySet().containsAll(names), relations(SCHEMA).toString());
        assertNull(catalog.describe(SCHEMA, "mixed"));
        assertNull(catalog.describe(SCHEMA, "x"));
    }

    @Test
    void shouldRefuseANameTakenByATypeOrAView() throws Exception
    {
        final String q = PostgresIdentifiers.quote(SCHEMA);
        sql("CREATE TYPE " + q + ".taken AS ENUM ('x')", "CREATE TYPE " + q + ".\"Comp\" AS (a int)",
            "CREATE VIEW " + q + ".v AS SELECT 1 AS one", "CREATE SEQUENCE " + q + ".seq");
        final PostgresCatalog catalog = creating();
        final long start = System.nanoTime();
        final SinkException type = assertThrows(SinkException.class, () -> catalog.create(SCHEMA, "taken"));
        assertTrue(type.getMessage().contains("taken by enum type") && type.getMessage().contains("\"taken\""),
            type.getMessage());
        assertFalse(type.retriable());
        assertEquals("42710", PostgresErrors.sqlstate(type.code()));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "not a clear, quick refusal");
        assertNull(catalog.describe(SCHEMA, "taken"));

        final SinkException comp = assertThrows(SinkException.class, () -> catalog.create(SCHEMA, "Comp"));
        assertTrue(comp.getMessage().contains("is a composite type, not a table"), comp.getMessage());
        for (final String n : List.of("v", "seq"))
        {
            final SinkException e = assertThrows(SinkException.class, () -> catalog.describe(SCHEMA, n));
            assertTrue(e.getMessage().contains(n.equals("v") ? "is a view, not a table" : "is a sequence"),
                e.getMessage());
            assertThrows(SinkException.class, () -> catalog.create(SCHEMA, n));
            assertThrows(SinkException.class, () -> catalog.tableVersion(SCHEMA, n));
        }
        assertEquals("v", relations(SCHEMA).get("v"));
    }

    @Test
    void shouldCreateLikeATemplateAndCheckTheDdlMadeTheTable() throws Exception
    {
        final String q = PostgresIdentifiers.quote(SCHEMA);
        sql("CREATE TABLE " + q + ".\"Tmpl\" (id bigint PRIMARY KEY, n int NOT NULL DEFAULT 5)");
        final PostgresCatalog like = catalog(new PostgresCatalog.Creation(true, null, q + ".\"Tmpl\""));
        like.create(SCHEMA, "from.template");
        final PostgresCatalog.Table t = like.describeTable(SCHEMA, "from.template");
        assertEquals(List.of("id", "n"), t.columns().stream().map(PostgresColumn::name).toList());
        assertTrue(t.columns().get(1).notNull());
        assertEquals(DefaultClass.CONSTANT, t.columns().get(1).defaultClass());

        final PostgresCatalog missingTemplate = catalog(new PostgresCatalog.Creation(true, null, q + ".nope"));
        final SinkException e = assertThrows(SinkException.class, () -> missingTemplate.create(SCHEMA, "t2"));
        assertTrue(e.getMessage().contains("create_table_like"), e.getMessage());

        final PostgresCatalog wrongDdl = catalog(new PostgresCatalog.Creation(true,
            "CREATE TABLE {schema}.elsewhere (id int)", null));
        final SinkException none = assertThrows(SinkException.class, () -> wrongDdl.create(SCHEMA, "t3"));
        assertTrue(none.getMessage().contains("no relation"), none.getMessage());
        final PostgresCatalog badDdl = catalog(new PostgresCatalog.Creation(true,
            "CREATE TABLE {schema}.{table} (id no_such_type)", null));
        final SinkException bad = assertThrows(SinkException.class, () -> badDdl.create(SCHEMA, "t4"));
        assertTrue(bad.getMessage().contains("42704"), bad.getMessage());
    }

    /**
     * A column typed by a domain with a DEFAULT and no default of its own has the domain's: a constant one is
     * evaluated and written by Sluice, an expression is left to the server; the nearest domain of a chain wins, and a
     * column's own default (even DEFAULT NULL) overrides the domain's. The server agrees: a row that leaves the
     * columns out gets exactly these.
     */
    @Test
    void shouldTakeTheDefaultOfTheColumnsDomain() throws Exception
    {
        final String q = PostgresIdentifiers.quote(SCHEMA);
        sql("CREATE DOMAIN " + q + ".status AS text DEFAULT 'new'",
            "CREATE DOMAIN " + q + ".urgent AS " + q + ".status DEFAULT 'urgent'",
            "CREATE DOMAIN " + q + ".plain AS " + q + ".status",
            "CREATE DOMAIN " + q + ".seen AS timestamptz DEFAULT now() NOT NULL",
            "CREATE DOMAIN " + q + ".qty AS numeric(6,2) DEFAULT 2.5 CHECK (VALUE >= 0)",
            "CREATE TABLE " + q + ".dom (id bigint, s " + q + ".status, u " + q + ".urgent, p " + q + ".plain, at "
                + q + ".seen, n " + q + ".qty, own " + q + ".status DEFAULT 'mine', none " + q
                + ".status DEFAULT NULL)");
        final PostgresCatalog catalog = creating();
        final Map<String, PostgresColumn> byName = catalog.describeTable(SCHEMA, "dom").columns().stream()
            .collect(Collectors.toMap(PostgresColumn::name, c -> c));
        final Object[][] expected = {
            {"s", DefaultClass.CONSTANT, "\"new\""}, {"u", DefaultClass.CONSTANT, "\"urgent\""},
            {"p", DefaultClass.CONSTANT, "\"new\""}, {"at", DefaultClass.EXPRESSION, null},
            {"n", DefaultClass.CONSTANT, "2.5"}, {"own", DefaultClass.CONSTANT, "\"mine\""},
            {"id", DefaultClass.NONE, null}};
        final Map<String, ColumnSpec> specs = catalog.describe(SCHEMA, "dom").columns().stream()
            .collect(Collectors.toMap(ColumnSpec::name, c -> c));
        for (final Object[] e : expected)
        {
            final PostgresColumn c = byName.get((String)e[0]);
            assertEquals(e[1], c.defaultClass(), c.toString());
            assertEquals(e[2], catalog.evaluateDefault(specs.get((String)e[0])), c.toString());
        }
        assertFalse(String.valueOf(byName.get("none").defaultExpression()).contains("new"),
            "the column's DEFAULT NULL overrides the domain's: " + byName.get("none"));
        assertEquals("EXPRESSION", specs.get("at").defaultKind());
        assertTrue(byName.get("at").notNull());
        assertTrue(byName.get("at").defaultExpression().contains("now()"), byName.get("at").toString());
        // what the server itself gives a row without those columns
        sql("INSERT INTO " + q + ".dom (id) VALUES (1)");
        try (Connection c = open();
            Statement st = c.createStatement();
            ResultSet r = st.executeQuery(
                "SELECT to_json(s)::text, to_json(u)::text, to_json(p)::text, to_json(n)::text, to_json(own)::text,"
                    + " to_json(none)::text, at IS NOT NULL FROM " + q + ".dom"))
        {
            assertTrue(r.next());
            assertEquals(List.of("\"new\"", "\"urgent\"", "\"new\"", "2.50", "\"mine\"", "null", "t"),
                List.of(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5),
                    String.valueOf(r.getString(6)), r.getBoolean(7) ? "t" : "f"));
        }
    }

    @Test
    void shouldDescribeEveryTypeFamilyAndDefaultKind() throws Exception
    {
        final String q = PostgresIdentifiers.quote(SCHEMA);
        sql("CREATE DOMAIN " + q + ".short_text AS varchar(10)",
            "CREATE DOMAIN " + q + ".code AS " + q + ".short_text NOT NULL",
            "CREATE TYPE " + q + ".mood AS ENUM ('sad', 'ok', 'happy')",
            "CREATE TABLE " + q + ".types (id bigint GENERATED ALWAYS AS IDENTITY, s bigserial, n numeric(10,2) "
                + "DEFAULT -1.5, v varchar(5) DEFAULT 'ab', c char(3), t text DEFAULT 'x'::text NOT NULL, b boolean "
                + "DEFAULT true, i int DEFAULT 0, big bigint DEFAULT 1 + 1, ts timestamptz DEFAULT now(), "
                + "ts2 timestamp DEFAULT CURRENT_TIMESTAMP, u uuid DEFAULT gen_random_uuid(), arr int[] DEFAULT "
                + "'{1,2}', narr numeric(5,1)[], m " + q + ".mood DEFAULT 'ok', marr " + q + ".mood[], d " + q
                + ".code, j jsonb, half int GENERATED ALWAYS AS (i / 2) STORED, r int4range, "
                + "day date DEFAULT '2024-01-01', rnd float8 DEFAULT random())");
        final PostgresCatalog catalog = creating();
        final PostgresCatalog.Table t = catalog.describeTable(SCHEMA, "types");
        final Map<String, PostgresColumn> byName = t.columns().stream()
            .collect(Collectors.toMap(PostgresColumn::name, c -> c));
        assertEquals(List.of("id", "s", "n", "v", "c", "t", "b", "i", "big", "ts", "ts2", "u", "arr", "narr", "m",
            "marr", "d", "j", "half", "r", "day", "rnd"), t.columns().stream().map(PostgresColumn::name).toList());
        final Object[][] expected = {
            // name, type, base type, typtype, element, not null, default class
            {"id", "bigint", "bigint", "b", "", true, DefaultClass.EXPRESSION},
            {"s", "bigint", "bigint", "b", "", true, DefaultClass.EXPRESSION},
            {"n", "numeric(10,2)", "numeric(10,2)", "b", "", false, DefaultClass.CONSTANT},
            {"v", "character varying(5)", "character varying(5)", "b", "", false, DefaultClass.CONSTANT},
            {"c", "character(3)", "character(3)", "b", "", false, DefaultClass.NONE},
            {"t", "text", "text", "b", "", true, DefaultClass.CONSTANT},
            {"b", "boolean", "boolean", "b", "", false, DefaultClass.CONSTANT},
            {"i", "integer", "integer", "b", "", false, DefaultClass.CONSTANT},
            {"big", "bigint", "bigint", "b", "", false, DefaultClass.CONSTANT},
            {"ts", "timestamp with time zone", "timestamp with time zone", "b", "", false, DefaultClass.EXPRESSION},
            {"ts2", "timestamp without time zone", "timestamp without time zone", "b", "", false,
                DefaultClass.EXPRESSION},
            {"u", "uuid", "uuid", "b", "", false, DefaultClass.EXPRESSION},
            {"arr", "integer[]", "integer[]", "b", "integer", false, DefaultClass.CONSTANT},
            {"narr", "numeric(5,1)[]", "numeric(5,1)[]", "b", "numeric(5,1)", false, DefaultClass.NONE},
            {"m", SCHEMA + ".mood", SCHEMA + ".mood", "e", "", false, DefaultClass.CONSTANT},
            {"marr", SCHEMA + ".mood[]", SCHEMA + ".mood[]", "b", SCHEMA + ".mood", false, DefaultClass.NONE},
            {"d", SCHEMA + ".code", "character varying(10)", "b", "", true, DefaultClass.NONE},
            {"j", "jsonb", "jsonb", "b", "", false, DefaultClass.NONE},
            {"half", "integer", "integer", "b", "", false, DefaultClass.GENERATED},
            {"r", "int4range", "int4range", "r", "", false, DefaultClass.NONE},
            {"day", "date", "date", "b", "", false, DefaultClass.CONSTANT},
            {"rnd", "double precision", "double precision", "b", "", false, DefaultClass.EXPRESSION}};
        for (final Object[] e : expected)
        {
            final PostgresColumn c = byName.get((String)e[0]);
            assertEquals(e[1], c.type(), c.toString());
            assertEquals(e[2], c.baseType(), c.toString());
            assertEquals(e[3], c.typeKind(), c.toString());
            assertEquals(e[4], c.elementType(), c.toString());
            assertEquals(e[5], c.notNull(), c.toString());
            assertEquals(e[6], c.defaultClass(), c.toString());
        }
        assertEquals(List.of("sad", "ok", "happy"), byName.get("m").enumLabels());
        assertEquals(List.of("sad", "ok", "happy"), byName.get("marr").enumLabels());
        assertEquals("GENERATED ALWAYS AS IDENTITY", byName.get("id").defaultExpression());
        assertTrue(byName.get("s").defaultExpression().startsWith("nextval("), byName.get("s").toString());

        // core's view: constants evaluate once on the server, expressions are left to it
        final TableSchema schema = catalog.describe(SCHEMA, "types");
        final Map<String, ColumnSpec> specs = schema.columns().stream()
            .collect(Collectors.toMap(ColumnSpec::name, c -> c));
        assertEquals("\"x\"", catalog.evaluateDefault(specs.get("t")));
        assertEquals("0", catalog.evaluateDefault(specs.get("i")));
        assertEquals("2", catalog.evaluateDefault(specs.get("big")));
        assertEquals("-1.5", catalog.evaluateDefault(specs.get("n")));
        assertEquals("true", catalog.evaluateDefault(specs.get("b")));
        assertEquals("[1,2]", catalog.evaluateDefault(specs.get("arr")));
        assertEquals("\"ok\"", catalog.evaluateDefault(specs.get("m")));
        assertEquals("\"2024-01-01\"", catalog.evaluateDefault(specs.get("day")));
        assertNull(catalog.evaluateDefault(specs.get("ts")));
        assertEquals("EXPRESSION", specs.get("ts").defaultKind());
        assertTrue(specs.get("ts").insertable());
        assertFalse(specs.get("half").insertable());
        assertNull(catalog.evaluateDefault(new ColumnSpec("x", "text", "DEFAULT", "now()")),
            "evaluated an expression it did not classify");
        assertEquals(t.version(), schema.version());
        assertEquals("table", schema.engine());
    }

    @Test
    void shouldChangeTheVersionOnEveryAlterOfColumnsAndOnlyThen() throws Exception
    {
        final PostgresCatalog catalog = creating();
        final String table = "versioned";
        final String q = PostgresIdentifiers.qualified(SCHEMA, table);
        assertNull(catalog.tableVersion(SCHEMA, table));
        catalog.create(SCHEMA, table);
        String v = catalog.tableVersion(SCHEMA, table);
        assertNotNull(v);
        final List<String> changes = List.of("ALTER TABLE " + q + " ADD COLUMN extra text",
            "ALTER TABLE " + q + " ALTER COLUMN extra SET DEFAULT 'a'",
            "ALTER TABLE " + q + " ALTER COLUMN extra SET DEFAULT 'b'",
            "ALTER TABLE " + q + " ALTER COLUMN extra DROP DEFAULT",
            "ALTER TABLE " + q + " ALTER COLUMN extra TYPE varchar(20)",
            "ALTER TABLE " + q + " ALTER COLUMN extra TYPE varchar(30)",
            "ALTER TABLE " + q + " ALTER COLUMN extra SET NOT NULL",
            "ALTER TABLE " + q + " RENAME COLUMN extra TO other",
            "ALTER TABLE " + q + " DROP COLUMN other");
        for (final String change : changes)
        {
            sql(change);
            final String now = catalog.tableVersion(SCHEMA, table);
            assertNotEquals(v, now, "unchanged after " + change);
            v = now;
        }
        final List<String> noChanges = List.of("INSERT INTO " + q + " VALUES (1, '{}', now())",
            "CREATE INDEX ON " + q + " (at)", "ANALYZE " + q, "COMMENT ON TABLE " + q + " IS 'c'",
            "VACUUM " + q, "UPDATE " + q + " SET doc = '[]'");
        for (final String same : noChanges)
        {
            sql(same);
            assertEquals(v, catalog.tableVersion(SCHEMA, table), "changed after " + same);
        }
        sql("DROP TABLE " + q);
        catalog.create(SCHEMA, table);
        assertNotEquals(v, catalog.tableVersion(SCHEMA, table), "a re-created table kept the version");
    }

    @Test
    void shouldClassifyTheServersOwnFailures() throws Exception
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            final SQLException gone = assertThrows(SQLException.class,
                () -> s.execute("INSERT INTO " + PostgresIdentifiers.qualified(SCHEMA, "never") + " VALUES (1)"));
            assertEquals(PostgresErrors.Kind.TABLE_GONE, PostgresErrors.kind(gone.getSQLState()));
            final SQLException data = assertThrows(SQLException.class, () -> s.execute("SELECT 'x'::int"));
            final SinkException record = PostgresErrors.classify("select", data);
            assertTrue(record.recordCaused(), record.getMessage());
            assertTrue(record.getMessage().contains("22P02"), record.getMessage());

            c.setAutoCommit(false);
            final SQLException first = assertThrows(SQLException.class, () -> s.execute("SELECT 1 / 0"));
            final SQLException then = assertThrows(SQLException.class, () -> s.execute("SELECT 1"));
            assertEquals("25P02", then.getSQLState());
            final SinkException e = PostgresErrors.classify("insert", first, then);
            assertEquals("22012", PostgresErrors.sqlstate(e.code()));
            assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
            c.rollback();
        }
        final String noDb = url().substring(0, url().lastIndexOf('/') + 1) + "no_such_db_" + RUN;
        final SQLException missing = assertThrows(SQLException.class,
            () -> DriverManager.getConnection(noDb, props).close());
        assertEquals(PostgresErrors.Kind.FATAL, PostgresErrors.kind(missing.getSQLState()), missing.toString());
        final PostgresCatalog unreachable = new PostgresCatalog(
            () -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:1/sluice", props), "port 1", null);
        final SinkException down = assertThrows(SinkException.class, () -> unreachable.describe(SCHEMA, "t"));
        assertTrue(down.retriable(), down.getMessage());
    }

    private static List<String> names(final TableSchema schema)
    {
        assertNotNull(schema);
        return schema.columns().stream().map(ColumnSpec::name).toList();
    }
}
