package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.split.RowEncoder;

/**
 * {@link GatherDeadLetters#conversion}: what the branch's encoder reports becomes a dead letter's reason and stage; a
 * record the branch's own pass finds malformed or holding a key twice is invalid at stage parse, as when the
 * classifier's pass finds it (the hostile trial: a destination's first record, whose columns are bound after the
 * branch was chosen, got stage convert).
 */
class GatherDeadLettersTest
{
    private static final RowEncoder.Bound<Object> ENCODER = new RowEncoder.Bound<>()
    {
        @Override
        public List<String> columns()
        {
            return List.of("id");
        }

        @Override
        public String encode(final Object row, final net.openhft.chronicle.bytes.Bytes<?> out)
        {
            return null;
        }
    };

    @Test
    void shouldCallAMalformedRecordOrADuplicateKeyFoundByTheBranchAParseError()
    {
        final Destination d = new Destination(0, 0, "b", "db", "t", "`db`.`t`", List.of("`id`"), "s", ENCODER);
        for (final String message : List.of("malformed JSON: unexpected byte at byte 9",
            "duplicate key id at byte 16 (duplicate_keys = \"fail\"; \"first\" or \"last\" would take one of them)"))
        {
            final DeadLetter.Why why = GatherDeadLetters.conversion("b", d, message);
            assertEquals(DeadLetterReason.INVALID, why.reason(), message);
            assertEquals(DeadLetterHeaders.STAGE_PARSE, why.stage(), message);
            assertEquals(message, why.message());
        }
        final DeadLetter.Why convert = GatherDeadLetters.conversion("b", d,
            "column id (UInt8) from path id: value out of range for the column type (value 300)");
        assertEquals(DeadLetterHeaders.STAGE_CONVERT, convert.stage());
    }
}
