package io.sluice.core.gather.json;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.UserRegex;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.split.BranchHandle;
import io.sluice.core.gather.split.ChunkConfig;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.ShardRouter;
import io.sluice.core.gather.split.Split;

/**
 * Builds the same pipeline model an embedding application builds, from a {@code [[sinks]]} table: a
 * {@link Split} over {@link JsonRecord}s whose classifier tries the branches' {@code when} conditions in order (the
 * record's own scan extracts only the condition paths), one row encoder of the sink's kind per branch ({@link JsonEncoding}) (each with its own
 * scope: a branch's columns are extracted only for records that reach it), a shard router per branch ({@code shard_by}: murmur2 of a field, else round
 * robin), and one installed sink per branch carrying the branch's database and table (literal or template) and the
 * connection of the sink the branch writes to (its own, or the one its {@code sink} key names: a split across kinds).
 */
public final class TomlGather
{
    private TomlGather()
    {
    }

    /**
     * The model of a sink whose branches all write to it (no branch names another sink).
     *
     * @param sink     the sink's configuration
     * @param encoding the sink kind's row encoders ({@code SinkDriver.jsonEncoding()})
     * @return the pipeline model
     * @throws IllegalArgumentException when the kind cannot encode a branch, or a branch writes to another sink
     *     (use {@link #build(SluiceConfig, SluiceConfig.Sink, Function)})
     */
    public static GatherSpec<JsonRecord> build(final SluiceConfig.Sink sink, final JsonEncoding encoding)
    {
        return build(sink, b ->
        {
            if (b.sink() != null && !b.sink().equals(sink.name()))
            {
                throw new IllegalArgumentException("branch " + b.name() + " of sink " + sink.name()
                    + " writes to sink " + b.sink() + ": build the pipeline with the whole configuration");
            }
            return sink;
        }, name -> encoding);
    }

    /**
     * The model of a sink whose branches may write to other installed sinks ({@code sink} key of a branch): each
     * branch's installed sink carries the connection of the sink it writes to, and its encoder is that sink's kind's.
     * The split, consumer group, error policies and dead letters are the sink's own.
     *
     * @param config    the whole configuration (the sinks the branches name)
     * @param sink      the sink whose pipeline to build (one that consumes)
     * @param encodings the row encoders of a sink by its name ({@code SinkDriver.jsonEncoding()} of its driver);
     *                  asked once per sink the branches write to
     * @return the pipeline model
     * @throws IllegalArgumentException when a kind cannot encode a branch
     */
    public static GatherSpec<JsonRecord> build(final SluiceConfig config, final SluiceConfig.Sink sink,
        final Function<String, JsonEncoding> encodings)
    {
        return build(sink, b -> config.writesTo(sink, b), encodings);
    }

    private static GatherSpec<JsonRecord> build(final SluiceConfig.Sink sink,
        final Function<SluiceConfig.Branch, SluiceConfig.Sink> targetOf, final Function<String, JsonEncoding> encodings)
    {
        final PathRegistry paths = new PathRegistry(128, sink.duplicateKeys());
        final JsonRecord record = new JsonRecord(paths).deferWholePass();
        final Split<JsonRecord> split = Split.create(ChunkConfig.DEFAULT, sink.unmatched());
        final Map<String, SinkSpec> sinks = new LinkedHashMap<>();
        final Map<String, JsonEncoding> encodingOf = new HashMap<>();
        final List<BranchHandle<JsonRecord>> handles = new ArrayList<>();
        final List<JsonRecord.Scope> scopes = new ArrayList<>();
        for (final SluiceConfig.Branch b : sink.branches())
        {
            final SluiceConfig.Sink target = targetOf.apply(b);
            final SinkConnection connection = target.plugin();
            final JsonEncoding encoding = encodingOf.computeIfAbsent(target.name(), encodings);
            final JsonRecord.Scope scope = record.scope();
            scopes.add(scope);
            final ShardRouter<JsonRecord> router = b.shardBy() == null
                ? ShardRouter.roundRobin()
                : new JsonHashShardRouter(scope, b.shardBy());
            final String sinkName = sink.name() + "/" + b.name();
            sinks.put(sinkName,
                new SinkSpec(sinkName, connection, connection.shards(), b.database(), b.targetTable()));
            handles.add(split.add(b.name(), encoding.encoder(new JsonEncoding.Branch(b.name(), b.columns(), scope,
                connection.nullAsDefault(), connection.failOnUnknownFields())), router, sinkName,
                new ChunkConfig(b.maxRows(), b.maxBytes(), b.lingerMs())));
        }
        final Classifier classifier = new Classifier(sink.branches(), paths);
        final List<BranchHandle<JsonRecord>> byIndex = List.copyOf(handles);
        final JsonRecord.Scope[] scopeOf = scopes.toArray(new JsonRecord.Scope[0]);
        split.route((r, out) ->
        {
            final int i = classifier.classify(r.scanner());
            // duplicate_keys = fail: the decode pass stopped at the classifier's paths; the chosen branch's pass (or,
            // for no branch, the record scope's) reads the rest before the record becomes a row or is unmatched
            final String invalid = r.complete(i == Classifier.UNMATCHED ? null : scopeOf[i]);
            if (invalid != null)
            {
                out.invalid(invalid);
            }
            else if (i != Classifier.UNMATCHED)
            {
                out.emit(byIndex.get(i), r);
            }
        });
        return new GatherSpec<JsonRecord>().name(sink.name()).groupId(sink.groupId())
            .pattern(sink.pattern() == null ? null : UserRegex.compile(sink.pattern()))
            .topics(sink.topics()).autoOffsetReset(sink.autoOffsetReset()).topicRefreshMs(sink.topicRefreshMs())
            .decoder(record).split(split).sinks(sinks).onError(sink.onError())
            .deadLetter(sink.deadLetter()).tombstones(sink.tombstones()).conclude();
    }
}
