package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.clickhouse.client.api.ServerException;

import io.sluice.core.gather.sink.SinkException;

class ClickHouseErrorsTest
{
    @ParameterizedTest(name = "code {0} retriable={1}")
    @CsvSource({
        "3, true", "159, true", "164, true", "202, true", "203, true", "209, true", "210, true", "241, true",
        "242, true", "252, true", "285, true", "319, true", "425, true", "999, true", "1002, true",
        "16, false", "27, false", "33, false", "53, false", "57, false", "60, false", "62, false", "81, false",
        "117, false", "497, false", "516, false"})
    void shouldClassifyByTheExplicitTable(final int code, final boolean retriable)
    {
        final SinkException e = ClickHouseErrors.classify("insert",
            new ServerException(code, "DB::Exception: x", 500, "q"));
        assertEquals(retriable, e.retriable());
        assertEquals(code, e.code());
    }

    @ParameterizedTest(name = "code {0} record-caused={1}")
    @CsvSource({
        "153, true", "6, true", "26, true", "27, true", "38, true", "41, true", "69, true", "72, true", "117, true",
        "131, true", "190, true", "321, true", "349, true", "376, true", "395, true", "407, true", "469, true",
        "70, false", "368, false", "3, false", "209, false", "210, false", "159, false",
        "16, false", "53, false", "60, false", "62, false", "81, false", "115, false", "497, false", "241, false",
        "252, false"})
    void shouldTellADataRefusalFromADestinationRefusal(final int code, final boolean recordCaused)
    {
        final SinkException e = ClickHouseErrors.classify("insert",
            new ServerException(code, "DB::Exception: x", 500, "q"));
        assertEquals(recordCaused, e.recordCaused());
        assertFalse(e.recordCaused() && e.retriable(), "a record-caused refusal is permanent");
    }

    /**
     * The codes a refused batch is split for (the insert worker finds the records): each one in the table is a
     * permanent refusal of the data, and none is also a retriable or schema-change code (which keep their own
     * handling: retried, or re-read and encoded again), except 70 whose schema-change reading wins.
     */
    @Test
    void shouldSplitOnlyForTheDataCodesOfTheTable()
    {
        for (final int code : ClickHouseErrors.RECORD_CAUSED.keySet())
        {
            final SinkException e = ClickHouseErrors.classify("insert",
                new ServerException(code, "DB::Exception: x", 500, "q"));
            assertFalse(e.retriable(), "code " + code);
            assertEquals(code != 70, e.recordCaused(), "code " + code);
            assertEquals(code == 70, e.schemaChanged(), "code " + code);
            assertTrue(e.getMessage().contains(ClickHouseErrors.RECORD_CAUSED.get(code)), e.getMessage());
        }
        final SinkException nested = ClickHouseErrors.classify("insert at http://h:1", new ServerException(0,
            "Code: 190, e.displayText() = DB::Exception: Elements 'n.a' and 'n.b' of Nested data structure 'n' (Array "
                + "columns) have different array sizes., e.what() = DB::Exception",
            500, "q"));
        assertTrue(nested.recordCaused());
        assertEquals("insert at http://h:1: ClickHouse error 190 (SIZES_OF_ARRAYS_DOESNT_MATCH): Elements 'n.a' and "
            + "'n.b' of Nested data structure 'n' (Array columns) have different array sizes.", nested.getMessage());
    }

    @Test
    void shouldNameTheDataRefusalOfAnOldServer()
    {
        final String body = "Code: 153, e.displayText() = DB::Exception: Division by zero, e.what() = DB::Exception";
        final SinkException e = ClickHouseErrors.classify("insert into `d`.`t`", new ServerException(0, body, 500,
            "q"));
        assertTrue(e.recordCaused());
        assertEquals("insert into `d`.`t`: ClickHouse error 153 (ILLEGAL_DIVISION): Division by zero", e.getMessage());
    }

    @Test
    void shouldReadTheCodeOfAnOldServerMessage()
    {
        // ClickHouse 18.16 answers with this body; client-v2 0.10.0 reports code 0 for it
        final String body = "Code: 60, e.displayText() = DB::Exception: Table github.x doesn't exist., e.what() = DB::Exception";
        final SinkException e = ClickHouseErrors.classify("describe github.x", new ServerException(0, body, 404, "q"));
        assertEquals(60, e.code());
        assertFalse(e.retriable());
        assertEquals("describe github.x: ClickHouse error 60: Table github.x doesn't exist.", e.getMessage());
        assertEquals(241, ClickHouseErrors.codeIn("Code: 241, e.displayText() = DB::Exception: Memory limit"));
        assertEquals(0, ClickHouseErrors.codeIn("no code here"));
    }

    @Test
    void shouldRetryIoFailuresAndNameTheCause()
    {
        assertTrue(ClickHouseErrors
            .classify("insert at http://h:1", new RuntimeException(new ConnectException("refused"))).retriable());
        assertTrue(ClickHouseErrors.classify("insert", new SocketTimeoutException("read")).retriable());
        final SinkException host = ClickHouseErrors.classify("insert", new UnknownHostException("nohost"));
        assertTrue(host.retriable());
        assertTrue(host.getMessage().contains("unknown host nohost"), host.getMessage());
        assertFalse(ClickHouseErrors.classify("insert", new IllegalStateException("bug")).retriable());
    }

    /**
     * The refusals of a typed insert into a table that changed (docs/schema-changes.md, as 18.16 and current servers
     * word them) are their own class: not retried as they are, not permanent, the rows are encoded again.
     */
    @ParameterizedTest(name = "code {0}: schema changed = {2}")
    @CsvSource(delimiter = '|', value = {
        "368|Code: 368, e.displayText() = DB::Exception: Bad cast from type DB::ColumnVector<long> to DB::ColumnVector<int>|true",
        "53|Code: 53. DB::Exception: Cannot convert: Int64 to Int32|true",
        "16|Code: 16, e.displayText() = DB::Exception: No such column a in table dropped|true",
        "117|Code: 117. DB::Exception: Type of 'v' must be Int32, not Int64|true",
        "117|Code: 117. DB::Exception: Unknown column with name x found while reading data in Native format|true",
        "117|Code: 117. DB::Exception: Duplicate field found while parsing JSONEachRow format: id|false",
        "60|Code: 60. DB::Exception: Table db.t doesn't exist|false",
        "27|Code: 27. DB::Exception: Cannot parse input|false"})
    void shouldTellARefusalBecauseTheTableChangedFromOtherFailures(final int code, final String message,
        final boolean changed)
    {
        final SinkException e = ClickHouseErrors.classify("insert at http://h:1",
            new ServerException(code, message, 500, "q"));
        assertEquals(changed, e.schemaChanged(), e.getMessage());
        assertFalse(e.retriable());
        assertEquals(code, e.code());
        if (changed)
        {
            assertTrue(e.getMessage().contains("the table is not the one the rows were encoded for"), e.getMessage());
        }
        if (code == 368)
        {
            // 18.16 reports its code only inside the body (client-v2 sees 0)
            assertTrue(ClickHouseErrors.classify("insert", new ServerException(0, message, 500, "q")).schemaChanged());
        }
    }
}
