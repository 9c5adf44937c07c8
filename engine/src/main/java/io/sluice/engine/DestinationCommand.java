package io.sluice.engine;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.sluice.core.gather.SinkProviders;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.UserRegex;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.DestinationNames;

/**
 * {@code engine.jar destination --config F --sink NAME --topic T}: a dry run of a sink's destination template. Prints
 * the table a batch from topic {@code T} would go to, as one JSON object on one line:
 * <pre>{@code {"database": "analytics", "table": "user_42", "sql": "`analytics`.`user_42`"}}</pre>
 * {@code database} and {@code table} are the identifiers after the sink's identifier policy (verbatim, as the
 * database stores them); a kind whose namespace has another name adds it with the same value after {@code database}
 * (PostgreSQL: {@code "schema": "public"}, {@code SinkKind.namespaceName()}); {@code sql} is how every statement Sluice sends writes them. The names come from
 * {@link DestinationNames}, the step the running engine uses, so the dry run and the engine cannot disagree.
 *
 * <p>A sink with several branches: {@code --branch NAME} picks one (default: the first); {@code --all-branches}
 * prints one object per branch, each with a leading {@code "branch"} key. A branch that writes to another sink
 * ({@code sink} key) is resolved with that sink's identifier policy and quoting, and its object names it
 * ({@code "sink": "NAME"}, after {@code "branch"}). When the topic cannot produce a
 * destination (too few segments for the template, an empty segment, a topic the sink's pattern or topic list does
 * not follow) it prints {@code {"database": null, "table": null, "sql": null, "reason": "..."}} and exits 1.
 * Exits 2 on a bad configuration, an unknown sink or branch. Never connects anywhere: whether the table exists, or
 * would be created, is the engine's business at run time.
 */
@Command(name = "destination", mixinStandardHelpOptions = true, description = {
    "Dry run of a sink's destination template: prints the database and table a topic's batches go to.",
    "Never connects. Exit 0 when the topic resolves, 1 when it cannot produce a destination, 2 on a bad configuration."})
public final class DestinationCommand implements Callable<Integer>
{
    /** The topic produces no destination. */
    static final int EXIT_NO_DESTINATION = 1;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Option(names = "--sink", required = true, paramLabel = "NAME", description = "The [[sinks]] whose template to resolve.")
    String sink;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic a batch comes from.")
    String topic;

    @Option(names = "--branch", paramLabel = "NAME", description = "The branch whose table to resolve (default: the first).")
    String branch;

    @Option(names = "--all-branches", description = "Print one object per branch, each with a \"branch\" key.")
    boolean allBranches;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call()
    {
        // UTF-8 whatever the platform's default: names may be non-ASCII
        final PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        final int code = run(config, sink, topic, branch, allBranches, out, spec.commandLine().getErr());
        out.flush();
        return code;
    }

