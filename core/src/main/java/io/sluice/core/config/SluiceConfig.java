package io.sluice.core.config;

import java.util.List;
import java.util.Map;

import io.sluice.codecs.json.DuplicateKeys;

/**
 * A whole validated configuration file. Immutable; produced by {@link ConfigLoader}.
 *
 * @param kafka      [kafka]
 * @param checkpoint [checkpoint]
 * @param engine     [engine]
 * @param tuning     [tuning]
 * @param metrics    [metrics]
 * @param sinks      [[sinks]], in file order
 * @param sources    [[sources]], in file order
 */
public record SluiceConfig(
    Kafka kafka,
    Checkpoint checkpoint,
    Engine engine,
    Tuning tuning,
    Metrics metrics,
    List<Sink> sinks,
    List<Source> sources)
{
    /**
     * A run reads standard input once: with two stdin sources each would get an arbitrary share of its lines. The dry
     * run ({@code route}) applies any source's rule to its own input, so there several stdin sources are fine; the run
     * asks this before it starts anything.
     *
     * @return why these sources cannot run together, naming the first two stdin sources; null when at most one reads
     *     stdin
     */
    public String stdinConflict()
    {
        String first = null;
        for (final Source s : sources())
        {
            if (Source.STDIN.equals(s.kind()))
            {
                if (first != null)
                {
                    return "source \"" + s.name() + "\" reads stdin, which source \"" + first + "\" reads already: "
                        + "one process has one standard input; run them as two processes or give one kind = \"file\"";
                }
                first = s.name();
            }
        }
        return null;
    }

    /**
     * A configuration without sources (gather only).
     *
     * @param kafka      [kafka]
     * @param checkpoint [checkpoint]
     * @param engine     [engine]
     * @param tuning     [tuning]
     * @param metrics    [metrics]
     * @param sinks      [[sinks]], in file order
     */
    public SluiceConfig(final Kafka kafka, final Checkpoint checkpoint, final Engine engine, final Tuning tuning,
        final Metrics metrics, final List<Sink> sinks)
    {
        this(kafka, checkpoint, engine, tuning, metrics, sinks, List.of());
    }

    /**
     * @param sink a sink of this configuration
     * @return the Kafka connection it uses: its own override, else [kafka]
     */
    public Kafka kafkaFor(final Sink sink)
    {
        return sink.kafka() != null ? sink.kafka() : kafka;
    }

    /**
     * @param source a source of this configuration
     * @return the Kafka connection it uses: its own override, else [kafka]
     */
    public Kafka kafkaFor(final Source source)
    {
        return source.kafka() != null ? source.kafka() : kafka;
    }

    /**
     * @param name a sink name (of a TOML sink, or of an embedded gather pipeline)
     * @return the Kafka connection of the sink with that name, else [kafka]
     */
    public Kafka kafkaForSink(final String name)
    {
        for (final Sink s : sinks)
        {
            if (s.name().equals(name))
            {
                return kafkaFor(s);
            }
        }
        return kafka;
    }

    /**
     * @param name a source name
     * @return the Kafka connection of the source with that name, else [kafka]
     */
    public Kafka kafkaForSource(final String name)
    {
        for (final Source s : sources)
        {
            if (s.name().equals(name))
            {
                return kafkaFor(s);
            }
        }
        return kafka;
    }

    /** @return every distinct Kafka connection of the pipelines, [kafka] first */
    public List<Kafka> kafkaConnections()
    {
        final java.util.LinkedHashSet<Kafka> out = new java.util.LinkedHashSet<>();
        out.add(kafka);
        sinks.forEach(s -> out.add(kafkaFor(s)));
        sources.forEach(s -> out.add(kafkaFor(s)));
        return List.copyOf(out);
    }

    /**
     * @param name a source name
     * @return the source with that name
     * @throws ConfigException when there is none
     */
    public Source source(final String name)
    {
        for (final Source s : sources)
        {
            if (s.name().equals(name))
            {
                return s;
            }
        }
        throw new ConfigException("sources", "no source named \"" + name + "\" (sources: "
            + String.join(", ", sources.stream().map(Source::name).toList()) + ")");
    }

    /**
     * @param name a sink name
     * @return the sink with that name
     * @throws ConfigException when there is none
     */
    public Sink sink(final String name)
    {
        for (final Sink s : sinks)
        {
            if (s.name().equals(name))
            {
                return s;
            }
        }
        throw new ConfigException("sinks", "no sink named \"" + name + "\" (sinks: "
            + String.join(", ", sinks.stream().map(Sink::name).toList()) + ")");
    }

    /**
     * The sink a branch writes to: the one its {@code sink} key names, else the sink it belongs to (a split across
     * sinks, docs/sinks.md). Its kind, connection and {@code plugin_config} are the branch's; the owner's split,
     * consumer group, {@code on_error} and dead letters stay the branch's too.
     *
     * @param owner  the sink the branch belongs to
     * @param branch one of its branches
     * @return the sink whose connection and kind the branch writes with
     * @throws ConfigException when no sink has the name the branch gives (a loaded configuration has none such)
     */
    public Sink writesTo(final Sink owner, final Branch branch)
    {
        return branch.sink() == null || branch.sink().equals(owner.name()) ? owner : sink(branch.sink());
    }

    /**
     * The Kafka connection of {@code [kafka]} of a pipeline: bootstrap servers, the security block and the raw pass-through tables. Every
     * client Sluice makes takes its properties from {@link #consumerProperties()}, {@link #producerProperties()} or
     * {@link #adminProperties()}, so consumer, producer, admin client and the produce command all carry the same
     * security settings. {@link #toString()} masks secrets.
     *
     * @param bootstrapServers host:port list
     * @param security         the security block ({@link KafkaSecurity#NONE} when absent)
     * @param consumer         [kafka.consumer], passed through verbatim
     * @param producer         [kafka.producer], passed through verbatim
     * @param admin            [kafka.admin], passed through verbatim
     */
    public record Kafka(String bootstrapServers, KafkaSecurity security, Map<String, String> consumer,
        Map<String, String> producer, Map<String, String> admin)
    {
        /**
         * A connection without a security block.
         *
         * @param bootstrapServers host:port list
         * @param consumer         [kafka.consumer]
         * @param producer         [kafka.producer]
         * @param admin            [kafka.admin]
         */
        public Kafka(final String bootstrapServers, final Map<String, String> consumer,
            final Map<String, String> producer, final Map<String, String> admin)
        {
            this(bootstrapServers, KafkaSecurity.NONE, consumer, producer, admin);
        }

        /**
         * A connection to a cluster with Sluice's defaults: no security, no extra properties.
         *
         * @param bootstrapServers host:port list
         * @return the connection
         */
        public static Kafka of(final String bootstrapServers)
        {
            return new Kafka(bootstrapServers, Map.of(), Map.of(), Map.of());
        }

        /** @return the security properties followed by [kafka.consumer] (without bootstrap.servers) */
        public Map<String, String> consumerProperties()
        {
            return merge(consumer);
        }

        /** @return the security properties followed by [kafka.producer] (without bootstrap.servers) */
        public Map<String, String> producerProperties()
        {
            return merge(producer);
        }

        /** @return the security properties followed by [kafka.admin] (without bootstrap.servers) */
        public Map<String, String> adminProperties()
        {
            return merge(admin);
        }

        private Map<String, String> merge(final Map<String, String> raw)
        {
            final Map<String, String> p = new java.util.LinkedHashMap<>(security.properties());
            p.putAll(raw);
            return p;
        }

        /** @return a one-line description for logs (servers, protocol, mechanism, user), never a secret */
        public String describe()
        {
            return Printable.escape(bootstrapServers) + " (" + security.describe() + ")";
        }

        @Override
        public String toString()
        {
            return "Kafka[bootstrapServers=" + Printable.escape(bootstrapServers) + ", security=" + security
                + ", consumer=" + Secrets.redactProperties(consumer) + ", producer="
                + Secrets.redactProperties(producer) + ", admin=" + Secrets.redactProperties(admin) + "]";
        }
    }

    /** [checkpoint]: commit cadence and stall limit, in milliseconds. */
    public record Checkpoint(long commitIntervalMs, long stalledFailAfterMs, long drainTimeoutMs)
    {
    }

    /**
     * [engine]: sizes of the record path.
     *
     * @param destinationSetupThreads {@code engine.destination_setup_threads}: new tables set up at once per pipeline
     *                                off the route stage; 0 sets them up on the route stage, one at a time
     * @param kafkaCheckTimeoutMs     {@code engine.kafka_check_timeout_ms}: how long start-up waits for each Kafka
     *                                cluster to answer, in milliseconds
     */
    public record Engine(int ringSize, int slotBytes, int maxRecordBytes, int overflowBuffers, int ackWindow,
        int queueDepth, long statusIntervalMs, int destinationSetupThreads, long kafkaCheckTimeoutMs)
    {
    }

    /** [tuning]: CPUs given to the engine, default wait kind and layout (null = by CPU count), per-stage overrides. */
    public record Tuning(List<Integer> cpus, String waitKind, String layout, Map<String, Stage> stages)
    {
        /** One [tuning.stages.NAME] table: wait kind (null = default) and CPU (-1 = unpinned). */
        public record Stage(String waitKind, int cpu)
        {
        }
    }

    /**
     * [metrics]: Prometheus endpoint ({@code host:port}, {@code [ipv6]:port}, empty = off). An empty host listens on
     * every interface; port 0 takes a free port (the engine logs the one it got).
     *
     * @param listen              {@code metrics.listen}
     * @param readyStalledPercent {@code metrics.ready_stalled_percent}: {@code /ready} is 503 while a partition has
     *                            been stalled for this share of {@code checkpoint.stalled_fail_after_ms}
     * @param tableHistograms     {@code metrics.table_histograms}: the per-batch histograms per table, or summed per
     *                            pipeline and sink kind
     */
    public record Metrics(String listen, int readyStalledPercent, boolean tableHistograms)
    {
        /**
         * The endpoint with the default readiness threshold and histograms per table.
         *
         * @param listen {@code host:port}, {@code [ipv6]:port} or empty
         */
        public Metrics(final String listen)
        {
            this(listen, 50, true);
        }

        private static final java.util.regex.Pattern LISTEN = java.util.regex.Pattern
            .compile("(\\[[0-9A-Fa-f:.%a-zA-Z]+\\]|[^:\\[\\]/\\s]*):(\\d{1,5})");

        /** @return true when {@code listen} is empty or a valid {@code host:port} with port 0..65535 */
        public boolean valid()
        {
            if (listen.isEmpty())
            {
                return true;
            }
            final java.util.regex.Matcher m = LISTEN.matcher(listen);
            return m.matches() && Integer.parseInt(m.group(2)) <= 65_535;
        }

        /** @return the host to bind ("" = every interface), without IPv6 brackets; only when {@link #valid()} */
        public String host()
        {
            final java.util.regex.Matcher m = LISTEN.matcher(listen);
            if (!m.matches())
            {
                throw new IllegalStateException("metrics.listen is not host:port: " + listen);
            }
            final String h = m.group(1);
            return h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
        }

        /** @return the port, 0..65535; only when {@link #valid()} */
        public int port()
        {
            final java.util.regex.Matcher m = LISTEN.matcher(listen);
            if (!m.matches())
            {
                throw new IllegalStateException("metrics.listen is not host:port: " + listen);
            }
            return Integer.parseInt(m.group(2));
        }
    }

    /**
     * One [[sinks]] gather pipeline; {@code kafka} is its effective connection with its own override, or null;
     * {@code deadLetter} its {@code dead_letter_topic} with the creation keys, or null when it has none;
     * {@code isolationLevel} {@link #READ_COMMITTED} or {@link #READ_UNCOMMITTED}; {@code plugin} its
     * {@code [sinks.plugin_config]} as its kind read it (the kind's own class, e.g. the ClickHouse sink's).
     * {@code tombstones} what a null Kafka value does; {@code duplicateKeys} which occurrence of a duplicated key the
     * record's conditions, shard key and columns read.
     */
    public record Sink(
        String name,
        String kind,
        String pattern,
        List<String> topics,
        String groupId,
        ErrorPolicy unmatched,
        ErrorPolicy onError,
        String autoOffsetReset,
        long topicRefreshMs,
        SinkConnection plugin,
        List<Branch> branches,
        Kafka kafka,
        DeadLetterConfig deadLetter,
        String isolationLevel,
        ErrorPolicy tombstones,
        DuplicateKeys duplicateKeys)
    {
        /**
         * @return whether the sink consumes topics ({@code pattern} or {@code topics}); a sink with neither is only
         *     a target that branches of other sinks write to (their {@code sink} key), and runs no pipeline
         */
        public boolean consumes()
        {
            return pattern != null || !topics.isEmpty();
        }

        /**
         * @param replaced the branches in place of this sink's
         * @return this sink with those branches
         */
        public Sink withBranches(final List<Branch> replaced)
        {
            return new Sink(name, kind, pattern, topics, groupId, unmatched, onError, autoOffsetReset, topicRefreshMs,
                plugin, List.copyOf(replaced), kafka, deadLetter, isolationLevel, tombstones, duplicateKeys);
        }

        /** {@code isolation_level}: only records of committed transactions are read (the default). */
        public static final String READ_COMMITTED = "read_committed";
        /** {@code isolation_level}: records of open and aborted transactions are read too. */
        public static final String READ_UNCOMMITTED = "read_uncommitted";

        /**
         * A sink without a dead-letter topic that reads committed transactions only, with the defaults of
         * {@code tombstones} ({@code skip}) and {@code duplicate_keys} ({@code fail}).
         *
         * @param name            sink name
         * @param kind            destination kind
         * @param pattern         topic pattern, or null
         * @param topics          literal topics
         * @param groupId         consumer group
         * @param unmatched       unmatched policy
         * @param onError         record error policy
         * @param autoOffsetReset earliest or latest
         * @param topicRefreshMs  pattern refresh, ms
         * @param plugin          plugin_config
         * @param branches        the branches
         * @param kafka           its own Kafka connection, or null
         */
        public Sink(final String name, final String kind, final String pattern, final List<String> topics,
            final String groupId, final ErrorPolicy unmatched, final ErrorPolicy onError, final String autoOffsetReset,
            final long topicRefreshMs, final SinkConnection plugin, final List<Branch> branches, final Kafka kafka)
        {
            this(name, kind, pattern, topics, groupId, unmatched, onError, autoOffsetReset, topicRefreshMs, plugin,
                branches, kafka, null, READ_COMMITTED, ErrorPolicy.SKIP, DuplicateKeys.FAIL);
        }

        /**
         * A sink on the configuration's [kafka] connection.
         *
         * @param name            sink name
         * @param kind            destination kind
         * @param pattern         topic pattern, or null
         * @param topics          literal topics
         * @param groupId         consumer group
         * @param unmatched       unmatched policy
         * @param onError         record error policy
         * @param autoOffsetReset earliest or latest
         * @param topicRefreshMs  pattern refresh, ms
         * @param plugin          plugin_config
         * @param branches        the branches
         */
        public Sink(final String name, final String kind, final String pattern, final List<String> topics,
            final String groupId, final ErrorPolicy unmatched, final ErrorPolicy onError, final String autoOffsetReset,
            final long topicRefreshMs, final SinkConnection plugin, final List<Branch> branches)
        {
            this(name, kind, pattern, topics, groupId, unmatched, onError, autoOffsetReset, topicRefreshMs, plugin,
                branches, null);
        }
    }

    /**
     * One [[sinks.branches]] (or the implicit single branch of a sink without branches), with its database, table and
     * batching defaults already taken from the {@code plugin_config} of the sink it writes to.
     *
     * @param name        unique within its sink
     * @param when        its condition, or null for the catch-all
     * @param database    database, literal or template
     * @param targetTable table, literal or template
     * @param columns     column → JSON path or Kafka metadata spec
     * @param shardBy     JSON path whose value picks the shard, or null (round robin)
     * @param maxRows     batch rows
     * @param maxBytes    batch bytes
     * @param lingerMs    batch linger, ms
     * @param sink        the name of the sink it writes to ({@code sink} key), or null for the sink it belongs to
     *                    ({@link SluiceConfig#writesTo})
     */
    public record Branch(
        String name,
        Condition when,
        String database,
        String targetTable,
        Map<String, String> columns,
        String shardBy,
        int maxRows,
        long maxBytes,
        long lingerMs,
        String sink)
    {
        /**
         * A branch that writes to the sink it belongs to.
         *
         * @param name        unique within its sink
         * @param when        its condition, or null for the catch-all
         * @param database    database, literal or template
         * @param targetTable table, literal or template
         * @param columns     column → JSON path or Kafka metadata spec
         * @param shardBy     JSON path whose value picks the shard, or null
         * @param maxRows     batch rows
         * @param maxBytes    batch bytes
         * @param lingerMs    batch linger, ms
         */
        public Branch(final String name, final Condition when, final String database, final String targetTable,
            final Map<String, String> columns, final String shardBy, final int maxRows, final long maxBytes,
            final long lingerMs)
        {
            this(name, when, database, targetTable, columns, shardBy, maxRows, maxBytes, lingerMs, null);
        }
    }

    /**
     * A branch condition on one JSON path. {@code values} holds the literal(s) for EQUALS, IN, PREFIX and MATCHES;
     * EXISTS uses {@code exists}. A null condition (no {@code when}) matches every record.
     */
    public record Condition(String path, Op op, List<String> values, boolean exists)
    {
        /** The comparison. */
        public enum Op
        {
            /** The derived value equals the literal. */
            EQUALS,
            /** The derived value equals one of the literals. */
            IN,
            /** The derived value starts with the literal. */
            PREFIX,
            /** The derived value matches the regular expression (whole value). */
            MATCHES,
            /** The path holds a non-null value ({@code exists = true}) or does not ({@code exists = false}). */
            EXISTS
        }
    }

    /**
     * One [[sources]] scatter pipeline: where records come from and the routing rule that picks each one's topic.
     *
     * @param name                  unique source name
     * @param kind                  {@link #KAFKA}, {@link #FILE}, {@link #STDIN} or {@link #EMBEDDED}
     * @param inputTopics           kafka: literal topics to consume (empty when pattern is used)
     * @param pattern               kafka: topic regular expression, or null
     * @param groupId               kafka: consumer group, else null
     * @param autoOffsetReset       kafka: earliest or latest
     * @param topicRefreshMs        kafka: pattern refresh period, ms
     * @param path                  file: the JSON-lines file, else null
     * @param createTopics          whether routed topics are created on first use
     * @param partitions            partitions of a created topic, -1 for the broker's default
     * @param replicationFactor     replication factor of a created topic, -1 for the broker's default
     * @param maxNewTopicsPerMinute most topics created in any 60 s
     * @param retryBackoffMs        first wait before a nacked batch is re-read, ms
     * @param retryBackoffMaxMs     longest wait between re-reads, ms
     * @param replayBufferBytes     file, stdin: bytes of unacknowledged lines kept for replay
     * @param checkpointFile        file: where the position is kept between runs, or null
     * @param rule                  the routing rule of the source's [[sources.topics]] block
     * @param kafka                 its effective Kafka connection with its own [sources.kafka] override, or null
     *                              for the configuration's [kafka]
     * @param onError               {@code on_error}: {@link ErrorPolicy#FAIL} or {@link ErrorPolicy#DEAD_LETTER}
     * @param deadLetter            its {@code dead_letter_topic} (creation by create_topics, partitions,
     *                              replication_factor), or null
     * @param isolationLevel        kafka: {@link Sink#READ_COMMITTED} or {@link Sink#READ_UNCOMMITTED}
     * @param duplicateKeys         {@code duplicate_keys}: which occurrence of a duplicated key the rule reads
     */
    public record Source(
        String name,
        String kind,
        List<String> inputTopics,
        String pattern,
        String groupId,
        String autoOffsetReset,
        long topicRefreshMs,
        String path,
        boolean createTopics,
        int partitions,
        int replicationFactor,
        int maxNewTopicsPerMinute,
        long retryBackoffMs,
        long retryBackoffMaxMs,
        long replayBufferBytes,
        String checkpointFile,
        TopicRule rule,
        Kafka kafka,
        ErrorPolicy onError,
        DeadLetterConfig deadLetter,
        String isolationLevel,
        DuplicateKeys duplicateKeys)
    {
        /**
         * A source with its own connection (or null) whose failed records fail their batch (on_error = fail) and
         * that reads committed transactions only and fails a record with a duplicated key
         * ({@code duplicate_keys = "fail"}; see the record's components).
         *
         * @param name                  unique source name
         * @param kind                  kind
         * @param inputTopics           kafka: topics
         * @param pattern               kafka: pattern, or null
         * @param groupId               kafka: group, or null
         * @param autoOffsetReset       kafka: earliest or latest
         * @param topicRefreshMs        kafka: refresh, ms
         * @param path                  file: path, or null
         * @param createTopics          whether topics are created
         * @param partitions            partitions of created topics
         * @param replicationFactor     replicas of created topics
         * @param maxNewTopicsPerMinute topic creation limit
         * @param retryBackoffMs        first re-read wait, ms
         * @param retryBackoffMaxMs     longest re-read wait, ms
         * @param replayBufferBytes     replay buffer, bytes
         * @param checkpointFile        file: checkpoint file, or null
         * @param rule                  the routing rule
         * @param kafka                 its own Kafka connection, or null
         */
        public Source(final String name, final String kind, final List<String> inputTopics, final String pattern,
            final String groupId, final String autoOffsetReset, final long topicRefreshMs, final String path,
            final boolean createTopics, final int partitions, final int replicationFactor,
            final int maxNewTopicsPerMinute, final long retryBackoffMs, final long retryBackoffMaxMs,
            final long replayBufferBytes, final String checkpointFile, final TopicRule rule, final Kafka kafka)
        {
            this(name, kind, inputTopics, pattern, groupId, autoOffsetReset, topicRefreshMs, path, createTopics,
                partitions, replicationFactor, maxNewTopicsPerMinute, retryBackoffMs, retryBackoffMaxMs,
                replayBufferBytes, checkpointFile, rule, kafka, ErrorPolicy.FAIL, null, Sink.READ_COMMITTED,
                DuplicateKeys.FAIL);
        }

        /**
         * A source on the configuration's [kafka] connection (see the record's components).
         *
         * @param name                  unique source name
         * @param kind                  kind
         * @param inputTopics           kafka: topics
         * @param pattern               kafka: pattern, or null
         * @param groupId               kafka: group, or null
         * @param autoOffsetReset       kafka: earliest or latest
         * @param topicRefreshMs        kafka: refresh, ms
         * @param path                  file: path, or null
         * @param createTopics          whether topics are created
         * @param partitions            partitions of created topics
         * @param replicationFactor     replicas of created topics
         * @param maxNewTopicsPerMinute topic creation limit
         * @param retryBackoffMs        first re-read wait, ms
         * @param retryBackoffMaxMs     longest re-read wait, ms
         * @param replayBufferBytes     replay buffer, bytes
         * @param checkpointFile        file: checkpoint file, or null
         * @param rule                  the routing rule
         */
        public Source(final String name, final String kind, final List<String> inputTopics, final String pattern,
            final String groupId, final String autoOffsetReset, final long topicRefreshMs, final String path,
            final boolean createTopics, final int partitions, final int replicationFactor,
            final int maxNewTopicsPerMinute, final long retryBackoffMs, final long retryBackoffMaxMs,
            final long replayBufferBytes, final String checkpointFile, final TopicRule rule)
        {
            this(name, kind, inputTopics, pattern, groupId, autoOffsetReset, topicRefreshMs, path, createTopics,
                partitions, replicationFactor, maxNewTopicsPerMinute, retryBackoffMs, retryBackoffMaxMs,
                replayBufferBytes, checkpointFile, rule, null);
        }

        /** Consumes Kafka topics in a consumer group and re-routes their records. */
        public static final String KAFKA = "kafka";
        /** Reads JSON lines from a file (plain or gzip). */
        public static final String FILE = "file";
        /** Reads JSON lines from standard input. */
        public static final String STDIN = "stdin";
        /** Records are offered by a host application through the embedded Java API. */
        public static final String EMBEDDED = "embedded";
    }

    /**
     * The routing rule of a source ({@code topic = "literal"} or {@code topic = { strategy, ... }}), validated: the
     * template parses, the path parses, the strategy has what it requires (seed 000, "Routing rules on sources").
     *
     * @param strategy the strategy
     * @param hashOf   for {@link Strategy#HASH}: where the hashed bytes come from ({@link Strategy#FIELD},
     *                 {@link Strategy#HEADER} or {@link Strategy#KEY}); else null
     * @param path     JSON path for FIELD (and HASH of a field), else null
     * @param header   header name for HEADER (and HASH of a header), else null
     * @param template the topic template; for STATIC the literal topic name
     * @param fallback topic for records whose value is missing, or null
     * @param buckets  HASH: number of buckets, else 0
     */
    public record TopicRule(
        Strategy strategy,
        Strategy hashOf,
        String path,
        String header,
        String template,
        String fallback,
        int buckets)
    {

        /** The strategies of seed 000. */
        public enum Strategy
        {
            /** The literal name. */
            STATIC,
            /** A path into a JSON payload. */
            FIELD,
            /** A record header, read as UTF-8. */
            HEADER,
            /** The record key, read as UTF-8. */
            KEY,
            /** murmur2 of the field, header or key, masked to 31 bits, modulo buckets. */
            HASH
        }

        /** @return a short description for logs and messages, e.g. {@code field user.id} or {@code hash of key} */
        public String describe()
        {
            return switch (strategy)
            {
                case STATIC -> "static " + template;
                case FIELD -> "field " + path;
                case HEADER -> "header " + header;
                case KEY -> "key";
                case HASH -> "hash of " + (hashOf == Strategy.FIELD
                    ? "field " + path
                    : hashOf == Strategy.HEADER ? "header " + header : "key") + " into " + buckets + " buckets";
            };
        }
    }
}
