package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/**
 * A table's version and engine from its statement: the one-line form (18.16's SHOW CREATE TABLE and every server's
 * {@code create_table_query}) and the multi-line form of current releases' SHOW CREATE TABLE give the same version;
 * any change inside a string literal or a quoted identifier, and any change of a word, changes it.
 */
class TableStatementTest
{
    /** As 18.16 prints it (one line, its own spacing). */
    private static final String ONE_LINE = "CREATE TABLE db.t ( id UInt64,  s String DEFAULT 'a b',  `we ird` "
        + "Nullable(String),  e Enum8('x y' = 1, 'z' = 2)) ENGINE = MergeTree ORDER BY id SETTINGS "
        + "index_granularity = 8192";

    /** As current releases print SHOW CREATE TABLE. */
    private static final String MULTI_LINE = "CREATE TABLE db.t\n(\n    `id` UInt64,\n    `s` String DEFAULT 'a b',\n"
        + "    `we ird` Nullable(String),\n    `e` Enum8('x y' = 1, 'z' = 2)\n)\nENGINE = MergeTree\nORDER BY id\n"
        + "SETTINGS index_granularity = 8192";

    /** As current releases print create_table_query. */
    private static final String CURRENT_ONE_LINE = "CREATE TABLE db.t (`id` UInt64, `s` String DEFAULT 'a b', "
        + "`we ird` Nullable(String), `e` Enum8('x y' = 1, 'z' = 2)) ENGINE = MergeTree ORDER BY id "
        + "SETTINGS index_granularity = 8192";

    @Test
    void shouldGiveTheSameVersionToTheMultiLineAndTheOneLineStatement()
    {
        assertEquals(TableStatement.version(CURRENT_ONE_LINE), TableStatement.version(MULTI_LINE));
        assertEquals(TableStatement.normalise(CURRENT_ONE_LINE), TableStatement.normalise(MULTI_LINE));
        assertEquals(TableStatement.version(ONE_LINE), TableStatement.version(ONE_LINE.replace(" ", "  ")
            .replace("'a  b'", "'a b'").replace("`we  ird`", "`we ird`").replace("'x  y'", "'x y'")),
            "doubled spaces outside quotes");
        assertEquals(TableStatement.version(ONE_LINE), TableStatement.version(ONE_LINE.replace(",  ", ",\n\t ")),
            "tabs and newlines are whitespace too");
        assertEquals(16, TableStatement.version(ONE_LINE).length());
        assertEquals(TableStatement.version(ONE_LINE), TableStatement.version(ONE_LINE), "stable");
    }

    @Test
    void shouldKeepWhitespaceInsideQuotes()
    {
        assertEquals("CREATE TABLE db.t(s String DEFAULT'a  b',`c d`UInt8,\"e f\"UInt8)ENGINE=Memory",
            TableStatement.normalise("CREATE TABLE db.t ( s String DEFAULT 'a  b', `c d` UInt8, \"e f\" UInt8) "
                + "ENGINE = Memory"));
        assertEquals("DEFAULT'it\\'s  x'", TableStatement.normalise("DEFAULT 'it\\'s  x'"), "a backslash escape");
        assertEquals("DEFAULT'it''s  x'", TableStatement.normalise("DEFAULT 'it''s  x'"), "a doubled quote");
        assertEquals("DEFAULT''", TableStatement.normalise("DEFAULT  '' "), "an empty string");
    }

    @Test
    void shouldChangeTheVersionWithEveryChangeInsideALiteralOrAQuotedIdentifier()
    {
        final String v = TableStatement.version(ONE_LINE);
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("'a b'", "'ab'")), "DEFAULT 'a b' -> 'ab'");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("'a b'", "'a  b'")), "DEFAULT 'a b' -> 'a  b'");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("'a b'", "'a\nb'")), "a newline in a literal");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("`we ird`", "`weird`")), "a quoted identifier");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("'x y'", "'xy'")), "an Enum's value");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("'z' = 2", "'z' = 3")), "an Enum's number");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("id UInt64", "id Int64")), "a type");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("s String", "s Nullable(String)")), "Nullable");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace("8192", "4096")), "a setting");
        assertNotEquals(v, TableStatement.version(ONE_LINE.replace(")) ENGINE", "), x UInt8) ENGINE")),
            "an added column");
    }

    @Test
    void shouldKeepWordsApart()
    {
        // dropping all whitespace would make these one statement: a renamed column with another type
        assertNotEquals(TableStatement.version("CREATE TABLE db.t (a UInt8) ENGINE = Memory"),
            TableStatement.version("CREATE TABLE db.t (aU Int8) ENGINE = Memory"));
        assertEquals("CREATE TABLE db.t(a UInt8)ENGINE=Memory ORDER BY a",
            TableStatement.normalise("CREATE TABLE db.t\n(\n    a UInt8\n)\nENGINE = Memory\nORDER BY a"));
    }

    @Test
    void shouldReadTheEngineAsSystemTablesNamesIt()
    {
        assertEquals("MergeTree", TableStatement.engine(ONE_LINE));
        assertEquals("MergeTree", TableStatement.engine(MULTI_LINE));
        assertEquals("ReplicatedReplacingMergeTree", TableStatement.engine("CREATE TABLE db.t (id UInt64, v UInt8) "
            + "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/{shard}/t', '{replica}', v) ORDER BY id"));
        assertEquals("Memory", TableStatement.engine("CREATE TABLE db.t (`ENGINE` String DEFAULT 'ENGINE = Log', "
            + "c String COMMENT ' ENGINE = TinyLog') ENGINE = Memory"), "ENGINE inside parentheses and quotes");
        assertEquals("Distributed", TableStatement.engine("CREATE TABLE db.t ( id UInt64) ENGINE = "
            + "Distributed(c, db, t, rand())"));
        assertEquals("View", TableStatement.engine("CREATE VIEW db.v ( id UInt64) AS SELECT id FROM db.t "));
        assertEquals("MaterializedView", TableStatement.engine("CREATE MATERIALIZED VIEW db.mv ( id UInt64) "
            + "ENGINE = Memory AS SELECT id FROM db.t "), "not the inner table's engine");
        assertEquals("MaterializedView", TableStatement.engine("CREATE MATERIALIZED VIEW db.mv\n(\n    `id` UInt64\n"
            + ")\nENGINE = MergeTree\nORDER BY id\nAS SELECT id\nFROM db.t"));
        assertEquals("Memory", TableStatement.engine("CREATE TABLE db.`.inner.mv` ( id UInt64) ENGINE = Memory"));
        assertEquals("", TableStatement.engine("CREATE TABLE db.r AS remote('h:9000', db, t)"), "none named");
        assertEquals("Memory", TableStatement.engine("CREATE TABLE db.ENGINE ( id UInt64) ENGINE = Memory"),
            "a table named ENGINE");
    }
}
