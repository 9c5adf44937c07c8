package io.sluice.engine.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples a running engine's Prometheus endpoint ({@code [metrics] listen}) for checkpoint lag:
 * {@code sluice_checkpoint_lag_records} (records registered but not yet committable) and
 * {@code sluice_checkpoint_lag_seconds} (how long the watermark has not moved while records are in flight), one sample
 * per partition per scrape, counting only scrapes while records are in flight (an idle engine is not under load).
 * The port can change between scrapes (a restarted engine).
 */
final class LagSampler implements AutoCloseable
{
    private static final Pattern LINE = Pattern.compile(
        "^(sluice_checkpoint_lag_(?:records|seconds))\\{[^}]*\\} ([0-9.eE+-]+)$",
        Pattern.MULTILINE);

    private final Thread thread;
    private final long periodMs;
    private volatile int port;
    private volatile boolean running = true;
    private final List<Long> offsets = new ArrayList<>();
    private final List<Long> millis = new ArrayList<>();
    private int scrapes;

    LagSampler(final long periodMs)
    {
        this.periodMs = periodMs;
        this.thread = new Thread(this::loop, "lag-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /** Scrapes this port from now on; 0 pauses sampling (no engine running). */
    void port(final int p)
    {
        port = p;
    }

    private void loop()
    {
        while (running)
        {
            final int p = port;
            if (p > 0)
            {
                scrape(p);
            }
            try
            {
                Thread.sleep(periodMs);
            }
            catch (final InterruptedException e)
            {
                return;
            }
        }
    }

    private void scrape(final int p)
    {
        final String body;
        try
        {
            body = Faults.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/metrics"))
                .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
        catch (final IOException e)
        {
            return; // not bound yet, or the engine was just killed
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return;
        }
        final Matcher m = LINE.matcher(body);
        final List<Long> o = new ArrayList<>();
        final List<Long> ms = new ArrayList<>();
        while (m.find())
        {
            final double v = Double.parseDouble(m.group(2));
            if (m.group(1).endsWith("records"))
            {
                o.add((long)v);
            }
            else
            {
                ms.add(Math.round(v * 1000));
            }
        }
        if (o.stream().mapToLong(Long::longValue).sum() == 0)
        {
            return; // no partition assigned yet, or nothing in flight: not under load
        }
        synchronized (this)
        {
            offsets.addAll(o);
            millis.addAll(ms);
            scrapes++;
        }
    }

    /** @return "p50/p99/max = a/b/c offsets, d/e/f ms per partition (n scrapes)" */
    synchronized String summary()
    {
        return String.format("p50/p99/max = %d/%d/%d offsets, %d/%d/%d ms per partition (%d scrapes)",
            Faults.percentile(offsets, 50), Faults.percentile(offsets, 99), Faults.percentile(offsets, 100),
            Faults.percentile(millis, 50), Faults.percentile(millis, 99), Faults.percentile(millis, 100), scrapes);
    }

    synchronized int scrapes()
    {
        return scrapes;
    }

    @Override
    public void close() throws InterruptedException
    {
        running = false;
        thread.interrupt();
        thread.join(5000);
    }
}
