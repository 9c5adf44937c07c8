package io.sluice.core.gather.split;

/**
 * Where a {@link SplitClassifier} sends a record: to exactly one branch, or to none (then the split's unmatched
 * policy applies). Provided by the route stage; valid only during the classifier call. Not thread-safe.
 */
public interface Emitter
{
    /**
     * Sends the current record to a branch as {@code row}. The row is encoded before this returns, so a reused,
     * mutable row object is fine. A second emit for the same record is a programming error and fails the record.
     *
     * @param handle the branch, from {@link Split#add}
     * @param row    the row, of the branch's row type
     * @param <R>    the branch's row type
     */
    <R> void emit(BranchHandle<R> handle, R row);
}
