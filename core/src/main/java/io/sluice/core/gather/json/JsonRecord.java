package io.sluice.core.gather.json;

import org.agrona.MutableDirectBuffer;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.gather.split.RecordDecoder;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A JSON record as a split's classifier and encoders read it, and the {@link RecordDecoder} that produces it.
 *
 * <p>Paths are extracted in one pass per <em>scope</em>: the record's own scope (what the classifier reads, usually a
 * field near the start such as {@code type}) is scanned when the record is decoded; a branch's scope (the columns of
 * its table, and the record scope's paths too) is scanned on first use, only for records that reach that branch. So
 * a record is never scanned for paths only other branches need, and a large trailing field (an array of commits, a
 * comment body) is skipped unread when no branch of the record needs it.
 *
 * <p>Under {@code duplicate_keys = "first"} each pass stops as soon as its paths are found. Under {@code "last"}
 * each pass reads the whole document. Under {@code "fail"} (the default) the record scope's pass stops once its
 * paths are found and the whole document is read once, by the chosen branch's pass ({@link #complete}), which
 * holds the record scope's paths too and so finds a duplicate of a key the classifier read, or, for a record no
 * branch takes, by a whole pass of the record scope: one whole pass per record instead of two, with the same
 * errors (malformed JSON, a duplicate at a path the record scope or the chosen branch reads) before any row is
 * written. That needs a route function that calls {@link #complete}: {@link #deferWholePass()} turns it on.
 *
 * <p>Values are read back by field index without allocating. One instance per route stage; valid until the next
 * record. Not thread-safe.
 */
public final class JsonRecord implements RecordDecoder<JsonRecord>
{
    private final Scope own;
    /** duplicate_keys = fail and {@link #deferWholePass()}: the decode pass stops early, {@link #complete} reads on */
    private boolean deferred;
    private RecordEvent event;
    private long stamp;
    private TopicRegistry topics;
    private int rootKind = JsonKind.OBJECT;

    /**
     * @param paths the record scope's path registry (the classifier's conditions register their paths in it); its
     *              duplicate-key policy is every scope's
     */
    public JsonRecord(final PathRegistry paths)
    {
        this.own = new Scope(this, paths, null);
    }

    /**
     * Under {@code duplicate_keys = "fail"}, lets the decode pass stop once the record scope's paths are found; the
     * split's route function must then call {@link #complete} for every record it decodes, before it emits the record
     * or leaves it unmatched ({@link TomlGather}'s does). Without this call (the default, for a hand-written route
     * function) the decode pass reads the whole document. Build time, before records flow.
     *
     * @return this record
     */
    public JsonRecord deferWholePass()
    {
        this.deferred = own.paths.duplicateKeys() == DuplicateKeys.FAIL;
        return this;
    }

    /**
     * Registers a path in the record's own scope (scanned at decode), at build or bind time, not per record.
     *
     * @param path a JSON path expression
     * @return its index for {@link #value(int, JsonValueView)}
     */
    public int field(final String path)
    {
        return own.field(path);
    }

    /**
     * A new scope: its paths are extracted in their own pass, on first use per record.
     *
     * @return the scope
     */
    public Scope scope()
    {
        return new Scope(this, new PathRegistry(own.paths.maxDepth(), own.paths.duplicateKeys()), own.paths);
    }

    /**
     * Scans the record's own scope and accepts only a JSON object as a row: an array, a number, a string,
     * {@code true}/{@code false} or {@code null} is refused ("value is a JSON array, not an object"), as are
     * malformed JSON, an empty or blank value and, under {@code duplicate_keys = "fail"}, a key that occurs twice at
     * a path of the scope. The caller (the route stage) applies {@code on_error} before any branch is chosen.
     *
     * @param e the record
     * @return this view, or {@code null} when the value is no row ({@link #error()} says why)
     */
    @Override
    public JsonRecord decode(final RecordEvent e)
    {
        this.event = e;
        stamp++;
        if ((deferred ? own.find() : own.scan()) != JsonError.NONE)
        {
            rootKind = JsonKind.OBJECT;
            return null;
        }
        rootKind = own.scanner.rootKind();
        return rootKind == JsonKind.OBJECT ? this : null;
    }

    /**
     * Finishes reading the record where the decode pass stopped early ({@code duplicate_keys = "fail"}): the chosen
     * branch's whole pass (its scope holds the record scope's paths too), or for a record no branch takes a whole pass
     * of the record scope. Under the other policies nothing was left: a no-op.
     *
     * @param branch the scope of the branch the classifier chose, or {@code null} when none matched
     * @return {@code null}, or why the record is no row (malformed JSON, a duplicate key), as {@link #error()} words it
     */
    public String complete(final Scope branch)
    {
        if (!deferred)
        {
            return null;
        }
        final Scope whole = branch != null ? branch : own;
        return whole.scan() == JsonError.NONE ? null : whole.error();
    }

    @Override
    public String error()
    {
        return rootKind != JsonKind.OBJECT ? JsonKind.notAnObject(rootKind) : own.error();
    }

    /**
     * @param field index from {@link #field(String)}
     * @param into  receives kind and byte range of the value
     */
    public void value(final int field, final JsonValueView into)
    {
        own.value(field, into);
    }

    /**
     * The value derived as seed 000 derives routing values, as UTF-8 into {@code dst}.
     *
     * @param field   index from {@link #field(String)}
     * @param scratch a view this call may overwrite
     * @param dst     where the text is written from index 0
     * @return its length, or {@link RoutingValues#MISSING} for null, object, array or absent
     */
    public int text(final int field, final JsonValueView scratch, final MutableDirectBuffer dst)
    {
        own.value(field, scratch);
        return RoutingValues.derive(scratch, dst, 0);
    }

    /** @return the scanner holding the record scope's values */
    public JsonScanner scanner()
    {
        return own.scanner;
    }

    /**
     * Gives the record its pipeline's topic registry, so that columns filled from the topic name find it (the
     * pipeline calls this before the route stage runs).
     *
     * @param registry the pipeline's topic ids and names
     */
    public void topics(final TopicRegistry registry)
    {
        this.topics = registry;
    }

    /** @return the pipeline's topic registry, or null before {@link #topics(TopicRegistry)} */
    public TopicRegistry topics()
    {
        return topics;
    }

    /** @return the current record's ring event (coordinates, key, headers) */
    public RecordEvent event()
    {
        return event;
    }

    /**
     * A set of paths extracted together in one pass over the current record. Not thread-safe.
     */
    public static final class Scope
    {
        private final JsonRecord record;
        private final PathRegistry paths;
        /** the record scope's registry, whose paths a branch scope holds too; null for the record scope itself */
        private final PathRegistry recordPaths;
        private int recordPathsCopied;
        private JsonScanner scanner;
        private long scannedStamp = -1;
        /** whether the scan of {@link #scannedStamp} read the whole document ({@link #find} may stop early) */
        private boolean scannedWhole;
        private int errorCode;

        Scope(final JsonRecord record, final PathRegistry paths, final PathRegistry recordPaths)
        {
            this.record = record;
            this.paths = paths;
            this.recordPaths = recordPaths;
        }

        /**
         * @param path a JSON path expression
         * @return its index in this scope
         */
        public int field(final String path)
        {
            return paths.indexOf(path);
        }

        /**
         * Scans the current record for this scope's paths, once per record, reading the whole document unless the
         * policy is {@code first} (after the record scope's early-stopping pass, a second, whole pass).
         *
         * @return {@link JsonError#NONE} or the error the scan met (the record is malformed)
         */
        public int scan()
        {
            if (recordPaths != null && recordPaths.size() != recordPathsCopied)
            {
                // off the hot path: once per path the record scope registers
                for (final String p : recordPaths.paths())
                {
                    paths.indexOf(p);
                }
                recordPathsCopied = recordPaths.size();
            }
            // again when the registry grew since (a destination bound its columns after this record's first pass)
            if (scannedStamp != record.stamp || !scannedWhole && errorCode == JsonError.NONE
                || scanner != paths.scanner())
            {
                pass(true);
            }
            return errorCode;
        }

        /** The record scope's decode pass under duplicate_keys = fail: until its paths are found ({@link #complete}). */
        int find()
        {
            return pass(false);
        }

        /** One pass over the current record: whole ({@link JsonScanner#scan}) or until found ({@code find}). */
        private int pass(final boolean whole)
        {
            final JsonScanner s = paths.scanner();
            scanner = s;
            final RecordEvent e = record.event;
            errorCode = whole ? s.scan(e.value(), 0, e.valueLength()) : s.find(e.value(), 0, e.valueLength());
            scannedStamp = record.stamp;
            scannedWhole = whole;
            return errorCode;
        }

        /** @return why the last {@link #scan()} failed */
        public String error()
        {
            if (errorCode == JsonError.EMPTY_DOCUMENT)
            {
                return JsonKind.notAnObject(JsonKind.MISSING);
            }
            if (errorCode == JsonError.DUPLICATE_KEY)
            {
                return "duplicate key " + scanner.duplicateKey() + " at byte " + scanner.errorOffset()
                    + " (duplicate_keys = \"fail\"; \"first\" or \"last\" would take one of them)";
            }
            return "malformed JSON: " + JsonError.describe(errorCode) + " at byte " + scanner.errorOffset();
        }

        /**
         * @param field index from {@link #field(String)}
         * @param into  receives kind and byte range of the value (MISSING when the scan failed before it)
         */
        public void value(final int field, final JsonValueView into)
        {
            if (scannedStamp != record.stamp || scanner != paths.scanner())
            {
                scan();
            }
            // after the record scope's early-stopping pass too: every path it holds was found, or it read to the end
            scanner.value(field, into);
        }
    }
}
