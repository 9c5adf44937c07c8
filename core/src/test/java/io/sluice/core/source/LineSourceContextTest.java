package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigException;

/** The line source's settings: defaults from the configuration schema, the derived replay log, bad keys named. */
class LineSourceContextTest
{
    private static LineSourceContext valid()
    {
        return new LineSourceContext().configPath("sources[users]").name("users").displayName("stdin");
    }

    @Test
    void shouldStartFromTheSchemaDefaults()
    {
        final LineSourceContext c = valid().conclude();
        assertEquals(8 << 20, c.maxRecordBytes());
        assertEquals(64L << 20, c.replayBufferBytes());
        assertEquals(64 << 20, c.replayBytes(), "64 MiB holds two records of 8 MiB");
        assertEquals(262_144, c.ackWindow());
        assertEquals(300_000, c.stalledFailAfterMs());
        assertEquals(1000, c.statusIntervalMs());
        assertEquals(200, c.backoffMs());
        assertEquals(5000, c.backoffMaxMs());
        assertEquals(30_000, c.drainTimeoutMs());
        assertNull(c.checkpointFile());
    }

    @Test
    void shouldRaiseTheReplayLogToHoldTwoOfTheLongestRecords()
    {
        final int max = 40 << 20;
        assertEquals(2 * ReplayLog.recordSize(max) + 64,
            valid().maxRecordBytes(max).replayBufferBytes(1 << 16).conclude().replayBytes());
        assertEquals(Integer.MAX_VALUE - 64, valid().replayBufferBytes(1L << 40).conclude().replayBytes());
    }

    @Test
    void shouldNameTheKeyOfABadValue()
    {
        assertProblem("sources[users].retry_backoff_ms: must be > 0, was 0", valid().backoffMs(0));
        assertProblem("sources[users].retry_backoff_max_ms: must be > 0, was -1", valid().backoffMaxMs(-1));
        assertProblem("sources[users].replay_buffer_bytes: must be > 0, was 0", valid().replayBufferBytes(0));
        assertProblem("checkpoint.commit_interval_ms: must be > 0, was 0", valid().statusIntervalMs(0));
        assertProblem("checkpoint.stalled_fail_after_ms: must be > 0, was 0", valid().stalledFailAfterMs(0));
        assertProblem("checkpoint.drain_timeout_ms: must be >= 0, was -1", valid().drainTimeoutMs(-1));
        assertProblem("engine.max_record_bytes: must be > 0, was -3", valid().maxRecordBytes(-3));
        assertProblem("engine.ack_window: must be > 0, was 0", valid().ackWindow(0));
        assertProblem("sources[users].name: is required", valid().name(""));
        assertProblem("sources[users].path: is required", valid().displayName(null));
    }

    @Test
    void shouldBeReadOnlyOnceConcluded()
    {
        final LineSourceContext c = valid().conclude();
        assertThrows(IllegalStateException.class, () -> c.backoffMs(10));
        assertThrows(IllegalStateException.class, c::conclude);
        assertThrows(IllegalArgumentException.class,
            () -> new LineSource(valid(), null, null, null, null, null, null, null, null));
    }

    private static void assertProblem(final String expected, final LineSourceContext c)
    {
        final ConfigException e = assertThrows(ConfigException.class, c::conclude);
        assertEquals(expected, e.problems().get(0).toString());
    }
}
