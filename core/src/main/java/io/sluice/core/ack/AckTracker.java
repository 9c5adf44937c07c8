package io.sluice.core.ack;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Left padding: keeps the read-mostly fields off the cache line of whatever object precedes the tracker.
 */
abstract class AckTrackerPadHead
{
    byte a000, a001, a002, a003, a004, a005, a006, a007, a008, a009, a010, a011, a012, a013, a014, a015;
    byte a016, a017, a018, a019, a020, a021, a022, a023, a024, a025, a026, a027, a028, a029, a030, a031;
    byte a032, a033, a034, a035, a036, a037, a038, a039, a040, a041, a042, a043, a044, a045, a046, a047;
    byte a048, a049, a050, a051, a052, a053, a054, a055, a056, a057, a058, a059, a060, a061, a062, a063;
    byte a064, a065, a066, a067, a068, a069, a070, a071, a072, a073, a074, a075, a076, a077, a078, a079;
    byte a080, a081, a082, a083, a084, a085, a086, a087, a088, a089, a090, a091, a092, a093, a094, a095;
    byte a096, a097, a098, a099, a100, a101, a102, a103, a104, a105, a106, a107, a108, a109, a110, a111;
    byte a112, a113, a114, a115, a116, a117, a118, a119, a120, a121, a122, a123, a124, a125, a126, a127;
}

/**
 * Fields written once (constructor) or rarely (reset, first failure) and read by every thread.
 */
abstract class AckTrackerReadMostly extends AckTrackerPadHead
{
    final String topic;
    final int partition;
    final int windowCapacity;
    final int capacityShift;
    final int slotShift;
    final int slotMask;
    final long[] slots;
    final LongSupplier nanoClock;

    /** Written by the source thread in reset() only; read by fail() and the getters on any thread. */
    int generation;

    /** Compare-and-set by fail() on any thread; reset to null by the source thread. */
    AckFailure failure;

    AckTrackerReadMostly(
        final String topic,
        final int partition,
        final int windowCapacity,
        final LongSupplier nanoClock)
    {
        this.topic = topic;
        this.partition = partition;
        this.windowCapacity = windowCapacity;
        this.capacityShift = Integer.numberOfTrailingZeros(windowCapacity);
        this.slotShift = capacityShift - AckTracker.FLAG_SHIFT;
        this.slotMask = (windowCapacity >>> AckTracker.FLAG_SHIFT) - 1;
        this.slots = new long[(windowCapacity >>> AckTracker.FLAG_SHIFT) + 2 * AckTracker.ARRAY_PAD];
        this.nanoClock = nanoClock;
    }
}

/**
 * Padding between the read-mostly fields and the source thread's fields.
 */
abstract class AckTrackerPadSource extends AckTrackerReadMostly
{
    byte b000, b001, b002, b003, b004, b005, b006, b007, b008, b009, b010, b011, b012, b013, b014, b015;
    byte b016, b017, b018, b019, b020, b021, b022, b023, b024, b025, b026, b027, b028, b029, b030, b031;
    byte b032, b033, b034, b035, b036, b037, b038, b039, b040, b041, b042, b043, b044, b045, b046, b047;
    byte b048, b049, b050, b051, b052, b053, b054, b055, b056, b057, b058, b059, b060, b061, b062, b063;
    byte b064, b065, b066, b067, b068, b069, b070, b071, b072, b073, b074, b075, b076, b077, b078, b079;
    byte b080, b081, b082, b083, b084, b085, b086, b087, b088, b089, b090, b091, b092, b093, b094, b095;
    byte b096, b097, b098, b099, b100, b101, b102, b103, b104, b105, b106, b107, b108, b109, b110, b111;
    byte b112, b113, b114, b115, b116, b117, b118, b119, b120, b121, b122, b123, b124, b125, b126, b127;

    AckTrackerPadSource(
        final String topic,
        final int partition,
        final int windowCapacity,
        final LongSupplier nanoClock)
    {
        super(topic, partition, windowCapacity, nanoClock);
    }
}

/**
 * Fields owned by the source thread: written on every registration and watermark advance, read elsewhere only
 * as approximate metrics.
 */
abstract class AckTrackerSourceFields extends AckTrackerPadSource
{
    long watermark;
    long registeredEnd;
    long lastProgressNanos;
    boolean progressStampPending;

    AckTrackerSourceFields(
        final String topic,
        final int partition,
        final int windowCapacity,
        final LongSupplier nanoClock)
    {
        super(topic, partition, windowCapacity, nanoClock);
    }
}

/**
 * Padding between the source thread's fields and the counters that ack threads write.
 */
abstract class AckTrackerPadCounters extends AckTrackerSourceFields
{
    byte c000, c001, c002, c003, c004, c005, c006, c007, c008, c009, c010, c011, c012, c013, c014, c015;
    byte c016, c017, c018, c019, c020, c021, c022, c023, c024, c025, c026, c027, c028, c029, c030, c031;
    byte c032, c033, c034, c035, c036, c037, c038, c039, c040, c041, c042, c043, c044, c045, c046, c047;
    byte c048, c049, c050, c051, c052, c053, c054, c055, c056, c057, c058, c059, c060, c061, c062, c063;
    byte c064, c065, c066, c067, c068, c069, c070, c071, c072, c073, c074, c075, c076, c077, c078, c079;
    byte c080, c081, c082, c083, c084, c085, c086, c087, c088, c089, c090, c091, c092, c093, c094, c095;
    byte c096, c097, c098, c099, c100, c101, c102, c103, c104, c105, c106, c107, c108, c109, c110, c111;
    byte c112, c113, c114, c115, c116, c117, c118, c119, c120, c121, c122, c123, c124, c125, c126, c127;

    AckTrackerPadCounters(
        final String topic,
        final int partition,
        final int windowCapacity,
        final LongSupplier nanoClock)
    {
        super(topic, partition, windowCapacity, nanoClock);
    }
}

/**
 * Counters of rejected acks and fails, written by ack threads on the (rare) rejection path only.
 */
