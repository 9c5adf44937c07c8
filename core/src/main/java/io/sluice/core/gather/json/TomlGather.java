package io.sluice.core.gather.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * robin), and one installed sink per branch carrying the branch's database and table (literal or template).
 */
public final class TomlGather
{
    private TomlGather()
    {
    }

    /**
     * @param sink     the sink's configuration
     * @param encoding the sink kind's row encoders ({@code SinkDriver.jsonEncoding()})
     * @return the pipeline model
     * @throws IllegalArgumentException when the kind cannot encode a branch
     */
    public static GatherSpec<JsonRecord> build(final SluiceConfig.Sink sink, final JsonEncoding encoding)
    {
        final PathRegistry paths = new PathRegistry(128, sink.duplicateKeys());
        final JsonRecord record = new JsonRecord(paths).deferWholePass();
        final Split<JsonRecord> split = Split.create(ChunkConfig.DEFAULT, sink.unmatched());
        final Map<String, SinkSpec> sinks = new LinkedHashMap<>();
        final List<BranchHandle<JsonRecord>> handles = new ArrayList<>();
        final List<JsonRecord.Scope> scopes = new ArrayList<>();
        for (final SluiceConfig.Branch b : sink.branches())
        {
            final JsonRecord.Scope scope = record.scope();
            scopes.add(scope);
            final ShardRouter<JsonRecord> router = b.shardBy() == null
                ? ShardRouter.roundRobin()
                : new JsonHashShardRouter(scope, b.shardBy());
            final String sinkName = sink.name() + "/" + b.name();
            sinks.put(sinkName,
                new SinkSpec(sinkName, sink.plugin(), sink.plugin().shards(), b.database(), b.targetTable()));
            handles.add(split.add(b.name(), encoding.encoder(new JsonEncoding.Branch(b.name(), b.columns(), scope,
                sink.plugin().nullAsDefault(), sink.plugin().failOnUnknownFields())), router, sinkName,
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
