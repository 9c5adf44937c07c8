package io.sluice.core.pipeline;

import org.agrona.MutableDirectBuffer;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.route.PathRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * A JSON record as a split's classifier and encoders read it: the value is scanned once for every registered path
 * (one pass, stopping when all are found), and values are read back by path index without allocating. Also the
 * {@link RecordDecoder} that produces it. One instance per route stage; valid until the next record. Not thread-safe.
 */
public final class JsonRecord implements RecordDecoder<JsonRecord> {
    private final PathRegistry paths;
    private JsonScanner scanner;
    private RecordEvent event;
    private int errorCode;

    /** @param paths the route stage's path registry (conditions and bound columns register their paths in it) */
    public JsonRecord(final PathRegistry paths) {
        this.paths = paths;
    }

    /**
     * Registers a path to be extracted (at build or bind time, not per record).
     *
     * @param path a JSON path expression
     * @return its index for {@link #value(int, JsonValueView)}
     */
    public int field(final String path) {
        return paths.indexOf(path);
    }

    @Override
    public JsonRecord decode(final RecordEvent e) {
        this.event = e;
        final JsonScanner s = paths.scanner();
        scanner = s;
        errorCode = s.scan(e.value(), 0, e.valueLength());
        return errorCode == JsonError.NONE ? this : null;
    }

    @Override
    public String error() {
        return "malformed JSON: " + JsonError.describe(errorCode) + " at byte " + scanner.errorOffset();
    }

    /**
     * @param field index from {@link #field(String)}
     * @param into  receives kind and byte range of the value
     */
    public void value(final int field, final JsonValueView into) {
        scanner.value(field, into);
    }

    /**
     * The value derived as seed 000 derives routing values, as UTF-8 into {@code dst}.
     *
     * @return its length, or {@link RoutingValues#MISSING} for null, object, array or absent
     */
    public int text(final int field, final JsonValueView scratch, final MutableDirectBuffer dst) {
        scanner.value(field, scratch);
        return RoutingValues.derive(scratch, dst, 0);
    }

    /** @return the scanner holding the current record's values */
    public JsonScanner scanner() {
        return scanner;
    }

    /** @return the current record's ring event (coordinates, key, headers) */
    public RecordEvent event() {
        return event;
    }
}
