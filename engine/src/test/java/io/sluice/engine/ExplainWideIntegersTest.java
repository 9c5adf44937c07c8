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
 * {@code explain --schema} with Int128, UInt128, Int256 and UInt256 columns, without a server (18.16, the local one,
 * predates these types): the CREATE TABLE statement is parsed, the engine's encoders write the rows, and the values
 * are shown as ClickHouse's TabSeparated prints them, in plain decimal; a value outside a column's range is the
 * conversion error naming the column, its type, the path and the value.
 */
class ExplainWideIntegersTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String UINT256_MAX = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    private static final String INT256_MIN = "-57896044618658097711785492504343953926634992332820282019728792003956564819968";

    private static List<JsonNode> explain(final Path dir, final String input) throws Exception
    {
        final Path config = dir.resolve("wide.toml");
        Files.writeString(config, """
            [kafka]
            bootstrap_servers = "127.0.0.1:1"

            [[sinks]]
            name = "tokens"
            kind = "clickhouse"
            topics = ["transfers"]
            group_id = "explain-wide"
            unmatched = "skip"

            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:1"
            database = "chain"

            [[sinks.branches]]
            name = "transfers"
            when = { path = "kind", equals = "transfer" }
            target_table = "transfers"
            columns = { amount = "value.amount", supply = "value.supply" }
            """);
        final Path schema = dir.resolve("schema.sql");
        Files.writeString(schema, """
            CREATE TABLE IF NOT EXISTS chain.transfers
            (
                `id` UInt64,
                `amount` UInt256,
                `supply` Int256 DEFAULT 0,
                `delta` Int128 CODEC(ZSTD(1)),
                `hash` UInt128 COMMENT 'low half of the hash',
                `fees` Array(Nullable(UInt128)),
                `balances` Map(UInt128, Int256),
                `rank` LowCardinality(Nullable(Int128))
            )
            ENGINE = MergeTree ORDER BY id;
            """);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ExplainCommand.run(config, "tokens", null, false, schema, false, "UTC",
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
            new PrintWriter(err));
        assertEquals(0, code, err.toString());
        final List<JsonNode> nodes = new ArrayList<>();
        for (final String line : out.toString().split("\n"))
        {
            if (!line.isEmpty())
            {
                nodes.add(JSON.readTree(line));
            }
        }
        return nodes;
    }

    private static List<String> values(final JsonNode r)
    {
        assertTrue(r.has("columns"), r.toString());
        final List<String> values = new ArrayList<>();
        for (final JsonNode c : r.get("columns"))
        {
            values.add(c.get("name").asText() + " " + c.get("type").asText() + " = " + c.get("value").asText());
        }
        return values;
    }

    @Test
    void shouldShowWideIntegersFromTheSchemaFileInPlainDecimal(@TempDir final Path dir) throws Exception
    {
        final List<JsonNode> out = explain(dir, "{\"kind\":\"transfer\",\"id\":1,\"value\":{\"amount\":\"" + UINT256_MAX
            + "\",\"supply\":" + INT256_MIN + "},\"delta\":-1e30,\"hash\":\"340282366920938463463374607431768211455\","
            + "\"fees\":[1,null,\"18446744073709551616\"],\"balances\":{\"7\":-7},\"rank\":null}\n"
            + "{\"kind\":\"transfer\",\"id\":2,\"value\":{\"amount\":0},\"delta\":5.0,\"hash\":true,\"fees\":[],"
            + "\"balances\":{},\"rank\":\"-170141183460469231731687303715884105728\"}\n");
        assertEquals(2, out.size(), out.toString());
        assertEquals("transfers", out.get(0).get("table").asText(), out.get(0).toString());
        assertEquals(List.of("id UInt64 = 1", "amount UInt256 = " + UINT256_MAX, "supply Int256 = " + INT256_MIN,
            "delta Int128 = -1000000000000000000000000000000", "hash UInt128 = 340282366920938463463374607431768211455",
            "fees Array(Nullable(UInt128)) = [1,NULL,18446744073709551616]", "balances Map(UInt128, Int256) = {7:-7}",
            "rank LowCardinality(Nullable(Int128)) = \\N"), values(out.get(0)));
        assertEquals(List.of("id UInt64 = 2", "amount UInt256 = 0", "supply Int256 = 0", "delta Int128 = 5",
            "hash UInt128 = 1", "fees Array(Nullable(UInt128)) = []", "balances Map(UInt128, Int256) = {}",
            "rank LowCardinality(Nullable(Int128)) = -170141183460469231731687303715884105728"), values(out.get(1)));
    }

    @Test
    void shouldNameTheColumnAndTheValueOutsideTheRange(@TempDir final Path dir) throws Exception
    {
        final String past = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
        final List<JsonNode> out = explain(dir, "{\"kind\":\"transfer\",\"id\":1,\"value\":{\"amount\":" + past
            + "},\"delta\":0,\"hash\":0}\n{\"kind\":\"transfer\",\"id\":2,\"value\":{\"amount\":1},"
            + "\"delta\":\"170141183460469231731687303715884105728\",\"hash\":0}\n"
            + "{\"kind\":\"transfer\",\"id\":3,\"value\":{\"amount\":1},\"delta\":1.5,\"hash\":0}\n");
        assertEquals(3, out.size(), out.toString());
        assertEquals("amount", out.get(0).get("column").asText(), out.get(0).toString());
        assertEquals("value.amount", out.get(0).get("path").asText(), out.get(0).toString());
        assertEquals("column amount (UInt256) from path value.amount: value out of range for the column type (value "
            + past + ") (table chain.transfers)", out.get(0).get("error").asText());
        assertEquals("delta", out.get(1).get("column").asText(), out.get(1).toString());
        assertEquals("column delta (Int128) from path delta: value out of range for the column type (value "
            + "\"170141183460469231731687303715884105728\") (table chain.transfers)", out.get(1).get("error").asText());
        assertTrue(out.get(2).get("error").asText().startsWith("column delta (Int128) from path delta: number with a "
            + "fraction into an integer column"), out.get(2).toString());
    }
}
