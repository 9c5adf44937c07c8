package io.sluice.engine;

import java.net.URL;
import java.util.Locale;

import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;

/**
 * The log format of a run ({@code --log-format text|json}): picks one of the two appenders of {@code logback.xml}.
 * {@code text} writes one line per event with an ISO-8601 date and zone; {@code json} writes one JSON object per line
 * (logstash-logback-encoder: {@code time}, {@code level}, {@code logger}, {@code thread}, {@code message}, the MDC
 * and the event's SLF4J key-value pairs as top-level fields, {@code stack_trace} for an exception). The environment
 * variable {@code SLUICE_LOG_FORMAT} sets the default. See docs/logging.md.
 */
public enum LogFormat
{
    /** One line per event. */
    TEXT,
    /** One JSON object per line. */
    JSON;

    /**
     * Reloads logback's configuration with this format. Called once, before a command runs; events logged before are
     * in the default format.
     */
    public void apply()
    {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context))
        {
            return;
        }
        final URL config = LogFormat.class.getResource("/logback.xml");
        if (config == null)
        {
            return;
        }
        context.reset();
        context.putProperty("SLUICE_LOG_FORMAT", name().toLowerCase(Locale.ROOT));
        final JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        try
        {
            configurator.doConfigure(config);
        }
        catch (final JoranException e)
        {
            System.err.println("error: cannot configure logging as " + name().toLowerCase(Locale.ROOT) + ": " + e);
        }
        // what logs through java.util.logging (the Prometheus client's scrape handler, the JDK's HTTP server) goes to
        // the same appender and format; logback.xml's LevelChangePropagator keeps JUL's levels in step with it
        if (!SLF4JBridgeHandler.isInstalled())
        {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }
}
