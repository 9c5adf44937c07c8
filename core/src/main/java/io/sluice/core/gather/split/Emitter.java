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

    /**
     * Declares the current record no row, before any branch has it: what the decoder left to read after the
     * classifier chose (a JSON document's rest, read once by the chosen branch's pass) showed it malformed. It then
     * follows {@code on_error} as a record the decoder refused does ({@code invalid}, stage {@code parse}). Instead of
     * {@link #emit}, never after it.
     *
     * @param why what is wrong with the record, with where (e.g. {@code malformed JSON: ... at byte 812})
     */
    void invalid(String why);
}
