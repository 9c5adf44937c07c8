package io.sluice.codecs.rowbinary;

import org.agrona.DirectBuffer;

/**
 * Allocation-free parsing of {@code YYYY-MM-DD} dates and ISO-8601 date-times into days and seconds since
 * 1970-01-01, in the proleptic Gregorian calendar.
 *
 * <p>Accepted date-time form: {@code YYYY-MM-DD}, then optionally {@code T}, {@code t} or a space and
 * {@code hh:mm[:ss[.f...]]} with 1 to 9 fraction digits (more are truncated), then optionally {@code Z}, {@code z},
 * {@code +hh:mm}, {@code +hhmm} or {@code +hh} (or {@code -}). Without a zone the time is local to the column's
 * zone. Leap seconds ({@code :60}) and offsets beyond 18 hours are rejected.
 */
final class DateTimes
{
    private DateTimes()
    {
    }

    /**
     * Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse; era arithmetic).
     */
    static long daysFromCivil(final long year, final int month, final int day)
    {
        final long y = month <= 2 ? year - 1 : year;
        final long era = Math.floorDiv(y, 400);
        final long yearOfEra = y - era * 400;
        final int shiftedMonth = month > 2 ? month - 3 : month + 9;
        final long dayOfYear = (153L * shiftedMonth + 2) / 5 + day - 1;
        final long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146097 + dayOfEra - 719468;
    }

    private static int daysInMonth(final int year, final int month)
    {
        if (month == 2)
        {
            final boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            return leap ? 29 : 28;
        }
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    }

    private static int digits(final DirectBuffer b, final int at, final int count)
    {
        int value = 0;
        for (int i = at; i < at + count; i++)
        {
            final int c = b.getByte(i) - '0';
            if (c < 0 || c > 9)
            {
                return -1;
            }
            value = value * 10 + c;
        }
        return value;
    }

    /**
     * Parses {@code YYYY-MM-DD} at the start of the text.
     *
     * @return the days since 1970-01-01, or {@link Long#MIN_VALUE} if malformed or not a real date.
     */
    static long parseDate(final DirectBuffer b, final int offset, final int length)
    {
        if (length < 10 || b.getByte(offset + 4) != '-' || b.getByte(offset + 7) != '-')
        {
            return Long.MIN_VALUE;
        }
        final int year = digits(b, offset, 4);
        final int month = digits(b, offset + 5, 2);
        final int day = digits(b, offset + 8, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
        {
            return Long.MIN_VALUE;
        }
        return daysFromCivil(year, month, day);
    }

    /**
     * Parses an ISO-8601 date-time.
     *
     * @return {@link ConversionError#NONE} or {@link ConversionError#BAD_DATETIME}; on success {@code s.resultHigh}
     *     holds UTC epoch seconds and {@code s.resultLow} the nanoseconds (0..999,999,999).
     */
    static int parseDateTime(final DirectBuffer b, final int offset, final int length, final ZoneOffsets zone,
        final EncodeScratch s)
    {
        final long days = parseDate(b, offset, length);
        if (days == Long.MIN_VALUE)
        {
            return ConversionError.BAD_DATETIME;
        }
        final int end = offset + length;
        int i = offset + 10;
        long seconds = days * 86400;
        long nanos = 0;
        if (i < end)
        {
            final int separator = b.getByte(i);
            if (separator == 'T' || separator == 't' || separator == ' ')
            {
                if (i + 6 > end || b.getByte(i + 3) != ':')
                {
                    return ConversionError.BAD_DATETIME;
                }
                final int hour = digits(b, i + 1, 2);
                final int minute = digits(b, i + 4, 2);
                if (hour < 0 || hour > 23 || minute < 0 || minute > 59)
                {
                    return ConversionError.BAD_DATETIME;
                }
                i += 6;
                int second = 0;
                if (i < end && b.getByte(i) == ':')
                {
                    if (i + 3 > end)
                    {
                        return ConversionError.BAD_DATETIME;
                    }
                    second = digits(b, i + 1, 2);
                    if (second < 0 || second > 59)
                    {
                        return ConversionError.BAD_DATETIME;
                    }
                    i += 3;
                    if (i < end && (b.getByte(i) == '.' || b.getByte(i) == ','))
                    {
                        i++;
                        int count = 0;
                        while (i < end && b.getByte(i) >= '0' && b.getByte(i) <= '9')
                        {
                            if (count < 9)
                            {
                                nanos = nanos * 10 + (b.getByte(i) - '0');
                            }
                            count++;
                            i++;
                        }
                        if (count == 0)
                        {
                            return ConversionError.BAD_DATETIME;
                        }
                        for (; count < 9; count++)
                        {
                            nanos *= 10;
                        }
                    }
                }
                seconds += hour * 3600L + minute * 60L + second;
            }
        }
        if (i == end)
        {
            s.resultHigh = zone.toEpochSecond(seconds);
            s.resultLow = nanos;
            return ConversionError.NONE;
        }
        final int designator = b.getByte(i);
        if ((designator == 'Z' || designator == 'z') && i + 1 == end)
        {
            s.resultHigh = seconds;
            s.resultLow = nanos;
            return ConversionError.NONE;
        }
        if (designator != '+' && designator != '-')
        {
            return ConversionError.BAD_DATETIME;
        }
        final int remaining = end - i - 1;
        int offsetHours;
        int offsetMinutes = 0;
        if (remaining == 2)
        {
            offsetHours = digits(b, i + 1, 2);
        }
        else if (remaining == 4)
        {
            offsetHours = digits(b, i + 1, 2);
            offsetMinutes = digits(b, i + 3, 2);
        }
        else if (remaining == 5 && b.getByte(i + 3) == ':')
        {
            offsetHours = digits(b, i + 1, 2);
            offsetMinutes = digits(b, i + 4, 2);
        }
        else
        {
            return ConversionError.BAD_DATETIME;
        }
        if (offsetHours < 0 || offsetHours > 18 || offsetMinutes < 0 || offsetMinutes > 59)
        {
            return ConversionError.BAD_DATETIME;
        }
        final int offsetSeconds = offsetHours * 3600 + offsetMinutes * 60;
        s.resultHigh = designator == '+' ? seconds - offsetSeconds : seconds + offsetSeconds;
        s.resultLow = nanos;
        return ConversionError.NONE;
    }
}
