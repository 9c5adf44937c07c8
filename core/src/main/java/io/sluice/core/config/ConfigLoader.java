package io.sluice.core.config;

import static io.sluice.core.config.ConfigSchema.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tomlj.Toml;
import org.tomlj.TomlParseError;
import org.tomlj.TomlParseResult;
import org.tomlj.TomlTable;

import io.sluice.codecs.json.DuplicateKeys;

import io.sluice.core.config.SluiceConfig.Branch;
import io.sluice.core.config.SluiceConfig.Condition;
/**
 * Parses and validates a TOML configuration against {@link ConfigSchema}. Every problem is collected (syntax errors
 * with their line, unknown keys, wrong types, out-of-range values, inconsistent combinations) and reported together
 * in one {@link ConfigException}. Connects to nothing. Thread-safe (stateless).
 */
public final class ConfigLoader
{
    /** The largest configuration file read: far above any real one, far below what exhausts the heap. */
    static final long MAX_FILE_BYTES = 16L << 20;

    private ConfigLoader()
    {
    }

    /**
     * @param file a TOML file
     * @return the validated configuration
     * @throws ConfigException with every problem found, or when the file cannot be read
     */
    public static SluiceConfig load(final Path file)
    {
        return load(file, SinkKinds.installed());
    }

    /**
     * @param file  a TOML file
     * @param kinds the sink kinds a {@code [[sinks]]} may name
     * @return the validated configuration
     * @throws ConfigException with every problem found, or when the file cannot be read
     */
    public static SluiceConfig load(final Path file, final SinkKinds kinds)
    {
        return parse(read(file), System::getenv, kinds);
    }

