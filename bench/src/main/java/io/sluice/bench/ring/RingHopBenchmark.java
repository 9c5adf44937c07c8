package io.sluice.bench.ring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;

import io.sluice.tuning.CpuAffinity;
import io.sluice.tuning.WaitKind;
import io.sluice.tuning.WaitStrategies;

/**
 * The ring hop: one producer thread hands events to one consumer thread, through a single-producer Disruptor ring
 * (with the engine's wait strategies from {@link WaitStrategies}) or through an {@link ArrayBlockingQueue}
 * ({@code put}/{@code take}, what a plain Java pipeline uses), both of {@link #SIZE} pre-allocated events.
 * {@code disruptor-busy-spin-pinned} pins the producer and the consumer to two different cpus (OpenHFT affinity),
 * the setting of the Disruptor's published latency figures.
 *
 * <ul>
 *   <li>{@link #throughput}: bursts of {@link #BURST} events as fast as the producer can publish, waiting at the
 *       end of each burst until the consumer has seen all of them; the score is events/s.</li>
 *   <li>{@link #pacedLatency}: {@link #PACED} events sent open-loop at {@link #RATE_PER_S} per second; each carries
 *       its <em>intended</em> send time and the consumer records {@code now - intended} in an HdrHistogram. A
 *       producer held up (by a full ring, a lock, a descheduling) does not hide the delay of the events it was
 *       late for: coordinated omission is accounted for. The percentiles of the measurement iterations are printed
 *       at the end of the trial and written to {@code ${sluice.bench.out}/ringhop-<queue>.txt}.</li>
 * </ul>
 */
@State(Scope.Benchmark)
public class RingHopBenchmark
{
    /** Events in the ring or queue. */
    static final int SIZE = 4096;
    /** Events per throughput invocation. */
    static final int BURST = 1 << 14;
    /** Events per paced invocation. */
    static final int PACED = 20_000;
    /** Paced send rate. */
    static final long RATE_PER_S = 100_000;

    /** A pre-allocated event. */
    static final class Event
    {
        long intendedNanos;
        long value;
    }

    /** The hand-off under test. */
    @Param({"disruptor-busy-spin-pinned", "disruptor-phased", "disruptor-yielding", "disruptor-blocking", "abq"})
    public String queue;

    private RingBuffer<Event> ring;
    private BatchEventProcessor<Event> processor;
    private ArrayBlockingQueue<Event> abq;
    private Event[] pool;
    private Thread consumer;
    private final AtomicLong consumed = new AtomicLong();
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private volatile boolean recording;
    private long sent;

    /** Starts the consumer thread. */
    @Setup(Level.Trial)
    public void start()
    {
        consumed.set(0);
        sent = 0;
        if (queue.startsWith("disruptor-"))
        {
            // "-pinned": the producer (this JMH thread) on the first allowed cpu, the consumer on the last, as the
            // Disruptor's published busy-spin figures are measured; a machine with one cpu cannot
            final boolean pinned = queue.endsWith("-pinned");
            final String kindName = queue.substring("disruptor-".length(),
                pinned ? queue.length() - "-pinned".length() : queue.length());
            final WaitKind kind = WaitKind.parse(kindName);
            ring = RingBuffer.createSingleProducer(Event::new, SIZE, WaitStrategies.forStage(kind));
            final EventHandler<Event> handler = (e, seq, end) -> onEvent(e);
            processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(), handler);
            ring.addGatingSequences(processor.getSequence());
            final int[] cpus = CpuAffinity.allowedCpus();
            if (pinned && (cpus.length < 2 || !CpuAffinity.pinCurrentThread(cpus[0])))
            {
                throw new IllegalStateException("cannot pin the producer: needs 2 allowed cpus and working "
                    + "affinity (" + CpuAffinity.describe() + ")");
            }
            consumer = pinned
                ? CpuAffinity.threadFactory("ring-hop-consumer", cpus[cpus.length - 1], true).newThread(processor)
                : new Thread(processor, "ring-hop-consumer");
        }
        else
        {
            abq = new ArrayBlockingQueue<>(SIZE);
            pool = new Event[SIZE * 2];
            for (int i = 0; i < pool.length; i++)
            {
                pool[i] = new Event();
            }
            consumer = new Thread(() ->
            {
                try
                {
                    while (true)
                    {
                        final Event e = abq.take();
                        if (e.value < 0)
                        {
                            return;
                        }
                        onEvent(e);
                    }
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }, "ring-hop-consumer");
        }
        consumer.setDaemon(true);
        consumer.start();
    }

