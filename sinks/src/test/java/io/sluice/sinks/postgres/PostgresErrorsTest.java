package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.sql.SQLException;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.core.gather.sink.SinkException;
import io.sluice.sinks.postgres.PostgresErrors.Kind;

class PostgresErrorsTest
{
    @Test
    void shouldClassifyEverySqlstateOfTheTable()
    {
        final Object[][] table = {
            {"08000", Kind.RETRIABLE}, {"08006", Kind.RETRIABLE}, {"08001", Kind.RETRIABLE}, {"08P01", Kind.RETRIABLE},
            {"53000", Kind.RETRIABLE}, {"53100", Kind.RETRIABLE}, {"53200", Kind.RETRIABLE}, {"53300", Kind.RETRIABLE},
            {"57P01", Kind.RETRIABLE}, {"57P02", Kind.RETRIABLE}, {"57P03", Kind.RETRIABLE}, {"57014", Kind.RETRIABLE},
            {"55P03", Kind.RETRIABLE}, {"40001", Kind.RETRIABLE}, {"40P01", Kind.RETRIABLE}, {"25P03", Kind.RETRIABLE},
            {"57P05", Kind.RETRIABLE},
            {"28000", Kind.FATAL}, {"28P01", Kind.FATAL}, {"3D000", Kind.FATAL},
            {"42P01", Kind.TABLE_GONE}, {"3F000", Kind.TABLE_GONE},
            {"22001", Kind.RECORD_CAUSED}, {"22021", Kind.RECORD_CAUSED}, {"22P02", Kind.RECORD_CAUSED},
            {"22003", Kind.RECORD_CAUSED}, {"23505", Kind.RECORD_CAUSED}, {"23502", Kind.RECORD_CAUSED},
            {"23503", Kind.RECORD_CAUSED}, {"23514", Kind.RECORD_CAUSED},
            {"42501", Kind.PERMANENT}, {"42703", Kind.PERMANENT}, {"42601", Kind.PERMANENT},
            {"25P02", Kind.PERMANENT}, {"57000", Kind.PERMANENT}, {"40002", Kind.PERMANENT},
            {"XX000", Kind.PERMANENT}, {null, Kind.PERMANENT}, {"", Kind.PERMANENT}};
        for (final Object[] row : table)
        {
            assertEquals(row[1], PostgresErrors.kind((String)row[0]), String.valueOf(row[0]));
        }
    }

    @Test
    void shouldNameTheConditionBeforeItsClass()
    {
        final Object[][] table = {{"23505", "(unique_violation)"}, {"23503", "(foreign_key_violation)"},
            {"23514", "(check_violation)"}, {"23502", "(not_null_violation)"},
            {"22021", "(character_not_in_repertoire)"},
            {"57014", "(query_canceled)"}, {"22P02", "(invalid_text_representation)"},
            {"23P99", "(integrity_constraint_violation (class))"}, {"08P01", "(connection_exception (class))"}};
        for (final Object[] row : table)
        {
            final String m = PostgresErrors.classify("COPY into \"s\".\"t\"",
                new SQLException("refused", (String)row[0])).getMessage();
            assertTrue(m.contains("PostgreSQL error " + row[0] + " " + row[1] + ":"), m);
        }
    }

    @Test
    void shouldPackSqlstatesAsPostgresqlDoes()
    {
        // MAKE_SQLSTATE('4','2','P','0','1') = 4 + (2 << 6) + (32 << 12) + (0 << 18) + (1 << 24)
        assertEquals(4 + (2 << 6) + (32 << 12) + (1 << 24), PostgresErrors.code("42P01"));
        assertEquals(0, PostgresErrors.code("00000"));
        assertEquals(0, PostgresErrors.code(null));
        for (final String s : List.of("42P01", "25P02", "XX000", "3D000", "08006", "57P03", "ZZZZZ"))
        {
            assertEquals(s, PostgresErrors.sqlstate(PostgresErrors.code(s)));
        }
    }

    @Test
    void shouldKeepTheFirstRealFailureOverInFailedTransaction()
    {
        final SQLException first = new SQLException("division by zero", "22012");
        final SQLException aborted = new SQLException("current transaction is aborted", "25P02");
        assertSame(first, PostgresErrors.firstReal(first, aborted));
        assertSame(first, PostgresErrors.firstReal(aborted, first));
        assertSame(first, PostgresErrors.firstReal(null, aborted, first));
        final SQLException chain = new SQLException("batch entry 0 aborted", "25P02");
        final SQLException real = new SQLException("value too long", "22001");
        chain.setNextException(real);
        assertSame(real, PostgresErrors.firstReal(chain));
        assertSame(aborted, PostgresErrors.firstReal(aborted));
        assertNull(PostgresErrors.firstReal());

        final SinkException e = PostgresErrors.classify("insert into \"public\".\"t\"", aborted, first);
        assertEquals("22012", PostgresErrors.sqlstate(e.code()));
        assertTrue(e.recordCaused());
        assertFalse(e.retriable());
        assertTrue(e.getMessage().contains("division by zero") && !e.getMessage().contains("aborted"),
            e.getMessage());
    }