    /**
     * Runs the dry run.
     *
     * @param file        the configuration file
     * @param sinkName    the sink
     * @param topic       the topic
     * @param branchName  the branch, or null for the first
     * @param allBranches whether to print every branch
     * @param out         where the JSON goes, one object per line
     * @param err         where configuration and usage problems go
     * @return 0 when every printed branch resolved, 1 when one did not, 2 on a bad configuration or usage
     */
    static int run(final Path file, final String sinkName, final String topic, final String branchName,
        final boolean allBranches, final PrintWriter out, final PrintWriter err)
    {
        if (allBranches && branchName != null)
        {
            err.println("error: give --branch NAME or --all-branches, not both");
            err.flush();
            return SluiceEngine.EXIT_CONFIG;
        }
        final SluiceConfig c;
        final SluiceConfig.Sink s;
        final List<SluiceConfig.Branch> branches;
        try
        {
            c = ConfigChecks.load(file);
            s = c.sink(sinkName);
            if (!s.consumes())
            {
                throw new ConfigException("sinks", "sink \"" + s.name() + "\" has no pattern or topics: it is only "
                    + "a target of branches of other sinks (" + String.join(", ", writers(c, s)) + "); give --sink "
                    + "with the sink that consumes");
            }
            branches = branchName == null
                ? (allBranches ? s.branches() : List.of(s.branches().get(0)))
                : List.of(branch(s, branchName));
        }
        catch (final ConfigException e)
        {
            return ConfigChecks.report(file, e, err);
        }
        if (branchName == null && !allBranches && s.branches().size() > 1)
        {
            err.println("note: sink " + s.name() + " has " + s.branches().size() + " branches; showing the first (" +
                branches.get(0).name() + "). Use --branch NAME for another or --all-branches for every one.");
            err.flush();
        }
        final String notFollowed = notFollowed(s, topic);
        int code = SluiceEngine.EXIT_OK;
        final StringBuilder sb = new StringBuilder(256);
        for (final SluiceConfig.Branch b : branches)
        {
            // a branch writes with the identifier policy and quoting of the sink it writes to
            final SluiceConfig.Sink target = c.writesTo(s, b);
            final DestinationNames.Name name = new DestinationNames(b.database(), b.targetTable(),
                target.plugin().identifier(), SinkProviders.installed().provider(target.kind())::qualifiedName)
                .resolve(topic);
            sb.setLength(0);
            sb.append('{');
            if (allBranches)
            {
                sb.append("\"branch\": ");
                RouteCommand.JsonText.quote(b.name(), sb);
                sb.append(", ");
            }
            if (target != s)
            {
                sb.append("\"sink\": ");
                RouteCommand.JsonText.quote(target.name(), sb);
                sb.append(", ");
            }
            if (notFollowed == null && name.ok())
            {
                sb.append("\"database\": ");
                RouteCommand.JsonText.quote(name.database(), sb);
                final String namespace = SinkProviders.installed().provider(target.kind()).namespaceName();
                if (!"database".equals(namespace))
                {
                    // the kind's own word next to the stable field name: PostgreSQL's schema
                    sb.append(", ");
                    RouteCommand.JsonText.quote(namespace, sb);
                    sb.append(": ");
                    RouteCommand.JsonText.quote(name.database(), sb);
                }
                sb.append(", \"table\": ");
                RouteCommand.JsonText.quote(name.table(), sb);
                sb.append(", \"sql\": ");
                RouteCommand.JsonText.quote(name.sql(), sb);
            }
            else
            {
                sb.append("\"database\": null, \"table\": null, \"sql\": null, \"reason\": ");
                RouteCommand.JsonText.quote(notFollowed != null
                    ? notFollowed
                    : "sink " + s.name() + ", branch " + b.name() + ": " + name.error(), sb);
                code = EXIT_NO_DESTINATION;
            }
            out.println(sb.append('}'));
        }
        out.flush();
        return code;
    }

    private static SluiceConfig.Branch branch(final SluiceConfig.Sink s, final String name)
    {
        for (final SluiceConfig.Branch b : s.branches())
        {
            if (b.name().equals(name))
            {
                return b;
            }
        }
        throw new ConfigException("sinks", "sink \"" + s.name() + "\" has no branch named \"" + name + "\" (branches: "
            + String.join(", ", s.branches().stream().map(SluiceConfig.Branch::name).toList()) + ")");
    }

    /** @return {@code SINK/BRANCH} of every branch that writes to {@code target} from another sink */
    private static List<String> writers(final SluiceConfig c, final SluiceConfig.Sink target)
    {
        final List<String> out = new java.util.ArrayList<>();
        for (final SluiceConfig.Sink s : c.sinks())
        {
            for (final SluiceConfig.Branch b : s.branches())
            {
                if (s != target && c.writesTo(s, b) == target)
                {
                    out.add(s.name() + "/" + b.name());
                }
            }
        }
        return out;
    }

    /** @return why the sink never consumes the topic, or null when its pattern or topic list takes it */
    private static String notFollowed(final SluiceConfig.Sink s, final String topic)
    {
        if (s.pattern() != null)
        {
            return UserRegex.compile(s.pattern()).matcher(topic).matches()
                ? null
                : "sink " + s.name() + " does not follow topic " + topic + ": it does not match the pattern "
                    + s.pattern()
                    + " (the whole name must match)";
        }
        return s.topics().contains(topic)
            ? null
            : "sink " + s.name() + " does not follow topic " + topic + ": it is not in topics " + s.topics();
    }
}
