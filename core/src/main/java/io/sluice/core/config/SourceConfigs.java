package io.sluice.core.config;

import static io.sluice.core.config.ConfigSchema.*;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.tomlj.TomlArray;
import org.tomlj.TomlTable;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonPath;
import io.sluice.core.config.SluiceConfig.Source;
import io.sluice.core.config.SluiceConfig.TopicRule;
import io.sluice.core.config.SluiceConfig.TopicRule.Strategy;
import io.sluice.core.naming.ReservedTopics;
import io.sluice.core.naming.RoutingTemplate;
import io.sluice.core.naming.TopicNameSanitizer;

/**
 * Reads and validates the {@code [[sources]]} tables (scatter pipelines) against {@link ConfigSchema}: the keys of
 * each kind, the one {@code [[sources.topics]]} block and its routing rule (strategy, what the strategy requires,
 * the template through {@link RoutingTemplate#parse}, the JSON path through {@link JsonPath#parse}, literal and
 * fallback topic names through {@link TopicNameSanitizer}, and never a name Kafka reserves, {@link ReservedTopics}). Every problem is collected with its key and line.
 *
 * <p>Stateless; called by {@link ConfigLoader} on the loading thread.
 */
final class SourceConfigs
{
    private static final String SECTION = "sources[]";
    private static final String TOPICS_SECTION = "sources[].topics[]";
    private static final String RULE_SECTION = "sources[].topics[].topic";
    private static final List<ConfigKey> KAFKA_ONLY = List.of(SRC_INPUT_TOPICS, SRC_PATTERN, SRC_GROUP_ID,
        SRC_AUTO_OFFSET_RESET, SRC_TOPIC_REFRESH_MS, SRC_ISOLATION_LEVEL);

    private SourceConfigs()
    {
    }

    /**
     * Reads every {@code [[sources]]} table of the root.
     *
     * @param top      reader of the root table
     * @param problems where problems go
     * @param out      receives the valid sources, in file order
     * @param kafka    [kafka], which a source's own kafka table overrides
     * @return the number of {@code [[sources]]} tables in the file (valid or not)
     */
    static int read(final TableReader top, final List<ConfigProblem> problems, final List<Source> out,
        final SluiceConfig.Kafka kafka)
    {
        final List<TomlTable> tables = top.tables(SOURCES);
        final Set<String> names = new HashSet<>();
        for (int i = 0; i < tables.size(); i++)
        {
            final TomlTable t = tables.get(i);
            final Source source = readSource(t, "sources[" + i + "]", problems, kafka);
            if (source == null)
            {
                continue;
            }
            if (!names.add(source.name()))
            {
                problems.add(new ConfigProblem("sources[" + i + "].name", TableReader.line(t, "name"),
                    "duplicate source name \"" + source.name() + "\""));
                continue;
            }
            out.add(source);
        }
        return tables.size();
    }

    private static Source readSource(final TomlTable t, final String path, final List<ConfigProblem> problems,
        final SluiceConfig.Kafka kafka)
    {
        final int before = problems.size();
        final TableReader r = new TableReader(t, path, SECTION, problems, TableReader.firstLine(t));
        final String name = r.string(SRC_NAME);
        final String kind = r.string(SRC_KIND);

        final List<String> inputTopics = r.strings(SRC_INPUT_TOPICS);
        final String pattern = r.string(SRC_PATTERN);
        final String groupId = r.string(SRC_GROUP_ID);
        final String reset = r.string(SRC_AUTO_OFFSET_RESET);
        final long refresh = r.longValue(SRC_TOPIC_REFRESH_MS);
        final String isolation = r.string(SRC_ISOLATION_LEVEL);
        final String file = r.string(SRC_PATH);
        final boolean create = r.bool(SRC_CREATE_TOPICS);
        final int partitions = r.intValue(SRC_PARTITIONS);
        final int replication = r.intValue(SRC_REPLICATION_FACTOR);
        final int maxNew = r.intValue(SRC_MAX_NEW_TOPICS_PER_MINUTE);
        final long backoff = r.longValue(SRC_RETRY_BACKOFF_MS);
        final long backoffMax = r.longValue(SRC_RETRY_BACKOFF_MAX_MS);
        final long replay = r.longValue(SRC_REPLAY_BUFFER_BYTES);
        final String checkpointFile = r.string(SRC_CHECKPOINT_FILE);
        final SluiceConfig.Kafka ownKafka = ConfigLoader.kafkaOverride(r, SRC_KAFKA, kafka, problems);

        if (partitions == 0)
        {
            r.problem(SRC_PARTITIONS.name(), "0 partitions: give at least 1, or -1 for the broker's default");
        }
        if (replication == 0)
        {
            r.problem(SRC_REPLICATION_FACTOR.name(), "0 replicas: give at least 1, or -1 for the broker's default");
        }
        if (backoffMax < backoff)
        {
            r.problem(SRC_RETRY_BACKOFF_MAX_MS.name(), backoffMax + " is below retry_backoff_ms (" + backoff + ")");
        }
        if (kind != null)
        {
            checkKind(r, kind, inputTopics, pattern, groupId, file);
        }

        final DuplicateKeys duplicateKeys = DuplicateKeys.fromConfig(r.string(SRC_DUPLICATE_KEYS));
        final TopicRule rule = readTopics(r, path, problems);
        final DeadLetterConfigs.Result deadLetter = DeadLetterConfigs.readSource(r, kind, create, partitions,
            replication);
        r.finish();
        if (problems.size() != before || name == null || kind == null || rule == null)
        {
            return null;
        }
        return new Source(name, kind, inputTopics, pattern, groupId, reset, refresh, file, create, partitions,
            replication, maxNew, backoff, backoffMax, replay, checkpointFile, rule, ownKafka, deadLetter.onError(),
            deadLetter.deadLetter(), isolation, duplicateKeys);
    }

