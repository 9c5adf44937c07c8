package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class LogFormatTest
{
    @Test
    void shouldWriteWhatJavaUtilLoggingLogsAsOneJsonObjectPerLine() throws Exception
    {
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try
        {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            LogFormat.JSON.apply();
            // as the Prometheus client's scrape handler logs a scraper that went away
            Logger.getLogger("io.prometheus.metrics.exporter.test").log(Level.SEVERE, "caught an Exception while "
                + "trying to send the metrics response", new java.io.IOException("Broken pipe"));
            Logger.getLogger("io.prometheus.metrics.exporter.test").fine("below the level: not written");
        }
        finally
        {
            System.setErr(err);
            LogFormat.TEXT.apply();
        }
        final List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank())
            .toList();
        assertEquals(1, lines.size(), String.join("\n", lines));
        final JsonNode event = new ObjectMapper().readTree(lines.get(0));
        assertEquals("ERROR", event.get("level").asText());
        assertEquals("io.prometheus.metrics.exporter.test", event.get("logger").asText());
        assertTrue(event.get("message").asText().startsWith("caught an Exception"), lines.get(0));
        assertTrue(event.get("stack_trace").asText().contains("Broken pipe"), lines.get(0));
    }
}
