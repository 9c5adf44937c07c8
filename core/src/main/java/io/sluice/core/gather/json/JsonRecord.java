package io.sluice.core.gather.json;

import org.agrona.MutableDirectBuffer;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.gather.split.RecordDecoder;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A JSON record as a split's classifier and encoders read it, and the {@link RecordDecoder} that produces it.
 *
 * <p>Paths are extracted in one pass per <em>scope</em>, each pass stopping as soon as its scope's paths are found:
 * the record's own scope (what the classifier reads, usually a field near the start such as {@code type}) is scanned
 * when the record is decoded; a branch's scope (the columns of its table) is scanned on first use, only for records
 * that reach that branch. So a record is never scanned for paths only other branches need, and a large trailing
 * field (an array of commits, a comment body) is skipped unread when no branch of the record needs it.
 *
 * <p>Values are read back by field index without allocating. One instance per route stage; valid until the next
 * record. Not thread-safe.
 */
public final class JsonRecord implements RecordDecoder<JsonRecord>
{
    private final Scope own;
    private RecordEvent event;
    private long stamp;
    private TopicRegistry topics;

    /** @param paths the record scope's path registry (the classifier's conditions register their paths in it) */
    public JsonRecord(final PathRegistry paths)
    {
        this.own = new Scope(this, paths);
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
        return new Scope(this, new PathRegistry(own.paths.maxDepth()));
    }

    @Override
    public JsonRecord decode(final RecordEvent e)
    {
        this.event = e;
        stamp++;
        return own.scan() == JsonError.NONE ? this : null;
    }

    @Override
    public String error()
    {
        return own.error();
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
        private JsonScanner scanner;
        private long scannedStamp = -1;
        private int errorCode;

        Scope(final JsonRecord record, final PathRegistry paths)
        {
            this.record = record;
            this.paths = paths;
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
         * Scans the current record for this scope's paths, once per record.
         *
         * @return {@link JsonError#NONE} or the error the scan met (the record is malformed)
         */
        public int scan()
        {
            if (scannedStamp != record.stamp)
            {
                final JsonScanner s = paths.scanner();
                scanner = s;
                final RecordEvent e = record.event;
                errorCode = s.scan(e.value(), 0, e.valueLength());
                scannedStamp = record.stamp;
            }
            return errorCode;
        }

        /** @return why the last {@link #scan()} failed */
        public String error()
        {
            return "malformed JSON: " + JsonError.describe(errorCode) + " at byte " + scanner.errorOffset();
        }

        /**
         * @param field index from {@link #field(String)}
         * @param into  receives kind and byte range of the value (MISSING when the scan failed before it)
         */
        public void value(final int field, final JsonValueView into)
        {
            scan();
            scanner.value(field, into);
        }
    }
}
