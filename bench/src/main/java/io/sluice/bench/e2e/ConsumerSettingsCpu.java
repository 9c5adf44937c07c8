package io.sluice.bench.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * {@link KafkaConsumer} settings by CPU per record, in one JVM: each variant (Sluice's source settings, then each
 * with some properties changed) reads the whole topic from its beginning with assigned partitions and
 * {@code ByteBufferDeserializer} (as Sluice's source does), one after another (each round starting with the next
 * variant), for several rounds. Printed per
 * variant: the median and the fastest round of the process's CPU (the poll thread, Kafka's own threads, GC and JIT)
 * and of the polling thread's CPU, in ns per record. Alternating the variants in one JVM makes their ratios fair on
 * a busy machine.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.sluice.bench.e2e.ConsumerSettingsCpu --bootstrap-servers H:P --topic T \
 *     [--rounds R] [--variant NAME:key=value,key=value]...
 * </pre>
 */
public final class ConsumerSettingsCpu
{
    private ConsumerSettingsCpu()
    {
    }

    /**
     * @param args see the class comment
     * @throws Exception if the broker cannot be read
     */
    public static void main(final String[] args) throws Exception
    {
        String bootstrap = "127.0.0.1:19092";
        String topic = null;
        int rounds = 5;
        final Map<String, Map<String, String>> variants = new LinkedHashMap<>();
        variants.put("sluice source settings", Map.of());
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--bootstrap-servers" -> bootstrap = args[++i];
                case "--topic" -> topic = args[++i];
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--variant" -> {
                    final String v = args[++i];
                    final int colon = v.indexOf(':');
                    final Map<String, String> props = new LinkedHashMap<>();
                    for (final String kv : v.substring(colon + 1).split(","))
                    {
                        final int eq = kv.indexOf('=');
                        props.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    variants.put(v.substring(0, colon), props);
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (topic == null)
        {
            throw new IllegalArgumentException("--topic is required");
        }
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)ManagementFactory
            .getOperatingSystemMXBean();
        final List<String> names = new ArrayList<>(variants.keySet());
        final double[][] process = new double[names.size()][rounds];
        final double[][] thread = new double[names.size()][rounds];
        long records = 0;
        long sink = 0;
        for (int round = 0; round < rounds; round++)
        {
            for (int k = 0; k < names.size(); k++)
            {
                // each round starts with the next variant, so no variant always follows the same one
                final int v = (k + round) % names.size();
                final Properties p = ConsumerLimit.consumerProperties(bootstrap);
                p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
                p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
                p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
                p.putAll(variants.get(names.get(v)));
                try (KafkaConsumer<ByteBuffer, ByteBuffer> consumer = new KafkaConsumer<>(p))
                {
                    final long total = ConsumerLimit.assignFromBeginning(consumer, topic);
                    final long p0 = os.getProcessCpuTime();
                    final long t0 = threads.getCurrentThreadCpuTime();
                    long n = 0;
                    long sum = 0;
                    while (n < total)
                    {
                        final ConsumerRecords<ByteBuffer, ByteBuffer> batch = consumer.poll(Duration.ofMillis(100));
                        for (final ConsumerRecord<ByteBuffer, ByteBuffer> r : batch)
                        {
                            n++;
                            sum += r.value().get(r.value().position());
                        }
                    }
                    thread[v][round] = (threads.getCurrentThreadCpuTime() - t0) / (double)n;
                    process[v][round] = (os.getProcessCpuTime() - p0) / (double)n;
                    records = n;
                    sink += sum;
                }
            }
        }
        final int from = rounds > 2 ? 1 : 0; // the first round warms up
        System.out.printf(Locale.ROOT, "KafkaConsumer CPU per record, ns (%d records, %d rounds after %d warm-up)%n",
            records, rounds - from, from);
        System.out.println("  [" + (sink & 1) + "]");
        System.out.printf(Locale.ROOT, "  %-44s %9s %9s %9s %9s%n", "variant", "process", "fastest", "poll thr",
            "fastest");
        for (int v = 0; v < names.size(); v++)
        {
            final double[] pr = Arrays.copyOfRange(process[v], from, rounds);
            final double[] th = Arrays.copyOfRange(thread[v], from, rounds);
            Arrays.sort(pr);
            Arrays.sort(th);
            System.out.printf(Locale.ROOT, "  %-44s %9.0f %9.0f %9.0f %9.0f%n", names.get(v) + " " +
                variants.get(names.get(v)), pr[pr.length / 2], pr[0], th[th.length / 2], th[0]);
        }
    }
}
