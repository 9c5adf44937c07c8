package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@link HeapHistogram}: jcmd's {@code GC.class_histogram} text as JDK 17 prints it (module suffixes, array class
 * names, a class of one name from two loaders), and the growth per extra topic between two steps.
 */
class HeapHistogramTest
{
    private static final String SMALL = String.join("\n",
        "12345:",
        " num     #instances         #bytes  class name (module)",
        "-------------------------------------------------------",
        "   1:         10000        8000000  [B (java.base@17.0.15)",
        "   2:          2000         480000  java.lang.String (java.base@17.0.15)",
        "   3:            10          40960  [J (java.base@17.0.15)",
        "   4:             5            200  io.sluice.core.Foo",
        "   5:             1             40  io.sluice.core.Foo",
        "Total         12016        8521200",
        "");

    private static final String LARGE = String.join("\n",
        "12345:",
        " num     #instances         #bytes  class name (module)",
        "-------------------------------------------------------",
        "   1:         12000       12000000  [B (java.base@17.0.15)",
        "   2:          1010       41400000  [J (java.base@17.0.15)",
        "   3:          2990         717600  java.lang.String (java.base@17.0.15)",
        "   4:            10            400  [Ljava.util.concurrent.ConcurrentHashMap$Node; (java.base@17.0.15)",
        "Total         16010       54118000",
        "");

    @Test
    void shouldParseEveryClassLineAndTheTotal()
    {
        final HeapHistogram h = HeapHistogram.parse(SMALL);
        assertEquals(5, h.classes().size());
        assertEquals(new HeapHistogram.Entry("[B", 10_000, 8_000_000), h.classes().get(0));
        assertEquals(new HeapHistogram.Entry("io.sluice.core.Foo", 1, 40), h.classes().get(4));
        assertEquals(12_016, h.totalInstances());
        assertEquals(8_521_200, h.totalBytes());
        final HeapHistogram l = HeapHistogram.parse(LARGE);
        assertEquals("[Ljava.util.concurrent.ConcurrentHashMap$Node;", l.classes().get(3).name());
        final List<Map<String, Object>> top = l.top(2);
        assertEquals(2, top.size());
        assertEquals("[B", top.get(0).get("class"));
        assertEquals(41_400_000L, top.get(1).get("bytes"));
        assertEquals(4, l.top(10).size());
    }

    @Test
    void shouldReadNoClassesFromAnErrorMessage()
    {
        final HeapHistogram h = HeapHistogram.parse("12345:\ncom.sun.tools.attach.AttachNotSupportedException: "
            + "Unable to open socket file\n");
        assertTrue(h.classes().isEmpty());
        assertEquals(-1, h.totalBytes());
    }

    @Test
    void shouldRankTheClassesByBytesGainedPerExtraTopic()
    {
        final List<HeapHistogram.Growth> g = HeapHistogram.growth(HeapHistogram.parse(SMALL), 10,
            HeapHistogram.parse(LARGE), 1_010, 10);
        // [J: 40,960 -> 41,400,000 over 1,000 extra topics; [B: +4,000,000; String: +237,600; Foo's two loaders summed
        assertEquals("[J", g.get(0).name());
        assertEquals((41_400_000 - 40_960) / 1000.0, g.get(0).bytesPerTopic(), 1e-9);
        assertEquals(1.0, g.get(0).instancesPerTopic(), 1e-9);
        assertEquals("[B", g.get(1).name());
        assertEquals(4_000.0, g.get(1).bytesPerTopic(), 1e-9);
        assertEquals("java.lang.String", g.get(2).name());
        final HeapHistogram.Growth foo = g.stream().filter(x -> x.name().equals("io.sluice.core.Foo")).findFirst()
            .orElseThrow();
        assertEquals(240, foo.bytesSmall());
        assertEquals(0, foo.bytesLarge());
        assertEquals(-0.24, foo.bytesPerTopic(), 1e-9);
        assertEquals("io.sluice.core.Foo", g.get(g.size() - 1).name());
        assertEquals(2, HeapHistogram.growth(HeapHistogram.parse(SMALL), 10, HeapHistogram.parse(LARGE), 1_010, 2)
            .size());
        assertThrows(IllegalArgumentException.class, () -> HeapHistogram.growth(HeapHistogram.parse(SMALL), 10,
            HeapHistogram.parse(LARGE), 10, 5));
    }
}
