package io.sluice.core.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.tomlj.TomlArray;
import org.tomlj.TomlTable;

import io.sluice.core.config.SluiceConfig.Branch;

/**
 * The branches that write to another sink ({@code sink} key) and the sinks that only receive them, resolved by
 * {@link ConfigLoader} once every sink is read (a branch may name a sink further down the file). Stateless; the
 * loading thread.
 */
final class BranchTargets
{
    private BranchTargets()
    {
    }

    /**
     * A branch whose {@code sink} key names another sink, or a sink that consumes nothing: resolved once every sink
     * is read (a branch may name a sink further down the file).
     *
     * @param owner     the sink the branch belongs to (or the target-only sink)
     * @param branch    index of the branch in its sink's list, or -1 for a sink that consumes nothing
     * @param path      {@code sinks[i].branches[b]} (or {@code sinks[i]})
     * @param target    the sink name the branch gives (or the target-only sink's own name)
     * @param line      line of the {@code sink} key (or of the sink table)
     * @param maxRows   the branch's own max_rows, or {@code Long.MIN_VALUE}
     * @param maxBytes  the branch's own max_bytes, or {@code Long.MIN_VALUE}
     * @param lingerMs  the branch's own linger_ms, or {@code Long.MIN_VALUE}
     * @param hasTable  whether the branch gives target_table
     * @param hasDb     whether the branch gives database
     */
    record Target(String owner, int branch, String path, String target, int line, long maxRows,
        long maxBytes, long lingerMs, boolean hasTable, boolean hasDb)
    {
    }

    /**
     * Gives each branch that names another sink that sink's defaults (database, target_table, max_rows, max_bytes,
     * linger_ms) and reports an unknown name; reports a sink without pattern and topics that no branch names.
     */
    static void resolve(final List<TomlTable> sinkTables, final List<SluiceConfig.Sink> sinks,
        final List<Target> targets, final List<ConfigProblem> problems)
    {
        final Set<String> declared = new HashSet<>();
        for (final TomlTable t : sinkTables)
        {
            if (t.get(List.of("name")) instanceof String n)
            {
                declared.add(n);
            }
        }
        final Map<String, SluiceConfig.Sink> byName = new LinkedHashMap<>();
        sinks.forEach(s -> byName.putIfAbsent(s.name(), s));
        final Set<String> named = new HashSet<>();
        final Map<String, List<Branch>> rebuilt = new LinkedHashMap<>();
        for (final Target bt : targets)
        {
            if (bt.branch() < 0)
            {
                continue;
            }
            named.add(bt.target());
            final SluiceConfig.Sink owner = byName.get(bt.owner());
            final SluiceConfig.Sink target = byName.get(bt.target());
            if (target == null)
            {
                if (!declared.contains(bt.target()))
                {
                    problems.add(new ConfigProblem(bt.path() + ".sink", bt.line(), "no sink named \"" + bt.target()
                        + "\" (sinks: " + String.join(", ", declared.stream().sorted().toList()) + ")"));
                }
                continue;
            }
            if (owner == null)
            {
                continue;
            }
            final List<Branch> branches = rebuilt.computeIfAbsent(owner.name(), k -> new ArrayList<>(owner.branches()));
            final Branch b = branches.get(bt.branch());
            final SinkConnection pc = target.plugin();
            final String table = bt.hasTable() ? b.targetTable() : pc.targetTable();
            if (table == null)
            {
                problems.add(new ConfigProblem(bt.path() + ".target_table", bt.line(), "missing: give target_table "
                    + "here or in plugin_config of sink \"" + target.name() + "\", which this branch writes to"));
            }
            branches.set(bt.branch(), new Branch(b.name(), b.when(), bt.hasDb() ? b.database() : pc.database(), table,
                b.columns(), b.shardBy(),
                bt.maxRows() == Long.MIN_VALUE ? pc.maxRows() : (int)bt.maxRows(),
                bt.maxBytes() == Long.MIN_VALUE ? pc.maxBytes() : bt.maxBytes(),
                bt.lingerMs() == Long.MIN_VALUE ? pc.lingerMs() : bt.lingerMs(), target.name()));
        }
        for (final Target bt : targets)
        {
            if (bt.branch() < 0 && !named.contains(bt.target()))
            {
                problems.add(new ConfigProblem(bt.path() + ".pattern", bt.line(), "give pattern (a regular "
                    + "expression) or topics (a list); a sink with neither consumes nothing and is only a target of "
                    + "branches of other sinks (sink = \"" + bt.target() + "\"), and no branch names it"));
            }
        }
        for (int i = 0; i < sinks.size(); i++)
        {
            final List<Branch> b = rebuilt.get(sinks.get(i).name());
            if (b != null)
            {
                sinks.set(i, sinks.get(i).withBranches(b));
            }
        }
    }

