package io.sluice.core.gather.split;

/**
 * A typed, copyable reference to one branch of a {@link Split}: the branch index fixed by declaration order, and
 * the row family {@code R} the branch's encoder takes. {@link Emitter#emit(BranchHandle, Object)} dispatches on the
 * index in O(1); the type parameter makes the compiler check that a classifier emits the right row to each branch.
 * Immutable and thread-safe.
 *
 * @param <R> the row type of the branch
 */
public final class BranchHandle<R>
{
    private final int index;
    private final String name;

    BranchHandle(final int index, final String name)
    {
        this.index = index;
        this.name = name;
    }

    /** @return the branch index (declaration order, from 0) */
    public int index()
    {
        return index;
    }

    /** @return the branch name */
    public String name()
    {
        return name;
    }

    @Override
    public String toString()
    {
        return "branch " + index + " (" + name + ")";
    }
}