    private void onEvent(final Event e)
    {
        if (recording && e.intendedNanos != 0)
        {
            latency.recordValue(Math.max(0, System.nanoTime() - e.intendedNanos));
        }
        consumed.lazySet(consumed.get() + 1);
    }

    /**
     * Clears the histogram before each warm-up iteration, so only measurement iterations are reported.
     *
     * @param params the iteration's parameters
     */
    @Setup(Level.Iteration)
    public void iteration(final IterationParams params)
    {
        final boolean warmup = params.getType() == IterationType.WARMUP;
        if (warmup)
        {
            awaitConsumed();
            latency.reset();
        }
        recording = !warmup || recording;
    }

    private void publish(final long intendedNanos) throws InterruptedException
    {
        sent++;
        if (ring != null)
        {
            final long seq = ring.next();
            final Event e = ring.get(seq);
            e.intendedNanos = intendedNanos;
            e.value = seq;
            ring.publish(seq);
        }
        else
        {
            final Event e = pool[(int)(sent & (pool.length - 1))];
            e.intendedNanos = intendedNanos;
            e.value = sent;
            abq.put(e);
        }
    }

    private void awaitConsumed()
    {
        while (consumed.get() < sent)
        {
            Thread.onSpinWait();
        }
    }

    /**
     * A burst at full speed, then wait until it is all consumed.
     *
     * @throws InterruptedException never in practice
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BURST)
    public void throughput() throws InterruptedException
    {
        for (int i = 0; i < BURST; i++)
        {
            publish(0);
        }
        awaitConsumed();
    }

    /**
     * {@link #PACED} events at {@link #RATE_PER_S}, open loop, latency from each intended send time.
     *
     * @throws InterruptedException never in practice
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @OperationsPerInvocation(PACED)
    public void pacedLatency() throws InterruptedException
    {
        final long interval = TimeUnit.SECONDS.toNanos(1) / RATE_PER_S;
        final long start = System.nanoTime();
        for (int i = 0; i < PACED; i++)
        {
            final long due = start + i * interval;
            while (System.nanoTime() - due < 0)
            {
                Thread.onSpinWait();
            }
            publish(due);
        }
        awaitConsumed();
    }

    /** Stops the consumer and reports the paced latency. */
    @TearDown(Level.Trial)
    public void stop() throws IOException
    {
        awaitConsumed();
        if (processor != null)
        {
            processor.halt();
            if (queue.endsWith("-pinned"))
            {
                CpuAffinity.unpinCurrentThread();
            }
        }
        else
        {
            final Event poison = new Event();
            poison.value = -1;
            abq.offer(poison);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        if (latency.getTotalCount() > 0)
        {
            final String line = String.format(Locale.ROOT,
                "  %-20s %,d events at %,d/s: p50 %,.1f us  p99 %,.1f us  p99.9 %,.1f us  p99.99 %,.1f us  max %,.1f us%n",
                queue, latency.getTotalCount(), RATE_PER_S, latency.getValueAtPercentile(50) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, latency.getValueAtPercentile(99.9) / 1e3,
                latency.getValueAtPercentile(99.99) / 1e3, latency.getMaxValue() / 1e3);
            System.out.print("\nRING-HOP-LATENCY" + line);
            final String dir = System.getProperty("sluice.bench.out");
            if (dir != null)
            {
                Files.writeString(Path.of(dir, "ringhop-" + queue + ".txt"), line);
            }
        }
    }
}
