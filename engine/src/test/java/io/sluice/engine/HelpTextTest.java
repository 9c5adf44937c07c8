package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code engine.jar --help} names both databases and the delivery each gives. */
class HelpTextTest
{
    @Test
    void shouldNameClickHouseAndPostgresAndExactlyOnce()
    {
        final String help = new CommandLine(new SluiceCommand()).getUsageMessage().replaceAll("\\s+", " ");
        assertTrue(help.contains("between Kafka and ClickHouse or PostgreSQL"), help);
        assertTrue(help.contains("at-least-once (exactly-once into PostgreSQL with delivery = \"exactly_once\")"),
            help);
        assertFalse(help.contains("Kafka and ClickHouse, per record"), help);
    }
}
