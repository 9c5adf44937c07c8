package io.sluice.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.SluiceConfig;

class MetricsEndpointTest
{
    @Test
    void shouldHandTheConnectionNoWriteLargerThanAChunk() throws IOException
    {
        final List<Integer> writes = new ArrayList<>();
        final ByteArrayOutputStream sink = new ByteArrayOutputStream();
        final OutputStream recording = new OutputStream()
        {
            @Override
            public void write(final int b)
            {
                writes.add(1);
                sink.write(b);
            }

            @Override
            public void write(final byte[] b, final int off, final int len)
            {
                writes.add(len);
                sink.write(b, off, len);
            }
        };
        final byte[] body = new byte[3 * MetricsEndpoint.WRITE_CHUNK_BYTES + 17];
        for (int i = 0; i < body.length; i++)
        {
            body[i] = (byte)(i * 31);
        }
        try (OutputStream out = new MetricsEndpoint.ChunkedWrites(recording, MetricsEndpoint.WRITE_CHUNK_BYTES))
        {
            out.write(body);
            out.write('\n');
        }
        final int chunk = MetricsEndpoint.WRITE_CHUNK_BYTES;
        assertEquals(List.of(chunk, chunk, chunk, 17, 1), writes);
        final byte[] expected = new byte[body.length + 1];
        System.arraycopy(body, 0, expected, 0, body.length);
        expected[body.length] = '\n';
        assertArrayEquals(expected, sink.toByteArray(), "every byte once, in order");
    }

    @Test
    void shouldServeTheMetricsPlainAndGzippedAndTheProbes() throws Exception
    {
        final Health.Probes probes = new Health.Probes()
        {
            @Override
            public Health live()
            {
                return new Health(true, "live", List.of());
            }

            @Override
            public Health ready()
            {
                return new Health(false, "starting", List.of("sink s: not assigned yet"));
            }
        };
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new SluiceConfig.Metrics("127.0.0.1:0"), List::of,
            List::of, probes))
        {
            final HttpClient http = HttpClient.newHttpClient();
            final String base = "http://127.0.0.1:" + endpoint.port();
            final HttpResponse<String> plain = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, plain.statusCode());
            assertTrue(plain.body().contains("jvm_memory_used_bytes{area=\"heap\"}"), plain.body());
            assertTrue(plain.body().contains("sluice_ready 0"), plain.body());
            final HttpResponse<byte[]> gzipped = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals("gzip", gzipped.headers().firstValue("Content-Encoding").orElse(""));
            final String unzipped = new String(new GZIPInputStream(new ByteArrayInputStream(gzipped.body()))
                .readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(unzipped.contains("jvm_memory_used_bytes{area=\"heap\"}"), unzipped);
            final HttpResponse<String> live = http.send(HttpRequest.newBuilder(URI.create(base + "/live")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, live.statusCode());
            final HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().contains("not assigned yet"), ready.body());
            final HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create(base + "/x")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(404, other.statusCode());
            final HttpResponse<Void> head = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
            assertEquals(200, head.statusCode());
            // clients that send half a request each hold a server thread until maxReqTime: the probes still answer
            final List<java.net.Socket> slow = new ArrayList<>();
            try
            {
                for (int i = 0; i < MetricsEndpoint.MAX_THREADS - 1; i++)
                {
                    final java.net.Socket socket = new java.net.Socket("127.0.0.1", endpoint.port());
                    socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: a"
                        .getBytes(StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    slow.add(socket);
                }
                final HttpResponse<String> beside = http.send(HttpRequest.newBuilder(URI.create(base + "/live"))
                    .timeout(java.time.Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, beside.statusCode(), "/live beside " + slow.size() + " half-sent requests");
            }
            finally
            {
                for (final java.net.Socket socket : slow)
                {
                    socket.close();
                }
            }
            // a client that connects and never sends its request is not kept for ever
            assertEquals("60", System.getProperty("sun.net.httpserver.maxReqTime"));
            assertEquals("600", System.getProperty("sun.net.httpserver.maxRspTime"));
        }
    }
}
