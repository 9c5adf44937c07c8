package io.sluice.core.scatter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.scatter.ScatterException;
import io.sluice.core.scatter.embedded.ScatterRouter;

/**
 * Scatter pipelines end to end against an in-memory cluster ({@link FakeScatterDriver}): the file source, the rule,
 * topic creation and its rate limit, nack and re-read, the stall limit and exit codes, and the embedded API.
 */
class ScatterPipelineTest
{
    @TempDir
    Path dir;

    private static String header(final long stallMs)
    {
        return """
            [kafka]
            bootstrap_servers = "fake:1"
            [checkpoint]
            commit_interval_ms = 50
            stalled_fail_after_ms = %d
            drain_timeout_ms = 3000
            [engine]
            ring_size = 64
            slot_bytes = 256
            status_interval_ms = 0
            """.formatted(stallMs);
    }

    private SluiceConfig fileConfig(final Path file, final long stallMs, final String sourceKeys, final String topic)
    {
        return ConfigLoader.parse(header(stallMs) + """
            [[sources]]
            name = "users"
            kind = "file"
            path = '%s'
            retry_backoff_ms = 20
            retry_backoff_max_ms = 100
            %s
            [[sources.topics]]
            topic = %s
            """.formatted(file, sourceKeys, topic));
    }

    private Path lines(final List<String> lines, final boolean gzip) throws IOException
    {
        final Path file = dir.resolve(gzip ? "in.jsonl.gz" : "in.jsonl");
        try (OutputStream raw = Files.newOutputStream(file);
            OutputStream out = gzip ? new GZIPOutputStream(raw) : raw)
        {
            for (final String l : lines)
            {
                out.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return file;
    }

    private static List<String> users(final int records, final int users)
    {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < records; i++)
        {
            out.add("{\"user\":{\"id\":" + (i % users) + "},\"seq\":" + i + "}");
        }
        return out;
    }

    private static final class Run
    {
        int exit;
        SluiceEngine engine;
        long millis;

        ScatterPipeline pipeline()
        {
            return engine.scatterPipelines().get(0);
        }

        String failure()
        {
            return engine.scatterPipelines().isEmpty() ? null : pipeline().control().failureReason();
        }
    }

    private static Run run(final SluiceConfig config, final FakeScatterDriver driver)
    {
        final Run r = new Run();
        r.engine = new SluiceEngine(config, sink ->
        {
            throw new IllegalStateException("no sinks here");
        }, source -> driver, new GatherPipeline.RunOptions(false));
        final long start = System.nanoTime();
        r.exit = r.engine.run();
        r.millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return r;
    }

    private static final String FIELD_RULE = "{ strategy = \"field\", path = \"user.id\", template = \"users.{value}\" }";

    @Test
    void shouldProduceEveryLineIntoItsTopicOnceAndEndWhenTheFileIsDone() throws IOException
    {
        for (final boolean gzip : new boolean[]{false, true})
        {
            final List<String> lines = users(2_000, 100);
            lines.add(500, "");
            lines.add(900, "   ");
            final FakeScatterDriver driver = new FakeScatterDriver();
            final Run r = run(fileConfig(lines(lines, gzip), 5_000, "create_topics = true", FIELD_RULE), driver);

            assertEquals(SluiceEngine.EXIT_OK, r.exit, r.failure());
            assertEquals(100, driver.topics.size());
            assertEquals(100, driver.created.get());
            assertTrue(driver.createCalls.get() <= 100,
                "at most one round trip per new topic: " + driver.createCalls.get());
            assertEquals(2_000, driver.total());
            for (int u = 0; u < 100; u++)
            {
                final List<String> got = driver.produced.get("users." + u);
                assertEquals(20, got.size());
                for (final String v : got)
                {
                    assertTrue(v.startsWith("{\"user\":{\"id\":" + u + "}"), v);
                }
            }
            assertTrue(r.pipeline().caughtUp());
            assertEquals(100, r.pipeline().stats().topicsCreated.get());
        }
    }

    @Test
    void shouldStallNameTheLineAndExitOneWhenARecordLacksTheFieldAndThereIsNoFallback() throws IOException
    {
        final List<String> lines = List.of(
            "{\"user\":{\"id\":1}}",
            "{\"user\":{\"id\":2}}",
            "{\"user\":{\"name\":\"no id\"}}",
            "{\"user\":{\"id\":3}}");
        final FakeScatterDriver driver = new FakeScatterDriver();
        final Run r = run(fileConfig(lines(lines, false), 1_500, "create_topics = true", FIELD_RULE), driver);

        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit);
        final String why = r.failure();
        assertNotNull(why);
        assertTrue(why.contains("made no progress for 1500 ms (checkpoint.stalled_fail_after_ms) at line 3"), why);
        assertTrue(why.contains(
            "record file " + dir.resolve("in.jsonl") + " line 3: routing rule field user.id: no value at the path; "
                + "the rule has no fallback"),
            why);
        assertTrue(r.millis >= 1_500, "stalled for the limit first: " + r.millis);
        assertEquals(1, driver.count("users.1"));
        assertEquals(1, driver.count("users.2"));
        assertFalse(driver.sendOrder.stream().anyMatch(s -> s.contains("no id")), "the record is never produced");
        assertTrue(r.pipeline().stats().failed.get() >= 2,
            "re-read at least once: " + r.pipeline().stats().failed.get());
    }