    private static void checkKind(final TableReader r, final String kind, final List<String> inputTopics,
        final String pattern, final String groupId, final String file)
    {
        if (Source.KAFKA.equals(kind))
        {
            if ((pattern == null) == inputTopics.isEmpty())
            {
                r.problem(SRC_PATTERN.name(), pattern == null
                    ? "a kafka source needs pattern (a regular expression) or input_topics (a list)"
                    : "give either pattern or input_topics, not both");
            }
            final String regexProblem = pattern == null ? null : UserRegex.problem(pattern);
            if (regexProblem != null)
            {
                r.problem(SRC_PATTERN.name(), regexProblem);
            }
            if (groupId == null)
            {
                r.problem(SRC_GROUP_ID.name(), "missing: a kafka source needs a consumer group");
            }
        }
        else
        {
            for (final ConfigKey k : KAFKA_ONLY)
            {
                if (r.has(k))
                {
                    r.problem(k.name(), "only for kind = \"kafka\" (this source is kind = \"" + kind + "\")");
                }
            }
        }
        if (Source.FILE.equals(kind))
        {
            if (file == null || file.isBlank())
            {
                r.problem(SRC_PATH.name(), "missing: a file source needs the path of its JSON-lines file");
            }
        }
        else if (r.has(SRC_PATH))
        {
            r.problem(SRC_PATH.name(), "only for kind = \"file\" (this source is kind = \"" + kind + "\")");
        }
        if (r.has(SRC_CHECKPOINT_FILE))
        {
            final String cp = r.string(SRC_CHECKPOINT_FILE);
            if (!Source.FILE.equals(kind))
            {
                r.problem(SRC_CHECKPOINT_FILE.name(), "only for kind = \"file\" (this source is kind = \"" + kind
                    + "\"; a kafka source resumes from its group's committed offsets, stdin cannot be re-read)");
            }
            else if (cp == null || cp.isBlank())
            {
                r.problem(SRC_CHECKPOINT_FILE.name(), "empty: give a file path, or leave the key out");
            }
            else if (cp.equals(file))
            {
                r.problem(SRC_CHECKPOINT_FILE.name(), "is the input file itself (path): give another file");
            }
        }
        if (r.has(SRC_REPLAY_BUFFER_BYTES) && !Source.FILE.equals(kind) && !Source.STDIN.equals(kind))
        {
            r.problem(SRC_REPLAY_BUFFER_BYTES.name(), "only for kind = \"file\" or \"stdin\"");
        }
    }

