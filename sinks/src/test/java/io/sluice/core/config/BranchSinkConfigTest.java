package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * A split across sinks in the configuration: a branch's {@code sink} key, the defaults it takes from the sink it
 * names, a sink that only receives branches (no pattern, no topics), and the problems {@code check} reports with
 * their lines.
 */
class BranchSinkConfigTest
{
    /** Sink "a" consumes; its branch "x" writes to sink "b", defined further down the file. */
    private static final String SPLIT = """
        [kafka]
        bootstrap_servers = "k:9092"

        [[sinks]]
        name = "a"
        kind = "clickhouse"
        topics = ["events"]
        group_id = "g"

        [sinks.plugin_config]
        endpoint = "http://ch-a:8123"
        database = "db_a"
        max_rows = 1000
        linger_ms = 100

        [[sinks.branches]]
        name = "x"
        when = { path = "t", equals = "x" }
        sink = "b"

        [[sinks.branches]]
        name = "y"
        when = { path = "t", equals = "y" }
        sink = "b"
        database = "own_db"
        target_table = "own_table"
        max_rows = 7

        [[sinks.branches]]
        name = "z"
        sink = "a"
        target_table = "z"

        [[sinks]]
        name = "b"
        kind = "clickhouse"

        [sinks.plugin_config]
        endpoint = "http://ch-b:8123"
        database = "db_b"
        target_table = "table_b"
        max_rows = 2000
        max_bytes = 4096
        linger_ms = 250
        identifier = "quote"
        """;

    private static List<ConfigProblem> problems(final String toml)
    {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(toml)).problems();
    }

    @Test
    void aBranchTakesTheDefaultsAndConnectionOfTheSinkItNames()
    {
        final SluiceConfig c = ConfigLoader.parse(SPLIT);
        final SluiceConfig.Sink a = c.sink("a");
        final SluiceConfig.Sink b = c.sink("b");
        final SluiceConfig.Branch x = a.branches().get(0);
        assertEquals("b", x.sink());
        assertSame(b, c.writesTo(a, x));
        assertEquals("db_b", x.database(), "database from b's plugin_config");
        assertEquals("table_b", x.targetTable());
        assertEquals(2000, x.maxRows());
        assertEquals(4096, x.maxBytes());
        assertEquals(250, x.lingerMs());

        final SluiceConfig.Branch y = a.branches().get(1);
        assertSame(b, c.writesTo(a, y));
        assertEquals("own_db", y.database(), "the branch's own keys win");
        assertEquals("own_table", y.targetTable());
        assertEquals(7, y.maxRows());
        assertEquals(250, y.lingerMs(), "the rest from b");

        final SluiceConfig.Branch z = a.branches().get(2);
        assertSame(a, c.writesTo(a, z), "a sink naming itself is its own");
        assertEquals("db_a", z.database());
        assertEquals(1000, z.maxRows());
        assertEquals(100, z.lingerMs());
    }

    @Test
    void aSinkWithoutPatternOrTopicsIsATargetOnly()
    {
        final SluiceConfig c = ConfigLoader.parse(SPLIT);
        final SluiceConfig.Sink b = c.sink("b");
        assertFalse(b.consumes());
        assertTrue(c.sink("a").consumes());
        assertTrue(b.branches().isEmpty(), "a target only has no branches of its own");
        assertEquals(null, b.groupId());
    }

    @Test
    void anUnknownSinkNameIsAProblemWithItsLineListingTheSinks()
    {
        final String toml = SPLIT.replace("sink = \"b\"\ndatabase = \"own_db\"",
            "sink = \"nope\"\ndatabase = \"own_db\"");
        final List<ConfigProblem> p = problems(toml);
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[0].branches[1].sink", p.get(0).key());
        final int line = List.of(toml.split("\n", -1)).indexOf("sink = \"nope\"") + 1;
        assertEquals(line, p.get(0).line(), p.toString());
        assertTrue(p.get(0).message().contains("no sink named \"nope\" (sinks: a, b)"), p.toString());
    }

    @Test
    void aTargetThatNoBranchNamesIsStillAMissingPattern()
    {
        final String toml = SPLIT.replace("sink = \"b\"\n", "");
        final List<ConfigProblem> p = problems(toml);
        assertTrue(p.stream().anyMatch(q -> q.key().equals("sinks[1].pattern")
            && q.message().startsWith("give pattern (a regular expression) or topics (a list)")
            && q.message().contains("no branch names it")), p.toString());
    }

    @Test
    void aSinkWithBranchesIsNoTargetOnlyAndAConsumerNeedsItsGroup()
    {
        final String branches = SPLIT + """

            [[sinks.branches]]
            name = "never"
            target_table = "t"
            """;
        // a sink with branches (or a group) was meant to consume: its missing pattern is the problem
        final List<ConfigProblem> p = problems(branches);
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[1].pattern", p.get(0).key());
        assertTrue(p.get(0).message().startsWith("give pattern (a regular expression) or topics (a list)"),
            p.toString());

        final List<ConfigProblem> q = problems(SPLIT.replace("group_id = \"g\"\n", ""));
        assertEquals(1, q.size(), q.toString());
        assertEquals("sinks[0].group_id", q.get(0).key());
        assertTrue(q.get(0).message().contains("consumer group"), q.toString());
    }

    @Test
    void aBranchWritingToASinkWithoutATableMustGiveOne()
    {
        final String toml = SPLIT.replace("target_table = \"table_b\"\n", "");
        final List<ConfigProblem> p = problems(toml);
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[0].branches[0].target_table", p.get(0).key());
        assertTrue(p.get(0).message().contains("plugin_config of sink \"b\""), p.toString());
    }

    @Test
    void theDeepChecksAcceptTheSplit()
    {
        io.sluice.core.engine.DeepConfigChecks.check(ConfigLoader.parse(SPLIT));
    }
}