    /**
     * Reads a configuration file as UTF-8 text, refusing what is not a readable regular file of UTF-8 text with a
     * message that says which (never an exception's class name).
     *
     * @param file the file
     * @return its text
     * @throws ConfigException naming the file and what is wrong with it
     */
    static String read(final Path file)
    {
        if (file.toString().isEmpty())
        {
            throw new ConfigException("(file)", "the configuration path is empty: give a file name");
        }
        if (Files.isDirectory(file))
        {
            throw new ConfigException("(file)", "cannot read " + file + ": it is a directory, not a file");
        }
        final byte[] bytes;
        try
        {
            if (Files.size(file) > MAX_FILE_BYTES)
            {
                throw new ConfigException("(file)", "cannot read " + file + ": it is " + Files.size(file)
                    + " bytes; a configuration is at most " + MAX_FILE_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        }
        catch (final NoSuchFileException e)
        {
            throw new ConfigException("(file)", "cannot read " + file + ": no such file");
        }
        catch (final AccessDeniedException e)
        {
            throw new ConfigException("(file)", "cannot read " + file + ": permission denied");
        }
        catch (final IOException e)
        {
            throw new ConfigException("(file)", "cannot read " + file + ": "
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final CharBuffer out = CharBuffer.allocate(bytes.length);
        final CoderResult result = decoder.decode(in, out, true);
        if (result.isError())
        {
            final int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++)
            {
                line += bytes[i] == '\n' ? 1 : 0;
            }
            throw new ConfigException(List.of(new ConfigProblem("(file)", line, file
                + " is not UTF-8 text: byte " + at + " (0x" + String.format("%02X", bytes[at] & 0xFF)
                + ") does not start a valid UTF-8 sequence; save the file as UTF-8")));
        }
        decoder.flush(out);
        final String text = out.flip().toString();
        // a byte order mark that some Windows editors write is no part of the TOML
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /**
     * @param toml TOML text
     * @return the validated configuration
     * @throws ConfigException with every problem found
     */
    public static SluiceConfig parse(final String toml)
    {
        return parse(toml, System::getenv);
    }

    /**
     * @param toml TOML text
     * @param env  the environment that {@code ${NAME}} references read (name to value, null when unset)
     * @return the validated configuration
     * @throws ConfigException with every problem found
     */
    public static SluiceConfig parse(final String toml, final Function<String, String> env)
    {
        return parse(toml, env, SinkKinds.installed());
    }

    /**
     * @param toml  TOML text
     * @param env   the environment that {@code ${NAME}} references read (name to value, null when unset)
     * @param kinds the sink kinds a {@code [[sinks]]} may name ({@link SinkKinds#installed()} by default)
     * @return the validated configuration
     * @throws ConfigException with every problem found
     */
    public static SluiceConfig parse(final String toml, final Function<String, String> env, final SinkKinds kinds)
    {
        final TomlParseResult result = Toml.parse(toml);
        final List<ConfigProblem> problems = new ArrayList<>();
        if (result.hasErrors())
        {
            final String[] lines = toml.split("\n", -1);
            for (final TomlParseError e : result.errors())
            {
                final int line = e.position() == null ? 0 : e.position().line();
                problems.add(new ConfigProblem("(syntax)", line, syntaxMessage(e.getMessage(),
                    line > 0 && line <= lines.length ? lines[line - 1] : "", kinds)));
            }
            throw new ConfigException(problems);
        }
        EnvInterpolation.interpolateAll(result, env, problems);
        final int unresolved = problems.size();
        final SluiceConfig config = read(result, problems, kinds);
        if (!problems.isEmpty())
        {
            throw new ConfigException(withoutFollowUps(problems, unresolved));
        }
        return config;
    }

    /**
     * A value whose reference could not be resolved is read as written ({@code ${NAME}}), which fails its own checks
     * too (not a URL, no such file): only the reference's problem is reported for that key.
     *
     * @param problems   every problem, the first {@code unresolved} of them the interpolation's
     * @param unresolved how many
     * @return the problems without the follow-ups
     */
    private static List<ConfigProblem> withoutFollowUps(final List<ConfigProblem> problems, final int unresolved)
    {
        final Set<String> keys = new HashSet<>();
        for (int i = 0; i < unresolved; i++)
        {
            keys.add(problems.get(i).key().replaceAll("\\[\\d+\\]$", ""));
        }
        final List<ConfigProblem> out = new ArrayList<>(problems.subList(0, unresolved));
        for (int i = unresolved; i < problems.size(); i++)
        {
            if (!keys.contains(problems.get(i).key()))
            {
                out.add(problems.get(i));
            }
        }
        return out;
    }

    /** A key whose value is a secret: a secret key of the schema, or a Kafka property of type PASSWORD. */
    private static final Pattern SECRET_LINE = Pattern.compile("^\\s*[\"']?([A-Za-z0-9_.\\-]+)[\"']?\\s*=.*");

    /**
     * The parser's message for a syntax error, without what it quotes of the line when the line sets a secret: a
     * broken password line must not print part of the password (tomlj quotes the token it did not expect).
     */
    static String syntaxMessage(final String message, final String line)
    {
        return syntaxMessage(message, line, SinkKinds.installed());
    }

    private static String syntaxMessage(final String message, final String line, final SinkKinds kinds)
    {
        final Matcher m = SECRET_LINE.matcher(line);
        if (m.matches() && secretKey(m.group(1), kinds))
        {
            return message.replaceAll("'[^']*'", "'" + Secrets.MASK + "'").replaceAll("\"[^\"]+\"",
                "\"" + Secrets.MASK + "\"") + " (in the value of the secret " + m.group(1) + ")";
        }
        return message;
    }

    private static boolean secretKey(final String key, final SinkKinds kinds)
    {
        for (final SinkKind kind : kinds.all())
        {
            for (final ConfigKey k : kind.pluginConfigKeys())
            {
                if (k.secret() && k.name().equals(key))
                {
                    return true;
                }
            }
        }
        for (final String section : ConfigSchema.sections())
        {
            for (final ConfigKey k : ConfigSchema.keys(section))
            {
                if (k.secret() && k.name().equals(key))
                {
                    return true;
                }
            }
        }
        return Secrets.isSecretKafkaProperty(key);
    }

    private static SluiceConfig read(final TomlTable root, final List<ConfigProblem> problems,
        final SinkKinds kinds)
    {
        final TableReader top = new TableReader(root, "", "", problems, 0);

        final SluiceConfig.Kafka kafkaConfig = KafkaConfigs.read(sub(top, KAFKA, problems), null);

        final TableReader cp = sub(top, CHECKPOINT, problems);
        final SluiceConfig.Checkpoint checkpoint = new SluiceConfig.Checkpoint(
            cp.longValue(CHECKPOINT_COMMIT_INTERVAL_MS),
            cp.longValue(CHECKPOINT_STALLED_FAIL_AFTER_MS),
            cp.longValue(CHECKPOINT_DRAIN_TIMEOUT_MS));
        cp.finish();

        final TableReader en = sub(top, ENGINE, problems);
        final SluiceConfig.Engine engine = new SluiceConfig.Engine(
            powerOfTwo(en, ENGINE_RING_SIZE),
            multipleOf64(en, ENGINE_SLOT_BYTES),
            en.intValue(ENGINE_MAX_RECORD_BYTES),
            en.intValue(ENGINE_OVERFLOW_BUFFERS),
            powerOfTwo(en, ENGINE_ACK_WINDOW),
            en.intValue(ENGINE_QUEUE_DEPTH),
            en.longValue(ENGINE_STATUS_INTERVAL_MS),
            en.intValue(ENGINE_DESTINATION_SETUP_THREADS),
            en.longValue(ENGINE_KAFKA_CHECK_TIMEOUT_MS));
        if ((long)engine.ringSize() * engine.slotBytes() > Integer.MAX_VALUE)
        {
            en.problem(ENGINE_RING_SIZE.name(), "ring_size x slot_bytes = " + engine.ringSize() + " x "
                + engine.slotBytes() + " bytes is over 2 GiB - 1, the most one off-heap ring holds; lower ring_size or "
                + "slot_bytes");
        }
        en.finish();

        final SluiceConfig.Tuning tuning = readTuning(top, problems);

        final TableReader me = sub(top, METRICS, problems);
        final SluiceConfig.Metrics metrics = new SluiceConfig.Metrics(me.string(METRICS_LISTEN),
            me.intValue(METRICS_READY_STALLED_PERCENT), me.bool(METRICS_TABLE_HISTOGRAMS));
        if (!metrics.valid())
        {
            me.problem(METRICS_LISTEN.name(), "expected host:port with a port 0..65535, e.g. \"127.0.0.1:9464\" or "
                + "\"[::1]:9464\"");
        }
        me.finish();

        final List<SluiceConfig.Sink> sinks = new ArrayList<>();
        final List<TomlTable> sinkTables = top.tables(SINKS);
        final Set<String> sinkNames = new HashSet<>();
        final List<BranchTargets.Target> targets = new ArrayList<>();
        for (int i = 0; i < sinkTables.size(); i++)
        {
            final SluiceConfig.Sink sink = readSink(sinkTables.get(i), "sinks[" + i + "]", problems, kafkaConfig,
                kinds, targets);
            if (sink != null && !sinkNames.add(sink.name()))
            {
                problems.add(new ConfigProblem("sinks[" + i + "].name", TableReader.line(sinkTables.get(i), "name"),
                    "duplicate sink name \"" + sink.name() + "\""));
            }
            if (sink != null)
            {
                sinks.add(sink);
            }
        }
        BranchTargets.resolve(sinkTables, sinks, targets, problems);
        BranchTargets.exactlyOnceTables(sinkTables, sinks, problems);
        final List<SluiceConfig.Source> sources = new ArrayList<>();
        final int sourceTables = SourceConfigs.read(top, problems, sources, kafkaConfig);
        if (sinkTables.isEmpty() && sourceTables == 0)
        {
            problems.add(new ConfigProblem("sinks", 0, "no [[sources]] or [[sinks]] defined: nothing to run"));
        }
        top.finish();
        return new SluiceConfig(kafkaConfig, checkpoint, engine, tuning, metrics, List.copyOf(sinks),
            List.copyOf(sources));
    }

    private static SluiceConfig.Tuning readTuning(final TableReader top, final List<ConfigProblem> problems)
    {
        final TableReader tu = sub(top, TUNING, problems);
        final List<Integer> cpus = tu.ints(TUNING_CPUS);
        final String wait = tu.string(TUNING_WAIT);
        final String layout = tu.string(TUNING_LAYOUT);
        final Map<String, SluiceConfig.Tuning.Stage> stages = new LinkedHashMap<>();
        final TomlTable stagesTable = tu.table(TUNING_STAGES);
        for (final String stage : stagesTable.keySet())
        {
            final String key = "tuning.stages." + stage;
            if (!Set.of("source", "route", "sink").contains(stage))
            {
                problems.add(new ConfigProblem(key, TableReader.line(stagesTable, stage),
                    "unknown stage; stages are source, route, sink"));
                continue;
            }
            if (!(stagesTable.get(List.of(stage)) instanceof TomlTable st))
            {
                problems.add(
                    new ConfigProblem(key, TableReader.line(stagesTable, stage), "expected a table"));
                continue;
            }
            String stageWait = null;
            int stageCpu = -1;
            for (final String k : st.keySet())
            {
                final Object v = st.get(List.of(k));
                final int line = TableReader.line(st, k);
                if (k.equals("wait") && v instanceof String s && TUNING_WAIT.allowed().contains(s))
                {
                    stageWait = s;
                }
                else if (k.equals("cpu") && v instanceof Long l && l >= 0 && l < 4096)
                {
                    stageCpu = l.intValue();
                }
                else if (k.equals("wait") || k.equals("cpu"))
                {
                    problems.add(new ConfigProblem(key + "." + k, line, k.equals("wait")
                        ? "expected one of " + TUNING_WAIT.allowed()
                        : "expected a CPU number >= 0"));
                }
                else
                {
                    problems.add(new ConfigProblem(key + "." + k, line, "unknown key (keys here: cpu, wait)"));
                }
            }
            stages.put(stage, new SluiceConfig.Tuning.Stage(stageWait, stageCpu));
        }
        tu.finish();
        return new SluiceConfig.Tuning(cpus, wait, layout, Map.copyOf(stages));
    }

    private static SluiceConfig.Sink readSink(final TomlTable t, final String path, final List<ConfigProblem> problems,
        final SluiceConfig.Kafka kafka, final SinkKinds kinds, final List<BranchTargets.Target> targets)
    {
        final int firstLine = TableReader.firstLine(t);
        final TableReader r = new TableReader(t, path, "sinks[]", problems, firstLine);
        final String name = r.string(SINK_NAME);
        final String kind = r.string(SINK_KIND);
        final SinkKind sinkKind = kind == null ? null : kinds.find(kind);
        if (kind != null && sinkKind == null)
        {
            r.problem(SINK_KIND.name(), kinds.unknown(kind));
        }
        final String pattern = r.string(SINK_PATTERN);
        final List<String> topics = r.strings(SINK_TOPICS);
        final boolean consumes = pattern != null || !topics.isEmpty();
        // a sink with neither pattern nor topics, no group_id and no branches is only a target of other sinks'
        // branches; one that has a group or branches was meant to consume
        final boolean targetOnly = !consumes && !r.has(SINK_GROUP_ID) && r.tables(SINK_BRANCHES).isEmpty();
        if (pattern != null && !topics.isEmpty())
        {
            r.problem(SINK_PATTERN.name(), "give either pattern or topics, not both");
        }
        else if (!consumes && !targetOnly)
        {
            r.problem(SINK_PATTERN.name(), "give pattern (a regular expression) or topics (a list)");
        }
        if (targetOnly && name != null)
        {
            // checked once every branch is read: one must name it
            targets.add(new BranchTargets.Target(name, -1, path, name, firstLine, 0, 0, 0, false, false));
        }
        final String regexProblem = pattern == null ? null : UserRegex.problem(pattern);
        if (regexProblem != null)
        {
            r.problem(SINK_PATTERN.name(), regexProblem);
        }
        final String groupId = r.string(SINK_GROUP_ID);
        if (groupId == null && consumes)
        {
            r.problem(SINK_GROUP_ID.name(), "missing: a sink that consumes (pattern or topics) needs its consumer "
                + "group");
        }
        final ErrorPolicy unmatched = ErrorPolicy.parse(r.string(SINK_UNMATCHED));
        final ErrorPolicy onError = ErrorPolicy.parse(r.string(SINK_ON_ERROR));
        final ErrorPolicy tombstones = ErrorPolicy.parse(r.string(SINK_TOMBSTONES));
        final DuplicateKeys duplicateKeys = DuplicateKeys.fromConfig(r.string(SINK_DUPLICATE_KEYS));
        final String reset = r.string(SINK_AUTO_OFFSET_RESET);
        final long refresh = r.longValue(SINK_TOPIC_REFRESH_MS);
        final String isolation = r.string(SINK_ISOLATION_LEVEL);

        final SluiceConfig.Kafka ownKafka = kafkaOverride(r, SINK_KAFKA, kafka, problems);

        final TableReader pc = new TableReader(r.table(SINK_PLUGIN_CONFIG), path + ".plugin_config",
            SinkKeys.SECTION, problems, r.line(SINK_PLUGIN_CONFIG.name()));
        final SinkConnection plugin = readPlugin(pc, sinkKind);
        final String deletes = tombstones != ErrorPolicy.DELETE || sinkKind == null || plugin == null
            ? null
            : sinkKind.deletesRefused(plugin);
        if (deletes != null)
        {
            r.problem(SINK_TOMBSTONES.name(), "\"delete\" is not possible here: " + deletes);
        }
        final List<Branch> branches = targetOnly
            ? List.of()
            : readBranches(r, path, name, plugin, pc, problems, targets);
        final DeadLetterConfig deadLetter = DeadLetterConfigs.readSink(r, unmatched, onError, tombstones);
        r.pluginKeysOf(sinkKind);
        r.finish();
        if (name == null || sinkKind == null || groupId == null && !targetOnly)
        {
            return null;
        }
        return new SluiceConfig.Sink(name, kind, pattern, topics, groupId, unmatched, onError, reset, refresh, plugin,
            List.copyOf(branches), ownKafka, deadLetter, isolation, tombstones, duplicateKeys);
    }

    /**
     * Reads a sink's plugin_config with its kind; finishes {@code pc} (its unknown keys are problems). Of a sink
     * whose kind is unknown only the neutral keys are read (its other keys cannot be told from mistakes).
     */
    private static SinkConnection readPlugin(final TableReader pc, final SinkKind kind)
    {
        if (kind == null)
        {
            final ConfigKey identifier = SinkKeys.identifier("rewrite");
            final SinkConnection neutral = SinkSettings.read(new PluginConfigReader(pc), "", identifier, List.of());
            pc.keys(SinkSettings.keys(identifier));
            return neutral;
        }
        pc.keys(kind.pluginConfigKeys());
        final SinkConnection plugin = kind.readPluginConfig(new PluginConfigReader(pc));
        pc.finish();
        return plugin;
    }

    /** Reads a sink's branches, or makes its one default branch when it has none. */
    private static List<Branch> readBranches(final TableReader r, final String path, final String name,
        final SinkConnection plugin, final TableReader pc, final List<ConfigProblem> problems,
        final List<BranchTargets.Target> targets)
    {
        final List<Branch> branches = new ArrayList<>();
        final List<TomlTable> branchTables = r.tables(SINK_BRANCHES);
        final Set<String> branchNames = new HashSet<>();
        for (int b = 0; b < branchTables.size(); b++)
        {
            final TomlTable bt = branchTables.get(b);
            final String bpath = path + ".branches[" + b + "]";
            final TableReader br = new TableReader(bt, bpath, "sinks[].branches[]", problems,
                TableReader.firstLine(bt));
            final String bname = br.string(BR_NAME);
            if (bname != null && !branchNames.add(bname))
            {
                br.problem(BR_NAME.name(), "duplicate branch name \"" + bname + "\" in sink \"" + name + "\"");
            }
            final Condition when = readCondition(br);
            if (!br.has(BR_WHEN) && b != branchTables.size() - 1)
            {
                br.problem(BR_WHEN.name(), "a branch without when takes every record, so it must be the last branch "
                    + "(branches after it could never match)");
            }
            final String target = br.string(BR_SINK);
            // a branch that writes to another sink takes that sink's defaults, once every sink is read
            final boolean elsewhere = target != null && !target.equals(name);
            final String table = br.has(BR_TARGET_TABLE) ? br.string(BR_TARGET_TABLE) : plugin.targetTable();
            if (table == null && !elsewhere)
            {
                br.problem(BR_TARGET_TABLE.name(), "missing: give target_table here or in plugin_config");
            }
            final String database = br.has(BR_DATABASE) ? br.string(BR_DATABASE) : plugin.database();
            final Map<String, String> columns = br.stringMap(BR_COLUMNS);
            final String shardBy = br.string(BR_SHARD_BY);
            final long maxRows = br.optionalLong(BR_MAX_ROWS);
            final long maxBytes = br.optionalLong(BR_MAX_BYTES);
            final long linger = br.optionalLong(BR_LINGER_MS);
            if (elsewhere)
            {
                targets.add(
                    new BranchTargets.Target(name, branches.size(), bpath, target, br.line(BR_SINK.name()), maxRows,
                        maxBytes, linger, br.has(BR_TARGET_TABLE), br.has(BR_DATABASE)));
            }
            branches.add(new Branch(bname, when, database, table, Map.copyOf(columns), shardBy,
                maxRows == Long.MIN_VALUE ? plugin.maxRows() : (int)maxRows,
                maxBytes == Long.MIN_VALUE ? plugin.maxBytes() : maxBytes,
                linger == Long.MIN_VALUE ? plugin.lingerMs() : linger, name));
            br.finish();
        }
        if (branchTables.isEmpty())
        {
            if (plugin.targetTable() == null)
            {
                pc.problem(SinkKeys.TARGET_TABLE.name(),
                    "missing: a sink without branches writes every record to target_table");
            }
            branches.add(new Branch("default", null, plugin.database(), plugin.targetTable(), Map.of(), null,
                plugin.maxRows(), plugin.maxBytes(), plugin.lingerMs(), name));
        }
        return branches;
    }

    /**
     * Reads a pipeline's own {@code kafka} table on top of [kafka].
     *
     * @return the effective connection, or null when the pipeline has no such table
     */
    static SluiceConfig.Kafka kafkaOverride(final TableReader r, final ConfigKey key, final SluiceConfig.Kafka base,
        final List<ConfigProblem> problems)
    {
        if (!r.has(key))
        {
            r.table(key);
            return null;
        }
        return KafkaConfigs.read(new TableReader(r.table(key), r.keyPath(key.name()), "kafka", problems,
            r.line(key.name())), base);
    }

    private static Condition readCondition(final TableReader br)
    {
        final Object raw = br.rule(BR_WHEN);
        if (raw == null)
        {
            return null;
        }
        final String key = br.keyPath(BR_WHEN.name());
        final int line = br.line(BR_WHEN.name());
        if (!(raw instanceof TomlTable t))
        {
            br.problem(BR_WHEN.name(), "expected an inline table such as { path = \"type\", equals = \"PushEvent\" }");
            return null;
        }
        final List<ConfigProblem> local = new ArrayList<>();
        String path = null;
        Condition.Op op = null;
        List<String> values = List.of();
        boolean exists = true;
        for (final String k : t.keySet())
        {
            final Object v = t.get(List.of(k));
            switch (k)
            {
                case "path" -> {
                    if (v instanceof String s && !s.isEmpty())
                    {
                        path = s;
                    }
                    else
                    {
                        local.add(new ConfigProblem(key + ".path", line, "expected a non-empty JSON path string"));
                    }
                }
                case "equals", "prefix", "matches" -> {
                    if (op != null)
                    {
                        local.add(
                            new ConfigProblem(key + "." + k, line, "only one of equals, in, prefix, matches, exists"));
                    }
                    op = k.equals("equals")
                        ? Condition.Op.EQUALS
                        : k.equals("prefix") ? Condition.Op.PREFIX : Condition.Op.MATCHES;
                    values = scalarValue(k, op, v, key, line, local);
                }
                case "in" -> {
                    if (op != null)
                    {
                        local.add(
                            new ConfigProblem(key + ".in", line, "only one of equals, in, prefix, matches, exists"));
                    }
                    op = Condition.Op.IN;
                    values = inValues(v, key, line, local);
                }
                case "exists" -> {
                    if (op != null)
                    {
                        local.add(new ConfigProblem(key + ".exists", line,
                            "only one of equals, in, prefix, matches, exists"));
                    }
                    op = Condition.Op.EXISTS;
                    if (v instanceof Boolean b)
                    {
                        exists = b;
                    }
                    else
                    {
                        local.add(new ConfigProblem(key + ".exists", line, "expected true or false"));
                    }
                }
                default -> local.add(new ConfigProblem(key + "." + k, line,
                    "unknown key (keys here: path, equals, in, prefix, matches, exists)"));
            }
        }
        if (path == null && local.isEmpty())
        {
            local.add(new ConfigProblem(key + ".path", line, "missing: the JSON path the condition reads"));
        }
        if (op == null && local.isEmpty())
        {
            local.add(new ConfigProblem(key, line, "give one of equals, in, prefix, matches, exists"));
        }
        if (!local.isEmpty())
        {
            localProblems(br, local);
            return null;
        }
        return new Condition(path, op, values, exists);
    }

    /**
     * The value of {@code equals}, {@code prefix} or {@code matches}: a string (a valid regular expression for
     * matches), or an integer or boolean taken as its text; anything else is a problem (and no value).
     */
    private static List<String> scalarValue(final String k, final Condition.Op op, final Object v, final String key,
        final int line, final List<ConfigProblem> local)
    {
        if (v instanceof String s)
        {
            final String regexProblem = op == Condition.Op.MATCHES ? UserRegex.problem(s) : null;
            if (regexProblem != null)
            {
                local.add(new ConfigProblem(key + ".matches", line, regexProblem));
            }
            return List.of(s);
        }
        if (v instanceof Long || v instanceof Boolean)
        {
            return List.of(String.valueOf(v));
        }
        local.add(new ConfigProblem(key + "." + k, line, "expected a string, got " + TableReader.describe(v)));
        return List.of();
    }

    /** The values of {@code in}: a non-empty array of the values {@code equals} takes; else a problem per element. */
    private static List<String> inValues(final Object v, final String key, final int line,
        final List<ConfigProblem> local)
    {
        if (!(v instanceof org.tomlj.TomlArray a) || a.isEmpty())
        {
            local.add(new ConfigProblem(key + ".in", line, "expected a non-empty array"));
            return List.of();
        }
        final List<String> vs = new ArrayList<>();
        for (int i = 0; i < a.size(); i++)
        {
            final Object item = a.get(i);
            if (item instanceof String || item instanceof Long || item instanceof Boolean)
            {
                vs.add(String.valueOf(item));
            }
            else
            {
                // the same values equals takes: a float, date, array or table has no one text form
                local.add(new ConfigProblem(key + ".in", line,
                    "element " + i + ": expected a string, got " + TableReader.describe(item)));
            }
        }
        return List.copyOf(vs);
    }

    private static void localProblems(final TableReader br, final List<ConfigProblem> local)
    {
        for (final ConfigProblem p : local)
        {
            br.problem(BR_WHEN.name(), p.key().substring(br.keyPath(BR_WHEN.name()).length()).replaceFirst("^\\.", "")
                .transform(s -> s.isEmpty() ? p.message() : s + ": " + p.message()));
        }
    }

    private static TableReader sub(final TableReader parent, final ConfigKey key, final List<ConfigProblem> problems)
    {
        return new TableReader(parent.table(key), parent.keyPath(key.name()), key.name(), problems,
            parent.line(key.name()));
    }

    private static int powerOfTwo(final TableReader r, final ConfigKey key)
    {
        final int v = r.intValue(key);
        if (Integer.bitCount(v) != 1)
        {
            r.problem(key.name(), v + " is not a power of two");
        }
        return v;
    }

    private static int multipleOf64(final TableReader r, final ConfigKey key)
    {
        final int v = r.intValue(key);
        if (v % 64 != 0)
        {
            r.problem(key.name(), v + " is not a multiple of 64");
        }
        return v;
    }

}
