package io.sluice.ringbuffers;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One pre-allocated slot of a stage ring: a Kafka record copied off-heap plus its coordinates.
 *
 * <p>Storage layout (all in the slot, or in an {@link OverflowPool} buffer when the record is larger than the slot):
 * <pre>
 *   [value bytes][key bytes][headers: repeated (int32 nameLength, name UTF-8, int32 valueLength or -1, value bytes)]
 * </pre>
 * Lengths of -1 mean {@code null} (a tombstone value, an unkeyed record, a header without a value). Integers are in
 * the buffer's native order (the layout never leaves the process).
 *
 * <p>Lifecycle and threads: the producing stage (the source thread) claims a ring sequence, calls
 * {@link #beginRecord} and the {@code put*} methods, then publishes; each later stage reads through the views
 * ({@link #value()}, {@link #key()}, {@link #headerCount()}…) while it holds the sequence. The Disruptor's sequence
 * barriers give the happens-before edges; the event itself has no synchronisation. Nothing here allocates after
 * construction: views are re-wrapped flyweights.
 */
public final class RecordEvent
{
    /** A record to route. */
    public static final int KIND_RECORD = 0;
    /** A control event: every stage seals and hands on what it holds (used for drain, rebalance and shutdown). */
    public static final int KIND_FLUSH = 1;
    /** A control event that carries nothing; stages skip it. */
    public static final int KIND_NOOP = 2;

    /** Length value that stands for {@code null}. */
    public static final int NULL_LENGTH = -1;

    /** Timestamp type of a record without one (Kafka's {@code TimestampType.NO_TIMESTAMP_TYPE}, id -1). */
    public static final int NO_TIMESTAMP_TYPE = -1;
    /** The producer set the timestamp (Kafka's {@code TimestampType.CREATE_TIME}, id 0). */
    public static final int CREATE_TIME = 0;
    /** The broker set the timestamp when it appended the record (Kafka's {@code TimestampType.LOG_APPEND_TIME}, id 1). */
    public static final int LOG_APPEND_TIME = 1;

    private final UnsafeBuffer slot;
    private final UnsafeBuffer valueView;
    private final UnsafeBuffer keyView;
    private final UnsafeBuffer headerNameView;
    private final UnsafeBuffer headerValueView;

    private MutableDirectBuffer storage;
    private ExpandableDirectByteBuffer overflow;

    private int kind;
    private int topicId;
    private int partition;
    private long offset;
    private long timestampMs;
    private int timestampType = NO_TIMESTAMP_TYPE;
    private boolean keyAndHeaders;
    private int trackerId;
    private int trackerGeneration;
    private long publishNanos;
    private long flushToken;

    private int valueLength;
    private int keyLength;
    private int headerCount;
    private int writePosition;
    private boolean headerValueIsNull;
    private int tooLargeBytes;

    /**
     * @param slot the slab region this event owns for its whole life
     */
    public RecordEvent(final UnsafeBuffer slot)
    {
        this.slot = slot;
        this.storage = slot;
        this.valueView = new UnsafeBuffer(slot, 0, 0);
        this.keyView = new UnsafeBuffer(slot, 0, 0);
        this.headerNameView = new UnsafeBuffer(slot, 0, 0);
        this.headerValueView = new UnsafeBuffer(slot, 0, 0);
    }

    /** @return bytes a record may take in the slot itself; larger records need an overflow buffer */
    public int slotCapacity()
    {
        return slot.capacity();
    }

    /**
     * Bytes a record needs in storage, as laid out by this class.
     *
     * @param keyLength       key bytes or {@link #NULL_LENGTH}
     * @param valueLength     value bytes or {@link #NULL_LENGTH}
     * @param headerBytes     upper bound of header bytes from {@link #headerBytesBound(int, int)} summed, or 0
     * @return total bytes
     */
    public static int requiredBytes(final int keyLength, final int valueLength, final int headerBytes)
    {
        return Math.max(0, keyLength) + Math.max(0, valueLength) + headerBytes;
    }

    /**
     * Upper bound of the bytes one header takes in storage.
     *
     * @param nameChars   number of UTF-16 chars in the header name
     * @param valueLength header value bytes or {@link #NULL_LENGTH}
     * @return bytes
     */
    public static int headerBytesBound(final int nameChars, final int valueLength)
    {
        return 8 + nameChars * 3 + Math.max(0, valueLength);
    }

    /**
     * Starts a record in this event (source thread).
     *
     * @param overflowBuffer {@code null} to store in the slot, else a buffer borrowed from an {@link OverflowPool}
     *                       that this event holds until {@link #takeOverflow()}; it is grown to {@code totalBytes}
     * @param totalBytes     bytes the record needs, from {@link #requiredBytes}
     */
    public void beginRecord(
        final ExpandableDirectByteBuffer overflowBuffer,
        final int totalBytes,
        final int topicId,
        final int partition,
        final long offset,
        final long timestampMs,
        final int trackerId,
        final int trackerGeneration)
    {
        if (overflowBuffer == null)
        {
            if (totalBytes > slot.capacity())
            {
                throw new IllegalArgumentException(
                    "record of " + totalBytes + " bytes does not fit a slot of " + slot.capacity());
            }
            storage = slot;
        }
        else
        {
            overflowBuffer.checkLimit(totalBytes);
            storage = overflowBuffer;
        }
        this.overflow = overflowBuffer;
        this.kind = KIND_RECORD;
        this.topicId = topicId;
        this.partition = partition;
        this.offset = offset;
        this.timestampMs = timestampMs;
        this.trackerId = trackerId;
        this.trackerGeneration = trackerGeneration;
        this.valueLength = NULL_LENGTH;
        this.keyLength = NULL_LENGTH;
        this.headerCount = 0;
        this.writePosition = 0;
        this.tooLargeBytes = 0;
        this.timestampType = NO_TIMESTAMP_TYPE;
        this.keyAndHeaders = false;
    }

    /**
     * Sets the record's timestamp type (source thread, after {@link #beginRecord}); records start with
     * {@link #NO_TIMESTAMP_TYPE}.
     *
     * @param type {@link #CREATE_TIME}, {@link #LOG_APPEND_TIME} or {@link #NO_TIMESTAMP_TYPE} (Kafka's
     *             {@code TimestampType.id})
     */
    public void timestampType(final int type)
    {
        this.timestampType = type;
    }

    /** @return {@link #CREATE_TIME}, {@link #LOG_APPEND_TIME} or {@link #NO_TIMESTAMP_TYPE} */
    public int timestampType()
    {
        return timestampType;
    }

    /**
     * The name Kafka gives a timestamp type ({@code TimestampType.toString()}).
     *
     * @param type a timestamp type id
     * @return {@code CreateTime}, {@code LogAppendTime} or {@code NoTimestampType}
     */
    public static String timestampTypeName(final int type)
    {
        return switch (type)
        {
            case CREATE_TIME -> "CreateTime";
            case LOG_APPEND_TIME -> "LogAppendTime";
            default -> "NoTimestampType";
        };
    }

    /**
     * @return whether the source copied this record's key and headers (a {@code put*Key} call); a gather source
     *         copies them only while a stage needs them, so a null key and no headers can also mean "not copied"
     */
    public boolean hasKeyAndHeaders()
    {
        return keyAndHeaders;
    }

    /**
     * Marks a record that exceeds {@code max_record_bytes}: its bytes were not copied, and the stage that applies
     * the record error policy reports it with its size.
     *
     * @param bytes the record's size
     */
    public void markTooLarge(final int bytes)
    {
        this.tooLargeBytes = bytes;
    }

    /** @return the size of a record marked with {@link #markTooLarge(int)}, else 0 */
    public int tooLargeBytes()
    {
        return tooLargeBytes;
    }

    /**
     * Copies the value; call first after {@link #beginRecord}.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     */
    public void putValue(final byte[] value)
    {
        if (value == null)
        {
            valueLength = NULL_LENGTH;
            valueView.wrap(storage, 0, 0);
            return;
        }
        storage.putBytes(0, value);
        valueLength = value.length;
        writePosition = value.length;
        valueView.wrap(storage, 0, value.length);
    }

    /**
     * Copies the value from a byte buffer (its remaining bytes; its position is not changed); call first after
     * {@link #beginRecord}.
     *
     * @param value the value, or {@code null} for a tombstone
     */
    public void putValue(final java.nio.ByteBuffer value)
    {
        if (value == null)
        {
            valueLength = NULL_LENGTH;
            valueView.wrap(storage, 0, 0);
            return;
        }
        final int length = value.remaining();
        storage.putBytes(0, value, value.position(), length);
        valueLength = length;
        writePosition = length;
        valueView.wrap(storage, 0, length);
    }

    /**
     * Copies the key from a byte buffer (its remaining bytes; its position is not changed); call after the value.
     *
     * @param key the key, or {@code null} for an unkeyed record
     */
    public void putKey(final java.nio.ByteBuffer key)
    {
        keyAndHeaders = true;
        if (key == null)
        {
            keyLength = NULL_LENGTH;
            keyView.wrap(storage, writePosition, 0);
            return;
        }
        final int length = key.remaining();
        storage.putBytes(writePosition, key, key.position(), length);
        keyView.wrap(storage, writePosition, length);
        keyLength = length;
        writePosition += length;
    }

    /**
     * Copies the value from a direct buffer (the embedded API and file sources); call first after {@link #beginRecord}.
     */
    public void putValue(final DirectBuffer src, final int srcOffset, final int length)
    {
        storage.putBytes(0, src, srcOffset, length);
        valueLength = length;
        writePosition = length;
        valueView.wrap(storage, 0, length);
    }

    /**
     * Copies the key; call after the value.
     *
     * @param key the key bytes, or {@code null} for an unkeyed record
     */
    public void putKey(final byte[] key)
    {
        keyAndHeaders = true;
        if (key == null)
        {
            keyLength = NULL_LENGTH;
            keyView.wrap(storage, writePosition, 0);
            return;
        }
        storage.putBytes(writePosition, key);
        keyView.wrap(storage, writePosition, key.length);
        keyLength = key.length;
        writePosition += key.length;
    }

    /**
     * Copies the key from a direct buffer (the embedded API); call after the value.
     *
     * @param src       the key bytes
     * @param srcOffset index of the first byte
     * @param length    number of bytes
     */
    public void putKey(final DirectBuffer src, final int srcOffset, final int length)
    {
        keyAndHeaders = true;
        storage.putBytes(writePosition, src, srcOffset, length);
        keyView.wrap(storage, writePosition, length);
        keyLength = length;
        writePosition += length;
    }

    /**
     * Appends a header; call after the key. The name is encoded to UTF-8 without allocating.
     *
     * @param name  header name
     * @param value header value bytes or {@code null}
     */
    public void putHeader(final String name, final byte[] value)
    {
        final MutableDirectBuffer s = storage;
        final int lengthAt = writePosition;
        int p = lengthAt + 4;
        final int n = name.length();
        for (int i = 0; i < n; i++)
        {
            final char c = name.charAt(i);
            if (c < 0x80)
            {
                s.putByte(p++, (byte)c);
            }
            else if (c < 0x800)
            {
                s.putByte(p++, (byte)(0xC0 | (c >> 6)));
                s.putByte(p++, (byte)(0x80 | (c & 0x3F)));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(name.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, name.charAt(++i));
                s.putByte(p++, (byte)(0xF0 | (cp >> 18)));
                s.putByte(p++, (byte)(0x80 | ((cp >> 12) & 0x3F)));
                s.putByte(p++, (byte)(0x80 | ((cp >> 6) & 0x3F)));
                s.putByte(p++, (byte)(0x80 | (cp & 0x3F)));
            }
            else if (Character.isSurrogate(c))
            {
                s.putByte(p++, (byte)'?');
            }
            else
            {
                s.putByte(p++, (byte)(0xE0 | (c >> 12)));
                s.putByte(p++, (byte)(0x80 | ((c >> 6) & 0x3F)));
                s.putByte(p++, (byte)(0x80 | (c & 0x3F)));
            }
        }
        s.putInt(lengthAt, p - lengthAt - 4);
        if (value == null)
        {
            s.putInt(p, NULL_LENGTH);
            p += 4;
        }
        else
        {
            s.putInt(p, value.length);
            p += 4;
            s.putBytes(p, value);
            p += value.length;
        }
        writePosition = p;
        headerCount++;
    }

    /**
     * Turns this event into a control event (source thread); releases nothing.
     *
     * @param controlKind {@link #KIND_FLUSH} or {@link #KIND_NOOP}
     * @param token       a caller's token carried to the stages (e.g. a drain generation)
     */
    public void beginControl(final int controlKind, final long token)
    {
        this.kind = controlKind;
        this.flushToken = token;
        this.overflow = null;
        this.storage = slot;
        this.valueLength = NULL_LENGTH;
        this.keyLength = NULL_LENGTH;
        this.headerCount = 0;
        this.trackerId = -1;
        this.keyAndHeaders = false;
    }

    /**
     * Hands the overflow buffer (if any) to the caller, who returns it to its pool; the last stage calls this.
     *
     * @return the borrowed buffer or {@code null}
     */
    public ExpandableDirectByteBuffer takeOverflow()
    {
        final ExpandableDirectByteBuffer b = overflow;
        overflow = null;
        return b;
    }

    /** Sets the time the source published this event, {@link System#nanoTime()} units, for hop latency. */
    public void publishNanos(final long nanos)
    {
        this.publishNanos = nanos;
    }

    /** @return {@link #KIND_RECORD}, {@link #KIND_FLUSH} or {@link #KIND_NOOP} */
    public int kind()
    {
        return kind;
    }

    /** @return the value bytes (empty view when the value is null) */
    public DirectBuffer value()
    {
        return valueView;
    }

    /** @return value length in bytes, or {@link #NULL_LENGTH} for a tombstone */
    public int valueLength()
    {
        return valueLength;
    }

    /** @return the key bytes (empty view when unkeyed) */
    public DirectBuffer key()
    {
        return keyView;
    }

    /** @return key length in bytes, or {@link #NULL_LENGTH} */
    public int keyLength()
    {
        return keyLength;
    }

    /** @return number of headers stored */
    public int headerCount()
    {
        return headerCount;
    }

    /**
     * Finds a header by its UTF-8 name bytes; the last header with that name wins, as in Kafka's
     * {@code Headers.lastHeader}.
     *
     * @param name       name bytes
     * @param nameOffset offset in {@code name}
     * @param nameLength length of the name
     * @return a view of the header's value, or {@code null} when absent or when its value is null
     */
    public DirectBuffer lastHeader(final DirectBuffer name, final int nameOffset, final int nameLength)
    {
        final MutableDirectBuffer s = storage;
        int p = Math.max(0, valueLength) + Math.max(0, keyLength);
        int foundAt = -1;
        int foundLength = 0;
        for (int i = 0; i < headerCount; i++)
        {
            final int nl = s.getInt(p);
            final int nameAt = p + 4;
            final int vlAt = nameAt + nl;
            final int vl = s.getInt(vlAt);
            if (nl == nameLength && equalBytes(s, nameAt, name, nameOffset, nameLength))
            {
                foundAt = vl < 0 ? -2 : vlAt + 4;
                foundLength = Math.max(0, vl);
            }
            p = vlAt + 4 + Math.max(0, vl);
        }
        if (foundAt < 0)
        {
            return null;
        }
        headerValueView.wrap(s, foundAt, foundLength);
        return headerValueView;
    }

    /**
     * Visits header {@code index} (0-based, in arrival order) for tools and dead-letter copies.
     *
     * @return a view of the header name bytes; its value is then available from {@link #headerValue()}
     */
    public DirectBuffer headerName(final int index)
    {
        final MutableDirectBuffer s = storage;
        int p = Math.max(0, valueLength) + Math.max(0, keyLength);
        for (int i = 0;; i++)
        {
            final int nl = s.getInt(p);
            final int vl = s.getInt(p + 4 + nl);
            if (i == index)
            {
                headerNameView.wrap(s, p + 4, nl);
                if (vl < 0)
                {
                    headerValueView.wrap(s, p + 8 + nl, 0);
                    headerValueIsNull = true;
                }
                else
                {
                    headerValueView.wrap(s, p + 8 + nl, vl);
                    headerValueIsNull = false;
                }
                return headerNameView;
            }
            p += 8 + nl + Math.max(0, vl);
        }
    }

    /** @return the value of the header last visited with {@link #headerName(int)} ({@code null} when null) */
    public DirectBuffer headerValue()
    {
        return headerValueIsNull ? null : headerValueView;
    }

    private static boolean equalBytes(
        final DirectBuffer a, final int aOffset, final DirectBuffer b, final int bOffset, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (a.getByte(aOffset + i) != b.getByte(bOffset + i))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the interned topic id the source assigned (see the engine's topic registry) */
    public int topicId()
    {
        return topicId;
    }

    /** @return Kafka partition number */
    public int partition()
    {
        return partition;
    }

    /** @return Kafka offset */
    public long offset()
    {
        return offset;
    }

    /** @return Kafka record timestamp, epoch milliseconds */
    public long timestampMs()
    {
        return timestampMs;
    }

    /** @return id of the partition's ack tracker, or -1 for control events */
    public int trackerId()
    {
        return trackerId;
    }

    /** @return the tracker generation this record was registered under */
    public int trackerGeneration()
    {
        return trackerGeneration;
    }

    /** @return {@link System#nanoTime()} at publication */
    public long publishNanos()
    {
        return publishNanos;
    }

    /** @return the token of a control event */
    public long controlToken()
    {
        return flushToken;
    }

    /** @return true when the record is stored in an overflow buffer rather than the slot */
    public boolean overflowed()
    {
        return overflow != null;
    }
}