    private static TopicRule readTopics(final TableReader r, final String path, final List<ConfigProblem> problems)
    {
        final Object raw = r.rule(SRC_TOPICS);
        if (raw == null)
        {
            return null;
        }
        if (!(raw instanceof TomlArray a) || a.isEmpty() || !a.isTable(0))
        {
            if (raw instanceof TomlArray a && !a.isEmpty() && a.isString(0))
            {
                r.problem(SRC_TOPICS.name(),
                    "[[sources.topics]] is the routing block (topic = ...); the topics a kafka "
                        + "source consumes go in input_topics = [...]");
            }
            else
            {
                r.problem(SRC_TOPICS.name(), "expected one [[" + path + ".topics]] block with topic = ...");
            }
            return null;
        }
        if (a.size() != 1)
        {
            r.problem(SRC_TOPICS.name(), a.size() + " [[sources.topics]] blocks: a source has exactly one (its routing "
                + "rule picks the topic of every record)");
            return null;
        }
        final TomlTable block = a.getTable(0);
        final String blockPath = path + ".topics[0]";
        final TableReader b = new TableReader(block, blockPath, TOPICS_SECTION, problems,
            TableReader.firstLine(block) == 0
                ? r.line(SRC_TOPICS.name())
                : TableReader.firstLine(block));
        final Object topic = b.rule(ST_TOPIC);
        TopicRule rule = null;
        if (topic instanceof String literal)
        {
            rule = literalTopic(b, ST_TOPIC.name(), literal)
                ? new TopicRule(Strategy.STATIC, null, null, null, literal, null, 0)
                : null;
        }
        else if (topic instanceof TomlTable t)
        {
            rule = readRule(new TableReader(t, b.keyPath(ST_TOPIC.name()), RULE_SECTION, problems,
                b.line(ST_TOPIC.name())));
        }
        else if (topic != null)
        {
            b.problem(ST_TOPIC.name(), "expected a topic name or an inline table such as { strategy = \"field\", "
                + "path = \"user.id\", template = \"users.{value}\" }, got " + TableReader.describe(topic));
        }
        b.finish();
        return rule;
    }

    private static TopicRule readRule(final TableReader t)
    {
        final String strategyText = t.string(RULE_STRATEGY);
        final String path = t.string(RULE_PATH);
        final String header = t.string(RULE_HEADER);
        final boolean hasTemplate = t.has(RULE_TEMPLATE);
        final String template = t.string(RULE_TEMPLATE);
        final String literalName = t.string(RULE_NAME);
        final String fallback = t.string(RULE_FALLBACK);
        final long buckets = t.optionalLong(RULE_BUCKETS);
        t.finish();
        if (strategyText == null)
        {
            return null;
        }
        final Strategy strategy = Strategy.valueOf(strategyText.toUpperCase(Locale.ROOT));
        boolean ok = true;
        Strategy hashOf = null;
        switch (strategy)
        {
            case STATIC -> {
                return staticRule(t, path, header, buckets, fallback, literalName, hasTemplate, template);
            }
            case FIELD -> {
                if (path == null)
                {
                    t.problem(RULE_PATH.name(),
                        "missing: field needs the JSON path of the value, e.g. path = \"user.id\"");
                    ok = false;
                }
                ok &= absent(t, strategy, RULE_HEADER, header)
                    & absent(t, strategy, RULE_BUCKETS, buckets == Long.MIN_VALUE ? null : buckets);
            }
            case HEADER -> {
                if (header == null || header.isEmpty())
                {
                    t.problem(RULE_HEADER.name(), "missing: header needs the header name, e.g. header = \"tenant\"");
                    ok = false;
                }
                ok &= absent(t, strategy, RULE_PATH, path)
                    & absent(t, strategy, RULE_BUCKETS, buckets == Long.MIN_VALUE ? null : buckets);
            }
            case KEY -> ok &= absent(t, strategy, RULE_PATH, path) & absent(t, strategy, RULE_HEADER, header)
                & absent(t, strategy, RULE_BUCKETS, buckets == Long.MIN_VALUE ? null : buckets);
            case HASH -> {
                if (buckets == Long.MIN_VALUE)
                {
                    t.problem(RULE_BUCKETS.name(), "missing: hash needs buckets, e.g. buckets = 16");
                    ok = false;
                }
                if (path != null && header != null)
                {
                    t.problem(RULE_HEADER.name(),
                        "hash reads one of path (a field), header or the key (neither), not both");
                    ok = false;
                }
                if (header != null && header.isEmpty())
                {
                    t.problem(RULE_HEADER.name(), "empty header name");
                    ok = false;
                }
                hashOf = path != null ? Strategy.FIELD : header != null ? Strategy.HEADER : Strategy.KEY;
            }
            default -> throw new IllegalStateException(strategy.name());
        }
        if (literalName != null)
        {
            t.problem(RULE_NAME.name(), "only for strategy = \"static\"; " + strategyText + " uses template");
            ok = false;
        }
        ok &= parses(t, path, template);
        if (fallback != null && !literalTopic(t, RULE_FALLBACK.name(), fallback))
        {
            ok = false;
        }
        return ok
            ? new TopicRule(strategy, hashOf, path, header, template, fallback,
                buckets == Long.MIN_VALUE ? 0 : (int)buckets)
            : null;
    }

