package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ProcFsTest
{
    @Test
    void shouldFindTheProcessListeningOnAPortAndNothingOnAClosedOne() throws IOException
    {
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = s.getLocalPort();
            assertEquals(ProcessHandle.current().pid(), ProcFs.pidListeningOn(port));
        }
        assertEquals(-1, ProcFs.pidListeningOn(port));
    }

    @Test
    void shouldReadListeningSocketsOfProcNetTcp()
    {
        // the layout of proc(5): a LISTEN (0A) socket on 127.0.0.1:18423 (0x47F7) and an established one on the port
        final List<String> lines = List.of(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
            "   0: 0100007F:47F7 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0",
            "   1: 0100007F:47F7 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000     0        0 654321 1 0",
            "   2: 0100007F:4B8F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777777 1 0");
        assertEquals(Set.of("123456"), ProcFs.listeningInodes(lines, 18423));
        assertEquals(Set.of(), ProcFs.listeningInodes(lines, 18424));
    }

    @Test
    void shouldCountTheCpuOfANamedThreadUnderItsGroup() throws Exception
    {
        // the thread spins until it has used 300 ms of CPU by its own count, then waits to be measured
        final CountDownLatch spun = new CountDownLatch(1);
        final CountDownLatch measured = new CountDownLatch(1);
        final Thread t = new Thread(() ->
        {
            final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long x = 0;
            while (mx.getCurrentThreadCpuTime() < TimeUnit.MILLISECONDS.toNanos(300))
            {
                x += x * 31 + 7;
            }
            spun.countDown();
            try
            {
                measured.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            if (x == 42)
            {
                System.out.println(x);
            }
        }, "bench-spin-7");
        t.start();
        assertTrue(spun.await(60, TimeUnit.SECONDS));
        final Map<String, Double> threads = ProcFs.byGroup(ProcFs.threadCpuSeconds(ProcessHandle.current().pid()));
        final double process = ProcFs.cpuSeconds(ProcessHandle.current().pid());
        measured.countDown();
        t.join();
        // /proc counts in 10 ms ticks
        assertTrue(threads.getOrDefault("bench-spin-N", 0.0) >= 0.28, threads.toString());
        assertTrue(process >= threads.get("bench-spin-N"), process + " " + threads);
    }

    @Test
    void shouldReadStatFilesFromTheLastParenthesis()
    {
        final String stat = "4242 (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 1 2 3";
        assertEquals("odd) name", ProcFs.statName(stat));
        assertEquals(3.25, ProcFs.statCpuSeconds(stat), 1e-9);
    }

    @Test
    void shouldFoldThreadNumbersButKeepTheDigitsOfNames()
    {
        assertEquals("GC Thread#N", ProcFs.threadGroup("GC Thread#1"));
        assertEquals("github-shard-N-N", ProcFs.threadGroup("github-shard-0-12"));
        assertEquals("C2 CompilerThre", ProcFs.threadGroup("C2 CompilerThre"));
        assertEquals("G1 Conc#N", ProcFs.threadGroup("G1 Conc#0"));
        assertEquals("rdk:brokerN", ProcFs.threadGroup("rdk:broker1001"));
    }
}
