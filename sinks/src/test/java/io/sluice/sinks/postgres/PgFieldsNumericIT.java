package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.codecs.rowbinary.ConversionError;

/**
 * {@link PgFields#writeNumeric} against the real PostgreSQL: rows written with both forms (long unscaled value and
 * scale; BigDecimal) into a {@code numeric} and a {@code numeric(12,3)} column by binary COPY, beside the value's text
 * in a {@code text} column. The server is the oracle twice over: the text cast by the server itself
 * ({@code t::numeric}, {@code t::numeric(12,3)}) must equal what landed, and {@code COPY ... TO STDOUT (FORMAT binary)}
 * of that cast ({@code numeric_send}) must give exactly the bytes {@link PgFields} wrote.
 */
class PgFieldsNumericIT
{
    private static final String SCHEMA = "pgnum_" + Long.toString(System.currentTimeMillis(), 36);
    private static final String TABLE = PostgresIdentifiers.qualified(SCHEMA, "n");

    @BeforeAll
    static void createSchema() throws IOException, SQLException
    {
        try (Connection c = PgTestServer.open(); Statement s = c.createStatement())
        {
            s.execute("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA));
            s.execute("CREATE TABLE " + TABLE + " (id integer, a numeric, b numeric(12,3), t text)");
        }
    }

    @AfterAll
    static void dropSchema() throws IOException, SQLException
    {
        try (Connection c = PgTestServer.open(); Statement s = c.createStatement())
        {
            s.execute("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE");
        }
    }

    @Test
    void shouldLandWhatTheServerMakesOfTheSameTextByteForByte() throws Exception
    {
        final List<BigDecimal> values = new ArrayList<>();
        for (final String s : new String[]{"0", "0.000", "1.50", "-1.50", "0.0005", "-0.0005", "0.00049", "9999",
            "10000", "123456789.9994", "-123456789.9995", "1E+20", "1.5E+3", "0.00000001", "3.14159265358979"})
        {
            values.add(new BigDecimal(s));
        }
        for (final long u : new long[]{Long.MAX_VALUE, Long.MIN_VALUE, 10_000_000_000_000_000L})
        {
            values.add(BigDecimal.valueOf(u, 10));
            values.add(BigDecimal.valueOf(u, 19));
        }
        final Random random = new Random(22);
        for (int i = 0; i < 400; i++)
        {
            values.add(BigDecimal.valueOf(random.nextLong() >> random.nextInt(63), random.nextInt(25) - 4));
            final BigInteger big = new BigInteger(64 + random.nextInt(60), random);
            values.add(new BigDecimal(random.nextBoolean() ? big : big.negate(), random.nextInt(40)));
        }
        // the column numeric(12,3) takes what rounds to at most 9 integer digits; the rest is NULL there
        final BigDecimal limit = new BigDecimal("1E+9");
        final Bytes<?> out = Bytes.allocateElasticOnHeap(1 << 16);
        final List<String> expected = new ArrayList<>();
        PgCopy.writeHeader(out);
        for (int id = 0; id < values.size(); id++)
        {
            final BigDecimal v = values.get(id);
            final boolean fits = v.setScale(3, RoundingMode.HALF_UP).abs().compareTo(limit) < 0;
            PgFields.beginRow(out, 4);
            PgFields.writeInt4(out, id);
            final boolean longForm = v.unscaledValue().bitLength() < 64;
            final long at = out.writePosition();
            assertEquals(ConversionError.NONE, longForm
                ? PgFields.writeNumeric(out, v.unscaledValue().longValue(), v.scale())
                : PgFields.writeNumeric(out, v), v.toString());
            final String a = hex(out, at);
            String b = "null";
            if (fits)
            {
                final long bAt = out.writePosition();
                assertEquals(ConversionError.NONE, longForm
                    ? PgFields.writeNumeric(out, v.unscaledValue().longValue(), v.scale(), 12, 3)
                    : PgFields.writeNumeric(out, v, 12, 3), v.toString());
                b = hex(out, bAt);
            }
            else
            {
                PgFields.writeNull(out);
            }
            PgFields.writeText(out, v.toPlainString());
            expected.add(id + "|" + a + "|" + b);
        }
        PgCopy.writeTrailer(out);
        final byte[] all = out.toByteArray();
        try (Connection c = PgTestServer.open())
        {
            final CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + TABLE + " (id, a, b, t) FROM STDIN (FORMAT binary)");
            in.writeToCopy(all, 0, all.length);
            assertEquals(values.size(), in.endCopy());
            // what landed equals the server's own reading of the text
            try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM " + TABLE
                    + " WHERE a::text = t::numeric::text AND (b IS NULL OR b::text = t::numeric(12,3)::text)"
                    + " AND (b IS NOT NULL OR abs(round(t::numeric, 3)) >= 1e9)"))
            {
                r.next();
                assertEquals(values.size(), r.getInt(1), "rows whose numerics read as the server reads their text");
            }
            // numeric_send of the server's cast of the text gives the bytes PgFields wrote
            final ByteArrayOutputStream sent = new ByteArrayOutputStream();
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SELECT id, t::numeric, CASE WHEN abs(round("
                + "t::numeric, 3)) < 1e9 THEN t::numeric(12,3) END FROM " + TABLE + " ORDER BY id) TO STDOUT "
                + "(FORMAT binary)", sent);
            assertEquals(expected, tuples(sent.toByteArray()));
        }
    }

    private static String hex(final Bytes<?> out, final long from)
    {
        final byte[] b = new byte[(int)(out.writePosition() - from)];
        for (int i = 0; i < b.length; i++)
        {
            b[i] = out.readByte(from + i);
        }
        return HexFormat.of().formatHex(b);
    }

    /** Rows of a binary COPY of (integer, numeric, numeric) as "id|hex of field a|hex of field b" (length included). */
    private static List<String> tuples(final byte[] copy)
    {
        final ByteBuffer b = ByteBuffer.wrap(copy);
        b.position(PgCopy.HEADER_BYTES);
        final List<String> rows = new ArrayList<>();
        while (true)
        {
            final short fields = b.getShort();
            if (fields == -1)
            {
                return rows;
            }
            assertEquals(3, fields);
            b.getInt();
            final int id = b.getInt();
            rows.add(id + "|" + field(b) + "|" + field(b));
        }
    }

    private static String field(final ByteBuffer b)
    {
        final int at = b.position();
        final int length = b.getInt();
        if (length < 0)
        {
            return "null";
        }
        b.position(b.position() + length);
        return HexFormat.of().formatHex(b.array(), at, b.position());
    }
}