    /** The rest of a static rule: a literal topic (name, or a template without {value}) and no field keys. */
    private static TopicRule staticRule(final TableReader t, final String path, final String header,
        final long buckets, final String fallback, final String literalName, final boolean hasTemplate,
        final String template)
    {
        final Strategy strategy = Strategy.STATIC;
        final boolean ok = absent(t, strategy, RULE_PATH, path) & absent(t, strategy, RULE_HEADER, header)
            & absent(t, strategy, RULE_BUCKETS, buckets == Long.MIN_VALUE ? null : buckets)
            & absent(t, strategy, RULE_FALLBACK, fallback);
        if ((literalName == null) == !hasTemplate)
        {
            t.problem(RULE_NAME.name(), literalName == null
                ? "static needs the topic name: name = \"orders\" (or topic = \"orders\")"
                : "give name or template, not both");
            return null;
        }
        final String literal = literalName != null ? literalName : template;
        final String key = literalName != null ? RULE_NAME.name() : RULE_TEMPLATE.name();
        if (literal.contains(RoutingTemplate.VALUE_PLACEHOLDER))
        {
            t.problem(key, "static has no value: {value} can only be used by field, header, key and hash");
            return null;
        }
        if (!literalTopic(t, key, literal))
        {
            return null;
        }
        return ok ? new TopicRule(Strategy.STATIC, null, null, null, literal, null, 0) : null;
    }

    /** @return whether the JSON path and the topic template (either may be null) parse; else a problem each */
    private static boolean parses(final TableReader t, final String path, final String template)
    {
        boolean ok = true;
        if (path != null)
        {
            try
            {
                JsonPath.parse(path);
            }
            catch (final IllegalArgumentException e)
            {
                t.problem(RULE_PATH.name(), e.getMessage());
                ok = false;
            }
        }
        if (template != null)
        {
            try
            {
                RoutingTemplate.parse(template);
            }
            catch (final IllegalArgumentException e)
            {
                t.problem(RULE_TEMPLATE.name(), e.getMessage());
                ok = false;
            }
        }
        return ok;
    }

    private static boolean absent(final TableReader t, final Strategy strategy, final ConfigKey key, final Object value)
    {
        if (value == null)
        {
            return true;
        }
        final String s = strategy.name().toLowerCase(Locale.ROOT);
        final String why = switch (key.name())
        {
            case "path" -> "path is for field and hash";
            case "header" -> "header is for header and hash";
            case "buckets" -> "buckets is for hash";
            case "fallback" -> "a static topic is never missing, so it has no fallback";
            default -> key.name() + " does not apply";
        };
        t.problem(key.name(), "not used by strategy = \"" + s + "\": " + why);
        return false;
    }

    /**
     * A literal topic name (a static rule's topic, a fallback, a literal dead_letter_topic) must already be legal as
     * written: a name that sanitising would change is reported with the fix, unless the fix is itself a name Kafka
     * reserves, which is never suggested (the problem says what sanitising would make of it, and why that is refused).
     *
     * @param t    the table the key is in
     * @param key  the key's name
     * @param name the literal value
     * @return true when the name is legal as written and not reserved
     */
    static boolean literalTopic(final TableReader t, final String key, final String name)
    {
        final String sanitized = TopicNameSanitizer.sanitize(name);
        if (sanitized == null)
        {
            t.problem(key, "\"" + name + "\" is not a topic name (empty, '.' or '..' after sanitising)");
            return false;
        }
        if (!sanitized.equals(name))
        {
            final String reservedFix = ReservedTopics.refusal(sanitized);
            t.problem(key, "\"" + name + "\" is not a legal topic name (Kafka allows [a-zA-Z0-9._-], at most "
                + TopicNameSanitizer.MAX_LENGTH + " characters); "
                + (reservedFix == null
                    ? "did you mean \"" + sanitized + "\"?"
                    : "sanitised it would be " + sanitized + ", which is refused too: " + reservedFix));
            return false;
        }
        final String reserved = ReservedTopics.refusal(name);
        if (reserved != null)
        {
            t.problem(key, reserved);
            return false;
        }
        return true;
    }

}