    /**
     * Refuses two branches of one split that write one table of a sink with {@code delivery = "exactly_once"}: a
     * table's positions are one chain of batches per (consumer group, table, partition), and two branches seal their
     * batches apart, so their conditional position updates would refuse each other. Tables are compared as written
     * (database and target_table, a literal or the same template); two different templates that meet on one table
     * are refused when the second branch resolves it. Reported at the second branch's {@code target_table} (or the
     * branch's first line when it takes the sink's), naming both branches and the first one's line.
     *
     * @param sinkTables the [[sinks]] tables, in file order
     * @param sinks      the sinks read, with their branches resolved ({@link #resolve})
     * @param problems   where a refusal goes
     */
    static void exactlyOnceTables(final List<TomlTable> sinkTables, final List<SluiceConfig.Sink> sinks,
        final List<ConfigProblem> problems)
    {
        final Map<String, SluiceConfig.Sink> byName = new LinkedHashMap<>();
        sinks.forEach(s -> byName.putIfAbsent(s.name(), s));
        final Set<String> seenOwners = new HashSet<>();
        for (int i = 0; i < sinkTables.size(); i++)
        {
            final TomlTable st = sinkTables.get(i);
            final SluiceConfig.Sink owner = st.get(List.of("name")) instanceof String n ? byName.get(n) : null;
            if (owner == null || !seenOwners.add(owner.name())
                || !(st.get(List.of("branches")) instanceof TomlArray tables)
                || tables.size() != owner.branches().size())
            {
                continue;
            }
            final Map<String, Integer> first = new HashMap<>();
            for (int b = 0; b < owner.branches().size(); b++)
            {
                final Branch br = owner.branches().get(b);
                final SluiceConfig.Sink target = byName.get(br.sink() == null ? owner.name() : br.sink());
                if (target == null || !target.plugin().exactlyOnce() || br.targetTable() == null)
                {
                    continue;
                }
                // one positions row per (group, table, partition): the owner's branches share the group, so two
                // sinks that keep positions in one place (same server and positions table) share the row too
                final String place = target.plugin().positionsPlace() == null
                    ? "sink " + target.name()
                    : target.plugin().positionsPlace();
                final String database = br.database() == null ? target.plugin().database() : br.database();
                final String key = place + '\0' + database + '\0' + br.targetTable();
                // a branch's own target_table (one taken from plugin_config is refused there)
                if (TableReader.line(tables.getTable(b), "target_table") > 0
                    && br.targetTable().equals(target.plugin().positionsTable())
                    && Objects.equals(database, target.plugin().database()))
                {
                    problems.add(new ConfigProblem("sinks[" + i + "].branches[" + b + "].target_table",
                        line(tables.getTable(b)), "branch \"" + br.name() + "\" writes table \"" + br.targetTable()
                            + "\", which is also offsets_table of sink \"" + target.name() + "\" (its positions "
                            + "table): the rows and the positions would share one table; give target_table or "
                            + "offsets_table another name"));
                    continue;
                }
                final Integer earlier = first.putIfAbsent(key, b);
                if (earlier == null)
                {
                    continue;
                }
                final Branch other = owner.branches().get(earlier);
                final SluiceConfig.Sink otherTarget = byName.get(other.sink() == null ? owner.name() : other.sink());
                final String sinksNamed = otherTarget == null || otherTarget.name().equals(target.name())
                    ? " of sink \"" + target.name() + "\", which is delivery = \"exactly_once\""
                    : " of sinks \"" + otherTarget.name() + "\" and \"" + target.name() + "\", both delivery = "
                        + "\"exactly_once\" with their positions kept in one place (" + place + ")";
                problems.add(new ConfigProblem("sinks[" + i + "].branches[" + b + "].target_table",
                    line(tables.getTable(b)), "branches \"" + other.name() + "\" (line "
                        + line(tables.getTable(earlier)) + ") and \"" + br.name() + "\" both write table \""
                        + br.targetTable() + "\"" + (br.database() == null ? "" : " of \"" + br.database() + "\"")
                        + sinksNamed + ": a table's "
                        + "positions are one chain of batches per partition, and two branches seal their batches "
                        + "apart, so only one branch may write a table (send both kinds of record through one branch, "
                        + "or write them to two tables)"));
            }
        }
    }

    /** @return the line of a branch's target_table, or of its first key when it takes the sink's */
    private static int line(final TomlTable branch)
    {
        final int own = TableReader.line(branch, "target_table");
        return own > 0 ? own : TableReader.firstLine(branch);
    }
}