abstract class AckTrackerCounters extends AckTrackerPadCounters
{
    long staleAcks;
    long invalidAcks;

    AckTrackerCounters(
        final String topic,
        final int partition,
        final int windowCapacity,
        final LongSupplier nanoClock)
    {
        super(topic, partition, windowCapacity, nanoClock);
    }
}

/**
 * Tracks which offsets of one Kafka partition are durably written and computes the partition's <em>watermark</em>:
 * the offset to commit, that is the offset of the first record that is not yet written everywhere (Kafka's committed
 * offset semantics: the offset of the next record to consume).
 *
 * <h2>Threads</h2>
 * Exactly one <em>source thread</em> (the thread that owns the {@code KafkaConsumer}) calls {@link #tryRegister},
 * {@link #trySkipTo}, {@link #watermark()} and {@link #reset}. Any number of other threads (sink workers, the route
 * stage) call {@link #ack(long, int)}, {@link #ackAll} and {@link #fail(long, int, int, String)} concurrently; they are
 * lock-free, and the acks never allocate. Every getter may be called from any thread: it is exact on the source thread and a
 * recent value elsewhere (good enough for metrics). Hand a new tracker to other threads through a safe publication
 * (a final field, a volatile, a queue).
 *
 * <h2>Data structure</h2>
 * A ring of {@code windowCapacity / 16} 64-bit slots, allocated once. A slot holds the <em>done</em> flags of a block
 * of 16 consecutive offsets (bits 0..15), the lap of that block, that is {@code offset >>> log2(windowCapacity)}
 * modulo 2<sup>16</sup> (bits 16..31), and the generation (bits 32..63). An ack compares the slot's lap and generation
 * with the ones its offset and generation imply and sets its bit in the same compare-and-set, so an ack that belongs to
 * an older generation, or to a block the watermark has already passed and recycled, can never set a bit of a live
 * offset. When the watermark passes a whole block it re-tags the slot for the block one window further on (which
 * clears its flags), so the ring is reused without a separate clearing pass.
 *
 * <h2>Gaps</h2>
 * Offsets of one partition are registered in increasing order, but not every offset carries a record (compacted
 * topics, transaction markers, aborted records filtered by {@code read_committed}). Every offset between two
 * registered offsets, and between the start offset and the first registered offset, is a gap and counts as done.
 * {@link #trySkipTo} declares a gap at the end (for example up to the consumer's position).
 *
 * <h2>Window</h2>
 * An offset can be registered only while it lies within {@code windowCapacity} offsets of the start of the watermark's
 * block: {@code offset < (watermark & ~15) + windowCapacity}, so between {@code windowCapacity - 15} and
 * {@code windowCapacity} offsets can be outstanding. Otherwise {@link #tryRegister} returns {@link #WINDOW_FULL} (back
 * pressure: pause the partition and retry later). A gap wider than the window is crossed in one step once everything
 * registered before it is done.
 *
 * <h2>Failures: worst-status merge</h2>
 * {@link #fail(long, int, int, String)} marks the partition failed. The watermark never passes the lowest failed
 * offset; its code and reason are those of the first call that reported that offset. Acks of other offsets keep
 * being recorded but cannot move the watermark past the failure. Only {@link #reset} clears a failure.
 *
 * <h2>Generations</h2>
 * {@link #reset} (after a seek or a reassignment) starts a new generation. Acks and fails carry the generation that
 * was current when their offset was registered ({@link #generation()}); those of an older generation are ignored and
 * counted ({@link #staleAcks()}). An ack racing with a reset is either applied to the old generation (and then
 * discarded by the reset) or ignored, never applied to an offset of the new generation.
 *
 * <h2>Misuse</h2>
 * Registering an offset that is not above the last registered one throws {@link IllegalArgumentException}. An ack of
 * an offset twice, of an offset outside the window (already passed, or beyond the window) or of an offset not yet
 * registered is rejected with a return code or discarded at registration, and counted in {@link #invalidAcks()};
 * it never marks another offset done. The one case that cannot be told apart is an ack of an offset that is not yet
 * registered racing with its registration: register an offset before handing its record to any other thread.
 */
public final class AckTracker extends AckTrackerCounters
{
    /** {@link #tryRegister} and {@link #trySkipTo}: the offsets were registered. */
    public static final int REGISTERED = 0;

    /**
     * {@link #tryRegister} and {@link #trySkipTo}: the offset lies beyond the window; nothing changed. Pause the
     * partition and retry after acks have let the watermark advance.
     */
    public static final int WINDOW_FULL = -1;

    /** {@link #ack(long, int)}: the offset is now done. */
    public static final int ACKED = 0;

    /** {@link #ack(long, int)}: the generation is not the current one (a reset happened); the ack was ignored. */
    public static final int ACK_STALE_GENERATION = -1;

    /** {@link #ack(long, int)}: the offset was already done (acked twice, or a gap); nothing changed. */
    public static final int ACK_DUPLICATE = -2;

    /**
     * {@link #ack(long, int)}: the offset is not in the current window (the watermark passed it already, or it is
     * further ahead than any registrable offset); nothing changed.
     */
    public static final int ACK_OUT_OF_WINDOW = -3;

    /** {@link #fail(long, int, int, String)}: this offset is now the lowest failed offset. */
    public static final int FAIL_RECORDED = 0;

    /**
     * {@link #fail(long, int, int, String)}: an offset at or below this one had already failed; the partition stays
     * failed with the earlier offset, code and reason.
     */
    public static final int FAIL_SUPERSEDED = 1;

    /** {@link #fail(long, int, int, String)}: the generation is not the current one; the fail was ignored. */
    public static final int FAIL_STALE_GENERATION = -1;

    /** Smallest accepted window capacity, in offsets. */
    public static final int MIN_WINDOW_CAPACITY = 64;

    /** Largest accepted window capacity, in offsets (the ring then takes 32 MiB). */
    public static final int MAX_WINDOW_CAPACITY = 1 << 26;

    /** Largest accepted offset; Kafka offsets are non-negative longs far below it. */
    public static final long MAX_OFFSET = (1L << 62) - 1;