    @Test
    void shouldReReadAfterAFailedSendAndDeliverEveryRecordAtLeastOnce() throws IOException
    {
        final FakeScatterDriver driver = new FakeScatterDriver();
        driver.failWhen = v -> v.contains("\"seq\":137}");
        driver.failuresLeft.set(3);
        final Run r = run(fileConfig(lines(users(400, 10), false), 10_000, "create_topics = true", FIELD_RULE), driver);

        assertEquals(SluiceEngine.EXIT_OK, r.exit, r.failure());
        final Map<String, Integer> seen = new ConcurrentHashMap<>();
        driver.produced.values().forEach(l -> l.forEach(v -> seen.merge(v, 1, Integer::sum)));
        assertEquals(400, seen.size(), "every record arrived");
        assertEquals(3, r.pipeline().stats().produceErrors.get());
        assertTrue(driver.produced.get("users.7").contains("{\"user\":{\"id\":7},\"seq\":137}"));
    }

    @Test
    void shouldStopNamingTheTopicWhenItDoesNotExistAndCreateTopicsIsFalse() throws IOException
    {
        final FakeScatterDriver driver = new FakeScatterDriver("users.1");
        final Run r = run(fileConfig(lines(List.of("{\"user\":{\"id\":1}}", "{\"user\":{\"id\":2}}"), false), 1_000,
            "create_topics = false", FIELD_RULE), driver);

        // permanent (issue 12 item 7): the pipeline stops at once, not after the stall limit
        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit);
        assertTrue(r.failure().contains("record file " + dir.resolve("in.jsonl") + " line 2: topic users.2 "
            + "does not exist and create_topics = false"), r.failure());
        assertEquals(0, driver.created.get());
        assertEquals(1, driver.count("users.1"));
        assertFalse(driver.topics.contains("users.2"));
        assertTrue(driver.describeCalls.get() >= 1);
    }

    @Test
    void shouldNotStartWhenTheStaticTopicDoesNotExistAndCreateTopicsIsFalse() throws IOException
    {
        final FakeScatterDriver driver = new FakeScatterDriver();
        final Run r = run(fileConfig(lines(List.of("{}"), false), 60_000, "", "\"orders\""), driver);
        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit);
        assertTrue(r.millis < 10_000);
        assertEquals(0, driver.sends.get());
    }

    @Test
    void shouldTakeTheFallbackBeyondMaxNewTopicsPerMinute() throws IOException
    {
        final FakeScatterDriver driver = new FakeScatterDriver("users.other");
        final Run r = run(fileConfig(lines(users(100, 10), false), 10_000,
            "create_topics = true\nmax_new_topics_per_minute = 3",
            "{ strategy = \"field\", path = \"user.id\", template = \"users.{value}\", fallback = \"users.other\" }"),
            driver);

        assertEquals(SluiceEngine.EXIT_OK, r.exit, r.failure());
        assertEquals(3, driver.created.get());
        assertEquals(30, driver.total() - driver.count("users.other"));
        assertEquals(70, driver.count("users.other"));
        assertEquals(70, r.pipeline().stats().rateLimited.get());
    }

    @Test
    void shouldStallBeyondMaxNewTopicsPerMinuteWithoutAFallback() throws IOException
    {
        final FakeScatterDriver driver = new FakeScatterDriver();
        final Run r = run(fileConfig(lines(users(20, 10), false), 1_000,
            "create_topics = true\nmax_new_topics_per_minute = 3", FIELD_RULE), driver);

        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit);
        assertTrue(r.failure().contains("at line 4: record file " + dir.resolve("in.jsonl")
            + " line 4: max_new_topics_per_minute (3) reached: topic users.3 is not created now; the rule has no fallback"),
            r.failure());
        assertEquals(3, driver.created.get());
    }

    @Test
    void shouldReadStandardInputToItsEnd()
    {
        final SluiceConfig config = ConfigLoader.parse(header(5_000) + """
            [[sources]]
            name = "in"
            kind = "stdin"
            create_topics = true
            [[sources.topics]]
            topic = { strategy = "key", template = "k.{value}", fallback = "k.none" }
            """);
        final InputStream stdin = System.in;
        try
        {
            System.setIn(new ByteArrayInputStream(
                "{\"a\":1}\r\n\n{\"a\":2}\n{\"a\":3}".getBytes(StandardCharsets.UTF_8)));
            final FakeScatterDriver driver = new FakeScatterDriver();
            final Run r = run(config, driver);
            assertEquals(SluiceEngine.EXIT_OK, r.exit, r.failure());
            assertEquals(List.of("{\"a\":1}", "{\"a\":2}", "{\"a\":3}"), driver.produced.get("k.none"));
        }
        finally
        {
            System.setIn(stdin);
        }
    }

    @Test
    void shouldRefuseTheSecondOfTwoNewTopicsThatCollideInKafkasMetricNames() throws IOException
    {
        // a.b and a_b are asked for together (the route stage runs ahead): a.b is created, a_b refused before any
        // request, as Kafka 4 would refuse it; its records take the fallback, once each
        final FakeScatterDriver driver = new FakeScatterDriver();
        final Run r = run(fileConfig(lines(List.of("{\"t\":\"a.b\"}", "{\"t\":\"a_b\"}", "{\"t\":\"a.b\"}",
            "{\"t\":\"a_b\"}", "{\"t\":\"c\"}"), false), 5_000, "create_topics = true",
            "{ strategy = \"field\", path = \"t\", fallback = \"fb\" }"), driver);
        assertEquals(SluiceEngine.EXIT_OK, r.exit, r.failure());
        assertEquals(2, driver.count("a.b"));
        assertEquals(List.of("{\"t\":\"a_b\"}", "{\"t\":\"a_b\"}"), driver.produced.get("fb"));
        assertFalse(driver.topics.contains("a_b"));
        final TopicEntry refused = r.pipeline().topics().entry(r.pipeline().topics().intern("a_b"));
        assertEquals(TopicEntry.REFUSED, refused.state());
        assertTrue(refused.error().contains("a_b and a.b are the same name once '.' and '_' are read alike"),
            refused.error());
        assertEquals(2, r.pipeline().stats().refused.get());
    }

    @Test
    void shouldTellTheEmbeddedCallerWhatBecameOfEachRecord() throws Exception
    {
        final SluiceConfig config = ConfigLoader.parse(header(60_000) + """
            [[sources]]
            name = "api"
            kind = "embedded"
            create_topics = true
            [[sources.topics]]
            topic = { strategy = "header", header = "tenant", template = "tenant.{value}" }
            """);
        final FakeScatterDriver driver = new FakeScatterDriver();
        final Map<Long, String> outcomes = new ConcurrentHashMap<>();
        final CountDownLatch done = new CountDownLatch(3);
        final DeliveryListener listener = new DeliveryListener()
        {
            @Override
            public void onDelivered(final long id, final String topic)
            {
                outcomes.put(id, "delivered " + topic);
                done.countDown();
            }

            @Override
            public void onFailed(final long id, final String reason)
            {
                outcomes.put(id, "failed " + reason);
                done.countDown();
            }
        };
        try (ScatterRouter router = ScatterRouter.open(config, "api", driver))
        {
            final org.agrona.concurrent.UnsafeBuffer value = new org.agrona.concurrent.UnsafeBuffer(
                "{\"x\":1}".getBytes(StandardCharsets.UTF_8));
            final org.agrona.concurrent.UnsafeBuffer key = new org.agrona.concurrent.UnsafeBuffer(
                "k1".getBytes(StandardCharsets.UTF_8));
            assertEquals(ScatterRouter.OFFERED,
                router.offer(value, 0, value.capacity(), key, 0, 2, new String[]{"tenant"},
                    new byte[][]{"acme corp".getBytes(StandardCharsets.UTF_8)}, 1, 1L, listener));
            assertEquals(ScatterRouter.OFFERED,
                router.offer(value, 0, value.capacity(), null, 0, -1, null, null, 0, 2L, listener));
            assertEquals(ScatterRouter.OFFERED,
                router.offer(value, 0, value.capacity(), null, 0, -1, new String[]{"tenant"},
                    new byte[][]{"b2".getBytes(StandardCharsets.UTF_8)}, 1, 3L, listener));
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertEquals("delivered tenant.acme_corp", outcomes.get(1L));
            assertEquals("failed routing rule header tenant: the record has no header tenant; the rule has no fallback",
                outcomes.get(2L));
            assertEquals("delivered tenant.b2", outcomes.get(3L));
            assertEquals(List.of("k1={\"x\":1}"), driver.produced.get("tenant.acme_corp"));
            assertEquals(ScatterRouter.TOO_LARGE, router.offer(new byte[9 << 20], 4L, listener));

            // fill the ring while the broker holds every acknowledgement: back-pressure is a return code
            driver.holdCompletions = true;
            int offered = 0;
            int rc;
            final byte[][] tenant = {"t".getBytes(StandardCharsets.UTF_8)};
            final String[] names = {"tenant"};
            while ((rc = router.offer(value, 0, value.capacity(), null, 0, -1, names, tenant, 1, 100L + offered,
                listener)) == ScatterRouter.OFFERED)
            {
                offered++;
                assertTrue(offered < 100_000, "never back-pressured");
            }
            assertEquals(ScatterRouter.BACK_PRESSURED, rc);
            driver.holdCompletions = false;
        }
        assertEquals(ScatterRouter.CLOSED, closedRouterOffer(config, new FakeScatterDriver()));
    }

    private static int closedRouterOffer(final SluiceConfig config, final FakeScatterDriver driver)
        throws ScatterException
    {
        final ScatterRouter router = ScatterRouter.open(config, "api", driver);
        router.close();
        return router.offer("{}".getBytes(StandardCharsets.UTF_8), 1L, new DeliveryListener()
        {
            @Override
            public void onDelivered(final long id, final String topic)
            {
            }

            @Override
            public void onFailed(final long id, final String reason)
            {
            }
        });
    }
}