    @Test
    void shouldMapKindsOntoSinkException()
    {
        final SinkException retry = PostgresErrors.classify("w", new SQLException("terminating", "57P01"));
        assertTrue(retry.retriable());
        assertFalse(retry.recordCaused());
        final SinkException gone = PostgresErrors.classify("w", new SQLException("relation does not exist", "42P01"));
        assertFalse(gone.retriable());
        assertFalse(gone.recordCaused());
        assertTrue(gone.getMessage().contains("42P01 (undefined_table)") && gone.getMessage().contains("gone"),
            gone.getMessage());
        final SinkException auth = PostgresErrors.classify("w", new SQLException("password authentication failed",
            "28P01"));
        assertFalse(auth.retriable());
        assertTrue(auth.getMessage().contains("pg_hba.conf"), auth.getMessage());
        final SinkException io = PostgresErrors.classify("w", new SQLException("I/O", null, new ConnectException(
            "refused")));
        assertTrue(io.retriable());
        final SinkException perm = PostgresErrors.classify("w", new SQLException("permission denied", "42501"));
        assertFalse(perm.retriable());
        assertFalse(perm.recordCaused());
    }

    @Test
    void shouldTellConstantDefaultsFromExpressionsByTheirNodeTree()
    {
        // trees as PostgreSQL 15 stores them (pg_attrdef.adbin::text)
        assertEquals(List.of(), PostgresCatalog.constantShape("{CONST :consttype 25 :consttypmod -1 :constcollid 100"
            + " :constlen -1 :constbyval false :constisnull false :location 63 :constvalue 5 [ 20 0 0 0 120 ]}"));
        assertEquals(List.of(481L), PostgresCatalog.constantShape("{FUNCEXPR :funcid 481 :funcresulttype 20"
            + " :funcretset false :funcvariadic false :funcformat 2 :funccollid 0 :inputcollid 0 :args ({CONST"
            + " :consttype 23 :constvalue 4 [ 0 0 0 0 0 0 0 0 ]}) :location -1}"));
        assertEquals(List.of(481L, 177L), PostgresCatalog.constantShape("{FUNCEXPR :funcid 481 :funcformat 2 :args"
            + " ({OPEXPR :opno 551 :opfuncid 177 :args ({CONST :consttype 23} {CONST :consttype 23})})}"));
        assertNull(PostgresCatalog.constantShape("{FUNCEXPR :funcid 1299 :funcresulttype 1184 :funcretset false"
            + " :funcvariadic false :funcformat 0 :funccollid 0 :inputcollid 0 :args <> :location 123}"));
        assertNull(PostgresCatalog.constantShape("{SQLVALUEFUNCTION :op 3 :type 1184 :typmod -1 :location 338}"));
        assertNull(PostgresCatalog.constantShape("{FUNCEXPR :funcid 480 :funcformat 2 :args ({OPEXPR :opno 690"
            + " :opfuncid 1276 :args ({VAR :varno 1 :varattno 1} {CONST :consttype 20})})}"));
    }

    @Test
    void shouldReplacePlaceholdersOnceWithQuotedNames()
    {
        assertEquals("CREATE TABLE \"public\".\"a{table}b\" (id bigint)", PostgresCatalog.replacePlaceholders(
            "CREATE TABLE {schema}.{table} (id bigint)", "\"public\"", "\"a{table}b\""));
        assertEquals("CREATE TABLE \"s\".\"t\" (LIKE x); COMMENT ON TABLE \"s\".\"t\" IS 'x'",
            PostgresCatalog.replacePlaceholders("CREATE TABLE {schema}.{table} (LIKE x); COMMENT ON TABLE "
                + "{schema}.{table} IS 'x'", "\"s\"", "\"t\""));
    }

    @Test
    void shouldTakeOnlyDuplicatesOfTheCatalogsNameIndexesAsALostRace()
    {
        assertTrue(PostgresCatalog.lostRace(new SQLException("relation \"t\" already exists", "42P07")));
        assertTrue(PostgresCatalog.lostRace(new SQLException("ERROR: duplicate key value violates unique constraint "
            + "\"pg_type_typname_nsp_index\"", "23505")));
        assertTrue(PostgresCatalog.lostRace(new SQLException("ERROR: duplicate key value violates unique constraint "
            + "\"pg_class_relname_nsp_index\"", "23505")));
        assertFalse(PostgresCatalog.lostRace(new SQLException("ERROR: duplicate key value violates unique "
            + "constraint \"orders_pkey\"", "23505")));
        assertFalse(PostgresCatalog.lostRace(new SQLException("type \"t\" already exists", "42710")));
        assertEquals("view", PostgresCatalog.relationKind('v'));
        assertEquals("composite type", PostgresCatalog.relationKind('c'));
    }
}