    /** Generation of a new tracker; never 0, so an acker that forgot to copy the generation is ignored. */
    public static final int INITIAL_GENERATION = 1;

    static final int FLAG_SHIFT = 4;
    static final int FLAGS_PER_SLOT = 1 << FLAG_SHIFT;
    static final long FLAG_INDEX_MASK = FLAGS_PER_SLOT - 1;
    static final long BLOCK_START_MASK = ~FLAG_INDEX_MASK;
    static final long FLAGS_MASK = (1L << FLAGS_PER_SLOT) - 1;
    static final long TAG_MASK = ~FLAGS_MASK;
    static final int LAP_SHIFT = 16;
    static final long LAP_MASK = 0xFFFFL;
    static final int GENERATION_SHIFT = 32;

    /** Unused slots (128 bytes) on each side of the ring, so neighbouring heap objects do not share its lines. */
    static final int ARRAY_PAD = 16;

    /** A {@code long[]}'s header (mark word, class pointer, length, alignment) on a 64-bit HotSpot JVM. */
    static final int ARRAY_HEADER_BYTES = 16;

    /** The tracker object: its header, four 128-byte pads and its fields, rounded up to 8 (measured: 608). */
    static final int OBJECT_BYTES = 608;

    private static final int ROOM = 0;
    private static final int JUMPED = 1;

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle GENERATION;
    private static final VarHandle FAILURE;
    private static final VarHandle WATERMARK;
    private static final VarHandle REGISTERED_END;
    private static final VarHandle LAST_PROGRESS_NANOS;
    private static final VarHandle PROGRESS_STAMP_PENDING;
    private static final VarHandle STALE_ACKS;
    private static final VarHandle INVALID_ACKS;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            GENERATION = lookup.findVarHandle(AckTrackerReadMostly.class, "generation", int.class);
            FAILURE = lookup.findVarHandle(AckTrackerReadMostly.class, "failure", AckFailure.class);
            WATERMARK = lookup.findVarHandle(AckTrackerSourceFields.class, "watermark", long.class);
            REGISTERED_END = lookup.findVarHandle(AckTrackerSourceFields.class, "registeredEnd", long.class);
            LAST_PROGRESS_NANOS = lookup.findVarHandle(AckTrackerSourceFields.class, "lastProgressNanos", long.class);
            PROGRESS_STAMP_PENDING = lookup.findVarHandle(AckTrackerSourceFields.class, "progressStampPending",
                boolean.class);
            STALE_ACKS = lookup.findVarHandle(AckTrackerCounters.class, "staleAcks", long.class);
            INVALID_ACKS = lookup.findVarHandle(AckTrackerCounters.class, "invalidAcks", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /* Right padding: keeps the counters off the cache line of whatever object follows the tracker. */
    byte d000, d001, d002, d003, d004, d005, d006, d007, d008, d009, d010, d011, d012, d013, d014, d015;
    byte d016, d017, d018, d019, d020, d021, d022, d023, d024, d025, d026, d027, d028, d029, d030, d031;
    byte d032, d033, d034, d035, d036, d037, d038, d039, d040, d041, d042, d043, d044, d045, d046, d047;
    byte d048, d049, d050, d051, d052, d053, d054, d055, d056, d057, d058, d059, d060, d061, d062, d063;
    byte d064, d065, d066, d067, d068, d069, d070, d071, d072, d073, d074, d075, d076, d077, d078, d079;
    byte d080, d081, d082, d083, d084, d085, d086, d087, d088, d089, d090, d091, d092, d093, d094, d095;
    byte d096, d097, d098, d099, d100, d101, d102, d103, d104, d105, d106, d107, d108, d109, d110, d111;
    byte d112, d113, d114, d115, d116, d117, d118, d119, d120, d121, d122, d123, d124, d125, d126, d127;

    /**
     * Creates a tracker that reads the time with {@link System#nanoTime()}.
     *
     * @param topic          the topic, for messages and {@link #toString()}; not null.
     * @param partition      the partition, {@code >= 0}.
     * @param startOffset    the first offset the consumer will deliver (the committed position), in
     *                       {@code [0, MAX_OFFSET]}; the watermark starts here.
     * @param windowCapacity the most offsets that can be outstanding between the watermark and the highest registered
     *                       offset: a power of two in {@code [MIN_WINDOW_CAPACITY, MAX_WINDOW_CAPACITY]} (for example
     *                       65536). The ring takes {@code windowCapacity / 2} bytes, allocated here and never again.
     * @throws NullPointerException     if {@code topic} is null.
     * @throws IllegalArgumentException if an argument is out of range; the message names it.
     */
    public AckTracker(final String topic, final int partition, final long startOffset, final int windowCapacity)
    {
        this(topic, partition, startOffset, windowCapacity, System::nanoTime);
    }

    /**
     * Creates a tracker with an injected clock, so tests can drive {@link #lastProgressNanos()}.
     *
     * @param topic          the topic, for messages and {@link #toString()}; not null.
     * @param partition      the partition, {@code >= 0}.
     * @param startOffset    the first offset the consumer will deliver (the committed position), in
     *                       {@code [0, MAX_OFFSET]}; the watermark starts here.
     * @param windowCapacity a power of two in {@code [MIN_WINDOW_CAPACITY, MAX_WINDOW_CAPACITY]}, in offsets; see
     *                       {@link #AckTracker(String, int, long, int)}.
     * @param nanoClock      monotonic time in nanoseconds, called on the source thread only: at most once per
     *                       {@link #watermark()} call (when it moved, or first found work after an idle period) and
     *                       on reset; never per offset. A cached clock that the source thread's duty cycle updates
     *                       (such as Agrona's {@code CachedNanoClock}) saves {@link System#nanoTime()} calls; not null.
     * @throws NullPointerException     if {@code topic} or {@code nanoClock} is null.
     * @throws IllegalArgumentException if an argument is out of range; the message names it.
     */
    public AckTracker(
        final String topic,
        final int partition,
        final long startOffset,
        final int windowCapacity,
        final LongSupplier nanoClock)
    {
        this(topic, partition, startOffset, windowCapacity, nanoClock, INITIAL_GENERATION);
    }

    /**
     * A tracker whose first generation is {@code firstGeneration}: {@link PartitionTrackers} gives a released id to a
     * new partition with a generation above every one the id's previous tracker used, so acknowledgements still in
     * flight for the old partition are stale for the new one.
     */
    AckTracker(
        final String topic,
        final int partition,
        final long startOffset,
        final int windowCapacity,
        final LongSupplier nanoClock,
        final int firstGeneration)
    {
        super(
            Objects.requireNonNull(topic, "topic"),
            checkPartition(partition),
            checkWindowCapacity(windowCapacity),
            Objects.requireNonNull(nanoClock, "nanoClock"));
        checkStartOffset(startOffset);
        generation = firstGeneration;
        restart(startOffset);
        VarHandle.releaseFence();
    }

    /**
     * The heap a tracker takes: its ring of {@code windowCapacity / 16} slots (8 bytes each, plus
     * {@code 2 * 16} padding slots and the array header) and the padded object itself. What the start line reports
     * per partition ({@code AckTrackerFootprintTest} compares it with the bytes a construction allocates).
     *
     * @param windowCapacity the window, in offsets (a power of two)
     * @return bytes, e.g. 131,952 (about 129 KiB) for the default window of 262,144 offsets
     */
    public static long footprintBytes(final int windowCapacity)
    {
        return ARRAY_HEADER_BYTES + 8L * ((windowCapacity >>> FLAG_SHIFT) + 2L * ARRAY_PAD) + OBJECT_BYTES;
    }

    /**
     * Registers the record at {@code offset}: it is pending until acked. Every offset between the previous registered
     * offset (or the start offset) and {@code offset} becomes a gap, which counts as done. Call it before the record
     * is handed to any other thread. Never allocates.
     *
     * <p>Source thread only.
     *
     * @param offset the record's offset, above every offset registered so far in this generation and not below the
     *               start offset.
     * @return {@link #REGISTERED}, or {@link #WINDOW_FULL} if {@code offset} lies beyond the window even after
     * advancing the watermark (nothing changed; pause the partition and call again later).
     * @throws IllegalArgumentException if {@code offset} is not above the last registered offset (or is below the
     *                                  start offset, or above {@link #MAX_OFFSET}): a programming error.
     */
    public int tryRegister(final long offset)
    {
        final long end = registeredEnd;
        if (offset < end || offset > MAX_OFFSET)
        {
            throw offsetNotIncreasing(offset, end);
        }

        final int outcome = extend(end, offset, offset + 1, offset);
        if (REGISTERED == outcome)
        {
            discardEarlyAck(offset);
        }
        return outcome;
    }

    /**
     * Declares that no record below {@code nextOffset} will be delivered beyond those already registered: the offsets
     * from {@link #registeredEnd()} up to {@code nextOffset - 1} become gaps (done). Use it with the consumer's
     * position when trailing transaction markers or aborted records were filtered out, so the committed offset can
     * reach the position. Never allocates.
     *
     * <p>Source thread only.
     *
     * @param nextOffset the next offset the consumer will deliver, at most {@link #MAX_OFFSET}; a value at or below
     *                   {@link #registeredEnd()} changes nothing.
     * @return {@link #REGISTERED}, or {@link #WINDOW_FULL} if {@code nextOffset - 1} lies beyond the window even after
     * advancing the watermark (nothing changed; call again later).
     * @throws IllegalArgumentException if {@code nextOffset} is above {@link #MAX_OFFSET}.
     */
    public int trySkipTo(final long nextOffset)
    {
        final long end = registeredEnd;
        if (nextOffset > MAX_OFFSET)
        {
            throw offsetNotIncreasing(nextOffset, end);
        }
        if (nextOffset <= end)
        {
            return REGISTERED;
        }

        return extend(end, nextOffset, nextOffset, nextOffset);
    }

    /**
     * Marks {@code offset} of {@code generation} durably written everywhere its record went. Lock-free (one
     * compare-and-set on the slot, retried only when another thread changed the same slot in between); never
     * allocates. Misuse is reported, counted, and never marks another offset done.
     *
     * <p>Any thread.
     *
     * @param offset     a registered, not yet acked offset.
     * @param generation the {@link #generation()} that was current when the offset was registered.
     * @return {@link #ACKED}; {@link #ACK_STALE_GENERATION} if a reset happened since (ignored, counted in
     * {@link #staleAcks()}); {@link #ACK_DUPLICATE} if the offset was already done, or
     * {@link #ACK_OUT_OF_WINDOW} if it is not in the current window (both programming errors, counted in
     * {@link #invalidAcks()}).
     */
    public int ack(final long offset, final int generation)
    {
        final long fresh = setFlags(offset >>> FLAG_SHIFT, 1L << (int)(offset & FLAG_INDEX_MASK), generation);
        if (fresh > 0)
        {
            return ACKED;
        }

        final int outcome = 0 == fresh ? ACK_DUPLICATE : (int)fresh;
        (ACK_STALE_GENERATION == outcome ? STALE_ACKS : INVALID_ACKS).getAndAdd(this, 1L);
        return outcome;
    }

    /**
     * Marks every offset in {@code offsets[fromIndex..toIndex)} of {@code generation} durably written, as
     * {@link #ack(long, int)} would one by one, but with one compare-and-set per block of 16 offsets instead of one per
     * offset: use it when a sink worker acks the offsets a sealed batch carried. Offsets in ascending order group best
     * (consecutive entries in the same block share one compare-and-set); any order is correct. Lock-free; never
     * allocates. Rejected offsets are counted as by {@link #ack(long, int)}: stale ones in {@link #staleAcks()},
     * duplicates and offsets outside the window in {@link #invalidAcks()}.
     *
     * <p>Any thread.
     *
     * @param offsets    offsets of this tracker's partition; the array is only read.
     * @param fromIndex  first index, inclusive.
     * @param toIndex    last index, exclusive.
     * @param generation the {@link #generation()} that was current when the offsets were registered.
     * @return how many offsets became done; less than {@code toIndex - fromIndex} if some were rejected.
     * @throws IndexOutOfBoundsException if the range is not inside the array (nothing was acked).
     */
    public int ackAll(final long[] offsets, final int fromIndex, final int toIndex, final int generation)
    {
        Objects.checkFromToIndex(fromIndex, toIndex, offsets.length);
        int acked = 0;
        int i = fromIndex;
        while (i < toIndex)
        {
            final long block = offsets[i] >>> FLAG_SHIFT;
            long mask = 0;
            int count = 0;
            do
            {
                mask |= 1L << (int)(offsets[i] & FLAG_INDEX_MASK);
                count++;
                i++;
            }
            while (i < toIndex && (offsets[i] >>> FLAG_SHIFT) == block);

            final long fresh = setFlags(block, mask, generation);
            if (fresh < 0)
            {
                (ACK_STALE_GENERATION == fresh ? STALE_ACKS : INVALID_ACKS).getAndAdd(this, (long)count);
                continue;
            }
            final int newlyDone = Long.bitCount(fresh);
            if (newlyDone != count)
            {
                INVALID_ACKS.getAndAdd(this, (long)(count - newlyDone));
            }
            acked += newlyDone;
        }
        return acked;
    }

    /**
     * Marks {@code offset} durably written, in the current generation. A convenience for callers that cannot race
     * with {@link #reset} (tests, single-threaded use): an ack that reads the new generation after a reset is applied
     * to the new generation. Engines that reset must use {@link #ack(long, int)}.
     *
     * <p>Any thread.
     *
     * @param offset a registered, not yet acked offset.
     * @return as {@link #ack(long, int)}.
     */
    public int ack(final long offset)
    {
        return ack(offset, (int)GENERATION.getAcquire(this));
    }

    /**
     * Reports that {@code offset} cannot be delivered (worst-status merge): the partition is failed from now on and
     * the watermark never passes the lowest failed offset. The first call that reported the lowest offset keeps its
     * code and reason. Lock-free; allocates one small immutable record (failure path only).
     *
     * <p>Any thread. A fail that happens before a {@link #watermark()} call is honoured by it; failing an offset that
     * was already acked, or that the watermark already passed, cannot move the watermark back (it stops there).
     *
     * @param offset     the offset whose record could not be delivered.
     * @param generation the {@link #generation()} that was current when the offset was registered.
     * @param errorCode  the caller's error code (for example a ClickHouse exception code); stored as given.
     * @param reason     a human-readable reason; null is stored as {@code "unspecified"}.
     * @return {@link #FAIL_RECORDED} if this is now the lowest failed offset, {@link #FAIL_SUPERSEDED} if an offset at
     * or below it had failed already, {@link #FAIL_STALE_GENERATION} if a reset happened since (ignored, counted in
     * {@link #staleAcks()}).
     */
    public int fail(final long offset, final int generation, final int errorCode, final String reason)
    {
        return fail(offset, generation, errorCode, reason, null);
    }

    /**
     * Reports that {@code offset} cannot be delivered yet because it waits for something under way on another thread
     * (its new table being set up): as {@link #fail(long, int, int, String)}, and the failure carries {@code awaited},
     * so the source reads the partition again once it has ended ({@link #failureAwaited()}) instead of on a timer.
     * Kept only when this is the lowest failed offset, like the code and reason.
     *
     * <p>Any thread. Lock-free; allocates one small immutable record (failure path only).
     *
     * @param offset     the offset whose record could not be delivered.
     * @param generation the {@link #generation()} that was current when the offset was registered.
     * @param errorCode  the caller's error code, normally {@link #CODE_AWAITING}.
     * @param reason     a human-readable reason; null is stored as {@code "unspecified"}.
     * @param awaited    what the offset waits for, or null (then the source re-reads on its backoff).
     * @return as {@link #fail(long, int, int, String)}.
     */
    public int fail(final long offset, final int generation, final int errorCode, final String reason,
        final Awaited awaited)
    {
        if ((int)GENERATION.getAcquire(this) != generation)
        {
            STALE_ACKS.getAndAdd(this, 1L);
            return FAIL_STALE_GENERATION;
        }

        AckFailure candidate = null;
        AckFailure current = (AckFailure)FAILURE.getAcquire(this);
        while (true)
        {
            if (null != current)
            {
                final int age = generation - current.generation();
                if (age < 0)
                {
                    STALE_ACKS.getAndAdd(this, 1L);
                    return FAIL_STALE_GENERATION;
                }
                if (0 == age && current.offset() <= offset)
                {
                    return FAIL_SUPERSEDED;
                }
            }

            if (null == candidate)
            {
                candidate = new AckFailure(generation, offset, errorCode, null == reason ? "unspecified" : reason,
                    awaited);
            }
            final AckFailure witness = (AckFailure)FAILURE.compareAndExchangeRelease(this, current, candidate);
            if (witness == current)
            {
                return FAIL_RECORDED;
            }
            current = witness;
        }
    }

    /**
     * Reports that {@code offset} cannot be delivered, in the current generation. The same caveat as
     * {@link #ack(long)} applies: use {@link #fail(long, int, int, String)} when resets can race.
     *
     * <p>Any thread.
     *
     * @param offset    the offset whose record could not be delivered.
     * @param errorCode the caller's error code.
     * @param reason    a human-readable reason; null is stored as {@code "unspecified"}.
     * @return as {@link #fail(long, int, int, String)}.
     */
    public int fail(final long offset, final int errorCode, final String reason)
    {
        return fail(offset, (int)GENERATION.getAcquire(this), errorCode, reason);
    }

    /**
     * Advances the watermark over consecutive done offsets (acked or gaps) and returns it: the offset to commit, that
     * is the offset of the next record to consume after a restart. The watermark never passes an offset that is not
     * done, never passes {@link #registeredEnd()}, and never passes the lowest failed offset. Each block of 16 offsets
     * it passes is recycled for the next lap of the ring. Amortised O(1) per offset, 16 offsets per slot read; never
     * allocates; reads the clock once when the watermark moved.
     *
     * <p>Source thread only.
     *
     * @return the watermark, between the start offset and {@link #registeredEnd()}; it never decreases within a
     * generation.
     */
    public long watermark()
    {
        long position = watermark;
        final long end = registeredEnd;
        if (position == end)
        {
            return position;
        }

        long limit = end;
        final AckFailure failure = (AckFailure)FAILURE.getAcquire(this);
        if (null != failure && failure.generation() == generation && failure.offset() < limit)
        {
            limit = failure.offset();
        }

        final long start = position;
        final long[] slots = this.slots;
        final int slotMask = this.slotMask;
        while (position < limit)
        {
            final long block = position >>> FLAG_SHIFT;
            final int index = ARRAY_PAD + (int)(block & slotMask);
            final long value = (long)SLOTS.getAcquire(slots, index);
            assert (value & TAG_MASK) == slotTag(block) : "slot tag does not match the watermark's block";

            final int first = (int)(position & FLAG_INDEX_MASK);
            final int run = Long.numberOfTrailingZeros(~((value & FLAGS_MASK) >>> first));
            final long next = position + run;
            if (next > limit)
            {
                position = limit;
                break;
            }
            position = next;
            if (first + run < FLAGS_PER_SLOT)
            {
                break;
            }
            // every offset of the block is done and nobody may write it again: re-tag it for the next lap
            SLOTS.setRelease(slots, index, slotTag(block + slotMask + 1));
        }

        if (position != start)
        {
            WATERMARK.setRelease(this, position);
            stampProgress();
        }
        else if (progressStampPending)
        {
            stampProgress();
        }

        return position;
    }

    /**
     * Whether {@code offset} is done in the current generation: acknowledged, or a gap. For a re-read, which re-sends
     * only the offsets that are not durably written yet. O(1); never allocates.
     *
     * <p>Source thread only.
     *
     * @param offset an offset in {@code [lastWatermark(), registeredEnd())}; below it every offset is done, at or
     *               beyond {@link #registeredEnd()} none is
     * @return true if done
     */
    public boolean isDone(final long offset)
    {
        if (offset < watermark)
        {
            return true;
        }
        if (offset >= registeredEnd)
        {
            return false;
        }
        final long block = offset >>> FLAG_SHIFT;
        final long value = (long)SLOTS.getAcquire(slots, ARRAY_PAD + (int)(block & slotMask));
        return (value & TAG_MASK) == slotTag(block) && (value & (1L << (int)(offset & FLAG_INDEX_MASK))) != 0;
    }

    /**
     * Starts a new generation at {@code startOffset}, after a seek (re-reading from the last commit) or a
     * reassignment: the watermark and {@link #registeredEnd()} become {@code startOffset}, every flag and the failure
     * are cleared, {@link #generation()} increases by one. Acks and fails of earlier generations are ignored from now
     * on; one that races with this call is either applied to the old generation and then discarded, or ignored. O(window
     * capacity / 16); never allocates.
     *
     * <p>Source thread only.
     *
     * @param startOffset the first offset the consumer will deliver now, in {@code [0, MAX_OFFSET]}.
     * @throws IllegalArgumentException if {@code startOffset} is out of range (nothing changed).
     */
    public void reset(final long startOffset)
    {
        checkStartOffset(startOffset);
        final int next = generation + 1;
        GENERATION.setRelease(this, next);
        FAILURE.setRelease(this, null);
        restart(startOffset);
    }

    /**
     * The generation that acks and fails of offsets registered from now on must carry. Starts at
     * {@link #INITIAL_GENERATION} and increases by one on each {@link #reset}.
     *
     * <p>Any thread.
     *
     * @return the current generation.
     */
    public int generation()
    {
        return (int)GENERATION.getAcquire(this);
    }

    /**
     * The highest registered offset plus one (after {@link #trySkipTo}, the skip target), or the start offset if
     * nothing was registered in this generation.
     *
     * <p>Any thread; exact on the source thread.
     *
     * @return the end of the registered range, exclusive.
     */
    public long registeredEnd()
    {
        return (long)REGISTERED_END.getOpaque(this);
    }

    /**
     * The watermark as last computed by {@link #watermark()} (or advanced by a registration that needed room),
     * without advancing it.
     *
     * <p>Any thread; use it for metrics and status, and {@link #watermark()} to commit.
     *
     * @return the last computed watermark.
     */
    public long lastWatermark()
    {
        return (long)WATERMARK.getOpaque(this);
    }

    /**
     * The number of offsets between the last computed watermark and {@link #registeredEnd()}: registered records not
     * yet passed by the watermark, plus gaps and acked offsets behind the first pending one.
     *
     * <p>Any thread; exact on the source thread, approximate elsewhere (never negative).
     *
     * @return the offsets in flight.
     */
    public long inFlight()
    {
        final long end = (long)REGISTERED_END.getOpaque(this);
        final long position = (long)WATERMARK.getOpaque(this);
        return Math.max(0L, end - position);
    }

    /**
     * The offset that holds the partition back: the last computed watermark if anything is in flight.
     *
     * <p>Any thread; approximate off the source thread.
     *
     * @return the oldest pending offset, or -1 if nothing is in flight.
     */
    public long pendingOldestOffset()
    {
        final long end = (long)REGISTERED_END.getOpaque(this);
        final long position = (long)WATERMARK.getOpaque(this);
        return end > position ? position : -1L;
    }

    /**
     * The clock value (nanoseconds, from the injected clock) of the last time the watermark advanced, the tracker was
     * created or reset, or {@link #watermark()} first found work after the partition had been idle (nothing in
     * flight): so an idle period never counts as a stall, and the stall clock starts at most one watermark call after
     * the first record arrives. For {@code checkpoint.stalled_fail_after_ms}.
     *
     * <p>Any thread.
     *
     * @return the time of the last progress, in the clock's nanoseconds.
     */
    public long lastProgressNanos()
    {
        return (long)LAST_PROGRESS_NANOS.getOpaque(this);
    }

    /**
     * How long the partition has been held back: {@code nowNanos - lastProgressNanos()} while anything is in flight,
     * 0 when nothing is (or when {@link #watermark()} has not run since an idle partition received work). Compare it
     * with {@code checkpoint.stalled_fail_after_ms}; call it after {@link #watermark()} in the same loop.
     *
     * <p>Any thread; approximate off the source thread.
     *
     * @param nowNanos the current time from the same clock as the tracker's.
     * @return the stall duration in nanoseconds, {@code >= 0}.
     */
    public long stalledNanos(final long nowNanos)
    {
        if (0 == inFlight() || (boolean)PROGRESS_STAMP_PENDING.getOpaque(this))
        {
            return 0L;
        }
        return Math.max(0L, nowNanos - lastProgressNanos());
    }

    /**
     * Whether an offset of the current generation failed (the partition is failed until {@link #reset}).
     *
     * <p>Any thread.
     *
     * @return true if failed.
     */
    public boolean failed()
    {
        return null != currentFailure();
    }

    /**
     * The lowest failed offset of the current generation.
     *
     * <p>Any thread.
     *
     * @return the offset, or -1 if nothing failed.
     */
    public long failedOffset()
    {
        final AckFailure failure = currentFailure();
        return null == failure ? -1L : failure.offset();
    }

    /**
     * The error code of a failure that is a wait, not an error: the record waits for something that is being made
     * ready (its new table, set up off the route stage), and the partition is read again from it once that has
     * ended ({@link #failureAwaited()}), or else once the backoff has passed. Logged at INFO, not WARN; the stall limit applies as to any failure.
     */
    public static final int CODE_AWAITING = Integer.MIN_VALUE;

    /**
     * The error code given with the lowest failed offset.
     *
     * <p>Any thread.
     *
     * @return the code, or 0 if nothing failed.
     */
    public int failureCode()
    {
        final AckFailure failure = currentFailure();
        return null == failure ? 0 : failure.code();
    }

    /**
     * The reason given with the lowest failed offset (by the first call that reported it).
     *
     * <p>Any thread.
     *
     * @return the reason, or null if nothing failed.
     */
    public String failureReason()
    {
        final AckFailure failure = currentFailure();
        return null == failure ? null : failure.reason();
    }

    /**
     * What the lowest failed offset waits for, when its failure is a wait reported with
     * {@link #fail(long, int, int, String, Awaited)}.
     *
     * <p>Any thread.
     *
     * @return the awaited work, or null if nothing failed or the failure carries none.
     */
    public Awaited failureAwaited()
    {
        final AckFailure failure = currentFailure();
        return null == failure ? null : failure.awaited();
    }

    /**
     * Acks and fails ignored because their generation was not the current one: expected after a {@link #reset}
     * while records of the old generation were still in flight. Cumulative over the tracker's life.
     *
     * <p>Any thread.
     *
     * @return the count.
     */
    public long staleAcks()
    {
        return (long)STALE_ACKS.getOpaque(this);
    }

    /**
     * Acks rejected or discarded as programming errors: duplicates, offsets outside the window, and acks that arrived
     * before their offset was registered (discarded at registration). Cumulative; should stay 0.
     *
     * <p>Any thread.
     *
     * @return the count.
     */
    public long invalidAcks()
    {
        return (long)INVALID_ACKS.getOpaque(this);
    }

    /**
     * The topic this tracker belongs to.
     *
     * <p>Any thread.
     *
     * @return the topic.
     */
    public String topic()
    {
        return topic;
    }

    /**
     * The partition this tracker belongs to.
     *
     * <p>Any thread.
     *
     * @return the partition.
     */
    public int partition()
    {
        return partition;
    }

    /**
     * The window capacity given at construction, in offsets.
     *
     * <p>Any thread.
     *
     * @return the window capacity.
     */
    public int windowCapacity()
    {
        return windowCapacity;
    }

    /**
     * A one-line status for logs (allocates).
     *
     * <p>Any thread; approximate off the source thread.
     *
     * @return topic-partition, generation, watermark, registered end and failure if any.
     */
    @Override
    public String toString()
    {
        final AckFailure failure = currentFailure();
        return "AckTracker{" + topic + '-' + partition +
            ", generation=" + generation() +
            ", watermark=" + lastWatermark() +
            ", registeredEnd=" + registeredEnd() +
            (null == failure
                ? ""
                : ", failedOffset=" + failure.offset() + ", failureCode=" + failure.code() +
                    ", failureReason=" + failure.reason())
            +
            '}';
    }

    private AckFailure currentFailure()
    {
        final AckFailure failure = (AckFailure)FAILURE.getAcquire(this);
        return null != failure && failure.generation() == (int)GENERATION.getAcquire(this) ? failure : null;
    }

    private long slotTag(final long block)
    {
        return tag(generation, block);
    }

    /**
     * The tag (generation and lap, flags clear) that the slot of {@code block} carries in {@code generation}.
     */
    private long tag(final int generation, final long block)
    {
        return ((long)generation << GENERATION_SHIFT) | (((block >>> slotShift) & LAP_MASK) << LAP_SHIFT);
    }

    private void restart(final long startOffset)
    {
        retagWindow(startOffset >>> FLAG_SHIFT);
        WATERMARK.setRelease(this, startOffset);
        REGISTERED_END.setRelease(this, startOffset);
        stampProgress();
    }

    private void stampProgress()
    {
        LAST_PROGRESS_NANOS.setRelease(this, nanoClock.getAsLong());
        PROGRESS_STAMP_PENDING.setRelease(this, false);
    }

    /**
     * Tags every slot for the window that starts at {@code firstBlock}, with no flags set.
     */
    private void retagWindow(final long firstBlock)
    {
        final long[] slots = this.slots;
        final int slotCount = slotMask + 1;
        for (int i = 0; i < slotCount; i++)
        {
            final long block = firstBlock + i;
            SLOTS.setRelease(slots, ARRAY_PAD + (int)(block & slotMask), slotTag(block));
        }
    }

    /**
     * Extends the registered range from {@code end} to {@code newEnd}: the offsets in {@code [end, gapEnd)} are gaps.
     * If the last offset lies beyond the window even after advancing the watermark, either jumps (nothing in flight:
     * the watermark becomes {@code jumpWatermark}) or changes nothing and returns {@link #WINDOW_FULL}.
     */
    private int extend(final long end, final long gapEnd, final long newEnd, final long jumpWatermark)
    {
        final long last = newEnd - 1;
        if (last >= (watermark & BLOCK_START_MASK) + windowCapacity)
        {
            final int room = makeRoom(last, jumpWatermark, newEnd, end);
            if (ROOM != room)
            {
                return JUMPED == room ? REGISTERED : WINDOW_FULL;
            }
        }

        if (watermark == end)
        {
            // the partition was idle: the stall clock starts at the next watermark() call, not at its last advance
            PROGRESS_STAMP_PENDING.setRelease(this, true);
        }
        if (gapEnd > end)
        {
            markDone(end, gapEnd);
        }
        REGISTERED_END.setRelease(this, newEnd);

        return REGISTERED;
    }

    /**
     * Slow path of a registration whose last offset {@code last} lies beyond the window: advance the watermark; if
     * that is not enough and nothing is in flight (and nothing failed), jump the whole window: the watermark becomes
     * {@code newWatermark} and the registered end {@code newEnd}.
     */
    private int makeRoom(final long last, final long newWatermark, final long newEnd, final long end)
    {
        final long position = watermark();
        if (last < (position & BLOCK_START_MASK) + windowCapacity)
        {
            return ROOM;
        }

        final AckFailure failure = (AckFailure)FAILURE.getAcquire(this);
        final boolean failed = null != failure && failure.generation() == generation;
        if (position == end && !failed)
        {
            retagWindow(newWatermark >>> FLAG_SHIFT);
            WATERMARK.setRelease(this, newWatermark);
            REGISTERED_END.setRelease(this, newEnd);
            stampProgress();
            return JUMPED;
        }

        return WINDOW_FULL;
    }

    /**
     * Sets the done flags of the gap {@code [from, to)}, all inside the current window.
     */
    private void markDone(final long from, final long to)
    {
        final long[] slots = this.slots;
        long offset = from;
        while (offset < to)
        {
            final long block = offset >>> FLAG_SHIFT;
            final long blockStart = block << FLAG_SHIFT;
            final int low = (int)(offset - blockStart);
            final int high = (int)(Math.min(to, blockStart + FLAGS_PER_SLOT) - blockStart);
            final long mask = ((1L << high) - 1) & -(1L << low);
            final long previous = (long)SLOTS.getAndBitwiseOrRelease(slots, ARRAY_PAD + (int)(block & slotMask), mask);
            assert (previous & TAG_MASK) == slotTag(block) : "gap outside the current window";
            offset = blockStart + high;
        }
    }

    /**
     * Clears the flag of {@code offset} if an ack arrived before its registration (a programming error), so that the
     * record is not taken as written before it really is.
     */
    private void discardEarlyAck(final long offset)
    {
        final int index = ARRAY_PAD + (int)((offset >>> FLAG_SHIFT) & slotMask);
        final long bit = 1L << (int)(offset & FLAG_INDEX_MASK);
        if (((long)SLOTS.getOpaque(slots, index) & bit) != 0)
        {
            final long previous = (long)SLOTS.getAndBitwiseAnd(slots, index, ~bit);
            if ((previous & bit) != 0)
            {
                INVALID_ACKS.getAndAdd(this, 1L);
            }
        }
    }

    /**
     * Sets the {@code mask} flags of {@code block} in one compare-and-set, if the slot carries the tag that
     * {@code generation} and the block's lap imply. Counts nothing.
     *
     * @return the flags this call set (0 if all were set already), or {@link #ACK_STALE_GENERATION} or
     * {@link #ACK_OUT_OF_WINDOW} if the tag did not match.
     */
    private long setFlags(final long block, final long mask, final int generation)
    {
        final long[] slots = this.slots;
        final int index = ARRAY_PAD + (int)(block & slotMask);
        final long expectedTag = tag(generation, block);

        long value = (long)SLOTS.getOpaque(slots, index);
        while (true)
        {
            if ((value & TAG_MASK) != expectedTag)
            {
                return (int)(value >>> GENERATION_SHIFT) != generation ? ACK_STALE_GENERATION : ACK_OUT_OF_WINDOW;
            }

            final long fresh = mask & ~value;
            if (0 == fresh)
            {
                return 0;
            }
            final long witness = (long)SLOTS.compareAndExchangeRelease(slots, index, value, value | fresh);
            if (witness == value)
            {
                return fresh;
            }
            value = witness;
        }
    }

    private IllegalArgumentException offsetNotIncreasing(final long offset, final long end)
    {
        return new IllegalArgumentException(
            "offset " + offset + " of " + topic + '-' + partition + " must be above the last registered offset " +
                "(registeredEnd=" + end + ") and at most " + MAX_OFFSET);
    }

    private static int checkPartition(final int partition)
    {
        if (partition < 0)
        {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
        return partition;
    }

    private static int checkWindowCapacity(final int windowCapacity)
    {
        if (windowCapacity < MIN_WINDOW_CAPACITY || windowCapacity > MAX_WINDOW_CAPACITY ||
            Integer.bitCount(windowCapacity) != 1)
        {
            throw new IllegalArgumentException(
                "windowCapacity must be a power of two in [" + MIN_WINDOW_CAPACITY + ", " + MAX_WINDOW_CAPACITY +
                    "]: " + windowCapacity);
        }
        return windowCapacity;
    }

    private static void checkStartOffset(final long startOffset)
    {
        if (startOffset < 0 || startOffset > MAX_OFFSET)
        {
            throw new IllegalArgumentException("startOffset must be in [0, " + MAX_OFFSET + "]: " + startOffset);
        }
    }
}
