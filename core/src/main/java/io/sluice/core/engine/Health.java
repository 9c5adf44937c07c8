package io.sluice.core.engine;

import java.io.IOException;
import java.io.StringWriter;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * The answer of a probe ({@code /live} or {@code /ready} on the metrics listener): up or not, and why not.
 *
 * @param ok      true for HTTP 200, false for 503
 * @param status  one word: {@code live}, {@code ready}, {@code starting}, {@code not ready}, {@code stopping},
 *                {@code not live}
 * @param reasons why it is not ok, one sentence each naming the pipeline and what (partition, worker, key); empty when
 *                ok
 */
public record Health(boolean ok, String status, List<String> reasons)
{
    private static final JsonFactory JSON = new JsonFactory();

    /**
     * @param ok      true for HTTP 200
     * @param status  one word
     * @param reasons why not, empty when ok
     */
    public Health
    {
        reasons = List.copyOf(reasons);
    }

    /** @return the HTTP status code: 200 or 503 */
    public int httpStatus()
    {
        return ok ? 200 : 503;
    }

    /** @return {@code {"status": "...", "reasons": ["...", ...]}} */
    public String json()
    {
        final StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out))
        {
            g.writeStartObject();
            g.writeStringField("status", status);
            g.writeArrayFieldStart("reasons");
            for (final String r : reasons)
            {
                g.writeString(r);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
        return out.append('\n').toString();
    }

    /** What answers the probes. Implementations are thread-safe: the HTTP server's threads call them. */
    public interface Probes
    {
        /** @return the liveness answer now */
        Health live();

        /** @return the readiness answer now */
        Health ready();
    }
}
