package io.sluice.core.gather.split;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ErrorPolicy;
import io.sluice.ringbuffers.RecordEvent;

/** A gather pipeline's spec: the [[sinks]] defaults, and conclude() refusing an incomplete spec. */
class GatherSpecTest
{
    private static final RecordDecoder<Object> DECODER = new RecordDecoder<>()
    {
        @Override
        public Object decode(final RecordEvent event)
        {
            return event;
        }

        @Override
        public String error()
        {
            return "";
        }
    };

    @Test
    void shouldStartFromTheSinkDefaults()
    {
        final GatherSpec<Object> spec = new GatherSpec<>();
        assertEquals("earliest", spec.autoOffsetReset());
        assertEquals(2000, spec.topicRefreshMs());
        assertEquals(ErrorPolicy.FAIL, spec.onError());
        assertEquals(ErrorPolicy.SKIP, spec.tombstones());
        assertNull(spec.deadLetter());
        assertNull(spec.pattern());
        assertEquals(List.of(), spec.topics());
        assertEquals(Map.of(), spec.sinks());
        assertFalse(spec.concluded());
    }

    @Test
    void shouldRefuseAnIncompleteSpec()
    {
        assertMessage("pipeline: the spec has no name (sinks[].name)", new GatherSpec<>());
        assertMessage("pipeline p: the spec has no decoder", new GatherSpec<>().name("p"));
        final Split<Object> split = Split.create(ChunkConfig.DEFAULT, ErrorPolicy.SKIP);
        assertMessage("pipeline p: the spec has no split", new GatherSpec<>().name("p").decoder(DECODER));
        assertMessage("pipeline p: the split has no classifier (call route)",
            new GatherSpec<>().name("p").decoder(DECODER).split(split));
        split.route((r, out) ->
        {
        });
        final GatherSpec<Object> noBranches = new GatherSpec<>().name("p").decoder(DECODER).split(split);
        assertMessage("pipeline p: the split has no branches", noBranches);
        assertThrows(IllegalArgumentException.class, noBranches::conclude, "a failed conclude leaves it open");
    }

    private static void assertMessage(final String expected, final GatherSpec<Object> spec)
    {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, spec::conclude).getMessage());
    }
}
