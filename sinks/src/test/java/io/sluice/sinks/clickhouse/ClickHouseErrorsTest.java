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
        "153, true", "6, true", "27, true", "72, true", "117, true", "349, true", "395, true", "469, true",
        "16, false", "53, false", "60, false", "62, false", "81, false", "115, false", "497, false", "241, false",
        "252, false"})
    void shouldTellADataRefusalFromADestinationRefusal(final int code, final boolean recordCaused)
    {
        final SinkException e = ClickHouseErrors.classify("insert",
            new ServerException(code, "DB::Exception: x", 500, "q"));
        assertEquals(recordCaused, e.recordCaused());
        assertFalse(e.recordCaused() && e.retriable(), "a record-caused refusal is permanent");
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
}
