package io.sluice.core.gather.split;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.sluice.core.config.ErrorPolicy;

/**
 * A multi-sink split, as seed 001 ("Multi-sink split") describes it: one stream fanned to exactly one of several
 * typed branches, each with its own encoder, shard router, sink and batch tuning, and an explicit policy for records
 * that reach no branch (no built-in catch-all: a catch-all is a branch you add and route to on purpose).
 *
 * <pre>{@code
 * Split<JsonRecord> split = Split.create(ChunkConfig.DEFAULT, ErrorPolicy.SKIP);
 * BranchHandle<Gauge> gauge = split.add("gauge", gaugeEncoder, ShardRouter.roundRobin(), "gauge");
 * BranchHandle<Text>  text  = split.add("text",  textEncoder,  ShardRouter.roundRobin(), "text");
 * split.route((r, out) -> {
 *     switch (kind(r)) {
 *         case GAUGE -> out.emit(gauge, gaugeRow.from(r));
 *         case TEXT  -> out.emit(text, textRow.from(r));
 *         default    -> { }   // no branch: the unmatched policy applies
 *     }
 * });
 * }</pre>
 *
 * Declaration order fixes the handle indices. Sinks are referred to by the name they are installed under in the
 * pipeline. Build it on one thread, then hand it to a pipeline; it is not modified afterwards.
 *
 * @param <T> the record view type the classifier reads
 */
public final class Split<T>
{
    /**
     * One declared branch.
     *
     * @param index   handle index
     * @param name    branch name (logs, metrics)
     * @param encoder writes its rows
     * @param router  picks the shard of each row
     * @param sink    name of the sink the branch writes to
     * @param chunk   batch tuning
     * @param <R>     row type
     */
    public record Branch<R>(int index, String name, RowEncoder<R> encoder, ShardRouter<R> router, String sink,
        ChunkConfig chunk)
    {
    }

    private final ChunkConfig chunk;
    private final ErrorPolicy unmatched;
    private final List<Branch<?>> branches = new ArrayList<>();
    private SplitClassifier<T> classifier;

    private Split(final ChunkConfig chunk, final ErrorPolicy unmatched)
    {
        this.chunk = Objects.requireNonNull(chunk, "chunk");
        this.unmatched = Objects.requireNonNull(unmatched, "unmatched");
    }

    /**
     * @param chunk     default batch tuning of the branches
     * @param unmatched what happens to a record no branch takes
     * @param <T>       record view type
     * @return an empty split
     */
    public static <T> Split<T> create(final ChunkConfig chunk, final ErrorPolicy unmatched)
    {
        return new Split<>(chunk, unmatched);
    }

    /**
     * Declares a branch with the split's default batch tuning.
     *
     * @param name    branch name, unique in the split
     * @param encoder writes the branch's rows
     * @param router  picks the shard of each row
     * @param sink    name of an installed sink
     * @param <R>     the branch's row type
     * @return its handle
     * @throws IllegalArgumentException on a duplicate name
     */
    public <R> BranchHandle<R> add(final String name, final RowEncoder<R> encoder, final ShardRouter<R> router,
        final String sink)
    {
        return add(name, encoder, router, sink, chunk);
    }

    /**
     * Declares a branch.
     *
     * @param name    branch name, unique in the split
     * @param encoder writes the branch's rows
     * @param router  picks the shard of each row
     * @param sink    name of an installed sink
     * @param chunk   batch tuning of this branch
     * @param <R>     the branch's row type
     * @return its handle
     * @throws IllegalArgumentException on a duplicate name
     */
    public <R> BranchHandle<R> add(final String name, final RowEncoder<R> encoder, final ShardRouter<R> router,
        final String sink, final ChunkConfig chunk)
    {
        for (final Branch<?> b : branches)
        {
            if (b.name().equals(name))
            {
                throw new IllegalArgumentException("duplicate branch name \"" + name + "\"");
            }
        }
        final int index = branches.size();
        branches.add(new Branch<>(index, name, Objects.requireNonNull(encoder, "encoder"),
            Objects.requireNonNull(router, "router"),
            Objects.requireNonNull(sink, "sink"), Objects.requireNonNull(chunk, "chunk")));
        return new BranchHandle<>(index, name);
    }

    /**
     * Sets the classifier.
     *
     * @param classifier emits each record to one branch or none
     * @return this split
     */
    public Split<T> route(final SplitClassifier<T> classifier)
    {
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        return this;
    }

    /** @return the classifier (null until {@link #route} was called) */
    public SplitClassifier<T> classifier()
    {
        return classifier;
    }

    /** @return the unmatched policy */
    public ErrorPolicy unmatched()
    {
        return unmatched;
    }

    /** @return the branches in handle order */
    public List<Branch<?>> branches()
    {
        return List.copyOf(branches);
    }
}
