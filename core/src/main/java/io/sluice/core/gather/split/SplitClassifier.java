package io.sluice.core.gather.split;

/**
 * The classifier of a {@link Split}: one function that inspects a record and emits it to one branch (or none).
 * Classification and the branch's row extraction are the same step, so there is no double dispatch. Called on the
 * route stage thread for every record; must not block, and should not allocate.
 *
 * @param <T> the record view type (e.g. {@code io.sluice.core.gather.json.JsonRecord})
 */
@FunctionalInterface
public interface SplitClassifier<T>
{
    /**
     * @param record the current record (a view, valid only during the call)
     * @param out    where to emit it
     */
    void route(T record, Emitter out);
}
