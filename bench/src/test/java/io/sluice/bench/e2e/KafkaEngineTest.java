package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;

/** The kafka-engine DDL against the example it stands for: the branches of the TOML, the tables of the SQL. */
class KafkaEngineTest
{
    private static final Pattern VIEW = Pattern.compile("CREATE MATERIALIZED VIEW db\\.to_(\\w+) TO db\\.(\\w+) AS"
        + "\\s+(?:WITH .*?\\s)?SELECT\\s(.*)\\sFROM db\\.route WHERE (.*)", Pattern.DOTALL);
    private static final Pattern ALIAS = Pattern.compile("(?:\\bAS (\\w+)|^\\s*(\\w+)\\s*$)");

    private static List<String> statements() throws Exception
    {
        final Map<String, String> v = new HashMap<>();
        v.put("db", "db");
        v.put("broker", "127.0.0.1:1");
        v.put("topic", "t");
        v.put("group", "g");
        v.put("block_size", "65536");
        v.put("consumers", "1");
        final List<String> out = new ArrayList<>();
        for (final String s : KafkaEngine.statements(v))
        {
            out.add(s.replaceAll("(?m)^--[^\n]*\n", "").strip()); // the comments before a statement
        }
        return out;
    }

    @Test
    void shouldHaveOneKafkaTableOneRouteViewAndOneViewPerBranchWithItsCondition() throws Exception
    {
        final List<String> st = statements();
        final SluiceConfig.Sink sink = ConfigLoader.load(ExampleSchemas.TOML).sinks().get(0);
        assertEquals(3 + sink.branches().size(), st.size());
        assertTrue(st.get(0).startsWith("CREATE TABLE db.route_sink ("), st.get(0));
        assertTrue(st.get(0).endsWith("ENGINE = Null"), st.get(0));
        assertTrue(st.get(1).startsWith("ATTACH MATERIALIZED VIEW db.route TO db.route_sink ("), st.get(1));
        assertTrue(st.get(1).endsWith("FROM db.kafka_events"), st.get(1));
        final String sinkColumns = st.get(0).substring(st.get(0).indexOf('('), st.get(0).indexOf(')') + 1);
        final String routeColumns = st.get(1).substring(st.get(1).indexOf('('), st.get(1).indexOf(')') + 1);
        assertEquals(sinkColumns.replaceAll("\\s+", " "), routeColumns.replaceAll("\\s+", " "));
        // the Kafka table last: the engine consumes from the moment a view depends on it
        final String kafka = st.get(st.size() - 1);
        assertTrue(kafka.startsWith("CREATE TABLE db.kafka_events (raw String)"), kafka);
        assertTrue(kafka.contains("kafka_topic_list = 't'") && kafka.contains("kafka_group_name = 'g'")
            && kafka.contains("kafka_max_block_size = 65536") && kafka.contains("kafka_num_consumers = 1"), kafka);
        final Set<String> typed = new LinkedHashSet<>();
        for (int i = 0; i < sink.branches().size(); i++)
        {
            final SluiceConfig.Branch b = sink.branches().get(i);
            final Matcher m = VIEW.matcher(st.get(2 + i));
            assertTrue(m.matches(), st.get(2 + i));
            assertEquals(b.targetTable(), m.group(1));
            assertEquals(b.targetTable(), m.group(2));
            final String where = m.group(4).strip();
            if (b.when() != null)
            {
                assertEquals(SluiceConfig.Condition.Op.EQUALS, b.when().op());
                assertEquals(b.when().path(), "type");
                assertEquals("type = '" + b.when().values().get(0) + "'", where);
                typed.add(b.when().values().get(0));
            }
            else
            {
                // the catch-all takes exactly what no other branch does
                assertEquals(sink.branches().size() - 1, i, "the catch-all is the last branch");
                final Matcher in = Pattern.compile("type NOT IN \\((.*)\\)", Pattern.DOTALL).matcher(where);
                assertTrue(in.matches(), where);
                final Set<String> listed = new LinkedHashSet<>();
                for (final String s : in.group(1).split(","))
                {
                    listed.add(s.strip().replace("'", ""));
                }
                assertEquals(typed, listed);
            }
        }
    }

    @Test
    void shouldSelectExactlyTheTablesColumnsInEachView() throws Exception
    {
        final Map<String, List<String[]>> schemas = ExampleSchemas.schemas();
        for (final String s : statements())
        {
            final Matcher m = VIEW.matcher(s);
            if (!m.matches())
            {
                continue;
            }
            final List<String> selected = new ArrayList<>();
            for (final String expr : splitTopLevel(m.group(3).replaceAll("--[^\n]*", "")))
            {
                final Matcher a = ALIAS.matcher(expr);
                String name = null;
                while (a.find())
                {
                    name = a.group(1) != null ? a.group(1) : a.group(2);
                }
                selected.add(name);
            }
            final List<String> columns = new ArrayList<>();
            for (final String[] c : schemas.get(m.group(2)))
            {
                columns.add(c[0]);
            }
            assertEquals(columns, selected, m.group(2));
        }
    }

    @Test
    void shouldLeaveNoPlaceholder() throws Exception
    {
        for (final String s : statements())
        {
            assertFalse(s.contains("${"), s);
        }
    }

    private static List<String> splitTopLevel(final String list)
    {
        final List<String> out = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < list.length(); i++)
        {
            final char c = list.charAt(i);
            if (c == '\'' && (i == 0 || list.charAt(i - 1) != '\\'))
            {
                quoted = !quoted;
            }
            if (!quoted && c == '(')
            {
                depth++;
            }
            if (!quoted && c == ')')
            {
                depth--;
            }
            if (!quoted && depth == 0 && c == ',')
            {
                out.add(b.toString());
                b.setLength(0);
            }
            else
            {
                b.append(c);
            }
        }
        out.add(b.toString());
        return out;
    }
}
