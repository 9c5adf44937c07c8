package io.sluice.core.stage;

/**
 * The per-table measurements of one pipeline's destination table: insert duration, rows and bytes per batch
 * ({@link BucketHistogram}s, exported as Prometheus classic histograms) and failed insert attempts by error class.
 * Obtained from {@link PipelineStats#table(Object)}.
 *
 * <p>Recorded once per insert attempt by the insert workers, never per record. Thread-safety: any thread.
 */
public final class TableStats
{
    /** Error class of a retriable failure (the sink retries it: timeouts, connection loss, overload). */
    public static final int RETRIABLE = 0;
    /** Error class of a permanent failure (the batch's offsets are failed: a missing table, a type error). */
    public static final int PERMANENT = 1;
    /** Error class of an unexpected exception in the sink (a bug; the batch's offsets are failed). */
    public static final int UNEXPECTED = 2;
    /**
     * Error class of a refusal because the table changed (a column retyped, dropped or added): the batch was not
     * written, the table is described again and its records are re-read and encoded for the new columns.
     */
    public static final int SCHEMA_CHANGED = 3;
    private static final String[] CLASS_NAMES = {"retriable", "permanent", "unexpected", "schema_changed"};

    private final String label;
    private final Object destination;
    /** Upper bounds of the insert duration histogram, nanoseconds (1 ms to 60 s). */
    private static final long[] INSERT_NANOS_BUCKETS = {1_000_000L, 2_500_000L, 5_000_000L, 10_000_000L, 25_000_000L,
        50_000_000L, 100_000_000L, 250_000_000L, 500_000_000L, 1_000_000_000L, 2_500_000_000L, 5_000_000_000L,
        10_000_000_000L, 30_000_000_000L, 60_000_000_000L};
    /** Upper bounds of the batch rows histogram. */
    private static final long[] BATCH_ROWS_BUCKETS = {1, 10, 100, 500, 1_000, 5_000, 10_000, 50_000, 100_000, 500_000,
        1_000_000};
    /** Upper bounds of the batch bytes histogram (1 KiB to 256 MiB, factor 4). */
    private static final long[] BATCH_BYTES_BUCKETS = {1L << 10, 1L << 12, 1L << 14, 1L << 16, 1L << 18, 1L << 20,
        1L << 22, 1L << 24, 1L << 26, 1L << 28};

    private final BucketHistogram insertNanos = new BucketHistogram(INSERT_NANOS_BUCKETS);
    private final BucketHistogram batchRows = new BucketHistogram(BATCH_ROWS_BUCKETS);
    private final BucketHistogram batchBytes = new BucketHistogram(BATCH_BYTES_BUCKETS);
    private final PaddedAtomicLong[] failures = {new PaddedAtomicLong(), new PaddedAtomicLong(),
        new PaddedAtomicLong(), new PaddedAtomicLong()};

    TableStats(final Object destination)
    {
        this.destination = destination;
        this.label = destination.toString();
    }

    /**
     * Counts one successful insert.
     *
     * @param rows        rows in the batch
     * @param bytes       encoded bytes in the batch
     * @param insertNanos duration of the insert request, nanoseconds
     */
    public void onInserted(final int rows, final long bytes, final long insertNanos)
    {
        this.insertNanos.record(insertNanos);
        batchRows.record(rows);
        batchBytes.record(bytes);
    }

    /**
     * Counts one failed insert attempt.
     *
     * @param errorClass {@link #RETRIABLE}, {@link #PERMANENT}, {@link #UNEXPECTED} or {@link #SCHEMA_CHANGED}
     */
    public void onInsertFailed(final int errorClass)
    {
        failures[errorClass].incrementAndGet();
    }

    /**
     * @param errorClass an error class
     * @return failed insert attempts of that class so far
     */
    public long failures(final int errorClass)
    {
        return failures[errorClass].get();
    }

    /**
     * @param errorClass an error class
     * @return its label value: {@code retriable}, {@code permanent}, {@code unexpected} or {@code schema_changed}
     */
    public static String className(final int errorClass)
    {
        return CLASS_NAMES[errorClass];
    }

    /** @return the number of error classes */
    public static int classes()
    {
        return CLASS_NAMES.length;
    }

    /** @return durations of successful inserts, nanoseconds */
    public BucketHistogram insertNanos()
    {
        return insertNanos;
    }

    /** @return rows per inserted batch */
    public BucketHistogram batchRows()
    {
        return batchRows;
    }

    /** @return encoded bytes per inserted batch */
    public BucketHistogram batchBytes()
    {
        return batchBytes;
    }

    /**
     * @return the destination these measurements are of, as given to {@link PipelineStats#table(Object)} (in a
     *     gather pipeline a {@code Destination}, which names the sink and so the kind it is written by)
     */
    public Object destination()
    {
        return destination;
    }

    /** @return the table's label value, {@code database.table} */
    public String label()
    {
        return label;
    }
}
